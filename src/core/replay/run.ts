/**
 * The simulator's pass split in three (index.ts describes the pass): `setupRun` derives what the
 * pass reads and makes the state, `runSteps` replays calls [next, end) on it, `finishRun` writes the
 * result. `replay()` is the three in a row. A live tail keeps a finished run to continue it over
 * the calls an append brings (resume.ts), so the handlers' state lives in the run, not in locals.
 */
import { resolveLimits, type ResolvedLimits } from '../budget/limits';
import { validateConfig, type ReplayConfig, type ReplayConfigInput } from '../config';
import type { Session } from '../model';
import type { Strategy } from '../strategies/index';
import { cached, memoryStore } from '../summarize/cache';
import { extractiveSummarizer } from '../summarize/extractive';
import type { Summarizer } from '../summarize/types';
import { countWith, defaultTokenizerFor, mediaTokensFor, type SessionCounts } from '../tokens/index';
import { arrive } from './arrival';
import { settleAsyncReason } from './async-path';
import { BudgetHandler, minutesBeforeCall } from './budgets';
import { CompressionLog, withLazyEvents } from './compressions';
import { checkSourceCompactions } from './compaction-check';
import { CostHandler, cacheRulesOf, cacheSummary } from './cost';
import { emergencyPath } from './emergency';
import { enforcementOf } from './enforce';
import { guardStep, toolBudgetFinal } from './guard';
import { overflowStep } from './overflow';
import { proactiveFires, proactivePath } from './proactive';
import { RetentionTracker } from './retention';
import { SentAsHandler } from './sent-as';
import { anyUsageOf, pinsOf, referenceCountsOf, shapeOf, withUnloggedOverhead } from './setup';
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

/**
 * How often (in calls) `shouldStop` is asked: cheap enough to be unnoticed (an Atomics read or a
 * clock read every 16 calls), often enough to stop within a millisecond or two — a call of a
 * policy that masks or summarizes at every call costs ~0.1 ms, and at 256 a request waited 20–35 ms
 * behind the replay worker's idle-time warm-up.
 */
export const STOP_CHECK_EVERY = 16;

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
  // Whether any message reports usage, from the list's shape when made (a session without any was
  // read through at every replay); a live-tail append's grown list is not shaped whole for it.
  return config.tokenizer === 'auto' ? defaultTokenizerFor(config.model ?? session.model, anyUsageOf(session.messages)) : config.tokenizer;
}

/** One pass of the simulator: its state, its handlers and how far it got. */
export interface Run {
  readonly s: ReplayState;
  readonly out: StepArrays;
  readonly budgets: BudgetHandler;
  readonly cost: CostHandler;
  readonly sources: SourceCompactions;
  readonly sentAs: SentAsHandler;
  /** The session's first timestamp (S4's minutes are counted from it). */
  readonly startTime: number | undefined;
  readonly tokenizerId: string;
  readonly mediaTokens: number;
  /** S0's emergency path measures with reference counts (no reported usage in the session). */
  readonly needsReference: boolean;
  /** The options the run was set up with (needles, pins, summarizer, strategies, detail). */
  readonly options: ReplayOptions;
  /** Messages before this one have entered the request (arrival). */
  entered: number;
  /** The next step to replay. */
  next: number;
}

/** The limits a config resolves to on a session (the model, its window, the buffer). */
export function limitsOf(session: Session, config: ReplayConfig): ResolvedLimits {
  return resolveLimits({
    ...(config.window !== undefined ? { window: config.window } : {}),
    // A reported window of 0 (some Codex lines) means "unknown", not a zero-sized window.
    ...(session.reportedContextWindow !== undefined && session.reportedContextWindow > 0
      ? { transcriptWindow: session.reportedContextWindow }
      : {}),
    ...(config.maxOutput !== undefined ? { maxOutput: config.maxOutput } : {}),
    buffer: config.buffer,
    model: config.model ?? session.model,
    provider: session.provider,
    maxOutputWindowFirst: config.maxOutputWindowFirst,
  });
}

