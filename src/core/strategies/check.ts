/**
 * A user's strategy (loaded by the CLI from their own module) is untrusted input: its result is
 * checked against the contract every built-in strategy keeps — ranges inside the window, the live
 * range starting at a cut point, no tool result kept without its call, no call kept whose result
 * was dropped — and a violation is a clear error naming the strategy, never a corrupt replay.
 */
import type { MessageRange } from '../replay/types';
import type { HistoryView, StrategyContext, StrategyResult } from './types';

const isIndex = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

export function checkedResult(name: string, raw: unknown, h: HistoryView, ctx: StrategyContext): StrategyResult {
  const fail = (what: string): never => {
    throw new Error(`strategy ${name}: ${what}`);
  };
  if (typeof raw !== 'object' || raw === null) fail('must return { kept, dropped, masked?, summaryRequest?, note }');
  const r = raw as Partial<StrategyResult> & { masked?: unknown };
  const kept = r.kept;
  if (!kept || !isIndex(kept.from) || !Array.isArray(kept.keepBefore)) fail('kept must be { from: index, keepBefore: index[] }');
  const from = kept!.from;
  if (from < h.from || from > h.end) fail(`kept.from ${from} is outside the window [${h.from}, ${h.end}]`);
  if (from !== h.from && from !== h.end && !ctx.turnStarts.includes(from))
    fail(`kept.from ${from} is not a turn boundary (it would split a turn)`);
  const inView = new Set<number>([...h.keepBefore, ...Array.from({ length: h.end - h.from }, (_, k) => h.from + k)]);
  const keepBefore = kept!.keepBefore as unknown[];
  for (const i of keepBefore)
    if (!isIndex(i) || i >= from || !inView.has(i)) fail(`kept.keepBefore holds ${String(i)}, not a message of the window before ${from}`);
  const masked = r.masked === undefined ? [] : r.masked;
  if (!Array.isArray(masked)) fail('masked must be an array of message indices');
  for (const i of masked as unknown[])
    if (!isIndex(i) || !inView.has(i) || !ctx.messages[i]!.parts.some((p) => p.kind === 'tool_result'))
      fail(`masked holds ${String(i)}, not a tool result in the window`);
  // The kept messages must not orphan a call or a result.
  const keptIdx = [...(keepBefore as number[]), ...Array.from({ length: h.end - from }, (_, k) => from + k)].sort((a, b) => a - b);
  const keptSet = new Set(keptIdx);
  const callAt = new Map<string, number>();
  for (const i of inView) for (const p of ctx.messages[i]!.parts) if (p.kind === 'tool_call') callAt.set(p.id, i);
  for (const i of keptIdx)
    for (const p of ctx.messages[i]!.parts) {
      if (p.kind !== 'tool_result') continue;
      const c = callAt.get(p.callId);
      if (c !== undefined && !keptSet.has(c)) fail(`keeps the result in message ${i} but drops its call in message ${c}`);
    }
  for (const i of inView) {
    if (keptSet.has(i)) continue;
    for (const p of ctx.messages[i]!.parts)
      if (p.kind === 'tool_result' && callAt.has(p.callId) && keptSet.has(callAt.get(p.callId)!))
        fail(`keeps the call in message ${callAt.get(p.callId)} but drops its result in message ${i}`);
  }
  const dropped: MessageRange[] = [];
  let run: [number, number] | undefined;
  for (const i of [...inView].sort((a, b) => a - b)) {
    if (keptSet.has(i)) continue;
    if (run && i === run[1] + 1) run[1] = i;
    else dropped.push((run = [i, i]));
  }
  const sr = r.summaryRequest;
  if (
    sr !== undefined &&
    (typeof sr !== 'object' || sr === null || !Array.isArray(sr.ranges) || typeof sr.targetTokens !== 'number' || !(sr.targetTokens > 0))
  )
    fail('summaryRequest must be { ranges: [from, to][], targetTokens > 0 }');
  const droppedSet = new Set(dropped.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, k) => a + k)));
  const fold = sr
    ? sr.ranges.flatMap((x) =>
        Array.isArray(x) && isIndex(x[0]) && isIndex(x[1])
          ? Array.from({ length: Math.max(0, x[1] - x[0] + 1) }, (_, k) => x[0] + k)
          : fail('summaryRequest.ranges must be [from, to] index pairs'),
      )
    : [];
  for (const i of fold) if (!droppedSet.has(i)) fail(`summaryRequest folds message ${i}, which is not dropped`);
  return {
    kept: { from, keepBefore: keptIdx.filter((i) => i < from) },
    // The dropped ranges are derived from what is kept, so they can never disagree with it.
    dropped,
    masked: (masked as number[]).filter((i) => keptSet.has(i)),
    ...(sr ? { summaryRequest: { ranges: sr.ranges, targetTokens: sr.targetTokens } } : {}),
    note: typeof r.note === 'string' ? r.note : name,
  };
}
