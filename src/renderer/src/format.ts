/** Display helpers shared by the views. Pure; no DOM. */
import type { Part } from '../../core/model';

/**
 * `Math.round(n).toLocaleString('en-US')` ("12,345"), written by hand for the integers a count
 * can be: the list formats a few numbers per visible row at every step, and ICU's formatter was
 * the largest single cost of a step in the page (about 3 ms of it at 10,000 calls). Anything else
 * (-0, NaN, ±Infinity, beyond 2^53) goes to ICU as before.
 */
export const fmtInt = (n: number): string => {
  const r = Math.round(n);
  if (!Number.isSafeInteger(r) || Object.is(r, -0)) return r.toLocaleString('en-US');
  const digits = String(r < 0 ? -r : r);
  let out = digits.length % 3 === 0 ? '' : digits.slice(0, digits.length % 3);
  for (let i = digits.length % 3; i < digits.length; i += 3) out += (out ? ',' : '') + digits.slice(i, i + 3);
  return r < 0 ? '-' + out : out;
};

export function fmtTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return fmtInt(n);
}

/** Longest preview: longer ones end in "…" after PREVIEW_MAX - 1 characters. */
const PREVIEW_MAX = 240;
/** Previews made, by message parts (the same array while the message page is held). */
const previews = new WeakMap<readonly Part[], string>();

/**
 * One line that says what a message is, for the list: its parts' texts joined, white space
 * collapsed, cut at PREVIEW_MAX characters. Made once per message (the list re-renders its rows
 * at every step) and from only as much text as the line shows: a tool result can be megabytes.
 */
export function preview(parts: readonly Part[]): string {
  let line = previews.get(parts);
  if (line === undefined) previews.set(parts, (line = previewOf(parts)));
  return line;
}

function previewOf(parts: readonly Part[]): string {
  const bits: string[] = [];
  for (const p of parts) {
    if (p.kind === 'text' && p.text.trim()) bits.push(p.text);
    else if (p.kind === 'reasoning') bits.push(p.redacted ? '[reasoning, redacted]' : `[reasoning] ${p.text}`);
    else if (p.kind === 'tool_call') bits.push(`→ ${p.name}(${p.args})`);
    else if (p.kind === 'tool_result') bits.push(`${p.isError ? '✗' : '←'} ${p.text}`);
    else if (p.kind === 'media') bits.push(`[${p.mediaType}]`);
  }
  const joined = bits.join('  ');
  // Collapsing white space is local, so a prefix decides the line once its collapsed text, trimmed,
  // is longer than the line: the characters shown are the same as from the whole text. Try a
  // prefix a few times the line's length (runs of spaces), and the whole text only if that is short.
  for (let take = 4 * PREVIEW_MAX; take < joined.length; take *= 8) {
    const head = joined.slice(0, take).replace(/\s+/g, ' ').trim();
    if (head.length > PREVIEW_MAX) return head.slice(0, PREVIEW_MAX - 1) + '…';
  }
  const flat = joined.replace(/\s+/g, ' ').trim();
  return flat.length > PREVIEW_MAX ? flat.slice(0, PREVIEW_MAX - 1) + '…' : flat;
}

/** "1 turn", "2 turns", "0 aborts": a count and its noun in the form the count takes. */
export const plural = (n: number, one: string, many = `${one}s`): string => `${fmtInt(n)} ${Math.round(n) === 1 ? one : many}`;

/**
 * A setting's value in words for the config differences: "not set" rather than null, "on" / "off"
 * for a switch, a list joined with commas, an object as its fields — never raw JSON against null.
 */
export function settingText(v: unknown): string {
  if (v === null || v === undefined) return 'not set';
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  if (typeof v === 'number') return Number.isInteger(v) ? fmtInt(v) : String(v);
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.length === 0 ? 'none' : v.map(settingText).join(', ');
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    return entries.length === 0 ? 'none' : entries.map(([k, x]) => `${k} ${settingText(x)}`).join(', ');
  }
  return String(v);
}
