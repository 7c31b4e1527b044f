/**
 * A replay continued over a live-tail append (docs/user-guide.md "Live tail"): a grown session is replayed by
 * going on from the state a run of it was kept in, over the new calls only, instead of from call
 * 0 — and the result is the one a full replay of the grown session gives
 * (test/unit/replay/resume.test.ts checks that against full replays of random sessions under every
 * built-in policy, split at random points, grown 1–3 times).
 *
 * The run is kept before its last call, the result made on a copy (`finishedFrom`): an append that
 * writes the last response again (its next lines arrived) changes a message that no kept step
 * read, and the finish (which attaches a compaction after the last call to it) never touches it.
 *
 * Why continuing is exact. A step j of the pass (run.ts) reads the messages up to its own, k_j, and
 * what setup derived over the whole session. So a run kept after steps [0, S) is the run a full
 * replay of the grown session makes over its first S steps when, with `last` = k_(S−1):
 *   1. messages [0, last] are the same objects, their counts (and reference counts) the same, and
 *      so are the counts of the system prompt, tools and unlogged overhead (the calibrated
 *      tokenizer's fit moving or exact counts landing change them: refused);
 *   2. what setup derives over the whole session is the same where those steps read it: the
 *      tokenizer and the emergency path's reference (both ask whether any message reports usage),
 *      the limits (the model, a reported window), the first timestamp, the steps, turns, turn
 *      starts and tool calls of messages [0, last], the pins among them, the rewrites (`sentAs`,
 *      compared whole: their warning counts them), the source compactions emitted so far and none
 *      new among them, the fact index of the messages that entered (ids are handed out in order of
 *      first mention, so the same first messages get the same ids);
 *   3. what a strategy reads of values made over the whole list is read only in comparisons with
 *      the request's end (≤ last) that messages [0, last] decide: the primers' closing index
 *      (primers-recents.ts: a close past them is past every end either way), a cut's first
 *      orphaning result (util.ts, compared with `>= end`), each result's earliest call and the
 *      prompt starts (they read only earlier messages), the exchange starts of the current turn
 *      (compress.ts: none at or past `end` changes an answer). Those are made again for the new
 *      list (their caches are keyed by the list, or by the state, a new object), never carried;
 *   4. a summary of the same fold reads the same: refused for a remote summarizer, and for user
 *      strategies (they could read anything).
 * A run that ended (abort, forced final) continues exactly: its later calls are recorded as not
 * made and emit nothing, as in a full replay. Anything else is refused (`undefined`) and the
 * caller replays the whole session, as before. The kept run is never changed by a continuation,
 * which copies what it goes on from (window, retention, step arrays, events, handlers); only the
 * copy that made its last call wrote on in its step arrays and events, past what it recorded
 * (LiveReplay.reasons, .events, run.next), and a continuation copies no more than that. So a
 * run can be continued twice, and a result never changes once made.
 *
 * Cost: what planResume compares and copies is linear in the session (pointer and number
 * compares, typed-array copies: milliseconds at 165,000 messages), the new calls are replayed as
 * any call is; the shape and the facts of the grown list are made from the old ones
 * (grownShapeOf, carryFacts), not read again.
 */
import { cacheRulesOf } from './cost';
import type { ReplayConfig, ReplayConfigInput } from '../config';
import type { Session, SourceCompaction } from '../model';
import { countWith, type SessionCounts } from '../tokens/index';
import { sentAsTokens } from '../tokens/sent-as';
import { finishRun, limitsOf, resolveTokenizer, runSteps, setupRun, type ReplayOptions, type Run } from './run';
import { SentAsHandler } from './sent-as';
import { carriedUnlogged, grownShapeOf, pinsOf, referenceCountsOf, withUnloggedOverhead } from './setup';
import { SourceCompactions } from './source-compactions';
import type { Pins, ReplayState, SessionShape } from './state';
import { STEP_STATUSES, type ReplayResult } from './types';

/**
 * A run kept to be continued: it stands before the last call it was given, so that an append
 * that writes that call's response again (the last response extended: its next lines arrived)
 * still continues it. The last call and the result are made on a copy (`finishedFrom`).
 */
