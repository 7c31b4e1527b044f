/**
 * The `ctxscope` bin as a user runs it: a child process, real exit codes. Runs the built CLI when
 * `npm run build` has made it, else the TypeScript through tsx (the bin decides).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');
const bin = join(root, 'bin', 'ctxscope.mjs');
const run = (...args: string[]) => spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: 'utf8', timeout: 60_000 });

describe('ctxscope bin', () => {
  it('prints help naming its commands and exits 0', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/Usage: ctxscope/);
    expect(r.stdout).toMatch(/serve/);
  });

  it('exits 2 on an unknown command or flag', () => {
    expect(run('frobnicate').status).toBe(2);
    expect(run('serve', '--no-such-flag').status).toBe(2);
  });

  it('exits 2 with a clear message on a bad --port', () => {
    const r = run('serve', '--port', 'http');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--port: expected a port number/);
  });
});
