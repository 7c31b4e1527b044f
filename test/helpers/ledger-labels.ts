/**
 * Scores the ledger's extraction (src/core/ledger/extract.ts) against a labelled set of excerpts
 * (test/fixtures/ledger/README.md and holdout/README.md say how each set was labelled): recall and
 * precision per kind, with the labels it missed and the items it found that no label names.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message, Part } from '../../src/core/model';
import { extractItems, LEDGER_KINDS, type LedgerKind } from '../../src/core/ledger/extract';

interface Excerpt {
  readonly source: string;
  readonly message: number;
  readonly role: Message['role'];
  readonly part: Part;
}
type Labels = { readonly excerpt: number } & Partial<Record<LedgerKind, readonly string[]>>;

export interface LabelledSet {
  readonly excerpts: readonly Excerpt[];
  readonly labels: readonly Labels[];
}

export interface KindScore {
  readonly kind: LedgerKind;
  readonly labelled: number;
  readonly found: number;
  /** Labels the extractor found / labels; 1 when nothing is labelled. */
  readonly recall: number;
  /** Items that match a label / items found; 1 when nothing is found. */
  readonly precision: number;
  readonly missed: readonly string[];
  readonly wrong: readonly string[];
}

/** The kinds the gate holds to recall ≥ 90% and precision ≥ 80%. */
export const GATED: readonly LedgerKind[] = ['path', 'error', 'identifier'];
export const RECALL_GATE = 0.9;
export const PRECISION_GATE = 0.8;

export function loadSet(dir: string): LabelledSet {
  return {
    excerpts: JSON.parse(readFileSync(join(dir, 'excerpts.json'), 'utf8')) as Excerpt[],
    labels: JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as Labels[],
  };
}

/** Sentences are compared without a list number, markup quotes, the ellipsis of a clipped item or end punctuation. */
const SENTENCE_KINDS: ReadonlySet<LedgerKind> = new Set(['decision', 'instruction', 'error', 'command']);

function norm(kind: LedgerKind, v: string): string {
  const flat = v.trim().replace(/\s+/g, ' ');
  if (kind === 'path') return flat.replace(/\/$/, '');
  if (!SENTENCE_KINDS.has(kind)) return flat;
  const s = kind === 'decision' || kind === 'instruction' ? flat.replace(/^\d+\.\s+/, '').toLowerCase() : flat;
  return s.replace(/…$/, '').replace(/[.:!,;]+$/, '');
}

/**
 * Paths, identifiers and numbers match exactly; an error, a command, a decision or an instruction
 * when one text holds the other (the extractor keeps whole lines and sentences, a label may be the
 * message inside the line, and a sentence the extractor clipped at its length cap is its prefix).
 */
function matches(kind: LedgerKind, got: string, want: string): boolean {
  if (!SENTENCE_KINDS.has(kind)) return got === want;
  return got.length > 0 && want.length > 0 && (got.includes(want) || want.includes(got));
}

export function scoreSet(set: LabelledSet): KindScore[] {
  const acc = new Map<LedgerKind, { tp: number; labelled: number; found: number; hit: number; missed: string[]; wrong: string[] }>();
  for (const k of LEDGER_KINDS) acc.set(k, { tp: 0, labelled: 0, found: 0, hit: 0, missed: [], wrong: [] });
  for (const l of set.labels) {
    const e = set.excerpts[l.excerpt]!;
    const m: Message = { id: `m${e.message}`, role: e.role, parts: [e.part] };
    const items = extractItems(m);
    for (const k of LEDGER_KINDS) {
      const s = acc.get(k)!;
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
  return [...acc].map(([kind, s]) => ({
    kind,
    labelled: s.labelled,
    found: s.found,
    recall: s.labelled ? s.tp / s.labelled : 1,
    precision: s.found ? s.hit / s.found : 1,
    missed: s.missed,
    wrong: s.wrong,
  }));
}

const pct = (x: number): string => (x * 100).toFixed(1).padStart(5) + '%';

/** The table a test prints: one row per kind, gated kinds marked, then what was missed and found wrongly. */
export function formatScores(title: string, rows: readonly KindScore[]): string {
  const lines = rows.map(
    (r) =>
      `  ${r.kind.padEnd(11)} ${GATED.includes(r.kind) ? 'gated' : '     '}  labelled ${String(r.labelled).padStart(3)}  found ${String(r.found).padStart(3)}  recall ${pct(r.recall)}  precision ${pct(r.precision)}`,
  );
  const detail = rows
    .filter((r) => r.missed.length || r.wrong.length)
    .map((r) => `  ${r.kind} missed: ${JSON.stringify(r.missed)}\n  ${r.kind} wrong: ${JSON.stringify(r.wrong)}`);
  return `${title}\n${lines.join('\n')}\n${detail.join('\n')}`;
}