export interface LiveReplay {
  readonly run: Run;
  /** Why it can never be continued, or undefined. */
  readonly closed: string | undefined;
  /**
   * The reasons and events the run had recorded when it was kept: the copy that made its last
   * call went on in the same arrays (and the result reads them), so a continuation copies only these.
   */
  readonly reasons: number;
  readonly events: number;
  readonly compressions: number;
}

export interface LiveResult {
  readonly result: ReplayResult;
  readonly live: LiveReplay;
}

/** What a continuation is given: the grown session's counts, as `replay` takes them. */
export type ResumeOptions = Pick<ReplayOptions, 'counts' | 'referenceCounts' | 'shouldStop'>;

/** A full replay (as `replay`), keeping its run to be continued. */
export async function replayLive(
  session: Session,
  config: ReplayConfig | ReplayConfigInput,
  options: ReplayOptions = {},
): Promise<LiveResult> {
  return finishedFrom(setupRun(session, config, options), options.shouldStop);
}

/**
 * The replay of `session` — `live`'s session grown by an append — continued from `live` over the
 * new calls; undefined when that could differ from a full replay (see above), after telling
 * `refused` why.
 */
export async function extendReplay(
  live: LiveReplay,
  session: Session,
  options: ResumeOptions = {},
  refused?: (why: string) => void,
): Promise<LiveResult | undefined> {
  const plan = planResume(live, session, options);
  if (typeof plan === 'string') {
    refused?.(plan);
    return undefined;
  }
  return finishedFrom(plan, options.shouldStop);
}

/** Why `live` cannot be continued over `session` (undefined: it can). For tests and logs. */
export function resumeRefusal(live: LiveReplay, session: Session, options: ResumeOptions = {}): string | undefined {
  const plan = planResume(live, session, options);
  return typeof plan === 'string' ? plan : undefined;
}

/**
 * Runs `run` up to its session's last call and keeps it there; a copy makes the last call and
 * the result (finishRun also emits the compactions after the last call, which a longer session
 * emits elsewhere: the kept run never has them).
 */
async function finishedFrom(run: Run, shouldStop: (() => boolean) | undefined): Promise<LiveResult> {
  const S = run.s.shape.stepMsg.length;
  await runSteps(run, shouldStop, Math.max(run.next, S - 1));
  let closed = closedBecause(run);
  const kept = { reasons: run.out.reasonCount, events: run.s.events.length, compressions: run.s.compressions.count };
  // The copy writes on in the run's step arrays and events (no copy of those: only what the
  // run recorded itself is read again, `kept`), in copies of its window and retention.
  const copy =
    closed === undefined ? continued(run, run.s.session, run.s.counts, run.s.reference, run.s.shape, run.s.pins, undefined) : undefined;
  if (typeof copy === 'string') closed = copy;
  const last = typeof copy === 'object' ? copy : run;
  await runSteps(last, shouldStop);
  return { result: finishRun(last), live: { run, closed, ...kept } };
}

function closedBecause(run: Run): string | undefined {
  const s = run.s;
  if (s.config.summarizer === 'openai' || s.config.summarizer === 'anthropic')
    return `the summarizer "${s.config.summarizer}" is remote: a fold summarized again may read differently`;
  if (s.customStrategies.size > 0) return 'a user strategy may read any message';
  if (run.next === 0) return 'no call was replayed before the last';
  return undefined;
}

