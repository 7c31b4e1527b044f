/**
 * The per-message-list tables the strategies look cuts up in (strategies/util.ts firstOrphanFrom,
 * primers-recents.ts primersClose) and droppedRanges' direct walk give exactly what the plain
 * definitions give: checked against them on random tool-call layouts (a seeded generator: the same
 * cases every run). A policy that cuts at every call depends on these answers being the same.
 */
import { describe, expect, it } from 'vitest';
import type { Message, Part } from '../../../src/core/model';
import { primerIndices } from '../../../src/core/strategies/primers-recents';
import type { HistoryView, StrategyContext } from '../../../src/core/strategies/types';
import { droppedRanges, pairSafeCut, toRanges, type PairSafeCut } from '../../../src/core/strategies/util';

/** mulberry32: small, seeded. */
function rng(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

/** Calls, results (some long after their call, some for unknown calls, some in the call's own message). */
function layout(r: (n: number) => number, n: number): Message[] {
  const open: string[] = [];
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    const parts: Part[] = [];
    if (r(10) < 4) {
      parts.push({ kind: 'tool_call', id: `c${i}`, name: 'read', args: '{}' });
      open.push(`c${i}`);
    }
    if (r(10) < 4 && open.length > 0) {
      const k = r(open.length);
      parts.push({ kind: 'tool_result', callId: open[k]!, text: 'ok', isError: false });
      if (r(10) < 7) open.splice(k, 1);
    }
    if (r(20) === 0) parts.push({ kind: 'tool_result', callId: 'unknown', text: 'ok', isError: false });
    if (parts.length === 0) parts.push({ kind: 'text', text: 'hi' });
    out.push({ id: `m${i}`, role: parts.some((p) => p.kind === 'tool_result') ? 'tool' : 'assistant', parts } as Message);
  }
  return out;
}

const ctxOf = (messages: readonly Message[]): StrategyContext => ({ messages }) as unknown as StrategyContext;

/** The definition: a cut at x is safe when no result in [x, end) has its call before x; nearest safe cut, earlier on a tie. */
function referenceCut(
  messages: readonly Message[],
  target: number,
  end: number,
  b: { lo: number; hi: number; prefer: 'nearest' | 'later' },
): PairSafeCut {
  const callAt = new Map<string, number>();
  const earliest = messages.map((m, i) => {
    let c = Infinity;
    for (const p of m.parts) {
      if (p.kind === 'tool_call' && !callAt.has(p.id)) callAt.set(p.id, i);
      else if (p.kind === 'tool_result') c = Math.min(c, callAt.get(p.callId) ?? Infinity);
    }
    return c;
  });
  const safe = (x: number): boolean => {
    for (let y = x; y < end; y++) if (earliest[y]! < x) return false;
    return true;
  };
  if (safe(target)) return { cut: target, moved: 0 };
  let later: number | undefined;
  for (let x = target + 1; x <= Math.min(b.hi, end); x++)
    if (safe(x)) {
      later = x;
      break;
    }
  if (b.prefer === 'later') return { cut: later ?? b.hi, moved: (later ?? b.hi) - target };
  let earlier: number | undefined;
  const limit = later === undefined ? b.lo : Math.max(b.lo, target - (later - target));
  for (let x = target - 1; x >= limit; x--)
    if (safe(x)) {
      earlier = x;
      break;
    }
  const cut = earlier ?? later ?? b.lo;
  return { cut, moved: cut - target };
}

describe('cut look-up tables', () => {
  it('pairSafeCut gives the nearest safe cut of the definition, for every target, end and bounds', () => {
    const r = rng(12);
    let checked = 0;
    for (let t = 0; t < 150; t++) {
      const messages = layout(r, 1 + r(30));
      const n = messages.length;
      for (let target = 0; target <= n; target++)
        for (let end = target; end <= n; end++)
          for (const prefer of ['nearest', 'later'] as const)
            for (const lo of [0, target >> 1, target])
              for (const hi of [end, (target + end) >> 1]) {
                expect(pairSafeCut(ctxOf(messages), target, end, { lo, hi, prefer })).toEqual(
                  referenceCut(messages, target, end, { lo, hi, prefer }),
                );
                checked++;
              }
    }
    expect(checked).toBeGreaterThan(10_000);
  });

  it('primerIndices extends the first n messages until their calls have results, as a scan from the start does', () => {
    const r = rng(7);
    for (let t = 0; t < 200; t++) {
      const messages = layout(r, 1 + r(25));
      for (let n = 1; n <= 5; n++)
        for (let limit = 0; limit <= messages.length; limit++) {
          // The scan as written before the table: the first min(n, limit), then on while a call is open.
          const open = new Set<string>();
          const scan = (i: number): void => {
            for (const p of messages[i]!.parts) {
              if (p.kind === 'tool_call') open.add(p.id);
              else if (p.kind === 'tool_result') open.delete(p.callId);
            }
          };
          let k = Math.min(n, limit);
          for (let i = 0; i < k; i++) scan(i);
          while (open.size > 0 && k < limit) scan(k++);
          const want = open.size > 0 ? [] : Array.from({ length: k }, (_, i) => i);
          expect(primerIndices(ctxOf(messages), n, limit)).toEqual(want);
        }
    }
  });

  it('droppedRanges are the ranges of the history before the cut that are not kept again', () => {
    const r = rng(3);
    for (let t = 0; t < 20_000; t++) {
      const before = Array.from({ length: r(5) }, () => r(30));
      if (r(10) < 7) before.sort((a, b) => a - b);
      const h: HistoryView = { from: r(30), keepBefore: before, end: r(31) };
      const keep = r(3) === 0 ? [] : Array.from({ length: r(r(2) ? 5 : 25) }, () => r(30));
      const from = r(32);
      const kept = new Set(keep);
      const candidates = [...h.keepBefore.filter((i) => i < from)];
      for (let i = h.from; i < Math.min(from, h.end); i++) candidates.push(i);
      expect(droppedRanges(h, from, keep)).toEqual(toRanges(candidates.filter((i) => !kept.has(i))));
    }
  });
});
