/**
 * JSON text of values that come from transcripts, without recursion. A tool call's arguments can
 * be nested as deep as whoever wrote the transcript liked; the engine's `JSON.stringify` recurses
 * and overflows the call stack at some ten thousand levels, so exports write JSON with their own
 * stack here, and rewrite the strings of a JSON text in place (the redaction of arguments) by
 * scanning its tokens rather than by parsing it into objects and writing them back.
 */

/**
 * Indentation grows up to this depth; deeper levels are written compact. Indenting every level of
 * a value nested 10,000 deep would write ~10^8 spaces (the size grows with the square of the depth).
 */
const MAX_INDENTED_DEPTH = 64;

/**
 * The same text as `JSON.stringify(value, null, indent)` for JSON data (objects, arrays, strings,
 * numbers, booleans, null) up to MAX_INDENTED_DEPTH levels; below that, compact.
 */
export function stringifyJson(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent);
  const out: string[] = [];
  type Frame = {
    readonly close: string;
    readonly items: readonly (readonly [key: string | null, value: unknown])[];
    i: number;
    readonly depth: number;
  };
  const stack: Frame[] = [];
  const newline = (depth: number): string => (indent > 0 && depth < MAX_INDENTED_DEPTH ? '\n' + pad.repeat(depth) : '');
  /** Writes a scalar, or opens a container (its items follow from the stack). */
  const open = (v: unknown, depth: number): void => {
    if (v === null) out.push('null');
    else if (typeof v === 'string' || typeof v === 'boolean') out.push(JSON.stringify(v));
    else if (typeof v === 'number') out.push(Number.isFinite(v) ? String(v) : 'null');
    else if (Array.isArray(v)) {
      if (v.length === 0) out.push('[]');
      else {
        out.push('[');
        stack.push({
          close: ']',
          items: v.map((x) => [null, x === undefined || typeof x === 'function' ? null : x] as const),
          i: 0,
          depth: depth + 1,
        });
      }
    } else if (typeof v === 'object') {
      const items = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined && typeof x !== 'function');
      if (items.length === 0) out.push('{}');
      else {
        out.push('{');
        stack.push({ close: '}', items, i: 0, depth: depth + 1 });
      }
    } else out.push('null');
  };
  open(value, 0);
  while (stack.length > 0) {
    const f = stack[stack.length - 1]!;
    if (f.i === f.items.length) {
      stack.pop();
      out.push(newline(f.depth - 1) + f.close);
      continue;
    }
    const [key, v] = f.items[f.i]!;
    out.push((f.i > 0 ? ',' : '') + newline(f.depth) + (key !== null ? JSON.stringify(key) + (indent > 0 ? ': ' : ':') : ''));
    f.i++;
    open(v, f.depth);
  }
  return out.join('');
}

/**
 * `text` (valid JSON) with every string literal — keys and values — replaced by the JSON of
 * `visit(its value)`; the rest of the text is kept as it was. One forward scan.
 */
export function mapJsonStrings(text: string, visit: (s: string) => string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) !== 34) continue;
    let j = i + 1;
    while (j < text.length && text.charCodeAt(j) !== 34) j += text.charCodeAt(j) === 92 ? 2 : 1;
    const literal = text.slice(i, j + 1);
    const value = JSON.parse(literal) as string;
    const next = visit(value);
    if (next !== value) {
      out += text.slice(from, i) + JSON.stringify(next);
      from = j + 1;
    }
    i = j;
  }
  return from === 0 ? text : out + text.slice(from);
}
