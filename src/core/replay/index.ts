/**
 * The simulator (docs/policies.md §Common): one pass over the transcript's LLM calls (steps) that
 * rebuilds, under a config, what each request would have held — system, unlogged overhead,
 * summary, kept history, tool definitions — calling one handler per concern, in this order:
 *
 *   arrival.ts        messages before the call: turns (→ async-path.ts, S0 path 1), tool calls,
 *                     tool results (→ tool-preflight.ts, S1)
 *   sent-as.ts        messages the original agent sent rewritten from a call on (history processors)
 *   source-compactions.ts   what the original agent compacted
 *   proactive.ts      the trigger check before the call (S0 path 2, S2, S3, S4, presets)
 *   emergency.ts      S0 path 3: the true size overflows though the estimate fit
 *   guard.ts          S1's tool-budget final turn and turn_preflight (ok / skip / final)
 *   budgets.ts        S3's layers and S4's hard limits, before the call is made
 *   cost.ts           what the call is billed
 *   steps.ts          regions, limit, trigger, status and reason of the step
 *   retention.ts      facts and needles that left and were needed again
 *
 * setup.ts derives the session's shape, reference counts and pins; compress.ts is the engine the
 * three compression paths share. The transcript's own messages are
 * replayed as they happened: the agent's outputs are taken as unchanged by a different context.
 * Numbers per step live in typed arrays; history sizes come from prefix sums (window.ts).
 */
import { resolveLimits } from '../budget/limits';
import { validateConfig, type ReplayConfig, type ReplayConfigInput } from '../config';
import type { Session } from '../model';
import type { Strategy } from '../strategies/index';
import { cached, memoryStore } from '../summarize/cache';
import { extractiveSummarizer } from '../summarize/extractive';
import type { Summarizer } from '../summarize/types';
import { countWith, defaultTokenizerFor, mediaTokensFor, type SessionCounts } from '../tokens/index';
import { promptTokens } from '../model';
import { arrive } from './arrival';
import { BudgetHandler } from './budgets';
import { CostHandler } from './cost';
import { emergencyPath } from './emergency';
import { enforcementOf } from './enforce';
import { guardStep, toolBudgetFinal } from './guard';
import { proactiveFires, proactivePath } from './proactive';
import { RetentionTracker } from './retention';
import { pinsOf, referenceCountsOf, shapeOf } from './setup';
import { SentAsHandler } from './sent-as';
import { SourceCompactions } from './source-compactions';
import { int, pct, requestAt, type ReplayState, type StepDecision } from './state';
import { StepArrays } from './steps';
import { summaryCounter, summaryTextCounter } from './summary-tokens';
import type { ReplayResult } from './types';
import { WindowState } from './window';

export interface ReplayOptions {
  /** Counts under the config's tokenizer (computed when absent). */
  readonly counts?: SessionCounts;
  readonly summarizer?: Summarizer;
  /** User needles: strings, or `/regex/flags`. */
  readonly needles?: readonly string[];
  /** Message ids pinned by the user (never dropped), besides `Message.pinned` and `config.pinned`. */
  readonly pinned?: ReadonlySet<string>;
  /**
   * Counts under `config.referenceTokenizer`, for S0's emergency path on a transcript without
   * reported usage (the host passes its stored counts; computed here once per session when absent).
   */
  readonly referenceCounts?: SessionCounts;
  /** User strategies by name, used by `custom:<name>` in the pipeline. Their results are checked. */
  readonly strategies?: Readonly<Record<string, Strategy>>;
  /**
   * Asked every STOP_CHECK_EVERY calls: true ends the replay with ReplayCancelled. The host passes
   * a check of a flag another thread sets (a superseded slider move), so a replay nobody will look
   * at stops instead of holding the worker; core only calls the function.
   */
  readonly shouldStop?: () => boolean;
  /**
   * `full` (the default): everything the views read. `totals`: what a sweep reads — totals,
   * retention, and each step's numbers and status — with no reason text (every `reasonIndex` 0)
   * and no events: the tuner replays a session a hundred times and reads none of them, and
   * wording them (a soft budget words one on every call) was a quarter of its time. Totals,
   * retention and statuses are the full replay's (test/unit/replay/lean.test.ts).
   */
  readonly detail?: 'full' | 'totals';
}

/** How often (in calls) `shouldStop` is asked: cheap enough to be unnoticed, often enough to stop within milliseconds. */
export const STOP_CHECK_EVERY = 256;

/** A replay ended by `shouldStop`; `step` is the call it stopped before. */
export class ReplayCancelled extends Error {
  constructor(readonly step: number) {
    super(`the replay was cancelled before call ${step}`);
    this.name = 'ReplayCancelled';
  }
}

