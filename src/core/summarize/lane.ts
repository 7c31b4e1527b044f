/**
 * One section of a rolling summary, kept as a persistent log instead of an array per summary.
 *
 * A rolling summary (extractive.ts) carries its predecessor's items behind the fresh ones, newest
 * first, as far as its budget holds them: letta at a compression per call writes ~700 summaries
 * of ~1,400 items each on 10,000 calls, and copying, sizing and counting every carried item at
 * every compression was most of such a replay. Two facts make the carried part cheap to share:
 * - the fresh items of a fold are newer than every carried one, so a section read newest first is
 *   a log read backwards: fresh items are appended at its end;
 * - an item a summary leaves out (over its share, or shown again among the fresh items) never
 *   comes back into a later summary of the same chain except as a fresh item, appended anew.
 * So a section is a range of one log (`start`..`end`) minus positions dropped at or before its
 * version, and the next summary's section is made in work proportional to its fresh items and the
 * items it drops (each position is dropped once), plus a logarithm per query of its budget fill:
 * the log keeps, over the items present in its newest version (its head), the sum of their costs
 * (Fenwick trees) and the shortest item in every range (a segment tree), which answer the fill's
 * two questions — how many of the next items fit this share, and which is the next item short
 * enough for what is left — without reading the items.
 *
 * Only the head version can be extended; a summary made from an older one (a replay at another
 * threshold going on from a summary it shares with an earlier replay) starts a log of its own from
 * that version's items. Any version reads back as its items on demand (`LaneView.items`).
 */

/** Positions a lane uses before it may be packed (Lane.sparse): a small lane is cheap as it is. */
const PACK_MIN = 1024;

/** `gone` of a position still in the head version. */
const PRESENT = 0x7fffffff;
/** The segment tree's value for a position not present: longer than any item. */
const ABSENT = 0x3fffffff;

/** A version of a lane: what one summary's section holds. Immutable; its items are read on demand. */
export class LaneView {
  #items: readonly string[] | undefined;
  constructor(
    readonly lane: Lane,
    /** The version's number in its lane: positions dropped at or before it are not in it. */
    readonly version: number,
    /** Lowest position that may be in it. */
    readonly start: number,
    /** One past the highest position in it. */
    readonly end: number,
    /** Items in it. */
    readonly count: number,
    /** Their characters, summed. */
    readonly chars: number,
  ) {}

  /** Whether the lane can still be extended from this version (no later version was made from it). */
  get isHead(): boolean {
    return this.lane.head === this;
  }

