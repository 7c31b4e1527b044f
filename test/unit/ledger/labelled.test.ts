/**
 * The ledger's extraction measured on excerpts of real transcripts labelled by hand
 * (test/fixtures/ledger/README.md says where each comes from and how it was labelled). Prints
 * recall and precision per kind; fails below recall 90% / precision 80% on paths, errors and
 * identifiers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../../src/core/model';
import { extractItems, type LedgerKind } from '../../../src/core/ledger/extract';

interface Excerpt {
  readonly source: string;
  readonly message: number;
  readonly role: Message['role'];
  readonly part: Part;
}
type Labels = { readonly excerpt: number } & Partial<Record<LedgerKind, readonly string[]>>;

const dir = join(__dirname, '../../fixtures/ledger');
const excerpts = JSON.parse(readFileSync(join(dir, 'excerpts.json'), 'utf8')) as Excerpt[];
const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as Labels[];
const MEASURED: readonly LedgerKind[] = ['path', 'error', 'identifier', 'command'];
const GATED: readonly LedgerKind[] = ['path', 'error', 'identifier'];

const norm = (kind: LedgerKind, v: string): string => {
  const flat = v.trim().replace(/\s+/g, ' ');
  return kind === 'path' ? flat.replace(/\/$/, '') : flat;
};
/** Paths and identifiers match exactly; an error or command matches when one holds the other (a line vs. the message in it). */
const matches = (kind: LedgerKind, got: string, want: string): boolean =>
  kind === 'path' || kind === 'identifier' ? got === want : got.includes(want) || want.includes(got);

function score() {
  const out = new Map<LedgerKind, { tp: number; labelled: number; found: number; hit: number; missed: string[]; wrong: string[] }>();
  for (const k of MEASURED) out.set(k, { tp: 0, labelled: 0, found: 0, hit: 0, missed: [], wrong: [] });
  for (const l of labels) {
    const e = excerpts[l.excerpt]!;
    const m: Message = { id: `m${e.message}`, role: e.role, parts: [e.part] };
    const items = extractItems(m);
    for (const k of MEASURED) {
      const s = out.get(k)!;
      const want = (l[k] ?? []).map((v) => norm(k, v));
      const got = [...new Set(items.filter((i) => i.kind === k).map((i) => norm(k, i.value)))];
      s.labelled += want.length;
      s.found += got.length;
      for (const w of want)
        if (got.some((g) => matches(k, g, w))) s.tp++;
        else s.missed.push(`#${l.excerpt} ${w}`);
      for (const g of got)
        if (want.some((w) => matches(k, g, w))) s.hit++;
        else s.wrong.push(`#${l.excerpt} ${g}`);
    }
  }
  return out;
}

describe('loss ledger extraction on the labelled corpus excerpts', () => {
  it('the fixture labels every excerpt once', () => {
    expect(labels.map((l) => l.excerpt).sort((a, b) => a - b)).toEqual(excerpts.map((_, i) => i));
  });

  const scores = score();
  const rows = [...scores].map(([kind, s]) => ({
    kind,
    labelled: s.labelled,
    found: s.found,
    recall: s.labelled ? s.tp / s.labelled : 1,
    precision: s.found ? s.hit / s.found : 1,
  }));
  console.log(
    'loss ledger extraction, labelled excerpts:\n' +
      rows
        .map(
          (r) =>
            `  ${r.kind.padEnd(11)} labelled ${String(r.labelled).padStart(3)}  found ${String(r.found).padStart(3)}  recall ${(r.recall * 100).toFixed(1).padStart(5)}%  precision ${(r.precision * 100).toFixed(1).padStart(5)}%`,
        )
        .join('\n'),
  );
  for (const [kind, s] of scores)
    if (s.missed.length || s.wrong.length)
      console.log(`  ${kind} missed: ${JSON.stringify(s.missed)}\n  ${kind} wrong: ${JSON.stringify(s.wrong)}`);

  for (const kind of GATED) {
    it(`${kind}: recall ≥ 90% and precision ≥ 80%`, () => {
      const r = rows.find((x) => x.kind === kind)!;
      expect(r.labelled).toBeGreaterThan(0);
      expect(r.recall).toBeGreaterThanOrEqual(0.9);
      expect(r.precision).toBeGreaterThanOrEqual(0.8);
    });
  }
});
