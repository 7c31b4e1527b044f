/**
 * The original agent's compactions checked against the agent's own preset (docs/policies.md
 * §Presets, "real vs predicted compactions"): for each compaction the transcript records with its
 * size (Claude Code `compact_boundary` `preTokens`, Codex `compacted` after a `token_count`), the
 * call at which the preset's trigger formula would have compacted the history the agent actually
 * had, and whether the formula explains the size the agent compacted at.
 *
 * Each compaction is checked on its own segment: from the call after the previous compaction to
 * the call it precedes. The agent's measure before a call is what the agent itself reads:
 * - Claude Code: the previous call's reported prompt + its output + the messages that arrived
 *   since (counted with the replay's counts), i.e. the request it is about to send;
 * - Codex: the previous call's reported prompt + output (Codex checks after a call completes).
 * A call with no reported usage before it in its segment is measured from the counts: the fixed
 * regions + the messages since the segment's first message.
 */
import { lowerBound } from '../sorted';
import { resolveLimits, type ResolvedLimits } from '../budget/limits';
import { validateConfig, type ReplayConfig } from '../config';
import type { Session } from '../model';
import { getPolicy } from '../policies/index';
import type { SessionCounts } from '../tokens/index';
import { enforcementOf, overTrigger } from './enforce';
import type { SessionShape } from './state';
import type { SourceCompactionCheck } from './types';

export type { SourceCompactionCheck };

/** The preset each agent format is checked against. */
export const COMPACTION_PRESETS: Readonly<Record<string, 'claude-code' | 'codex'>> = {
  'claude-code': 'claude-code',
  'claude-stream-json': 'claude-code',
  codex: 'codex',
};

/** How close the trigger must be to explain a compaction's size, and how many calls off a prediction may be. */
export const TOKENS_TOLERANCE = 0.02;
export const CALLS_TOLERANCE = 1;

const int = (n: number): string => Math.round(n).toLocaleString('en-US');
const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;

/** The preset's trigger at a window (the same arithmetic the replay enforces, enforce.ts). */
function triggerAt(config: ReplayConfig, limits: ResolvedLimits, window: number): number {
  return enforcementOf(config, { ...limits, window }).trigger;
}

