/**
 * `--shard I/N`: which of N shares a transcript belongs to. The share is a stable hash of the
 * path (FNV-1a, 32-bit, over its UTF-16 code units) modulo N, so every machine that sees the same
 * path puts it in the same share, whatever order or machine lists the files.
 */

export interface Shard {
  /** 1-based, as written on the command line. */
  readonly index: number;
  readonly count: number;
}

export const UNSHARDED: Shard = { index: 1, count: 1 };

/** Parses `I/N` (1 ≤ I ≤ N); the error says what was expected. */
export function parseShard(text: string): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (!m) throw new Error(`--shard: expected I/N (e.g. 2/8), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1 || index < 1 || index > count) throw new Error(`--shard: expected 1 ≤ I ≤ N, got "${text}"`);
  return { index, count };
}

/** FNV-1a 32-bit of a string. */
export function pathHash(path: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < path.length; i++) {
    h ^= path.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** True when `path` falls in `shard`. */
export function inShard(path: string, shard: Shard): boolean {
  return shard.count === 1 || pathHash(path) % shard.count === shard.index - 1;
}