  /** The items, newest first (read from the log once, then kept). */
  get items(): readonly string[] {
    return (this.#items ??= this.lane.itemsOf(this));
  }

  /** Whether `other` holds the same items (the same strings, in order), read from both logs in step without keeping them. */
  sameItems(other: LaneView): boolean {
    if (other === this) return true;
    if (other.count !== this.count || other.chars !== this.chars) return false;
    if (this.#items && other.#items) return this.#items.every((x, i) => x === other.#items![i]);
    const a = this.lane;
    const b = other.lane;
    let p = a.topOf(this);
    let q = b.topOf(other);
    for (let i = 0; i < this.count; i++) {
      if (a.items[p] !== b.items[q]) return false;
      p = a.nextOf(this, p);
      q = b.nextOf(other, q);
    }
    return true;
  }

  /** Whether any item satisfies `test`, newest first, without keeping the items. */
  some(test: (item: string) => boolean): boolean {
    if (this.#items) return this.#items.some(test);
    return this.lane.someOf(this, test);
  }
}

/** A running sum over the head's items of a number per item (see `Lane.sum`). */
interface Aggregate {
  readonly valueOf: (item: string, id: number) => number;
  values: Int32Array;
  total: number;
}

/**
 * A Fenwick tree of non-negative integers (a lane's characters: well inside 32 bits) over positions 0..capacity-1: prefix sums and the
 * smallest prefix reaching a total, in O(log capacity).
 */
class Fenwick {
  /** Positions 1..capacity of `tree` (index 0 unused): a view into its lane's one buffer. */
  constructor(readonly tree: Int32Array) {}
  add(p: number, delta: number): void {
    const t = this.tree;
    for (let i = p + 1; i < t.length; i += i & -i) t[i]! += delta;
  }
  /** Sum over positions below `p`. */
  below(p: number): number {
    const t = this.tree;
    let s = 0;
    for (let i = p; i > 0; i -= i & -i) s += t[i]!;
    return s;
  }
  /** The smallest `a` with `below(a) >= target` (target > 0 and at most the whole sum). */
  reach(target: number): number {
    const t = this.tree;
    let at = 0;
    let left = target;
    let step = 1;
    while (step * 2 < t.length) step *= 2;
    for (; step > 0; step >>= 1) {
      const next = at + step;
      if (next < t.length && t[next]! < left) {
        at = next;
        left -= t[next]!;
      }
    }
    // `at` positions sum to less than the target; the next one reaches it.
    return at + 1;
  }
  /** Made in `tree` (capacity + 1 long) whose positions' own values are at `tree[p + 1]` already: their sums pushed up (linear). */
  static over(tree: Int32Array): Fenwick {
    for (let i = 1; i < tree.length; i++) {
      const j = i + (i & -i);
      if (j < tree.length) tree[j]! += tree[i]!;
    }
    return new Fenwick(tree);
  }
}

/** An item number's first slot (multiplied and folded: consecutive numbers spread). */
function slotOf(id: number): number {
  const h = Math.imul(id, 0x9e3779b1);
  return h ^ (h >>> 15);
}

const EMPTY_TREE = new Fenwick(new Int32Array(1));
const NO_INTS = new Int32Array(0);

/**
 * Every per-position table of a lane, in one buffer of `LANE_INTS × capacity + 2` integers (one
 * allocation per lane, not ten: a drag through a threshold where a replay forks ~180 lanes from
 * another replay's summaries allocated ~2,000 zeroed buffers): slots (2 × capacity), ids, lens,
 * gone, below, above, the two Fenwick trees (capacity + 1 each) and the segment tree (2 × capacity).
 */
const LANE_INTS = 11;

/**
 * Buffers a lane let go of when it grew, by length, to be zeroed and used again by the next lane
 * that needs that size (`tablesOf`, aggregates): a rolling summary's lane doubles its tables
 * about twenty times over a 300,000-call replay, and every slider move replays it anew — the
 * buffers freed on the way were ~30 MB outside the heap per replay, and that much memory made
 * outside the heap starts a full collection of the worker's heap (hundreds of milliseconds at
 * that size). A grown lane reads only its new tables (every table is reached through the lane),
 * so the old buffer is no one's. Bounded: at most POOL_BYTES kept, the largest buffers first
 * turned away.
 */
const pool = new Map<number, Int32Array[]>();
let pooledBytes = 0;
const POOL_BYTES = 32 * 1024 * 1024;

/** A zeroed Int32Array of `length`, from the pool when it holds one. */
function zeroedInts(length: number): Int32Array {
  const kept = pool.get(length)?.pop();
  if (!kept) return new Int32Array(length);
  pooledBytes -= kept.byteLength;
  return kept.fill(0);
}

/** Keeps `buffer` (no one's now) for `zeroedInts`, while the pool has room. */
function recycle(buffer: Int32Array): void {
  if (pooledBytes + buffer.byteLength > POOL_BYTES) return;
  let list = pool.get(buffer.length);
  if (!list) pool.set(buffer.length, (list = []));
  list.push(buffer);
  pooledBytes += buffer.byteLength;
}

/** The views of a lane's tables over one buffer sized for `capacity` positions. */
function tablesOf(capacity: number): {
  all: Int32Array;
  slots: Int32Array;
  ids: Int32Array;
  lens: Int32Array;
  gone: Int32Array;
  below: Int32Array;
  above: Int32Array;
  cost: Int32Array;
  ones: Int32Array;
  shortest: Int32Array;
} {
  const all = zeroedInts(LANE_INTS * capacity + 2);
  let at = 0;
  const take = (n: number): Int32Array => all.subarray(at, (at += n));
  return {
    all,
    slots: take(2 * capacity),
    ids: take(capacity),
    lens: take(capacity),
    gone: take(capacity),
    below: take(capacity),
    above: take(capacity),
    cost: take(capacity + 1),
    ones: take(capacity + 1),
    shortest: take(2 * capacity),
  };
}

export class Lane {
  /** Positions used. */
  n = 0;
  items: string[] = [];
  ids!: Int32Array;
  lens!: Int32Array;
  /** Per position the version that dropped it (PRESENT while in the head). */
  gone!: Int32Array;
  /** Present positions as a doubly linked list (-1 ends it), highest at `top`. */
  below!: Int32Array;
  above!: Int32Array;
  top = -1;
  bottom = -1;
  /** Over present positions: each item's cost in the fill (its characters + 3) and 1 per item. */
  cost: Fenwick;
  ones: Fenwick;
  /** Segment tree of the shortest present item per range (ABSENT where none), leaves at capacity + p. */
  shortest!: Int32Array;
  capacity: number;
  /** Present items' characters, summed. */
  chars = 0;
  present = 0;
  /**
   * Where each item's number was last put, open-addressed by number (position + 1; 0 empty; one
   * slot per number, overwritten when it is put again): checked against `gone` on reading. A Map
   * here was most of a lane's making.
   */
  slots!: Int32Array;
  /** Running sums kept for whoever asked (`sum`), by key. */
  readonly aggregates = new Map<object, Aggregate>();
  /** The same, as a list: every append and drop updates each (no iterator per item). */
  private readonly sums: Aggregate[] = [];
  version = 0;
  head: LaneView;

  /** Packed elsewhere (`retire`): only older versions are read, none extended or summed. */
  private retired = false;
  /** The one buffer the tables are views of (tablesOf). */
  private buffer!: Int32Array;
  /** The buffer's views the trees are made in (`rebuild`). */
  private costTable!: Int32Array;
  private onesTable!: Int32Array;

  private constructor(
    capacity: number,
    /** The intern table's generation its items' numbers are of (extractive.ts). */
    readonly generation: number,
  ) {
    this.capacity = capacity;
    this.use(tablesOf(capacity));
    // Made over the positions by `of` (rebuild), once they are laid out.
    this.cost = EMPTY_TREE;
    this.ones = EMPTY_TREE;
    this.head = new LaneView(this, 0, 0, 0, 0, 0);
  }

  /** A lane whose first version holds `items` (newest first), with their interned numbers and lengths. */
  static of(items: readonly string[], ids: ArrayLike<number>, lens: ArrayLike<number>, generation: number): Lane {
    const n = items.length;
    const lane = Lane.sized(n, generation);
    // Position n-1-i for item i, the newest highest.
    for (let p = 0; p < n; p++) lane.put(p, items[n - 1 - p]!, ids[n - 1 - p]!, lens[n - 1 - p]!);
    return lane.laidOut(n);
  }

  /** A lane whose first version holds the items of `view` (of another lane, not its head), numbers and lengths as they were. */
  static fork(view: LaneView): Lane {
    const from = view.lane;
    const lane = Lane.sized(view.count, from.generation);
    // The view's positions in ascending order (oldest first), each item at the next position.
    let w = 0;
    for (let p = view.start; p < view.end; p++)
      if (from.gone[p]! > view.version) lane.put(w++, from.items[p]!, from.ids[p]!, from.lens[p]!);
    return lane.laidOut(w);
  }

  /**
   * A lane whose first version holds the items of `view` (the head of its lane), packed at the
   * lowest positions with room for about four times as many, and the lane it leaves retired
   * (`retire`): a rolling summary's lane keeps every position it ever used (each dropped once), so
   * a chain of a thousand compressions grew each lane to hundreds of thousands of positions for a
   * few thousand items held, and its tables — eleven integers a position, made anew at every
   * replay — were ~30 MB outside the heap per slider move at 300,000 calls. Work proportional to
   * the items held; the same items, in the same order, with the same numbers and lengths.
   */
  static packed(view: LaneView): Lane {
    const from = view.lane;
    if (view !== from.head) throw new Error('only the head of a lane is packed');
    const lane = Lane.sized(2 * view.count, from.generation);
    let w = 0;
    for (let p = from.bottom; p >= 0; p = from.above[p]!) lane.put(w++, from.items[p]!, from.ids[p]!, from.lens[p]!);
    from.retire();
    return lane.laidOut(w);
  }

  /** Whether the head is worth packing (`packed`): its lane's positions are mostly of dropped items. */
  get sparse(): boolean {
    return this.n > PACK_MIN && this.n > 3 * this.present;
  }

  /**
   * After `packed` took its head's items elsewhere: no version is the head any more (none can be
   * extended; a summary going on from one forks it), and the older versions read their items as
   * any older version does — by `gone`, `items`, `ids` and `lens` — so only those are kept, in a
   * buffer sized to the positions used; the trees, the list, the slots and the running sums go
   * back to the pool for the next lane.
   */
  private retire(): void {
    const n = this.n;
    const kept = new Int32Array(3 * n);
    kept.set(this.ids.subarray(0, n), 0);
    kept.set(this.lens.subarray(0, n), n);
    kept.set(this.gone.subarray(0, n), 2 * n);
    recycle(this.buffer);
    for (const agg of this.sums) recycle(agg.values);
    this.aggregates.clear();
    this.sums.length = 0;
    this.buffer = kept;
    this.ids = kept.subarray(0, n);
    this.lens = kept.subarray(n, 2 * n);
    this.gone = kept.subarray(2 * n, 3 * n);
    this.slots = this.below = this.above = this.shortest = this.costTable = this.onesTable = NO_INTS;
    this.cost = this.ones = EMPTY_TREE;
    this.capacity = 0;
    this.head = new LaneView(this, -1, 0, 0, 0, 0);
    this.retired = true;
  }

  /** An empty lane with room for twice `count` positions (at least 64). */
  private static sized(count: number, generation: number): Lane {
    let capacity = 64;
    while (capacity < count * 2) capacity *= 2;
    return new Lane(capacity, generation);
  }

  /**
   * Lays an item out at position `p` of a lane being made (`of`, `fork`), present, below the one
   * that follows. Positions come in ascending order: `items` filled from its end (a store far past
   * an empty array's length) became a dictionary in V8 past 1,024 items, every read a hash lookup.
   */
  private put(p: number, item: string, id: number, len: number): void {
    this.items.push(item);
    this.ids[p] = id;
    this.lens[p] = len;
    this.gone[p] = PRESENT;
    this.below[p] = p - 1;
    this.above[p] = p + 1;
    this.chars += len;
    this.place(p);
  }

  /** The lane made of the `n` positions `put` laid out: its list closed, its trees built, its first version. */
  private laidOut(n: number): Lane {
    if (n > 0) this.above[n - 1] = -1;
    this.n = n;
    this.present = n;
    this.top = n - 1;
    this.bottom = n > 0 ? 0 : -1;
    this.rebuild();
    this.head = new LaneView(this, 0, 0, n, n, this.chars);
    return this;
  }

  /** The highest present position below `u` whose item has at most `maxLen` characters, or -1. */
  find(u: number, maxLen: number): number {
    if (maxLen < 0 || u <= 0) return -1;
    const tree = this.shortest;
    const cap = this.capacity;
    if (u > cap) u = cap;
    // Walk up from the leaf left of u, looking at whole left subtrees, then down into the first that holds one.
    let i = u - 1 + cap;
    if (tree[i]! <= maxLen) return i - cap;
    for (;;) {
      // Climb while i is a left child (nothing of this level lies further left inside the parent).
      while (i > 1 && (i & 1) === 0) i >>= 1;
      if (i <= 1) return -1;
      i -= 1; // the left sibling: wholly below u
      if (tree[i]! <= maxLen) break;
    }
    while (i < cap) {
      i = 2 * i + 1;
      if (tree[i]! > maxLen) i -= 1;
    }
    return i - cap;
  }

  /** The lowest `a <= u` such that the present items in [a, u) cost at most `budget` in all. */
  reach(u: number, budget: number): number {
    const upTo = this.cost.below(u);
    const target = upTo - budget;
    if (target <= 0) return 0;
    return this.cost.reach(target);
  }

  /** Cost (characters + 3 each) and number of the present items in [a, u). */
  costIn(a: number, u: number): number {
    return this.cost.below(u) - this.cost.below(a);
  }
  countIn(a: number, u: number): number {
    return this.ones.below(u) - this.ones.below(a);
  }

  /**
   * The next version: of the head's items only those in `kept` (`runs` runs [a, u) of positions
   * as pairs, highest first), minus any whose number is among `freshIds`, then `fresh` (newest first) on top.
   */
  extend(
    kept: ArrayLike<number>,
    runs: number,
    fresh: readonly string[],
    freshIds: ArrayLike<number>,
    freshLens: ArrayLike<number>,
    freshCount = fresh.length,
  ): LaneView {
    if (this.head.version !== this.version) throw new Error('only the head of a lane can be extended');
    const version = ++this.version;
    // Drop every present position outside the kept runs: walk the list from the top, jumping over
    // runs (given highest first, as the fill makes them: its cursor only moves down).
    let p = this.top;
    for (let r = 0; r < runs; r++) {
      const a = kept[2 * r]!;
      const u = kept[2 * r + 1]!;
      while (p >= u) {
        const next = this.below[p]!;
        this.drop(p, version);
        p = next;
      }
      // Kept: jump to the first present position below the run (the tree, not a walk over the kept items).
      if (p >= a) p = this.find(a, ABSENT - 1);
    }
    while (p >= 0) {
      const next = this.below[p]!;
      this.drop(p, version);
      p = next;
    }
    for (let i = 0; i < freshCount; i++) {
      const at = this.placeOf(freshIds[i]!);
      if (at >= 0 && this.gone[at] === PRESENT) this.drop(at, version);
    }
    this.append(fresh, freshIds, freshLens, freshCount);
    this.head = new LaneView(this, version, this.bottom < 0 ? this.n : this.bottom, this.n, this.present, this.chars);
    return this.head;
  }

  /**
   * The sum of `valueOf` over the head's items, kept up to date as the lane grows from here on
   * (each fresh item's value is taken when it is appended). Registered under `key` at the first call.
   */
  sum(key: object, valueOf: (item: string, id: number) => number): number {
    let agg = this.aggregates.get(key);
    if (!agg) {
      if (this.retired) throw new Error('a retired lane keeps no running sums');
      agg = { valueOf, values: zeroedInts(this.capacity), total: 0 };
      for (let p = this.top; p >= 0; p = this.below[p]!) {
        const v = valueOf(this.items[p]!, this.ids[p]!);
        agg.values[p] = v;
        agg.total += v;
      }
      this.aggregates.set(key, agg);
      this.sums.push(agg);
    }
    return agg.total;
  }

  /** The value `sum` took for the item at `p` (a present position of an aggregate registered under `key`). */
  valueAt(key: object, p: number): number {
    return this.aggregates.get(key)!.values[p]!;
  }

  /** The highest position in `view` (the lane's top for its head), or -1. */
  topOf(view: LaneView): number {
    if (view === this.head) return this.top;
    return this.nextOf(view, view.end);
  }

  /** The next position down from `p` in `view`, or -1. */
  nextOf(view: LaneView, p: number): number {
    if (view === this.head) return this.below[p]!;
    for (p--; p >= view.start; p--) if (this.gone[p]! > view.version) return p;
    return -1;
  }

  itemsOf(view: LaneView): string[] {
    const out = new Array<string>(view.count);
    let w = 0;
    if (view === this.head) {
      for (let p = this.top; p >= 0; p = this.below[p]!) out[w++] = this.items[p]!;
    } else {
      for (let p = view.end - 1; p >= view.start; p--) if (this.gone[p]! > view.version) out[w++] = this.items[p]!;
    }
    return out;
  }

  someOf(view: LaneView, test: (item: string) => boolean): boolean {
    if (view === this.head) {
      for (let p = this.top; p >= 0; p = this.below[p]!) if (test(this.items[p]!)) return true;
      return false;
    }
    for (let p = view.end - 1; p >= view.start; p--) if (this.gone[p]! > view.version && test(this.items[p]!)) return true;
    return false;
  }

  private drop(p: number, version: number): void {
    this.gone[p] = version;
    const up = this.above[p]!;
    const down = this.below[p]!;
    if (up >= 0) this.below[up] = down;
    else this.top = down;
    if (down >= 0) this.above[down] = up;
    else this.bottom = up;
    const len = this.lens[p]!;
    this.cost.add(p, -(len + 3));
    this.ones.add(p, -1);
    this.setShortest(p, ABSENT);
    this.chars -= len;
    this.present--;
    const sums = this.sums;
    for (let k = 0; k < sums.length; k++) sums[k]!.total -= sums[k]!.values[p]!;
  }

  /** Appends `count` items given newest first: the oldest gets the lowest new position. */
  private append(items: readonly string[], ids: ArrayLike<number>, lens: ArrayLike<number>, count: number): void {
    if (this.n + count > this.capacity) this.grow(this.n + count);
    for (let i = count - 1; i >= 0; i--) {
      const p = this.n++;
      const len = lens[i]!;
      this.items[p] = items[i]!;
      this.ids[p] = ids[i]!;
      this.lens[p] = len;
      this.gone[p] = PRESENT;
      this.above[p] = -1;
      this.below[p] = this.top;
      if (this.top >= 0) this.above[this.top] = p;
      else this.bottom = p;
      this.top = p;
      this.cost.add(p, len + 3);
      this.ones.add(p, 1);
      this.setShortest(p, len);
      this.chars += len;
      this.present++;
      this.place(p);
      for (let k = 0; k < this.sums.length; k++) {
        const agg = this.sums[k]!;
        const v = agg.valueOf(items[i]!, ids[i]!);
        agg.values[p] = v;
        agg.total += v;
      }
    }
  }

  /** Records position `p` as where its item's number is. */
  private place(p: number): void {
    const id = this.ids[p]!;
    const slots = this.slots;
    const mask = slots.length - 1;
    let h = slotOf(id) & mask;
    for (let at = slots[h]!; at !== 0 && this.ids[at - 1] !== id; at = slots[h]!) h = (h + 1) & mask;
    slots[h] = p + 1;
  }

  /** The position where `id` was last put, or -1. */
  private placeOf(id: number): number {
    const slots = this.slots;
    const mask = slots.length - 1;
    let h = slotOf(id) & mask;
    for (let at = slots[h]!; at !== 0; at = slots[h]!) {
      if (this.ids[at - 1] === id) return at - 1;
      h = (h + 1) & mask;
    }
    return -1;
  }

  private setShortest(p: number, value: number): void {
    const tree = this.shortest;
    let i = p + this.capacity;
    tree[i] = value;
    for (i >>= 1; i >= 1; i >>= 1) {
      const m = Math.min(tree[2 * i]!, tree[2 * i + 1]!);
      if (tree[i] === m) break;
      tree[i] = m;
    }
  }

  /** Takes `t`'s views as the lane's tables (the constructor's, `grow`'s): the fields marked `!` are set here. */
  private use(t: ReturnType<typeof tablesOf>): void {
    this.buffer = t.all;
    this.slots = t.slots;
    this.ids = t.ids;
    this.lens = t.lens;
    this.gone = t.gone;
    this.below = t.below;
    this.above = t.above;
    this.costTable = t.cost;
    this.onesTable = t.ones;
    this.shortest = t.shortest;
  }

  private grow(need: number): void {
    let capacity = this.capacity;
    while (capacity < need) capacity *= 2;
    const t = tablesOf(capacity);
    t.ids.set(this.ids);
    t.lens.set(this.lens);
    t.gone.set(this.gone);
    t.below.set(this.below);
    t.above.set(this.above);
    const old = this.buffer;
    this.use(t);
    recycle(old);
    for (const agg of this.aggregates.values()) {
      const values = zeroedInts(capacity);
      values.set(agg.values);
      recycle(agg.values);
      agg.values = values;
    }
    this.capacity = capacity;
    for (let p = 0; p < this.n; p++) this.place(p);
    this.rebuild();
  }

  /** The trees made from the positions (linear) in a fresh buffer's views (`of`, `grow`). */
  private rebuild(): void {
    const capacity = this.capacity;
    const cost = this.costTable;
    const ones = this.onesTable;
    const tree = this.shortest.fill(ABSENT);
    // The present positions' own values (the buffer is fresh: the rest are 0), then the sums.
    for (let p = 0; p < this.n; p++) {
      if (this.gone[p] !== PRESENT) continue;
      const len = this.lens[p]!;
      cost[p + 1] = len + 3;
      ones[p + 1] = 1;
      tree[capacity + p] = len;
    }
    this.cost = Fenwick.over(cost);
    this.ones = Fenwick.over(ones);
    for (let i = capacity - 1; i >= 1; i--) tree[i] = Math.min(tree[2 * i]!, tree[2 * i + 1]!);
  }
}