/** Default summarizer: extractive, cached for the life of the process. */
const defaultSummarizer = cached(extractiveSummarizer, memoryStore());

export function resolveTokenizer(session: Session, config: ReplayConfig): string {
  return config.tokenizer === 'auto' ? defaultTokenizerFor(config.model ?? session.model, session.messages.some((m) => m.usage)) : config.tokenizer;
}

export async function replay(session: Session, configInput: ReplayConfig | ReplayConfigInput, options: ReplayOptions = {}): Promise<ReplayResult> {
  const config = validateConfig(configInput);
  const messages = session.messages;
  const n = messages.length;
  const tokenizerId = resolveTokenizer(session, config);
  const mediaTokens = config.mediaTokens ?? mediaTokensFor(session.provider);
  const counts = options.counts ?? countWith(session, tokenizerId, { mediaTokens, schemaScale: config.schemaScale });
  if (counts.perMessage.length !== n || counts.prefix.length !== n + 1) {
    throw new Error(`replay: counts cover ${counts.perMessage.length} messages but the session has ${n}; count this session (countWith) and pass those counts`);
  }
  if (options.referenceCounts && options.referenceCounts.perMessage.length !== n) {
    throw new Error(`replay: reference counts cover ${options.referenceCounts.perMessage.length} messages but the session has ${n}`);
  }
  const customStrategies = new Map<string, Strategy>();
  for (const id of config.pipeline) {
    if (!id.startsWith('custom:')) continue;
    const fn = options.strategies?.[id.slice('custom:'.length)];
    if (typeof fn !== 'function') throw new Error(`pipeline: strategy "${id}" was not provided (known: ${Object.keys(options.strategies ?? {}).map((k) => 'custom:' + k).join(', ') || 'none'})`);
    customStrategies.set(id, fn);
  }
  const needsReference = config.paths.emergency && !messages.some((m) => m.usage);
  const limits = resolveLimits({
    ...(config.window !== undefined ? { window: config.window } : {}),
    // A reported window of 0 (some Codex lines) means "unknown", not a zero-sized window.
    ...(session.reportedContextWindow !== undefined && session.reportedContextWindow > 0 ? { transcriptWindow: session.reportedContextWindow } : {}),
    ...(config.maxOutput !== undefined ? { maxOutput: config.maxOutput } : {}),
    buffer: config.buffer,
    model: config.model ?? session.model,
    provider: session.provider,
  });
  const enforcement = enforcementOf(config, limits);
  const shape = shapeOf(messages);
  const win = new WindowState(counts.perMessage, counts.prefix);
  const countText = summaryCounter(tokenizerId);
  const events: ReplayResult['events'][number][] = [];
  const lean = options.detail === 'totals';
  const s: ReplayState = {
    lean,
    session,
    messages,
    config,
    counts,
    reference: needsReference ? (options.referenceCounts ?? referenceCountsOf(session, config.referenceTokenizer, mediaTokens)) : undefined,
    limits,
    enforcement,
    fixed: counts.system + counts.unlogged + counts.tools,
    shape,
    pins: pinsOf(messages, config, options.pinned),
    countText,
    countSummary: summaryTextCounter(tokenizerId),
    summarizer: config.summarizer === 'none' ? undefined : (options.summarizer ?? defaultSummarizer),
    customStrategies,
    model: limits.model,
    win,
    // The tracker reads the summary through a function so it never goes stale.
    retention: new RetentionTracker(messages, options.needles ?? [], (i, end) => win.isInWindow(i, end) && win.masked[i] !== 1, () => s.summary),
    events,
    totals: { billedInputTokens: 0, cachedInputTokens: 0, outputTokens: 0, cost: 0, compressions: 0, tokensRemoved: 0, peak: 0, forcedFinals: 0, aborts: 0 },
    summary: null,
    summaryTokens: 0,
    toolCalls: 0,
    callsMade: 0,
    toolBudgetHitAt: -1,
    ended: null,
  };

  // A remote summarizer needs an endpoint and a key only the host has: without one, say so and go on extractively.
  if ((config.summarizer === 'openai' || config.summarizer === 'anthropic') && !options.summarizer) events.push({ kind: 'warning', step: 0, text: `summarizer "${config.summarizer}" was not provided by the host (endpoint and key); summaries are extractive` });
  if (counts.tokenizer !== tokenizerId) events.push({ kind: 'warning', step: 0, text: `counts were made with ${counts.tokenizer}, the config asks for ${tokenizerId}: figures follow ${counts.tokenizer}` });
  if (enforcement.clampWarning) events.push({ kind: 'warning', step: 0, text: enforcement.clampWarning });

  const S = shape.stepMsg.length;
  const out = new StepArrays(S, enforcement.trigger, lean);
  const budgets = new BudgetHandler(config);
  const cost = new CostHandler();
  const sources = new SourceCompactions(s);
  const sentAs = new SentAsHandler(s);
  const startTime = messages.find((m) => m.timestamp !== undefined)?.timestamp;
  let entered = 0;

  const shouldStop = options.shouldStop;
  for (let j = 0; j < S; j++) {
    if (shouldStop && j % STOP_CHECK_EVERY === 0 && j > 0 && shouldStop()) throw new ReplayCancelled(j);
    const k = shape.stepMsg[j]!;
    if (s.ended) {
      out.recordEnded(s, j, s.ended);
      continue;
    }
    const d: StepDecision = { status: 'ok', reason: '', limit: enforcement.limit, model: s.model };
    const compressionsBefore = s.totals.compressions;

    // Each path is awaited only when it has work (a promise per call and path was a share of a sweep).
    const arriving = arrive(s, entered, k, j, d);
    if (arriving) await arriving;
    entered = k;
    sentAs.applyUpTo(s, k, j);
    sources.emitUpTo(k, j);
    if (proactiveFires(s, k)) await proactivePath(s, k, j, d);
    if (config.paths.emergency) await emergencyPath(s, sources.original, k, j, d);
    if (s.totals.compressions !== compressionsBefore) cost.compressed();

    const request = requestAt(s, k);
    const usage = messages[k]!.usage;
    if (usage) out.reported[j] = promptTokens(usage);
    toolBudgetFinal(s, j, d);
    guardStep(s, j, request, d, session.model);

    if (budgets.active) {
      const minutes = startTime !== undefined && messages[k]!.timestamp !== undefined ? (messages[k]!.timestamp! - startTime) / 60_000 : 0;
      const t = s.totals;
      const used = { turns: s.callsMade, tokens: t.billedInputTokens + t.outputTokens, toolCalls: s.toolCalls, cost: t.cost, minutes };
      if (lean) budgets.verdict(used, request, d);
      else budgets.check(j, used, request, d, events);
    }
    if (d.status === 'abort') s.totals.aborts++;
    else cost.bill(s, k, request, d.model);

    if (d.status === 'ok' && config.warnAt !== undefined && request > config.warnAt * limits.window) {
      d.status = 'warn';
      if (!lean) {
        d.reason = `${pct(request, limits.window)} of window (${int(request)} of ${int(limits.window)}) is past the warning level ${pct(config.warnAt, 1)}`;
        events.push({ kind: 'warning', step: j, text: d.reason });
      }
    }
    // docs/policies.md §Common: a step above the limit its policy enforces is never `ok`.
    if (d.status === 'ok' && request > d.limit) {
      d.status = 'warn';
      if (!lean) d.reason = `request ${int(request)} > limit ${int(d.limit)} (${d.limit === enforcement.limit ? enforcement.limitBasis : 'fallback model'})`;
    }
    out.record(s, j, k, request, d);
    if (d.status === 'final' || d.status === 'abort') s.ended = d.status;
  }
  // A compaction the original agent did after its last call still belongs to the session.
  if (S > 0) sources.emitUpTo(Infinity, S - 1);

  return {
    policy: config.policy,
    config: {
      ...config,
      resolved: {
        tokenizer: tokenizerId,
        window: limits.window,
        windowSource: limits.windowSource,
        maxOutput: limits.maxOutput,
        maxOutputSource: limits.maxOutputSource,
        buffer: limits.buffer,
        bufferSource: limits.bufferSource,
        limit: limits.limit,
        enforcedLimit: enforcement.limit,
        enforcedLimitBasis: enforcement.limitBasis,
        trigger: Number.isNaN(enforcement.trigger) ? null : enforcement.trigger,
        triggerBasis: enforcement.basisName,
        model: limits.model?.id ?? null,
        warnings: limits.warnings,
      },
    },
    steps: out.result(shape.stepMsg, turnsOfSteps(shape.stepMsg, shape.turnOfMsg)),
    // Rare paths (guards, tool preflight, source compactions) still record theirs: a lean result drops them all.
    events: lean ? [] : events,
    totals: { ...s.totals },
    retention: s.retention.result(),
  };
}

/** The turn of each step, in a plain loop (Uint32Array.from with a map function was 1 % of a sweep). */
function turnsOfSteps(stepMsg: Uint32Array, turnOfMsg: Uint32Array): Uint32Array {
  const out = new Uint32Array(stepMsg.length);
  for (let j = 0; j < stepMsg.length; j++) out[j] = turnOfMsg[stepMsg[j]!]!;
  return out;
}

export { replayToJSON, toCliJSON, toView } from './serialize';
export { compare, comparisonToJSON, type ReplayComparison, type StepDifference } from './compare';
