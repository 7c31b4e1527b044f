/**
 * The generated reference pages (scripts/gen-docs.mjs, `npm run docs`) are what the code says now:
 * a new command, option or config key, or changed help text, fails here until the pages are
 * written again. And the generator itself covers what it claims to: every command of the program
 * and every key of the config schema.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../src/cli/index';
import { SET_KEY_NAMES } from '../../../src/core/config';
import { configLeaves } from '../../../src/core/config-fields';
import { POLICIES } from '../../../src/core/policies/index';
// @ts-expect-error — a plain .mjs script without type declarations
import { generateDocs, GENERATED_PAGES } from '../../../scripts/gen-docs.mjs';

const root = join(__dirname, '..', '..', '..');
type Pages = Record<string, string>;

describe('generated reference pages', () => {
  let pages: Pages;
  const load = async (): Promise<Pages> => (pages ??= (await generateDocs()) as Pages);

  it('the committed pages equal what `npm run docs` writes now', async () => {
    const now = await load();
    expect(Object.keys(now).sort()).toEqual([...(GENERATED_PAGES as string[])].sort());
    for (const [path, text] of Object.entries(now)) {
      // toBe on whole pages: a mismatch shows the differing lines.
      expect(readFileSync(join(root, path), 'utf8'), `${path} is out of date: run \`npm run docs\``).toBe(text);
    }
  });

  it('the CLI page has every command with its own help', async () => {
    const cli = (await load())['docs/reference/cli.md']!;
    const names = buildProgram().commands.map((c) => c.name());
    expect(names.length).toBeGreaterThan(5);
    for (const name of names) {
      expect(cli).toContain(`## ctxscope ${name}\n`);
      expect(cli).toContain(`Usage: ctxscope ${name} `);
    }
  });

  it('the config page has a row for every schema key, every --set key, and the policies that ignore it', async () => {
    const config = (await load())['docs/reference/config.md']!;
    const rows = new Map(
      config
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => [/^\| `([^`]+)`/.exec(l)![1]!, l]),
    );
    for (const { key } of configLeaves()) expect(rows.has(key), key).toBe(true);
    for (const key of SET_KEY_NAMES) expect(rows.get(key) ?? '', key).toContain('`--set`');
    // s1 turns the proactive check off (docs/policies.md §S1: the guard ends the run instead of
    // compressing), so the trigger does nothing under it; s2 compresses at 85% of the window, so it
    // does not ignore it.
    expect(POLICIES.some((p) => p.id === 's1')).toBe(true);
    const ignored = rows.get('trigger')!.split('|').at(-2)!;
    expect(ignored).toMatch(/\bs1\b/);
    expect(ignored).not.toMatch(/\bs2\b/);
    // `CTXSCOPE_<KEY>`: a capital starts a word, a dot becomes an underscore.
    expect(rows.get('budget.toolCalls')).toContain('`CTXSCOPE_BUDGET_TOOL_CALLS`');
  });
});
