/**
 * The CLI on input nested past the documented depth and on invalid UTF-8: one line on stderr
 * naming file, line and column, exit code 3 (bad input) — not "Maximum call stack size
 * exceeded" with exit 1, not "near byte 0".
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../src/cli/index';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-input-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function cli(...args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    return { code: await main(args), stderr };
  } finally {
    err.mockRestore();
    out.mockRestore();
  }
}

describe('ctxscope inspect on hostile input', () => {
  it('a tool schema nested 6,000 deep: exit 3, FILE:LINE:COL', async () => {
    const file = join(dir, 'deep.json');
    const schema = '{"a":'.repeat(6000) + '1' + '}'.repeat(6000);
    // A chat request on one line; the schema starts after 108 characters, 4 brackets deep (the
    // document, "tools", the tool, "function"): the 1,001st bracket is the schema's 997th `{`,
    // at column 108 + 5 × 996 + 1 = 5089.
    const prefix = '{"messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":';
    expect(prefix.length).toBe(108);
    writeFileSync(file, prefix + schema + '}}]}\n');
    const r = await cli('inspect', file);
    expect(r.code).toBe(3);
    expect(r.stderr).not.toMatch(/call stack/);
    expect(r.stderr).toMatch(
      new RegExp(`^ctxscope: ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:1:5089: JSON nested at most 1,000 levels deep`),
    );
  });

  it('invalid UTF-8 deep in a file: exit 3, its byte and line', async () => {
    const file = join(dir, 'latin1.jsonl');
    const line = JSON.stringify({ role: 'user', content: 'hello' });
    const head = Buffer.from(Array.from({ length: 40 }, () => line).join('\n') + '\n' + '{"role":"user","content":"caf');
    writeFileSync(file, Buffer.concat([head, Buffer.from([0xe9]), Buffer.from('"}\n')]));
    const r = await cli('inspect', file);
    expect(r.code).toBe(3);
    // 40 lines of `line` and their newlines, then 29 bytes of line 41 before the é.
    const at = 40 * (line.length + 1) + 29;
    expect(r.stderr).toContain(`${file}:41:30: valid UTF-8 text, found an invalid byte sequence at byte ${at} (0xe9)`);
  });
});
