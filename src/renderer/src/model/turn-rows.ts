/**
 * The turn list's rows: a header row before the first message of every turn, then its messages,
 * and after a message whose call spawned subagents, one row per subagent (listed under the call
 * that spawned it). Row ↔ message arithmetic by binary search over the inserted rows (headers and
 * subagent rows: a few per turn), so 100,000 messages cost no per-row objects. Pure; unit-tested.
 */
export type TurnRow =
  | { readonly kind: 'turn'; readonly turn: number; readonly first: number }
  | { readonly kind: 'message'; readonly index: number }
  /** The `k`-th entry of `subagentsAfter`: a subagent spawned by the call at message `after`. */
  | { readonly kind: 'subagent'; readonly after: number; readonly k: number };

export interface TurnRows {
  readonly count: number;
  at(row: number): TurnRow;
  rowOf(message: number): number;
}

/**
 * `subagentsAfter`: ascending message indices, one per subagent row (a message that spawned two
 * subagents appears twice). Each inserted row has a sort key — 2i for a turn header before message
 * i, 2i + 1 for a subagent row after it — so headers, messages and subagent rows interleave.
 */
export function turnRows(messages: number, turnStarts: readonly number[], subagentsAfter: readonly number[] = []): TurnRows {
  const n = turnStarts.length + subagentsAfter.length;
  const keys = new Float64Array(n);
  /** ≥ 0: turn number; < 0: -(k + 1) for subagent row k. */
  const what = new Int32Array(n);
  for (let a = 0, b = 0, j = 0; j < n; j++) {
    const ka = a < turnStarts.length ? 2 * turnStarts[a]! : Infinity;
    const kb = b < subagentsAfter.length ? 2 * subagentsAfter[b]! + 1 : Infinity;
    if (ka <= kb) {
      keys[j] = ka;
      what[j] = a++;
    } else {
      keys[j] = kb;
      what[j] = -++b;
    }
  }
  // Row of inserted row j: the messages before it (i for key 2i, i + 1 for key 2i + 1) plus j.
  const rowOfInserted = (j: number): number => Math.ceil(keys[j]! / 2) + j;
  return {
    count: messages + n,
    at(row) {
      let lo = 0;
      let hi = n - 1;
      let j = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if (rowOfInserted(mid) <= row) {
          j = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (j >= 0 && rowOfInserted(j) === row) {
        const w = what[j]!;
        if (w >= 0) return { kind: 'turn', turn: w, first: turnStarts[w] as number };
        return { kind: 'subagent', after: (keys[j]! - 1) / 2, k: -w - 1 };
      }
      return { kind: 'message', index: row - (j + 1) };
    },
    rowOf(message) {
      // Inserted rows before message i: keys ≤ 2i (its own turn header included).
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (keys[mid]! <= 2 * message) lo = mid + 1;
        else hi = mid;
      }
      return message + lo;
    },
  };
}
