import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error — a plain .mjs script without type declarations
import { atLeast, nodeProblem, parseMinimum, parseVersion } from '../../../scripts/node-check.mjs';

const root = join(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  engines: { node: string };
  desktopEngines: { node: string };
};

describe('which Node each path needs', () => {
  it('package.json names both ranges: the CLI on 20.19, the desktop toolchain on 22.12', () => {
    expect(pkg.engines.node).toBe('>=20.19');
    expect(pkg.desktopEngines.node).toBe('>=22.12');
  });

  it('compares versions component by component', () => {
    expect(parseMinimum('>=22.12')).toEqual([22, 12, 0]);
    expect(parseVersion('v20.20.2')).toEqual([20, 20, 2]);
    expect(atLeast([22, 12, 0], [22, 12, 0])).toBe(true);
    expect(atLeast([22, 11, 99], [22, 12, 0])).toBe(false);
    expect(atLeast([23, 0, 0], [22, 12, 0])).toBe(true);
    expect(atLeast([20, 19, 0], [20, 19, 0])).toBe(true);
    expect(atLeast([20, 18, 3], [20, 19, 0])).toBe(false);
  });

  it('the desktop check refuses Node 20 with one sentence that names both versions and the way out', () => {
    const problem = nodeProblem('desktop', 'v20.20.2', pkg) as string;
    expect(problem).toMatch(/needs Node 22\.12 or newer/);
    expect(problem).toMatch(/this is Node 20\.20\.2/);
    expect(problem).toMatch(/npm run serve/);
    expect(problem.split(/(?<=\.)\s/).length).toBe(1);
    expect(nodeProblem('desktop', 'v22.12.0', pkg)).toBeNull();
    expect(nodeProblem('desktop', 'v24.1.0', pkg)).toBeNull();
  });

  it('the CLI check accepts 20.19 and refuses what is older', () => {
    expect(nodeProblem('cli', 'v20.19.0', pkg)).toBeNull();
    expect(nodeProblem('cli', 'v22.12.0', pkg)).toBeNull();
    expect(nodeProblem('cli', 'v18.20.4', pkg)).toMatch(/ctxscope needs Node 20\.19 or newer; this is Node 18\.20\.4/);
  });

  it('a range of another shape in package.json is reported, not guessed', () => {
    expect(() => nodeProblem('desktop', 'v22.12.0', { engines: { node: '>=20' }, desktopEngines: { node: '^22' } })).toThrow(
      /expected a Node range like ">=22.12"/,
    );
  });
});

describe('the scripts run the check first', () => {
  const running = process.version;
  const desktopOk = nodeProblem('desktop', running, pkg) === null;

  it('node scripts/node-check.mjs desktop exits as the running Node allows', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'node-check.mjs'), 'desktop'], { encoding: 'utf8' });
    if (desktopOk) {
      expect(r.status).toBe(0);
      expect(r.stderr).toBe('');
    } else {
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/desktop app needs Node 22\.12 or newer/);
    }
  });

  it.skipIf(desktopOk)('npm start on an older Node stops before building, with the sentence', () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'start.mjs')], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status).toBe(1);
    expect(r.stderr.trim()).toBe(nodeProblem('desktop', running, pkg));
  });

  it('npm run package and its platform variants check the desktop Node first', () => {
    const scripts = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    for (const name of ['package', 'package:linux', 'package:mac', 'package:win']) {
      expect(scripts[name]).toMatch(/^node scripts\/node-check\.mjs desktop && /);
    }
    expect(scripts.start).toBe('node scripts/start.mjs');
    expect(scripts.dev).toBe('node scripts/start.mjs --dev');
  });

  it('the ctxscope bin runs on this Node (the CLI path)', () => {
    expect(nodeProblem('cli', running, pkg)).toBeNull();
    const r = spawnSync(process.execPath, [join(root, 'bin', 'ctxscope.mjs'), '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stderr).not.toMatch(/needs Node/);
  });
});
