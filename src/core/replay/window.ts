/**
 * What the simulated agent still has in its window (docs/policies.md §Common, regions), kept as numbers so a step costs O(log n):
 * a contiguous live range [from, end) of the history, plus messages kept from before `from`
 * (primers, pinned turns), plus per-message token reductions (tool results truncated by the
 * preflight or masked by a strategy) in a Fenwick tree. History tokens are prefix sums minus
 * reductions — never a recount.
 */

/**
 * Its tree is made at the first `add`: until then every prefix is 0 without walking or holding one.
 * A policy that masks nothing never adds (claude-code, codex), and a replay of 300,000 calls made
 * two trees of ~600,000 doubles (its window and the copy resume.ts finishes on) for nothing —
 * memory outside the heap that, with the rest a replay makes, starts a full collection.
 */
class Fenwick {
  private tree: Float64Array | undefined;
  constructor(private readonly n: number) {}
  add(i: number, v: number): void {
    const t = (this.tree ??= new Float64Array(this.n + 1));
    for (let x = i + 1; x < t.length; x += x & -x) t[x]! += v;
  }
  copy(): Fenwick {
    const f = new Fenwick(this.n);
    if (this.tree) f.tree = this.tree.slice();
    return f;
  }

  /**
   * The tree of these values, built in one pass. The tree `add` builds holds the same sums added in
   * another order: equal when every value is a whole number (WindowState.grownTo checks).
   */
  static of(values: Float64Array): Fenwick {
    const f = new Fenwick(values.length);
    const t = (f.tree = new Float64Array(values.length + 1));
    for (let x = 1; x < t.length; x++) {
      t[x]! += values[x - 1]!;
      const up = x + (x & -x);
      if (up < t.length) t[up]! += t[x]!;
    }
    return f;
  }
  /** Sum of [0, i). */
  prefix(i: number): number {
    const t = this.tree;
    if (t === undefined) return 0;
    let s = 0;
    for (let x = i; x > 0; x -= x & -x) s += t[x]!;
    return s;
  }
}

export class WindowState {
  private liveFrom = 0;
  /**
   * Bumped by every change of what the window holds (its live start, its kept-before list, a
   * reduction): historyTokens answers a repeated question from the last answer while it is the same.
   */
  private version = 0;
  private askedEnd = -1;
  private askedVersion = -1;
  private answered = 0;
  private kept: readonly number[] = [];
  /** 1 for each message in `keepBefore` (membership in O(1): retention asks per fact). */
  private readonly keptFlag: Uint8Array;
  private reduction: Fenwick;
  /** `reduced`, made at the first reduction (as the tree: most policies never reduce). */
  private reducedBy: Float64Array | undefined;
  /** Masked (placeholder) tool results. */
  readonly masked: Uint8Array;

  constructor(
    readonly perMessage: Uint32Array,
    readonly prefix: Float64Array,
  ) {
    this.reduction = new Fenwick(perMessage.length);
    this.keptFlag = new Uint8Array(perMessage.length);
    this.masked = new Uint8Array(perMessage.length);
  }

  /** Token reduction per message (so a second mask does not double-count). */
  get reduced(): Float64Array {
    return (this.reducedBy ??= new Float64Array(this.perMessage.length));
  }

  /** First message of the contiguous live range. */
  get from(): number {
    return this.liveFrom;
  }

  set from(i: number) {
    this.liveFrom = i;
    this.version++;
  }

  /** Messages kept from before `from`, ascending. */
  get keepBefore(): readonly number[] {
    return this.kept;
  }

  set keepBefore(list: readonly number[]) {
    for (const i of this.kept) this.keptFlag[i] = 0;
    for (const i of list) this.keptFlag[i] = 1;
    this.kept = list;
    this.version++;
  }

  /** Tokens of message i as it stands in the window. */
  tokensOf(i: number): number {
    const r = this.reducedBy;
    return r === undefined ? this.perMessage[i]! : this.perMessage[i]! - r[i]!;
  }

  /** Tokens of [a, b) as they stand. */
  rangeTokens(a: number, b: number): number {
    if (b <= a) return 0;
    return this.prefix[b]! - this.prefix[a]! - (this.reduction.prefix(b) - this.reduction.prefix(a));
  }

  /**
   * History tokens of the request before message `end` (exclusive). A call's handlers ask it of the
   * same window five or six times (the trigger, the compression's before and after, the request,
   * the regions): the last answer is kept until the window changes — the same sum, not summed again.
   */
  historyTokens(end: number): number {
    if (end === this.askedEnd && this.version === this.askedVersion) return this.answered;
    let t = this.rangeTokens(this.from, end);
    for (const i of this.keepBefore) t += this.tokensOf(i);
    this.askedEnd = end;
    this.askedVersion = this.version;
    this.answered = t;
    return t;
  }

  /** Sets message i's token count in the window to `tokens` (never above its original). */
  reduceTo(i: number, tokens: number): number {
    const target = Math.max(0, Math.min(this.perMessage[i]!, tokens));
    const newReduction = this.perMessage[i]! - target;
    const delta = newReduction - (this.reducedBy?.[i] ?? 0);
    if (delta > 0) {
      this.reduced[i] = newReduction;
      this.reduction.add(i, delta);
      this.version++;
    }
    return Math.max(0, delta);
  }

  /** Indices in the window before `end`, ascending. */
  *indices(end: number): Generator<number> {
    for (const i of this.keepBefore) yield i;
    for (let i = this.from; i < end; i++) yield i;
  }

  /**
   * This window over a grown session (resume.ts): `perMessage` and `prefix` count the same first
   * messages and more after them (or as many: a copy). The state is copied (this one stays as it
   * is). Undefined when it cannot be carried exactly: a reduction that is not a whole number on a
   * list of another length (the tree is built again, summing in another order), or anything
   * reduced, masked or kept past the new list's end.
   */
  grownTo(perMessage: Uint32Array, prefix: Float64Array): WindowState | undefined {
    const n = perMessage.length;
    if (n === this.perMessage.length) {
      const w = new WindowState(perMessage, prefix);
      w.from = this.from;
      w.keepBefore = this.kept;
      if (this.reducedBy) w.reduced.set(this.reducedBy);
      w.masked.set(this.masked);
      w.reduction = this.reduction.copy();
      w.version++;
      return w;
    }
    const reduced = this.reducedBy;
    for (let i = 0; i < this.perMessage.length; i++) {
      const r = reduced?.[i] ?? 0;
      if (!Number.isInteger(r) || (i >= n && (r !== 0 || this.masked[i] !== 0 || this.keptFlag[i] !== 0))) return undefined;
    }
    const w = new WindowState(perMessage, prefix);
    const copied = Math.min(n, this.perMessage.length);
    w.from = this.from;
    w.keepBefore = this.kept;
    w.masked.set(this.masked.subarray(0, copied));
    if (reduced) {
      w.reduced.set(reduced.subarray(0, copied));
      w.reduction = Fenwick.of(w.reduced);
    }
    w.version++;
    return w;
  }

  isInWindow(i: number, end: number): boolean {
    return (i >= this.from && i < end) || this.keptFlag[i] === 1;
  }
}
