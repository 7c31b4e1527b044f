/**
 * Mutations of valid transcripts for the import fuzz suite: byte-level damage (truncation, flips,
 * invalid UTF-8, NUL, BOMs, UTF-16), line-level damage (duplicated, deleted, shuffled lines) and
 * structure-level damage (a wrong type in any field, keys reordered, deep nesting, one very long
 * word). Each is a plain description, so a failing case prints what was done to which file.
 */
import fc from 'fast-check';

export type Mutation =
  | { readonly kind: 'truncate'; readonly at: number }
  | { readonly kind: 'flip'; readonly at: readonly number[]; readonly bytes: readonly number[] }
  | { readonly kind: 'insertBytes'; readonly at: number; readonly bytes: readonly number[]; readonly what: string }
  | { readonly kind: 'bom'; readonly bom: 'utf8' | 'utf16le' | 'utf16be' }
  | { readonly kind: 'utf16' }
  | { readonly kind: 'duplicateLine'; readonly line: number }
  | { readonly kind: 'deleteLine'; readonly line: number }
  | { readonly kind: 'shuffleLines'; readonly seed: number }
  | { readonly kind: 'wrongType'; readonly path: readonly number[]; readonly value: unknown }
  | { readonly kind: 'reorderKeys'; readonly seed: number }
  | { readonly kind: 'deepNest'; readonly path: readonly number[]; readonly depth: number; readonly asArray: boolean }
  | { readonly kind: 'longWord'; readonly path: readonly number[]; readonly length: number };

/** Positions are fractions (0..1) of the input, so one mutation applies to any file. */
const frac = fc.double({ min: 0, max: 1, noNaN: true });
const path = fc.array(fc.nat(1000), { minLength: 0, maxLength: 8 });

/** Values of another type than most fields hold (null, numbers, strings, arrays, objects). */
const wrongValue = fc.oneof(
  fc.constant(null),
  fc.constant(true),
  fc.integer(),
  fc.double(),
  fc.constant(''),
  fc.string({ maxLength: 20 }),
  fc.constant([]),
  fc.constant({}),
  fc.array(fc.oneof(fc.integer(), fc.string({ maxLength: 5 }), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.integer(), fc.string({ maxLength: 5 })), { maxKeys: 3 }),
);

export const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  frac.map((at): Mutation => ({ kind: 'truncate', at })),
  fc
    .tuple(fc.array(frac, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(255), { minLength: 6, maxLength: 6 }))
    .map(([at, bytes]): Mutation => ({ kind: 'flip', at, bytes })),
  fc
    .tuple(
      frac,
      fc.constantFrom(
        { what: 'a lone 0xff', bytes: [0xff] },
        { what: 'a Latin-1 é', bytes: [0xe9] },
        { what: 'a stray continuation byte', bytes: [0x80] },
        { what: 'a cut 3-byte character', bytes: [0xe2, 0x82] },
        { what: 'an overlong encoding', bytes: [0xc0, 0xaf] },
        { what: 'a surrogate encoded in UTF-8', bytes: [0xed, 0xa0, 0x80] },
        { what: 'NUL', bytes: [0] },
        { what: 'NUL NUL', bytes: [0, 0] },
        { what: 'CR', bytes: [13] },
        { what: 'a line break', bytes: [10] },
      ),
    )
    .map(([at, b]): Mutation => ({ kind: 'insertBytes', at, bytes: b.bytes, what: b.what })),
  fc.constantFrom<'utf8' | 'utf16le' | 'utf16be'>('utf8', 'utf16le', 'utf16be').map((bom): Mutation => ({ kind: 'bom', bom })),
  fc.constant<Mutation>({ kind: 'utf16' }),
  fc.nat().map((line): Mutation => ({ kind: 'duplicateLine', line })),
  fc.nat().map((line): Mutation => ({ kind: 'deleteLine', line })),
  fc.nat().map((seed): Mutation => ({ kind: 'shuffleLines', seed })),
  fc.tuple(path, wrongValue).map(([p, value]): Mutation => ({ kind: 'wrongType', path: p, value })),
  fc.tuple(path, wrongValue).map(([p, value]): Mutation => ({ kind: 'wrongType', path: p, value })),
  fc.nat().map((seed): Mutation => ({ kind: 'reorderKeys', seed })),
  // Twice: deep nesting has to land in the few fields importers write back (tool arguments).
  fc
    .tuple(path, fc.integer({ min: 500, max: 20_000 }), fc.boolean())
    .map(([p, depth, asArray]): Mutation => ({ kind: 'deepNest', path: p, depth, asArray })),
  fc
    .tuple(path, fc.integer({ min: 500, max: 20_000 }), fc.boolean())
    .map(([p, depth, asArray]): Mutation => ({ kind: 'deepNest', path: p, depth, asArray })),
  fc.tuple(path, fc.integer({ min: 70_000, max: 400_000 })).map(([p, length]): Mutation => ({ kind: 'longWord', path: p, length })),
);

