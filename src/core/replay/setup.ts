/**
 * What a replay derives from the session before its pass (docs/policies.md §Common): the shape of
 * the session (steps, turns), reference counts for S0's emergency path, and the pinned messages.
 * The first two do not depend on the policy and are cached per message list, so a sweep of
 * policies or a slider move pays for them once.
 */
import { lowerBound } from '../sorted';
import type { ReplayConfig } from '../config';
import { promptTokens, type Message, type Session } from '../model';
import { fitCalibrationOfCalls, fittedCalls, FIT_ALL_UP_TO, reportingCalls } from '../tokens/calibrate';
import { countWith, type SessionCounts } from '../tokens/index';
import { isTurnBoundary, turnIndex, turnStarts as computeTurnStarts } from '../turns';
import type { Pins, SessionShape } from './state';

/** Steps, turn of each message, turn starts and tool calls per message: fixed per message list, so cached for sweeps. */
const shapeCache = new WeakMap<readonly Message[], SessionShape>();
export function shapeOf(messages: readonly Message[]): SessionShape {
  let shape = shapeCache.get(messages);
  if (!shape) {
    const steps: number[] = [];
    for (let i = 0; i < messages.length; i++) if (messages[i]!.role === 'assistant') steps.push(i);
    const toolCallsOf = new Uint32Array(messages.length);
    for (let i = 0; i < messages.length; i++) for (const p of messages[i]!.parts) if (p.kind === 'tool_call') toolCallsOf[i]!++;
    const usage = usageTable(messages.length);
    readUsage(messages, 0, usage);
    shape = {
      stepMsg: Uint32Array.from(steps),
      turnOfMsg: turnIndex(messages),
      starts: computeTurnStarts(messages),
      toolCallsOf,
      ...usage,
      anyUsage: usage.usageAt.includes(1),
    };
    shapeCache.set(messages, shape);
  }
  return shape;
}

/**
 * Whether any message reports usage: from the list's shape when it is made, else by a scan that
 * stops at the first that does — so that a grown list's shape is made from the old one's
 * (grownShapeOf) rather than from scratch by the first question asked of it.
 */
export function anyUsageOf(messages: readonly Message[]): boolean {
  const shape = shapeCache.get(messages);
  return shape ? shape.anyUsage : messages.some((m) => m.usage !== undefined);
}

/**
 * The shape of `messages`, a list grown from `oldMessages` (a live-tail append): the first
 * messages that are the same objects keep their steps, turns and tool calls, and only the rest is
 * read — what shapeOf builds over the whole list (each message's turn depends on it and the turn
 * before; test/unit/replay/resume.test.ts compares them).
 */
export function grownShapeOf(oldMessages: readonly Message[], oldShape: SessionShape, messages: readonly Message[]): SessionShape {
  let shape = shapeCache.get(messages);
  if (shape) return shape;
  const n = messages.length;
  let same = 0;
  while (same < n && same < oldMessages.length && messages[same] === oldMessages[same]) same++;
  if (same === 0 || oldShape.turnOfMsg.length !== oldMessages.length) return shapeOf(messages);
  // The kept steps and turn starts are a prefix of the old ones (both ascending): copied whole.
  const keptSteps = lowerBound(oldShape.stepMsg, same);
  const steps: number[] = [];
  const turnOfMsg = new Uint32Array(n);
  turnOfMsg.set(oldShape.turnOfMsg.subarray(0, same));
  const toolCallsOf = new Uint32Array(n);
  toolCallsOf.set(oldShape.toolCallsOf.subarray(0, same));
  const starts = oldShape.starts.slice(0, lowerBound(oldShape.starts, same));
  let turn = turnOfMsg[same - 1]!;
  for (let i = same; i < n; i++) {
    const m = messages[i]!;
    if (m.role === 'assistant') steps.push(i);
    if (isTurnBoundary(m)) {
      turn++;
      starts.push(i);
    }
    turnOfMsg[i] = turn;
    for (const p of m.parts) if (p.kind === 'tool_call') toolCallsOf[i]!++;
  }
  const usage = usageTable(n);
  usage.usageAt.set(oldShape.usageAt.subarray(0, same));
  usage.promptOf.set(oldShape.promptOf.subarray(0, same));
  usage.outputAt.set(oldShape.outputAt.subarray(0, same));
  usage.outputOf.set(oldShape.outputOf.subarray(0, same));
  readUsage(messages, same, usage);
  const stepMsg = new Uint32Array(keptSteps + steps.length);
  stepMsg.set(oldShape.stepMsg.subarray(0, keptSteps));
  stepMsg.set(steps, keptSteps);
  shape = { stepMsg, turnOfMsg, starts, toolCallsOf, ...usage, anyUsage: usage.usageAt.includes(1) };
  shapeCache.set(messages, shape);
  return shape;
}

