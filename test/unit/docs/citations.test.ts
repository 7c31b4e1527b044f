/**
 * The repository explains itself: comments and docs cite files inside it, never a document it
 * does not have, an issue number or a development round. Every `docs/….md` a source file or a doc
 * names must exist.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(__dirname, '..', '..', '..');

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'out' || name.startsWith('.')) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (/\.(ts|tsx|mjs|cjs|js|css|md)$/.test(name)) out.push(p);
  }
  return out;
}

const files = [
  ...walk(join(root, 'src')),
  ...walk(join(root, 'test')),
  ...walk(join(root, 'scripts')),
  ...walk(join(root, 'docs')),
  join(root, 'README.md'),
].filter(
  // This file names the patterns it looks for.
  (f) => !f.endsWith(join('test', 'unit', 'docs', 'citations.test.ts')),
);

const PATH_OUTSIDE = 'a path outside the repository';
const FORBIDDEN: readonly [RegExp, string][] = [
  [/\bDESIGN\.md\b/, 'DESIGN.md is not in the repository (cite docs/architecture.md)'],
  [/\bFORMATS\.md\b/, 'FORMATS.md is not in the repository (cite docs/reference/formats.md)'],
  // src/shared is the repository's own; ../shared/seeds and the like are not.
  [/(?:\.\.\/)+shared\/(?:seeds|corpus|hooks)\b|\/work\/shared\b/, PATH_OUTSIDE],
  [/\bissue #?\d+\b/i, 'an issue number'],
  [/\b(?:development )?round \d+\b|\bsession \d+ (?:figures|found|measured)/i, 'a development round'],
];

describe('comments and docs cite only files in the repository', () => {
  it('no citation of a document outside it, an issue or a round', () => {
    const found: string[] = [];
    for (const f of files) {
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          // Code may read a corpus folder beside the checkout when one is there; prose may not cite it.
          const prose = f.endsWith('.md') || /^\s*(?:\*|\/\/|\/\*)/.test(line) || /\/\/ /.test(line);
          for (const [re, why] of FORBIDDEN)
            if ((prose || why !== PATH_OUTSIDE) && re.test(line))
              found.push(`${relative(root, f)}:${i + 1}: ${why}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(found).toEqual([]);
  });

  it('a source file that names a policy source (S0–S4) points to docs/policies.md, which states its rules', () => {
    const unexplained = files
      .filter((f) => f.startsWith(join(root, 'src')) && /\.(ts|tsx)$/.test(f))
      .filter((f) => {
        const text = readFileSync(f, 'utf8');
        return /\bS[0-4](?:'s)?\b/.test(text) && !text.includes('docs/policies.md');
      })
      .map((f) => relative(root, f));
    expect(unexplained).toEqual([]);
  });

  it('every docs/… page cited exists', () => {
    const missing: string[] = [];
    for (const f of files) {
      const text = readFileSync(f, 'utf8');
      for (const m of text.matchAll(/\bdocs\/[\w./-]+\.md\b/g)) {
        if (!existsSync(join(root, m[0]))) missing.push(`${relative(root, f)}: ${m[0]}`);
      }
    }
    expect([...new Set(missing)]).toEqual([]);
  });
});
