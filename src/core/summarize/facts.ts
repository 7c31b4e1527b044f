/**
 * The facts a summary must keep and retention tracks: file paths, identifiers, numbers and
 * names. Deterministic regexes, tuned to be specific (a bare "the" or "1" is not a fact).
 */
export type FactKind = 'path' | 'identifier' | 'number' | 'name';

const PATH = /(?:^|[\s"'`(=:])((?:\.{0,2}\/)?(?:[\w.-]+\/)+[\w.-]+\.\w{1,8}|[\w-]+\.(?:ts|tsx|js|jsx|mjs|py|go|rs|java|rb|md|json|yaml|yml|toml|sql|sh|css|html|c|h|cpp|txt))\b/g;
const IDENT = /\b([a-z]+(?:[A-Z][a-z0-9]+)+|[a-z]+(?:_[a-z0-9]+)+|[A-Z]{2,}-\d+)\b/g;
const NUMBER = /(?<![\w.])(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+|\d{3,})(?![\w.])/g;
const NAME = /\b([A-Z][a-z]+(?:[A-Z][a-z]+)+)\b/g;

export interface Fact {
  readonly key: string;
  readonly kind: FactKind;
}

/** Distinct facts in a text, in order of first appearance. */
export function extractFacts(raw: string): Fact[] {
  // JSON keys of tool arguments ("old_string": …) are structure, not facts.
  const text = raw.replace(/"[\w$-]+"\s*:/g, ' ');
  const seen = new Set<string>();
  const out: Fact[] = [];
  const add = (key: string, kind: FactKind): void => {
    if (key.length < 3 || seen.has(key)) return;
    seen.add(key);
    out.push({ key, kind });
  };
  for (const m of text.matchAll(PATH)) add(m[1]!, 'path');
  for (const m of text.matchAll(IDENT)) add(m[1]!, 'identifier');
  for (const m of text.matchAll(NAME)) add(m[1]!, 'name');
  for (const m of text.matchAll(NUMBER)) add(m[1]!, 'number');
  return out;
}