/**
 * The shape of `old` carried to `next`, which holds its first `from` messages (a live-tail append,
 * core/replay/carry.ts): made now from the old one, so the grown list's detail and its continued
 * replay read it without going through every message.
 */
export function carryShape(old: readonly Message[], next: readonly Message[], from: number): void {
  const held = shapeCache.get(old);
  if (held && from > 0 && !shapeCache.has(next)) grownShapeOf(old, held, next);
}

type UsageTable = Pick<SessionShape, 'usageAt' | 'promptOf' | 'outputAt' | 'outputOf'>;

function usageTable(n: number): UsageTable {
  return { usageAt: new Uint8Array(n), promptOf: new Float64Array(n), outputAt: new Uint8Array(n), outputOf: new Float64Array(n) };
}

/** The usage of messages `from`… into `t` (SessionShape.usageAt and the rest). */
function readUsage(messages: readonly Message[], from: number, t: UsageTable): void {
  for (let i = from; i < messages.length; i++) {
    const u = messages[i]!.usage;
    if (!u) continue;
    t.usageAt[i] = 1;
    t.promptOf[i] = promptTokens(u);
    const out = u.output as number | null | undefined;
    if (out !== undefined && out !== null) {
      t.outputAt[i] = 1;
      t.outputOf[i] = out;
    }
  }
}

/**
 * Reference counts computed here (no host cache): once per message list and tokenizer. Counting a
 * long session with a BPE encoding takes seconds; the counts do not depend on the policy.
 */
const referenceCache = new WeakMap<readonly Message[], Map<string, SessionCounts>>();
export function referenceCountsOf(session: Session, tokenizer: string, mediaTokens: number): SessionCounts {
  let bySpec = referenceCache.get(session.messages);
  if (!bySpec) referenceCache.set(session.messages, (bySpec = new Map()));
  const key = `${tokenizer}\u0000${mediaTokens}`;
  let c = bySpec.get(key);
  if (!c) bySpec.set(key, (c = countWith(session, tokenizer, { mediaTokens })));
  return c;
}

/**
 * Messages the session itself pins (`Message.pinned`), once per message list: each replay read
 * the flag of every message (messages of many shapes: a slow property read), a tenth of a replay
 * of a policy that compresses rarely.
 */
const sessionPins = new WeakMap<readonly Message[], readonly number[]>();
function pinnedInSession(messages: readonly Message[]): readonly number[] {
  let out = sessionPins.get(messages);
  if (!out) {
    const found: number[] = [];
    for (let i = 0; i < messages.length; i++) if (messages[i]!.pinned === true) found.push(i);
    sessionPins.set(messages, (out = found));
  }
  return out;
}

/** config.pinned and options.pinned → pinned message indices; an unknown id or index is a clear error. */
export function pinsOf(messages: readonly Message[], config: ReplayConfig, extra: ReadonlySet<string> | undefined): Pins {
  const idx = new Set<number>();
  let byId: Map<string, number> | undefined;
  const indexOfId = (id: string): number => {
    byId ??= new Map(messages.map((m, i) => [m.id, i]));
    const i = byId.get(id);
    if (i === undefined) throw new Error(`pinned: no message with id "${id}" in this session`);
    return i;
  };
  for (const p of config.pinned) {
    if (typeof p === 'number') {
      if (p >= messages.length)
        throw new Error(
          `pinned: message index ${p} is out of range (the session has ${messages.length} messages, 0 to ${messages.length - 1})`,
        );
      idx.add(p);
    } else idx.add(indexOfId(p));
  }
  // Host-supplied ids may name messages of another session version: those are ignored, not fatal.
  if (extra && extra.size > 0) messages.forEach((m, i) => extra.has(m.id) && idx.add(i));
  for (const i of pinnedInSession(messages)) idx.add(i);
  const sorted = Int32Array.from([...idx].sort((a, b) => a - b));
  const flag = new Uint8Array(messages.length);
  for (const i of sorted) flag[i] = 1;
  return { any: sorted.length > 0, sorted, isPinned: (i) => flag[i] === 1 };
}

