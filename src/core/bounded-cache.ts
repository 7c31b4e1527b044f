/**
 * The one bounded cache of the project: a Map that keeps at most `max` entries and, when a new one
 * would pass that, drops the least recently used (a `get` or `set` counts as a use, `peek` does
 * not). `onEvict` hears every entry dropped for room (not those deleted or cleared), so a holder can
 * let go of what it pinned beside it (a parsed session's replays, say). Pure: no Node, no DOM.
 */
export interface BoundedCacheOptions<K, V> {
  /** Entries kept at most (≥ 1). */
  readonly max: number;
  readonly onEvict?: (key: K, value: V) => void;
}

export class BoundedCache<K, V> implements Iterable<[K, V]> {
  // A Map iterates in insertion order: re-inserting on use keeps the least recently used first.
  private readonly map = new Map<K, V>();
  readonly max: number;
  private readonly onEvict: ((key: K, value: V) => void) | undefined;

  constructor(options: BoundedCacheOptions<K, V>) {
    if (!Number.isInteger(options.max) || options.max < 1)
      throw new RangeError(`a bounded cache keeps at least one entry (max ${options.max})`);
    this.max = options.max;
    this.onEvict = options.onEvict;
  }

  get size(): number {
    return this.map.size;
  }

  /** The value under `key`, which becomes the most recently used. */
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v === undefined) return undefined;
    this.map.delete(key);
    this.map.set(key, v);
    return v;
  }

  /** The value under `key`, leaving its place in the order alone. */
  peek(key: K): V | undefined {
    return this.map.get(key);
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  /** Stores `value` as the most recently used, then drops the least recently used beyond `max`. */
  set(key: K, value: V): this {
    this.map.delete(key);
    this.map.set(key, value);
    while (this.map.size > this.max) {
      const [oldKey, oldValue] = this.map.entries().next().value as [K, V];
      this.map.delete(oldKey);
      this.onEvict?.(oldKey, oldValue);
    }
    return this;
  }

  delete(key: K): boolean {
    return this.map.delete(key);
  }

  clear(): void {
    this.map.clear();
  }

  keys(): MapIterator<K> {
    return this.map.keys();
  }

  values(): MapIterator<V> {
    return this.map.values();
  }

  /** Least recently used first. Deleting the current entry while iterating is safe (as for a Map). */
  entries(): MapIterator<[K, V]> {
    return this.map.entries();
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.map.entries();
  }
}