/** Everything the pass derives before its first call, and the state at call 0. */
export function setupRun(session: Session, configInput: ReplayConfig | ReplayConfigInput, options: ReplayOptions): Run {
  const config = validateConfig(configInput);
  const messages = session.messages;
  const n = messages.length;
  const tokenizerId = resolveTokenizer(session, config);
  const mediaTokens = config.mediaTokens ?? mediaTokensFor(session.provider);
  const given = options.counts ?? countWith(session, tokenizerId, { mediaTokens, schemaScale: config.schemaScale });
  if (given.perMessage.length !== n || given.prefix.length !== n + 1) {
    throw new Error(
      `replay: counts cover ${given.perMessage.length} messages but the session has ${n}; count this session (countWith) and pass those counts`,
    );
  }
  if (options.referenceCounts && options.referenceCounts.perMessage.length !== n) {
    throw new Error(`replay: reference counts cover ${options.referenceCounts.perMessage.length} messages but the session has ${n}`);
  }
  const customStrategies = new Map<string, Strategy>();
  for (const id of config.pipeline) {
    if (!id.startsWith('custom:')) continue;
    const fn = options.strategies?.[id.slice('custom:'.length)];
    if (typeof fn !== 'function')
      throw new Error(
        `pipeline: strategy "${id}" was not provided (known: ${
          Object.keys(options.strategies ?? {})
            .map((k) => 'custom:' + k)
            .join(', ') || 'none'
        })`,
      );
    customStrategies.set(id, fn);
  }
  const shape = shapeOf(messages);
  const counts = withUnloggedOverhead(session, given, shape.anyUsage);
  const needsReference = config.paths.emergency && !shape.anyUsage;
  const limits = limitsOf(session, config);
  const enforcement = enforcementOf(config, limits);
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
    retention: new RetentionTracker(
      messages,
      options.needles ?? [],
      (i, end) => win.isInWindow(i, end) && win.masked[i] !== 1,
      () => s.summary,
    ),
    events,
    compressions: new CompressionLog(),
    totals: {
      billedInputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      cost: 0,
      compressions: 0,
      tokensRemoved: 0,
      peak: 0,
      forcedFinals: 0,
      aborts: 0,
      overflows: 0,
    },
    summary: null,
    summaryTokens: 0,
    toolCalls: 0,
    callsMade: 0,
    toolBudgetHitAt: -1,
    ended: null,
  };

  // A remote summarizer needs an endpoint and a key only the host has: without one, say so and go on extractively.
  if ((config.summarizer === 'openai' || config.summarizer === 'anthropic') && !options.summarizer)
    events.push({
      kind: 'warning',
      step: 0,
      text: `summarizer "${config.summarizer}" was not provided by the host (endpoint and key); summaries are extractive`,
    });
  if (counts.tokenizer !== tokenizerId)
    events.push({
      kind: 'warning',
      step: 0,
      text: `counts were made with ${counts.tokenizer}, the config asks for ${tokenizerId}: figures follow ${counts.tokenizer}`,
    });
  if (enforcement.clampWarning) events.push({ kind: 'warning', step: 0, text: enforcement.clampWarning });

  return {
    s,
    out: new StepArrays(shape.stepMsg.length, enforcement.trigger, lean, {
      system: counts.system,
      unlogged: counts.unlogged,
      tools: counts.tools,
    }),
    budgets: new BudgetHandler(config),
    cost: new CostHandler(cacheRulesOf(session, limits.model)),
    sources: new SourceCompactions(s),
    sentAs: new SentAsHandler(s),
    startTime: messages.find((m) => m.timestamp !== undefined)?.timestamp,
    tokenizerId,
    mediaTokens,
    needsReference,
    options,
    entered: 0,
    next: 0,
  };
}