const enc = new TextEncoder();
const dec = new TextDecoder();

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A small deterministic generator (mulberry32) for shuffles driven by a fast-check seed. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Follows `path` (child indexes, modulo each container's size) as far as it leads. */
function at(value: unknown, p: readonly number[]): { parent: Record<string, unknown> | unknown[]; key: string | number } | undefined {
  let parent: Record<string, unknown> | unknown[] | undefined;
  let key: string | number | undefined;
  let v = value;
  for (const step of p) {
    if (Array.isArray(v) && v.length > 0) {
      parent = v;
      key = step % v.length;
      v = v[key];
    } else if (typeof v === 'object' && v !== null && Object.keys(v).length > 0) {
      const keys = Object.keys(v);
      parent = v as Record<string, unknown>;
      key = keys[step % keys.length]!;
      v = (v as Record<string, unknown>)[key];
    } else break;
  }
  return parent !== undefined && key !== undefined ? { parent, key } : undefined;
}

function set(target: { parent: Record<string, unknown> | unknown[]; key: string | number }, value: unknown): void {
  (target.parent as Record<string | number, unknown>)[target.key] = value;
}

function reorder(value: unknown, next: () => number): unknown {
  // Recursive: it runs on the valid fixtures (shallow), one mutation at a time.
  if (Array.isArray(value)) return value.map((v) => reorder(v, next));
  if (typeof value !== 'object' || value === null) return value;
  const keys = Object.keys(value).sort(() => next() - 0.5);
  const out: Record<string, unknown> = {};
  for (const k of keys) out[k] = reorder((value as Record<string, unknown>)[k], next);
  return out;
}

/** Text of `depth` nested arrays/objects around `inner` (built as text: no recursion). */
function nestedText(inner: string, depth: number, asArray: boolean): string {
  return asArray ? '['.repeat(depth) + inner + ']'.repeat(depth) : '{"k":'.repeat(depth) + inner + '}'.repeat(depth);
}

/**
 * A structural mutation of one JSON value (a JSONL line or the whole document): the value is
 * changed in place, then written back; a deep-nesting mutation is spliced in as text.
 */
function mutateValue(text: string, m: Mutation, lineSeed: number): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (m.kind === 'reorderKeys') return JSON.stringify(reorder(value, random(m.seed)));
  if (m.kind !== 'wrongType' && m.kind !== 'deepNest' && m.kind !== 'longWord') return undefined;
  const target = at(value, [lineSeed, ...m.path]);
  if (!target) return undefined;
  if (m.kind === 'wrongType') {
    set(target, m.value);
    return JSON.stringify(value);
  }
  if (m.kind === 'longWord') {
    set(target, 'w'.repeat(m.length));
    return JSON.stringify(value);
  }
  const marker = '"\u0000__deep__"';
  set(target, '\u0000__deep__');
  return JSON.stringify(value).replace(marker, nestedText(JSON.stringify(null), m.depth, m.asArray));
}

/** The mutated bytes (or the input unchanged when the mutation does not apply to it). */
export function applyMutation(input: Uint8Array, m: Mutation): Uint8Array {
  const pos = (f: number): number => Math.min(input.length, Math.floor(f * input.length));
  switch (m.kind) {
    case 'truncate':
      return input.subarray(0, pos(m.at));
    case 'flip': {
      const out = new Uint8Array(input);
      m.at.forEach((f, i) => {
        const p = Math.min(out.length - 1, pos(f));
        if (p >= 0) out[p] = m.bytes[i]!;
      });
      return out;
    }
    case 'insertBytes':
      return concat(input.subarray(0, pos(m.at)), Uint8Array.from(m.bytes), input.subarray(pos(m.at)));
    case 'bom':
      return concat(Uint8Array.from(m.bom === 'utf8' ? [0xef, 0xbb, 0xbf] : m.bom === 'utf16le' ? [0xff, 0xfe] : [0xfe, 0xff]), input);
    case 'utf16': {
      const text = dec.decode(input);
      const out = new Uint8Array(text.length * 2);
      for (let i = 0; i < text.length; i++) {
        out[2 * i] = text.charCodeAt(i) & 0xff;
        out[2 * i + 1] = text.charCodeAt(i) >> 8;
      }
      return out;
    }
    default:
      break;
  }
  const text = dec.decode(input);
  const lines = text.split('\n');
  if (m.kind === 'duplicateLine' || m.kind === 'deleteLine') {
    const i = m.line % lines.length;
    const out = m.kind === 'duplicateLine' ? [...lines.slice(0, i + 1), ...lines.slice(i)] : [...lines.slice(0, i), ...lines.slice(i + 1)];
    return enc.encode(out.join('\n'));
  }
  if (m.kind === 'shuffleLines') {
    const next = random(m.seed);
    return enc.encode([...lines].sort(() => next() - 0.5).join('\n'));
  }
  // Structural: the whole document when it parses, else one JSONL line.
  const whole = mutateValue(text, m, m.kind === 'reorderKeys' ? 0 : (m.path[0] ?? 0));
  if (whole !== undefined) return enc.encode(whole);
  const nonEmpty = lines.map((l, i) => (l.trim() ? i : -1)).filter((i) => i >= 0);
  if (nonEmpty.length === 0) return input;
  const seed = m.kind === 'reorderKeys' ? m.seed : (m.path[0] ?? 0);
  const i = nonEmpty[seed % nonEmpty.length]!;
  const changed = mutateValue(lines[i]!, m, m.kind === 'reorderKeys' ? 0 : (m.path[1] ?? 0));
  if (changed === undefined) return input;
  lines[i] = changed;
  return enc.encode(lines.join('\n'));
}
