/**
 * A set of ids kept as 52-bit hashes in one typed array: what a live tail remembers of the ids
 * stored for a session, whose count grows with the session (about 600,000 message ids in a
 * 1 GB Claude Code session: ~45 MB as a Set of strings, ~10 MB here, and nothing for the
 * collector to trace). `has` may answer true for an id never added (two ids sharing 52 bits of
 * hash, about one chance in 10^9 per lookup at that size): callers use it only where a false
 * "seen" costs time, never correctness (the tail then takes the whole-file path).
 */

/** Two FNV-1a hashes of the UTF-16 code units (different offset bases), 32 and 20 bits, as one integer ≥ 1. */
function hash52(id: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x9e3779b9;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  return (a >>> 0) * 0x100000 + ((b >>> 12) & 0xfffff) + 1;
}

export class IdHashSet {
  private table: Float64Array;
  private size = 0;

  constructor(ids: Iterable<string> = []) {
    this.table = new Float64Array(1024);
    for (const id of ids) this.add(id);
  }

  get count(): number {
    return this.size;
  }

  private slot(h: number, table: Float64Array): number {
    const mask = table.length - 1;
    let i = (h >>> 0) & mask;
    while (table[i] !== 0 && table[i] !== h) i = (i + 1) & mask;
    return i;
  }

  has(id: string): boolean {
    const h = hash52(id);
    return this.table[this.slot(h, this.table)] === h;
  }

  add(id: string): void {
    const h = hash52(id);
    const i = this.slot(h, this.table);
    if (this.table[i] === h) return;
    this.table[i] = h;
    this.size++;
    // At most half full: probes stay short.
    if (2 * this.size > this.table.length) this.grow();
  }

  private grow(): void {
    const old = this.table;
    const table = new Float64Array(2 * old.length);
    for (const h of old) if (h !== 0) table[this.slot(h, table)] = h;
    this.table = table;
  }
}
