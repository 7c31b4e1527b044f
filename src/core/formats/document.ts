/**
 * What the document shapes of the formats share (types.ts `DocumentShape`; the host's walk of a
 * document written again whole: src/main/store/tail-document.ts).
 */
import type { Message } from '../model';
import type { DocumentShape } from './types';

/** `convert` for a shape whose elements convert one by one. */
export const eachAlone =
  (one: (element: unknown, index: number, path: string, skeleton: Record<string, unknown>) => Message[]): DocumentShape['convert'] =>
  (elements, first, c) =>
    elements.map((e, j) => one(e, first + j, c.path, c.skeleton));

/** The elements of an array found by its closing bracket were not counted (DocumentShape.indexFree). */
export const UNCOUNTED = -1;

/** The bytes end inside the document (still being written). */
export const SHORT = new Error('document cut short');

const isSpace = (c: number | undefined): boolean => c === 32 || c === 10 || c === 13 || c === 9;

/** The first byte at or after `at` that is not JSON whitespace. */
export function skipSpace(b: Uint8Array, at: number): number {
  while (at < b.length && isSpace(b[at])) at++;
  return at;
}

/** The end of the string whose opening quote is at `at` (a run of backslashes before a quote decides); throws SHORT when the bytes end inside it. */
export function stringEnd(b: Uint8Array, at: number): number {
  for (let i = at + 1; ;) {
    const q = b.indexOf(34, i);
    if (q < 0) throw SHORT;
    let k = q - 1;
    while (b[k] === 92) k--;
    if ((q - 1 - k) % 2 === 0) return q + 1;
    i = q + 1;
  }
}

/** The end of the JSON value starting at `at`, by its structure alone (JSON.parse checks the rest). */
export function valueEnd(b: Uint8Array, at: number): number {
  const c = b[at];
  if (c === undefined) throw SHORT;
  if (c === 34) return stringEnd(b, at);
  if (c === 123 || c === 91) {
    let depth = 0;
    for (let i = at; i < b.length;) {
      const x = b[i]!;
      if (x === 34) {
        i = stringEnd(b, i);
        continue;
      }
      if (x === 123 || x === 91) depth++;
      else if ((x === 125 || x === 93) && --depth === 0) return i + 1;
      i++;
    }
    throw SHORT;
  }
  let i = at;
  while (i < b.length && !isSpace(b[i]) && b[i] !== 44 && b[i] !== 93 && b[i] !== 125) i++;
  if (i >= b.length) throw SHORT;
  return i;
}