/** Replays calls [run.next, end) (every call left by default): each call's handlers in the order index.ts lists. */
export async function runSteps(run: Run, shouldStop: (() => boolean) | undefined, end = run.s.shape.stepMsg.length): Promise<void> {
  const { s, out, budgets, cost, sources, sentAs, startTime } = run;
  const { messages, config, limits, enforcement, events, lean, session } = s;
  const stepMsg = s.shape.stepMsg;
  for (let j = run.next; j < end; j++) {
    if (shouldStop && j % STOP_CHECK_EVERY === 0 && j > 0 && shouldStop()) throw new ReplayCancelled(j);
    const k = stepMsg[j]!;
    if (s.ended) {
      out.recordEnded(s, j, s.ended);
      run.next = j + 1;
      continue;
    }
    const d: StepDecision = { status: 'ok', reason: '', deferred: undefined, limit: enforcement.limit, model: s.model };
    const compressionsBefore = s.totals.compressions;

    // Each path is awaited only when it has work (a promise per call and path was a share of a sweep).
    const arriving = arrive(s, run.entered, k, j, d);
    if (arriving) await arriving;
    run.entered = k;
    sentAs.applyUpTo(s, k, j);
    if (config.paths.async) settleAsyncReason(s, k, d);
    sources.emitUpTo(k, j);
    if (proactiveFires(s, k)) {
      const pending = proactivePath(s, k, j, d);
      if (pending) await pending;
    }
    if (config.paths.emergency) {
      const pending = emergencyPath(s, sources.original, k, j, d);
      if (pending) await pending;
    }
    if (s.totals.compressions !== compressionsBefore) cost.compressed();

    const request = requestAt(s, k);
    if (s.shape.usageAt[k] === 1) out.reported[j] = s.shape.promptOf[k]!;
    toolBudgetFinal(s, j, d);
    guardStep(s, j, request, d, session.model);

    if (budgets.active) {
      // What the calls before it used: the time up to the moment this call is sent, not its answer (docs/policies.md §S4).
      const minutes = startTime !== undefined ? minutesBeforeCall(messages, k) : 0;
      const t = s.totals;
      const used = { turns: s.callsMade, tokens: t.billedInputTokens + t.outputTokens, toolCalls: s.toolCalls, cost: t.cost, minutes };
      if (lean) budgets.verdict(used, request, d);
      else budgets.check(j, used, request, d, events);
    }
    if (d.status === 'abort') s.totals.aborts++;
    else cost.bill(s, j, k, request, d.model, out);

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
      if (!lean)
        d.reason = `request ${int(request)} > limit ${int(d.limit)} (${d.limit === enforcement.limit ? enforcement.limitBasis : 'fallback model'})`;
    }
    overflowStep(s, request, d);
    out.record(s, j, k, request, d);
    if (d.status === 'final' || d.status === 'abort') s.ended = d.status;
    run.next = j + 1;
  }
}

/**
 * The result of a run that replayed every call. A compaction the original agent did after its
 * last call still belongs to the session: it is emitted at the last step here (resume.ts finishes
 * on a copy, so a kept run never holds it and emits it where a longer session puts it).
 */
export function finishRun(run: Run): ReplayResult {
  const { s, out, tokenizerId } = run;
  const { config, limits, enforcement, shape } = s;
  const S = shape.stepMsg.length;
  if (S > 0) run.sources.emitUpTo(Infinity, S - 1);
  const result: ReplayResult = {
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
        cache: cacheSummary(run.cost.rules),
      },
    },
    steps: out.result(shape.stepMsg, turnsOfSteps(shape.stepMsg, shape.turnOfMsg)),
    // Rare paths (guards, tool preflight, source compactions) still record theirs: a lean result drops them all.
    // Otherwise the events are made on first read (compressions.ts): set here to keep their place among the keys.
    events: [],
    totals: { ...s.totals },
    retention: s.retention.result(),
    // Real vs predicted compactions: the agent's own, against its preset (a lean sweep reads none).
    ...(!s.lean && s.session.sourceCompactions.length > 0 ? { sourceCompactions: checkSourceCompactions(s.session, s.counts, shape) } : {}),
  };
  return s.lean ? result : withLazyEvents(result, s.events, s.compressions);
}

/** The turn of each step, in a plain loop (Uint32Array.from with a map function was 1 % of a sweep). */
function turnsOfSteps(stepMsg: Uint32Array, turnOfMsg: Uint32Array): Uint32Array {
  const out = new Uint32Array(stepMsg.length);
  for (let j = 0; j < stepMsg.length; j++) out[j] = turnOfMsg[stepMsg[j]!]!;
  return out;
}