/** The smallest window whose trigger reaches `tokens` (the trigger grows with the window); null past 10M. */
function windowFor(config: ReplayConfig, limits: ResolvedLimits, tokens: number): number | null {
  let lo = 1;
  let hi = 10_000_000;
  if (triggerAt(config, limits, hi) < tokens) return null;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (triggerAt(config, limits, mid) >= tokens) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/**
 * The first call whose message is at or after `atMessage` (S when none), by binary search over the
 * calls' message indices, which only grow: a scan from call 0 for each compaction made every replay
 * quadratic in the session (~1,000 compactions × 300,000 calls: seconds per slider move at 1 GB).
 */
export function firstCallFrom(stepMsg: ArrayLike<number>, atMessage: number): number {
  return lowerBound(stepMsg, atMessage);
}

/**
 * The checks of a session under its counts, made once: they read the session, its counts and its
 * shape (made from its messages), never the replay's config — every slider move of a long session
 * made them again (~1,000 compactions at 300,000 calls, each with its implied window's search).
 */
const checksMade = new WeakMap<Session, WeakMap<SessionCounts, { shape: SessionShape; checks: SourceCompactionCheck[] }>>();

/**
 * The checks of every compaction the session records, against the preset of its format; [] for a
 * format without a token-triggered preset. `counts`: the replay's counts (arrivals and sessions
 * without usage); `shape`: the replay's shape of the session. The same arrays for the same
 * session, counts and shape (never changed by a reader).
 */
export function checkSourceCompactions(session: Session, counts: SessionCounts, shape: SessionShape): SourceCompactionCheck[] {
  let bySession = checksMade.get(session);
  const made = bySession?.get(counts);
  if (made && made.shape === shape) return made.checks;
  const checks = checksOf(session, counts, shape);
  if (!bySession) checksMade.set(session, (bySession = new WeakMap()));
  bySession.set(counts, { shape, checks });
  return checks;
}

function checksOf(session: Session, counts: SessionCounts, shape: SessionShape): SourceCompactionCheck[] {
  const preset = COMPACTION_PRESETS[session.format];
  const policy = preset ? getPolicy(preset) : undefined;
  if (!preset || !policy || session.sourceCompactions.length === 0) return [];
  const config = validateConfig(policy.config);
  const limits = resolveLimits({
    ...(session.reportedContextWindow !== undefined && session.reportedContextWindow > 0
      ? { transcriptWindow: session.reportedContextWindow }
      : {}),
    buffer: config.buffer,
    model: session.model,
    provider: session.provider,
    maxOutputWindowFirst: config.maxOutputWindowFirst,
  });
  const T = enforcementOf(config, limits).trigger;
  const countsArrivals = preset === 'claude-code';
  const stepMsg = shape.stepMsg;
  const S = stepMsg.length;
  const fixed = counts.system + counts.unlogged + counts.tools;
  const callOf = (atMessage: number): number => firstCallFrom(stepMsg, atMessage);

  const sorted = [...session.sourceCompactions].sort((a, b) => a.atMessage - b.atMessage);
  const out: SourceCompactionCheck[] = [];
  let segCall = 0;
  let segMsg = 0;
  for (const c of sorted) {
    const call = callOf(c.atMessage);
    const end = Math.min(c.atMessage, session.messages.length);
    /** The agent's measure before call j of this segment (j = call: up to the compaction). */
    const measure = (j: number): number => {
      const k = j < S ? Math.min(stepMsg[j]!, end) : end;
      for (let p = j - 1; p >= segCall; p--) {
        const kp = stepMsg[p]!;
        if (shape.usageAt[kp] !== 1) continue;
        const arrivals = countsArrivals && k > kp + 1 ? counts.prefix[k]! - counts.prefix[kp + 1]! : 0;
        return shape.promptOf[kp]! + (shape.outputAt[kp] === 1 ? shape.outputOf[kp]! : 0) + arrivals;
      }
      return fixed + counts.prefix[k]! - counts.prefix[segMsg]!;
    };
    let predictedCall: number | null = null;
    for (let j = segCall; j <= call; j++) {
      if (overTrigger(config, measure(j), T)) {
        predictedCall = j;
        break;
      }
    }
    const preTokens = c.tokensBefore !== undefined && c.tokensBefore > 0 ? c.tokensBefore : null;
    const predictedTokens = predictedCall === null ? null : measure(predictedCall);
    const measuredTokens = measure(call);
    const callError = predictedCall === null ? null : predictedCall - call;
    const tokensError = preTokens === null ? null : (preTokens - T) / T;
    const impliedWindow = preTokens === null ? null : windowFor(config, limits, preTokens);
    const before = call > segCall ? measure(call - 1) : null;
    // The formula explains the size when the agent compacted past the trigger (2% slack) and the measure before did not pass it.
    const explained = tokensError !== null && tokensError >= -TOKENS_TOLERANCE && (before === null || before <= T * (1 + TOKENS_TOLERANCE));
    const callOk = callError !== null && Math.abs(callError) <= CALLS_TOLERANCE;
    const hit = c.trigger === 'auto' && explained && callOk;
    const where = `trigger ${int(T)} at window ${int(limits.window)} (${limits.windowSource})`;
    let reason: string;
    if (c.trigger === 'manual') reason = `a manual compaction (/compact): the agent was asked to compact, no trigger to predict`;
    else if (preTokens === null) reason = `the log does not give the size before the compaction: only the call is checked`;
    else if (hit)
      reason = `predicted at call ${predictedCall} (${int(predictedTokens!)} tokens); the agent compacted at ${int(preTokens)}, ${pct(tokensError!)} past the ${where}`;
    else if (tokensError! < -TOKENS_TOLERANCE) {
      const smaller = `its window is likely smaller than the catalog's${impliedWindow !== null ? ` (the trigger is ${int(preTokens)} at a window of ${int(impliedWindow)})` : ''}`;
      // Far below (under half the trigger) a smaller window is unlikely: a /compact is (Codex logs both alike).
      reason = `the agent compacted at ${int(preTokens)}, ${pct(-tokensError!)} below the ${where}: ${
        preTokens < T / 2 || c.trigger === 'unknown' ? `likely a manual compaction (/compact), or ${smaller}` : smaller
      }`;
    } else if (before !== null && before > T * (1 + TOKENS_TOLERANCE))
      reason = `the agent's measure passed the ${where} before call ${call - 1} (${int(before)}) but it compacted only at ${int(preTokens)}: its window is likely larger than the catalog's${impliedWindow !== null ? ` (at least ${int(impliedWindow)})` : ''}`;
    else
      reason = `predicted at call ${predictedCall ?? 'none'} against call ${call}: the measure rebuilt from the log (${int(measuredTokens)}) differs from preTokens ${int(preTokens)} by ${pct((measuredTokens - preTokens) / preTokens)}`;
    out.push({
      call,
      trigger: c.trigger,
      preset,
      preTokens,
      measuredTokens,
      triggerTokens: T,
      window: limits.window,
      windowSource: limits.windowSource,
      predictedCall,
      predictedTokens,
      callError,
      tokensError,
      impliedWindow,
      hit,
      reason,
    });
    // The call after a compaction is the first of the next segment: its own usage is after the compaction.
    segCall = Math.min(call, S);
    segMsg = end;
  }
  return out;
}