/**
 * What the provider counted beyond the transcript, carried into every estimator: a transcript
 * that does not log the system prompt and tool definitions (Claude Code) still had them in every
 * request, so the `unlogged` region is content, not an artefact of the calibrated tokenizer. A
 * policy counting with another tokenizer gets the same overhead in its own units — the
 * calibration's line fitted on that tokenizer's counts (tokens/calibrate.ts), its overhead
 * divided by its ratio — so switching policy changes only what the policy changes
 * (docs/user-guide.md, compare). Counts that already carry it (calibrated) and sessions with no
 * reported usage are returned as they are. Cached per counts object: a sweep pays once.
 */
const unloggedCache = new WeakMap<SessionCounts, SessionCounts>();
/** Provider tokens below which a fitted offset is not taken for an unlogged system prompt and tools. */
export const MIN_UNLOGGED = 1_000;
export function withUnloggedOverhead(session: Session, counts: SessionCounts, anyUsage: boolean): SessionCounts {
  if (counts.unlogged > 0 || counts.tokenizer === 'calibrated' || !anyUsage) return counts;
  let out = unloggedCache.get(counts);
  if (!out) {
    const { fit, calls } = fitCalibrationOfCalls(session, counts);
    // A system prompt and tool definitions are thousands of tokens; a smaller offset, or one no larger
    // than the fit's own error, is the tokenizer's framing, not content the transcript left out.
    // A fallback offset (a line that is not physical) is no evidence of content either.
    const material =
      fit.fallback === undefined && fit.points > 0 && fit.ratio > 0 && fit.overhead >= MIN_UNLOGGED && fit.overhead > fit.meanAbsError;
    const unlogged = material ? Math.round(fit.overhead / fit.ratio) : 0;
    out = unlogged > 0 ? { ...counts, unlogged } : counts;
    unloggedCache.set(counts, out);
    // Fitted on a prefix of the calls (fittedCalls): a grown session may carry it (carriedUnlogged).
    if (fit.points >= FIT_ALL_UP_TO) unloggedFits.set(out, { calls, fitted: fit.points });
  }
  return out;
}

/** The calls a prefix fit read (`fitted` of them) among every reporting call of its session, by counts object. */
const unloggedFits = new WeakMap<SessionCounts, { readonly calls: Int32Array; readonly fitted: number }>();

/**
 * The grown session's counts with the unlogged overhead of `old` (a run's counts, made by
 * withUnloggedOverhead for the session before an append) without fitting the line again, when it
 * is the same line: it was fitted on a prefix of the calls (fittedCalls) that ends at or before
 * message `last`, and the grown session's number of calls still gives that prefix. Valid only
 * where the caller also checks that messages [0, last] are the same objects with the same counts,
 * system prompt and tools, the same rewrites (sentAs) and source compactions — the fitted points
 * are then the same (core/replay/resume.ts planResume checks each and refuses otherwise). Nothing
 * is cached for `base`: a refused continuation fits its counts as before.
 */
export function carriedUnlogged(
  old: SessionCounts,
  base: SessionCounts,
  messages: readonly Message[],
  last: number,
): SessionCounts | undefined {
  if (base.unlogged > 0 || base.tokenizer === 'calibrated') return undefined;
  const held = unloggedFits.get(old);
  if (!held || held.calls[held.fitted - 1]! > last) return undefined;
  // The calls at or before `last` are the same messages; those after it are read again (the last
  // response may have been written again).
  let kept = held.calls.length;
  while (kept > 0 && held.calls[kept - 1]! > last) kept--;
  const after = reportingCalls(messages, last + 1);
  if (fittedCalls(kept + after.length) !== held.fitted) return undefined;
  const out = old.unlogged === 0 ? base : { ...base, unlogged: old.unlogged };
  const calls = new Int32Array(kept + after.length);
  calls.set(held.calls.subarray(0, kept));
  calls.set(after, kept);
  unloggedFits.set(out, { calls, fitted: held.fitted });
  return out;
}
