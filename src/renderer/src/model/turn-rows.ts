/**
 * The turn list's rows: a header row before the first message of every turn, then its messages.
 * Row ↔ message arithmetic by binary search over the turn starts, so 100,000 messages cost no
 * per-row objects. Pure; unit-tested.
 */
export type TurnRow = { readonly kind: 'turn'; readonly turn: number; readonly first: number } | { readonly kind: 'message'; readonly index: number };

export interface TurnRows {
  readonly count: number;
  at(row: number): TurnRow;
  rowOf(message: number): number;
}

export function turnRows(messages: number, turnStarts: readonly number[]): TurnRows {
  // Header of turn t sits at row turnStarts[t] + t.
  const headerRow = (t: number): number => (turnStarts[t] as number) + t;
  return {
    count: messages + turnStarts.length,
    at(row) {
      let lo = 0;
      let hi = turnStarts.length - 1;
      let t = -1;
      while (lo <= hi) {
        const mid = (lo + hi) >>> 1;
        if (headerRow(mid) <= row) {
          t = mid;
          lo = mid + 1;
        } else hi = mid - 1;
      }
      if (t >= 0 && headerRow(t) === row) return { kind: 'turn', turn: t, first: turnStarts[t] as number };
      return { kind: 'message', index: row - (t + 1) };
    },
    rowOf(message) {
      let lo = 0;
      let hi = turnStarts.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((turnStarts[mid] as number) <= message) lo = mid + 1;
        else hi = mid;
      }
      return message + lo;
    },
  };
}