/** The run that continues `live` over `session`, or why there is none. Changes nothing of `live`. */
function planResume(live: LiveReplay, session: Session, options: ResumeOptions): Run | string {
  if (live.closed) return live.closed;
  const old = live.run;
  const s = old.s;
  const config = s.config;
  const messages = session.messages;
  const n = messages.length;
  const S = old.next;
  const last = s.shape.stepMsg[S - 1]!;
  if (n <= last) return `the session has ${n} messages, the run read ${last + 1}`;
  for (let i = 0; i <= last; i++) if (messages[i] !== s.messages[i]) return `message ${i} is not the one replayed`;
  if (session.model !== s.session.model || session.provider !== s.session.provider) return 'the session model or provider changed';
  if (resolveTokenizer(session, config) !== old.tokenizerId) return 'the tokenizer the config resolves to changed';
  const needsReference = config.paths.emergency && !messages.some((m) => m.usage);
  if (needsReference !== old.needsReference) return 'whether the emergency path needs reference counts changed';
  const limits = limitsOf(session, config);
  if (JSON.stringify(limits) !== JSON.stringify(s.limits)) return 'the resolved limits changed';

  // The unlogged overhead is fitted on the session's calls: a grown session may fit another, and then
  // the run cannot continue. Fitted on a prefix of them that the append left as it was, it is the
  // same line, not fitted again (carriedUnlogged; the checks below are the ones it relies on).
  const base = options.counts ?? countWith(session, old.tokenizerId, { mediaTokens: old.mediaTokens, schemaScale: config.schemaScale });
  const counts =
    carriedUnlogged(s.counts, base, messages, last) ??
    withUnloggedOverhead(
      session,
      base,
      messages.some((m) => m.usage),
    );
  if (counts.perMessage.length !== n || counts.prefix.length !== n + 1)
    return `counts cover ${counts.perMessage.length} messages, the session has ${n}`;
  const countsChanged = changedCounts(s.counts, counts, last);
  if (countsChanged) return countsChanged;
  const reference = needsReference
    ? (options.referenceCounts ?? referenceCountsOf(session, config.referenceTokenizer, old.mediaTokens))
    : undefined;
  if (reference && s.reference) {
    if (reference.perMessage.length !== n || reference.prefix.length !== n + 1)
      return `reference counts cover ${reference.perMessage.length} messages, the session has ${n}`;
    const referenceChanged = changedCounts(s.reference, reference, last);
    if (referenceChanged) return `reference ${referenceChanged}`;
  }
  if (messages.find((m) => m.timestamp !== undefined)?.timestamp !== old.startTime) return 'the first timestamp changed';

  const shape = grownShapeOf(s.messages, s.shape, messages);
  const was = s.shape;
  if (shape.stepMsg.length < S) return 'the session has fewer calls';
  for (let j = 0; j < S; j++) if (shape.stepMsg[j] !== was.stepMsg[j]) return `call ${j} is another message`;
  for (let i = 0; i <= last; i++)
    if (shape.turnOfMsg[i] !== was.turnOfMsg[i] || shape.toolCallsOf[i] !== was.toolCallsOf[i])
      return `message ${i} is in another turn or makes other tool calls`;
  for (let t = 0; t < Math.max(shape.starts.length, was.starts.length); t++) {
    const a = shape.starts[t];
    const b = was.starts[t];
    if ((a !== undefined && a <= last) || (b !== undefined && b <= last)) {
      if (a !== b) return `turn ${t} starts elsewhere`;
    } else break;
  }
  let pins;
  try {
    pins = pinsOf(messages, config, old.options.pinned);
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  for (let i = 0; i <= last; i++) if (pins.isPinned(i) !== s.pins.isPinned(i)) return `message ${i} is pinned or unpinned`;
  if (JSON.stringify(sentAsTokens(session, counts)) !== JSON.stringify(old.sentAs.entries))
    return 'the rewritten messages (sentAs) changed';
  const compactions = [...session.sourceCompactions].sort((a, b) => a.atMessage - b.atMessage);
  const emitted = old.sources.next;
  if (compactions.length < emitted || !sameCompactions(compactions, old.sources.sorted, emitted))
    return 'an emitted source compaction changed';
  if (compactions.length > emitted && compactions[emitted]!.atMessage <= emittedThrough(old))
    return 'a source compaction was added among the replayed calls';

  return continued(old, session, counts, reference, shape, pins, live);
}

/**
 * `old` as a new run over `session` (grown as planResume checked, with `kept`; or itself, for the
 * copy that makes the last call), every part it changes as it goes copied — but for the copy, the
 * step arrays and events, which it writes on past what `old` recorded. A string says why it
 * cannot be.
 */
function continued(
  old: Run,
  session: Session,
  counts: SessionCounts,
  reference: SessionCounts | undefined,
  shape: SessionShape,
  pins: Pins,
  kept: Pick<LiveReplay, 'reasons' | 'events' | 'compressions'> | undefined,
): Run | string {
  const s = old.s;
  // The grown session may tell more about its cache (a first usage, a 1-hour write): the calls billed
  // so far would have been billed otherwise.
  // (The copy that makes the last call goes on over its own session: nothing to compare.)
  if (session !== s.session && JSON.stringify(cacheRulesOf(session, s.limits.model)) !== JSON.stringify(old.cost.rules))
    return 'the cache rules changed';
  const win = s.win.grownTo(counts.perMessage, counts.prefix);
  if (!win) return 'the window cannot be carried exactly';
  const retention = s.retention.grownTo(
    session.messages,
    old.entered,
    (i, end) => win.isInWindow(i, end) && win.masked[i] !== 1,
    () => next.summary,
  );
  if (!retention) return 'the facts of the messages that entered changed';
  // A new state object: caches keyed by it (cut points, the strategies' context) start empty.
  const next: ReplayState = {
    ...s,
    session,
    messages: session.messages,
    counts,
    reference,
    shape,
    pins,
    win,
    retention,
    events: kept ? s.events.slice(0, kept.events) : s.events,
    compressions: kept ? s.compressions.slice(kept.compressions) : s.compressions,
    totals: { ...s.totals },
  };
  const sources = new SourceCompactions(next);
  sources.next = old.sources.next;
  Object.assign(sources.original, old.sources.original);
  return {
    ...old,
    s: next,
    out: kept ? old.out.grownTo(shape.stepMsg.length, old.next, kept.reasons) : old.out,
    budgets: old.budgets.clone(),
    cost: old.cost.clone(),
    sources,
    sentAs: new SentAsHandler(next, old.sentAs.next),
  };
}

/**
 * The message through which the run emitted the source compactions: its last call's, or the one
 * where it ended (calls after an abort or a forced final emit none; the finish emits them).
 */
function emittedThrough(run: Run): number {
  const stepMsg = run.s.shape.stepMsg;
  if (run.s.ended) {
    for (let j = 0; j < run.next; j++) if (run.out.status[j] === ENDED_CODES[0] || run.out.status[j] === ENDED_CODES[1]) return stepMsg[j]!;
  }
  return stepMsg[run.next - 1]!;
}
const ENDED_CODES = [STEP_STATUSES.indexOf('final'), STEP_STATUSES.indexOf('abort')] as const;

/**
 * Whether the first `n` compactions of `a` and `b` say the same. A patched session keeps the
 * compaction objects it had (host/session-append.ts), so most are the same objects; the others are
 * compared by what they hold (a summary each: written out whole at every append, a session's
 * thousand summaries were most of what this check cost).
 */
function sameCompactions(a: readonly SourceCompaction[], b: readonly SourceCompaction[], n: number): boolean {
  for (let i = 0; i < n; i++) if (a[i] !== b[i] && JSON.stringify(a[i]) !== JSON.stringify(b[i])) return false;
  return true;
}

/** Whether `b` counts the first `last + 1` messages and the fixed regions as `a` does (why not, or undefined). */
function changedCounts(a: SessionCounts, b: SessionCounts, last: number): string | undefined {
  if (a.tokenizer !== b.tokenizer) return `counts were made with ${b.tokenizer}, the run's with ${a.tokenizer}`;
  if (a.system !== b.system || a.tools !== b.tools || a.unlogged !== b.unlogged)
    return 'the counts of the system prompt, tools or unlogged overhead changed';
  for (let i = 0; i <= last; i++) if (a.perMessage[i] !== b.perMessage[i]) return `the count of message ${i} changed`;
  for (let i = 0; i <= last + 1; i++) if (a.prefix[i] !== b.prefix[i]) return `the prefix sum before message ${i} changed`;
  return undefined;
}
