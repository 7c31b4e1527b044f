/**
 * The simulator: one pass over the transcript's LLM calls (steps) that rebuilds, under a config,
 * what each request would have held — system, unlogged overhead, summary, kept history, tool
 * definitions — and runs the configured paths in S0's order: async summarization after a turn,
 * the proactive check before each call (with S1's guard), the reactive emergency path, and S1's
 * tool preflight for each tool result; then budgets (S3, S4), cost and retention.
 *
 * The transcript's own messages are replayed as they happened: the agent's outputs are taken as
 * unchanged by a different context. Every figure rests on that assumption.
 *
 * Numbers per step live in typed arrays; history sizes come from prefix sums (WindowState), so
 * no message is ever recounted. The pass hands off to handlers, one concern each: window.ts (what
 * is in the request), guard.ts (S1's turn_preflight), budgets.ts (S3 / S4 budgets), retention.ts
 * (facts and needles that left and were needed again); strategies and summarizers do the folding.
 */
import { capacityStatus } from '../budget/layers';
import { resolveLimits } from '../budget/limits';
import { callCost } from '../catalog';
import { validateConfig, type ReplayConfig, type ReplayConfigInput, type StrategyId } from '../config';
import type { Message, Session } from '../model';
import { promptTokens } from '../model';
import { PLACEHOLDER_TOKENS, STRATEGIES, type HistoryView, type Strategy, type StrategyContext } from '../strategies/index';
import { checkedResult } from '../strategies/check';
import { toRanges, range } from '../strategies/util';
import { cached, memoryStore } from '../summarize/cache';
import { extractiveSummarizer } from '../summarize/extractive';
import type { Summarizer } from '../summarize/types';
import { CALIBRATION_BASE, countWith, createCounter, defaultTokenizerFor, getTokenizer, mediaTokensFor, type SessionCounts } from '../tokens/index';
import { exchangeStarts, isTurnBoundary, turnIndex, turnStarts as computeTurnStarts } from '../turns';
import { BudgetHandler } from './budgets';
import { turnPreflight } from './guard';
import { RetentionTracker } from './retention';
import { REGIONS, STEP_STATUSES, type MessageRange, type ReplayEvent, type ReplayResult, type StepStatus } from './types';
import { WindowState } from './window';

export interface ReplayOptions {
  /** Counts under the config's tokenizer (computed when absent). */
  readonly counts?: SessionCounts;
  readonly summarizer?: Summarizer;
  /** User needles: strings, or `/regex/flags`. */
  readonly needles?: readonly string[];
  /** Message ids pinned by the user (never dropped), besides `Message.pinned`. */
  readonly pinned?: ReadonlySet<string>;
  /**
   * Counts under `config.referenceTokenizer`, for S0's emergency path on a transcript without
   * reported usage (the host passes its stored counts; computed here when absent).
   */
  readonly referenceCounts?: SessionCounts;
  /** User strategies by name, used by `custom:<name>` in the pipeline. Their results are checked. */
  readonly strategies?: Readonly<Record<string, Strategy>>;
}

const STATUS_CODE = Object.fromEntries(STEP_STATUSES.map((s, i) => [s, i])) as Record<StepStatus, number>;
const utf8Length = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
  }
  return n;
};

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
  const counts = options.counts ?? countWith(session, tokenizerId, { mediaTokens: config.mediaTokens ?? mediaTokensFor(session.provider), schemaScale: config.schemaScale });
  if (counts.perMessage.length !== n || counts.prefix.length !== n + 1) {
    throw new Error(`replay: counts cover ${counts.perMessage.length} messages but the session has ${n}; count this session (countWith) and pass those counts`);
  }
  if (options.referenceCounts && options.referenceCounts.perMessage.length !== n) {
    throw new Error(`replay: reference counts cover ${options.referenceCounts.perMessage.length} messages but the session has ${n}`);
  }
  const textCounter = createCounter(getTokenizer(tokenizerId === 'calibrated' ? CALIBRATION_BASE : tokenizerId));
  const summarizer = config.summarizer === 'none' ? undefined : (options.summarizer ?? defaultSummarizer);
  // A remote summarizer needs an endpoint and a key only the host has: without one, say so and go on extractively.
  const summarizerNote =
    (config.summarizer === 'openai' || config.summarizer === 'anthropic') && !options.summarizer
      ? `summarizer "${config.summarizer}" was not provided by the host (endpoint and key); summaries are extractive`
      : undefined;
  const maskingOnly = config.pipeline.every((id) => id === 'observation-masking');
  // User strategies named in the pipeline (`custom:<name>`) must be supplied; say which is missing.
  const customStrategies = new Map<string, Strategy>();
  for (const id of config.pipeline) {
    if (!id.startsWith('custom:')) continue;
    const fn = options.strategies?.[id.slice('custom:'.length)];
    if (typeof fn !== 'function') throw new Error(`pipeline: strategy "${id}" was not provided (known: ${Object.keys(options.strategies ?? {}).map((k) => 'custom:' + k).join(', ') || 'none'})`);
    customStrategies.set(id, fn);
  }
  const needsReference = config.paths.emergency && !messages.some((m) => m.usage);
  const reference = needsReference
    ? (options.referenceCounts ?? countWith(session, config.referenceTokenizer, { mediaTokens: config.mediaTokens ?? mediaTokensFor(session.provider) }))
    : undefined;
  const limits = resolveLimits({
    // A reported window of 0 (some Codex lines) means "unknown", not a zero-sized window.
    window: config.window ?? (session.reportedContextWindow !== undefined && session.reportedContextWindow > 0 ? session.reportedContextWindow : undefined),
    maxOutput: config.maxOutput,
    buffer: config.buffer,
    model: config.model ?? session.model,
    provider: session.provider,
  });
  const window = limits.window;
  const basis = config.triggerBasis === 'limit' ? limits.limit : window;
  const triggerAt = config.triggerTokens ?? (config.autoCompact ? Math.min(Math.floor((window - config.autoCompact.reserve) * config.autoCompact.pct), window - config.autoCompact.cap) : config.trigger * basis);
  const targetAt = config.target * basis;
  const fixed = counts.system + counts.unlogged + counts.tools;

  const { stepMsg, turnOfMsg, starts } = shapeOf(messages);
  const S = stepMsg.length;
  const pinnedIds = options.pinned ?? new Set<string>();
  const isPinned = (i: number): boolean => messages[i]!.pinned === true || pinnedIds.has(messages[i]!.id);
  const anyPinned = pinnedIds.size > 0 || messages.some((m) => m.pinned === true);

  // Per-step output arrays.
  const regions = Object.fromEntries(REGIONS.map((r) => [r, new Float64Array(S)])) as Record<(typeof REGIONS)[number], Float64Array>;
  const total = new Float64Array(S);
  const limitArr = new Float64Array(S).fill(limits.limit);
  const triggerArr = new Float64Array(S).fill(config.triggerMessages !== undefined ? NaN : triggerAt);
  const reported = new Float64Array(S).fill(NaN);
  const status = new Uint8Array(S);
  const reasonIndex = new Uint16Array(S);
  const keptFrom = new Uint32Array(S);
  const reasons: string[] = [''];
  const reasonIds = new Map<string, number>([['', 0]]);
  const reasonOf = (text: string): number => {
    let id = reasonIds.get(text);
    if (id === undefined) {
      id = reasons.length;
      if (id >= 65535) return 0;
      reasons.push(text);
      reasonIds.set(text, id);
    }
    return id;
  };
  const events: ReplayEvent[] = [];
  if (summarizerNote) events.push({ kind: 'warning', step: 0, text: summarizerNote });
  if (counts.tokenizer !== tokenizerId) events.push({ kind: 'warning', step: 0, text: `counts were made with ${counts.tokenizer}, the config asks for ${tokenizerId}: figures follow ${counts.tokenizer}` });

  const win = new WindowState(counts.perMessage, counts.prefix);
  let summary: string | null = null;
  let summaryTokens = 0;

  // Totals.
  let billed = 0;
  let cachedIn = 0;
  let outputTokens = 0;
  let cost = 0;
  let compressions = 0;
  let tokensRemoved = 0;
  let peak = 0;
  let forcedFinals = 0;
  let aborts = 0;
  const model = limits.model;

  // Budgets (S3, S4).
  const budgets = new BudgetHandler(config.budget);
  let turnsSeen = 0;
  let toolCalls = 0;
  const startTime = messages.find((m) => m.timestamp !== undefined)?.timestamp;


  // Source compactions, by the step they precede.
  const sourceByMsg = [...session.sourceCompactions].sort((a, c) => a.atMessage - c.atMessage);
  let sourceIdx = 0;
  // The original agent's window start (for the emergency path's correction factor).
  let origFrom = 0;
  let origSummaryTokens = 0;

  let entered = 0;
  let toolBudgetHitAt = -1;
  let prevTotal = -1;
  let compressedSincePrev = true;
  /** Set once the run has ended: a hard budget abort, or a forced final turn (S1) that was taken. */
  let ended: 'abort' | 'final' | null = null;

  /**
   * Cut points for a request ending at `end`: the turn starts, plus (cutWithinTurn) the exchange
   * boundaries of the turn in progress. Computed only when a compression runs.
   */
  const cutPointsFor = (end: number): readonly number[] => {
    if (!config.cutWithinTurn || end <= 0) return starts;
    const t = turnOfMsg[end - 1]!;
    const inner = exchangeStarts(messages, starts[t] ?? 0, end);
    return inner.length === 0 ? starts : [...starts.slice(0, t + 1), ...inner, ...starts.slice(t + 1)];
  };
  let ctx: StrategyContext = {
    messages,
    turnStarts: starts,
    config,
    rangeTokens: (a, c) => win.rangeTokens(a, c),
    tokensOf: (i) => win.tokensOf(i),
    isMasked: (i) => win.masked[i] === 1,
  };

  const inWindow = (i: number, end: number): boolean => win.isInWindow(i, end) && win.masked[i] !== 1;
  // Closures reassign `summary`; the tracker reads it through a function so it never goes stale.
  const retention = new RetentionTracker(messages, options.needles ?? [], inWindow, () => summary);

  const windowRanges = (end: number): MessageRange[] => {
    const out = toRanges(win.keepBefore.filter((i) => i < win.from));
    if (win.from < end) {
      const last = out[out.length - 1];
      if (last && last[1] + 1 === win.from) out[out.length - 1] = [last[0], end - 1];
      else out.push([win.from, end - 1]);
    }
    return out;
  };

  /** Keeps whole turns of pinned messages that a strategy dropped. */
  const keepPinned = (from: number, keepBefore: readonly number[], end: number): number[] => {
    if (!anyPinned) return [...keepBefore];
    const keep = new Set(keepBefore);
    for (const i of win.indices(end)) {
      if (i >= from || keep.has(i) || !isPinned(i)) continue;
      const t = turnOfMsg[i]!;
      const a = starts[t] ?? 0;
      const z = Math.min(starts[t + 1] ?? end, from);
      for (let x = a; x < z; x++) keep.add(x);
    }
    return [...keep].sort((x, y) => x - y);
  };

  /** Runs a compression path; false when nothing could be removed (then nothing is recorded). */
  async function compress(path: 'async' | 'proactive' | 'emergency', end: number, step: number, historyBudget: number): Promise<boolean> {
    const before = fixed + summaryTokens + win.historyTokens(end);
    const summaryBefore = summary;
    let maskedAny = false;
    const maskedNow: number[] = [];
    const droppedAll: MessageRange[] = [];
    const foldRanges: MessageRange[] = [];
    let targetTokens = 256;
    const notes: string[] = [];
    let view: HistoryView = { from: win.from, keepBefore: win.keepBefore, end };
    if (path !== 'emergency') ctx = { ...ctx, turnStarts: cutPointsFor(end) };
    if (path === 'emergency') {
      // S0 path 3: drop the oldest ~50% of the turns in the window, note it in the summary.
      const inWin = starts.filter((s) => s >= win.from && s < end);
      const current = inWin[inWin.length - 1] ?? win.from;
      const cut = Math.min(inWin[Math.floor(inWin.length / 2)] ?? current, current);
      const keepBefore = keepPinned(cut, [], end);
      const dropped = toRanges([...win.keepBefore, ...range(win.from, cut)].filter((i) => !keepBefore.includes(i)));
      droppedAll.push(...dropped);
      notes.push(`emergency: dropped the oldest ${inWin.filter((s) => s < cut).length} of ${inWin.length} turns after the true size overflowed the window`);
      win.from = Math.max(win.from, cut);
      win.keepBefore = keepBefore;
      // S0's third known gap fixed: the note keeps the references of media the dropped turns held,
      // so the agent can ask for them again.
      const media: string[] = [];
      for (const [a, z] of dropped) for (let i = a; i <= z; i++) for (const p of messages[i]!.parts) if (p.kind === 'media') media.push(p.source ? `${p.mediaType} ${p.source}` : p.mediaType);
      const mediaNote = media.length ? ` Media no longer attached: ${media.slice(0, 8).join(', ')}${media.length > 8 ? ` and ${media.length - 8} more` : ''}.` : '';
      summary = `${summary ? summary + '\n' : ''}[Context overflow: ${inWin.filter((s) => s < cut).length} earlier turns were dropped.${mediaNote}]`;
    } else {
      for (const id of config.pipeline) {
        const custom = customStrategies.get(id);
        const r = custom ? checkedResult(id, custom(view, historyBudget, ctx), view, ctx) : STRATEGIES[id as StrategyId](view, historyBudget, ctx);
        for (const i of r.masked) {
          if (isPinned(i)) continue;
          win.reduceTo(i, PLACEHOLDER_TOKENS);
          win.masked[i] = 1;
          maskedAny = true;
          maskedNow.push(i);
          retention.markLeft(i, step);
        }
        const keepBefore = keepPinned(r.kept.from, r.kept.keepBefore, end);
        if (!anyPinned) {
          // Fast path: nothing pinned, the strategy's ranges stand as they are.
          droppedAll.push(...r.dropped);
          if (r.summaryRequest) {
            foldRanges.push(...r.summaryRequest.ranges);
            targetTokens = r.summaryRequest.targetTokens;
          }
        } else {
          const kept = new Set(keepBefore);
          const dropped = r.dropped.map(([a, z]) => range(a, z + 1).filter((i) => !kept.has(i))).flat();
          droppedAll.push(...toRanges(dropped));
          if (r.summaryRequest) {
            foldRanges.push(...toRanges(dropped.filter((i) => r.summaryRequest!.ranges.some(([a, z]) => i >= a && i <= z))));
            targetTokens = r.summaryRequest.targetTokens;
          }
        }
        win.from = Math.max(win.from, r.kept.from);
        win.keepBefore = keepBefore;
        notes.push(r.note);
        view = { from: win.from, keepBefore: win.keepBefore, end };
        if (win.historyTokens(end) <= historyBudget) break;
      }
      if (foldRanges.length > 0 && summarizer) {
        const folded: Message[] = foldRanges.flatMap(([a, z]) => messages.slice(a, z + 1));
        try {
          summary = await summarizer.summarize({ messages: folded, previousSummary: summary, targetTokens });
        } catch (e) {
          events.push({ kind: 'summarizer-failure', step, error: e instanceof Error ? e.message : String(e) });
        }
      }
    }
    if (droppedAll.length === 0 && !maskedAny && summary === summaryBefore) return false;
    const summaryTokensBefore = summaryTokens;
    summaryTokens = summary ? textCounter.text(summary) : 0;
    // Compression never grows the context: a summary larger than what it replaces is cut to fit.
    const removed = before - fixed - summaryTokensBefore - win.historyTokens(end);
    const allowed = summaryTokensBefore + Math.max(0, removed);
    if (summary && summaryTokens > allowed) {
      summary = allowed > 0 ? summary.slice(0, Math.floor((summary.length * allowed) / summaryTokens)) : null;
      summaryTokens = summary ? textCounter.text(summary) : 0;
      while (summary && summaryTokens > allowed) {
        summary = summary.slice(0, Math.floor(summary.length * 0.9));
        summaryTokens = textCounter.text(summary);
      }
    }
    retention.markDropped(droppedAll, step);
    const droppedRangesMerged = mergeRanges(droppedAll);
    const after = fixed + summaryTokens + win.historyTokens(end);
    compressions++;
    tokensRemoved += Math.max(0, before - after);
    compressedSincePrev = true;
    events.push({
      kind: 'compression',
      step,
      path,
      strategy: path === 'emergency' ? 'drop-oldest-50%' : config.pipeline.join('+'),
      tokensBefore: before,
      tokensAfter: after,
      dropped: droppedRangesMerged,
      kept: windowRanges(end),
      ...(maskedNow.length ? { masked: toRanges(maskedNow) } : {}),
      ...(summary ? { summary } : {}),
      note: notes.join('; '),
    });
    retention.afterCompression(end, step);
    return true;
  }

  for (let j = 0; j < S; j++) {
    const k = stepMsg[j]!;
    let st: StepStatus = 'ok';
    let reason = '';
    /** The model that takes this call (a fallback after an S1 skip). */
    let callModel = model;

    if (ended) {
      // The run stopped (abort, or the forced final turn was taken): later calls never happen.
      for (const r of REGIONS) regions[r][j] = regions[r][j - 1] ?? 0;
      total[j] = total[j - 1] ?? 0;
      status[j] = STATUS_CODE[ended];
      reasonIndex[j] = reasonOf(ended === 'abort' ? 'after the abort: this call would not have happened' : 'after the forced final turn: this call would not have happened');
      keptFrom[j] = win.from;
      continue;
    }

    // Messages that arrive before this call: tool results, the user's next turn.
    for (let i = entered; i < k; i++) {
      const m = messages[i]!;
      if (isTurnBoundary(m)) {
        turnsSeen++;
        if (config.paths.async && i > 0) {
          // S0 path 1: after a turn completes, summarize when messages or tokens pass the trigger.
          const hist = win.historyTokens(i);
          const msgsInWindow = i - win.from + win.keepBefore.length;
          const basisTokens = config.asyncFullBudget ? fixed + summaryTokens + hist + limits.maxOutput : hist;
          const byCount = msgsInWindow > config.asyncMessages;
          // Triggered by the message count, the summary folds the oldest messages until about half the threshold is left.
          const budget = Math.max(0, targetAt - fixed - summaryTokens);
          const asyncBudget = byCount ? Math.min(budget, win.rangeTokens(Math.max(win.from, i - Math.floor(config.asyncMessages / 2)), i)) : budget;
          if ((byCount || basisTokens > config.asyncRatio * window) && (await compress('async', i, j, asyncBudget))) {
            st = 'compress';
            reason = `async summarization after turn ${turnOfMsg[i - 1]! + 1}`;
          }
        }
      }
      for (const p of m.parts) {
        if (p.kind === 'tool_call') toolCalls++;
        if (p.kind === 'tool_result' && config.toolBudget !== undefined && toolCalls > config.toolBudget && toolBudgetHitAt < 0) {
          // S1 tool_preflight: the tool budget is spent; this output is replaced by a failure and the run goes to its final turn.
          toolBudgetHitAt = j;
          events.push({ kind: 'tool-preflight', step: j, messageIndex: i, callId: p.callId, action: 'budget-exceeded', bytesBefore: utf8Length(p.text), bytesAfter: 0 });
        }
        if (p.kind === 'tool_result' && config.toolOutputMaxBytes > 0) {
          const bytes = utf8Length(p.text);
          if (bytes > config.toolOutputMaxBytes) {
            const mode = config.toolOutputMode;
            const keepTokens = mode === 'offload' ? 24 : Math.ceil((win.tokensOf(i) * config.toolOutputMaxBytes) / bytes);
            win.reduceTo(i, keepTokens);
            events.push({ kind: 'tool-preflight', step: j, messageIndex: i, callId: p.callId, action: mode, bytesBefore: bytes, bytesAfter: mode === 'offload' ? 64 : config.toolOutputMaxBytes });
          }
        }
      }
      retention.enter(i, j);
    }
    entered = k;

    // Source compactions the original agent did before this call.
    while (sourceIdx < sourceByMsg.length && sourceByMsg[sourceIdx]!.atMessage <= k) {
      const c = sourceByMsg[sourceIdx++]!;
      origFrom = c.atMessage;
      origSummaryTokens = c.summary ? textCounter.text(c.summary) : 0;
      events.push({ kind: 'source-compaction', step: j, messageIndex: c.atMessage, trigger: c.trigger, ...(c.tokensBefore !== undefined ? { tokensBefore: c.tokensBefore } : {}), ...(c.tokensAfter !== undefined ? { tokensAfter: c.tokensAfter } : {}), ...(c.summary ? { summary: c.summary } : {}) });
    }

    let request = fixed + summaryTokens + win.historyTokens(k);

    // S0 path 2 / S2 / S3 / S4: the proactive check before the call.
    const overTrigger = config.triggerMessages !== undefined ? k - win.from + win.keepBefore.length > config.triggerMessages : request > triggerAt;
    if (config.paths.proactive && overTrigger) {
      if (await compress('proactive', k, j, Math.max(0, targetAt - fixed - summaryTokens))) {
        const last = events.findLast((e) => e.kind === 'compression');
        reason = capacityStatus(last?.kind === 'compression' ? last.tokensBefore : request, window, 'compaction applied');
        request = fixed + summaryTokens + win.historyTokens(k);
        st = 'compress';
      } else if (st === 'ok' && !maskingOnly) {
        // (Masking-only policies mask continuously: a call with nothing newly aged out is their steady state, not a warning.)
        st = 'warn';
        reason = `${capacityStatus(request, window)}: over the trigger, nothing left to compress outside the protected messages`;
      }
    }

    // S0 path 3: the true size (reported usage where present, else the reference tokenizer)
    // overflows the window although the estimate did not.
    const usage = messages[k]!.usage;
    if (usage) reported[j] = promptTokens(usage);
    if (config.paths.emergency && (usage || reference) && request <= limits.limit) {
      let trueSize: number;
      if (usage) {
        // The original agent's own window (since its last compaction) against what it reported.
        const origEstimate = fixed + origSummaryTokens + (counts.prefix[k]! - counts.prefix[origFrom]!);
        trueSize = request * (origEstimate > 0 ? promptTokens(usage) / origEstimate : 1);
      } else {
        // Reference counts of the live range scale the history and summary; fixed regions are counted as they are.
        const ref = reference!;
        const est = counts.prefix[k]! - counts.prefix[win.from]!;
        const ratio = est > 0 ? (ref.prefix[k]! - ref.prefix[win.from]!) / est : 1;
        trueSize = ref.system + ref.unlogged + ref.tools + (summaryTokens + win.historyTokens(k)) * ratio;
      }
      if (trueSize > window && (await compress('emergency', k, j, 0))) {
        request = fixed + summaryTokens + win.historyTokens(k);
        st = 'compress';
        reason = `emergency: true size ${Math.round(trueSize).toLocaleString('en-US')} > window ${window.toLocaleString('en-US')} though the estimate fit`;
      }
    }

    if (toolBudgetHitAt === j) {
      // After the tool budget is spent the agent has one final turn, tools restricted to final_report.
      st = 'final';
      forcedFinals++;
      reason = `tool budget exceeded (${toolCalls}/${config.toolBudget} calls): final turn, tools restricted to final_report`;
    }

    // S1's guard: ok / skip to a fallback model / force the final turn.
    if (st !== 'final' && config.paths.guard && request > limits.limit) {
      const modelName = limits.model?.id ?? config.model ?? session.model ?? 'default';
      const g = turnPreflight({ projected: request, schemaTokens: counts.tools, limit: limits.limit, model: modelName, fallbackModels: config.fallbackModels, buffer: config.buffer });
      events.push({ kind: 'guard', step: j, decision: g.decision, model: modelName, ...(g.decision === 'skip' ? { fallback: g.fallback } : {}), projected: request, limit: limits.limit, reason: g.reason });
      if (g.decision === 'skip') {
        // The fallback model takes this call: its limit applies, and its prices.
        limitArr[j] = g.limit;
        callModel = g.model;
        st = 'skip';
        reason = g.reason;
      } else if (g.decision === 'final') {
        st = 'final';
        forcedFinals++;
        reason = g.reason;
      }
    }

    // Cost of the call: the unchanged prefix since the previous call is billed as cached input.
    // The first call has nothing cached yet; after a compression only system + tools are unchanged.
    const cachedPart = prevTotal < 0 ? 0 : compressedSincePrev ? Math.min(request, fixed) : Math.min(prevTotal, request);
    const out = usage?.output ?? counts.perMessage[k]!;
    billed += request;
    cachedIn += cachedPart;
    outputTokens += out;
    if (callModel) cost += callCost(callModel, request - cachedPart, cachedPart, out);
    prevTotal = request;
    compressedSincePrev = false;
    peak = Math.max(peak, request);

    // Budgets (S4 hard limits abort; S3 modes and backpressure).
    if (budgets.active) {
      const minutes = startTime !== undefined && messages[k]!.timestamp !== undefined ? (messages[k]!.timestamp! - startTime) / 60_000 : 0;
      const verdict = budgets.check(j, { turns: turnsSeen, tokens: billed + outputTokens, toolCalls, cost, minutes }, st, reason, events);
      if (verdict.status === 'abort') aborts++;
      st = verdict.status;
      reason = verdict.reason;
    }
    if (st === 'ok' && config.warnAt !== undefined && request > config.warnAt * window) {
      st = 'warn';
      reason = capacityStatus(request, window);
      events.push({ kind: 'warning', step: j, text: reason });
    }

    // Regions, bottom to top; output and buffer are reserved, free is what is left.
    const history = win.historyTokens(k);
    regions.system[j] = counts.system;
    regions.unlogged[j] = counts.unlogged;
    regions.summary[j] = summaryTokens;
    regions.history[j] = history;
    regions.tools[j] = counts.tools;
    const used = counts.system + counts.unlogged + summaryTokens + history + counts.tools;
    const room = Math.max(0, window - used);
    regions.output[j] = Math.min(limits.maxOutput, room);
    regions.buffer[j] = Math.min(limits.buffer, room - regions.output[j]!);
    regions.free[j] = room - regions.output[j]! - regions.buffer[j]!;
    total[j] = request;
    if (st === 'final' || st === 'abort') ended = st;
    status[j] = STATUS_CODE[st];
    reasonIndex[j] = reasonOf(reason);
    keptFrom[j] = win.keepBefore[0] ?? win.from;
  }

  return {
    policy: config.policy,
    config: { ...config, resolved: { tokenizer: tokenizerId, window, maxOutput: limits.maxOutput, buffer: limits.buffer, limit: limits.limit, windowSource: limits.windowSource, model: limits.model?.id ?? null, warnings: limits.warnings } },
    steps: { count: S, messageIndex: Uint32Array.from(stepMsg), turn: Uint32Array.from(stepMsg.map((i) => turnOfMsg[i]!)), regions, total, limit: limitArr, trigger: triggerArr, reported, status, reasonIndex, reasons, keptFrom },
    events,
    totals: { billedInputTokens: billed, cachedInputTokens: cachedIn, outputTokens, cost, compressions, tokensRemoved, peak, forcedFinals, aborts },
    retention: retention.result(),
  };
}

/** Steps, turn of each message and turn starts: fixed per message list, so cached for sweeps. */
const shapeCache = new WeakMap<readonly Message[], { stepMsg: number[]; turnOfMsg: Uint32Array; starts: number[] }>();
function shapeOf(messages: readonly Message[]): { stepMsg: readonly number[]; turnOfMsg: Uint32Array; starts: readonly number[] } {
  let shape = shapeCache.get(messages);
  if (!shape) {
    const stepMsg: number[] = [];
    for (let i = 0; i < messages.length; i++) if (messages[i]!.role === 'assistant') stepMsg.push(i);
    shape = { stepMsg, turnOfMsg: turnIndex(messages), starts: computeTurnStarts(messages) };
    shapeCache.set(messages, shape);
  }
  return shape;
}

/** Sorted, merged copy of inclusive ranges. */
function mergeRanges(ranges: readonly MessageRange[]): MessageRange[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  const out: [number, number][] = [];
  for (const [a, b] of sorted) {
    const last = out[out.length - 1];
    if (last && a <= last[1] + 1) last[1] = Math.max(last[1], b);
    else out.push([a, b]);
  }
  return out;
}

export { replayToJSON, toCliJSON, toView } from './serialize';
export { compare, comparisonToJSON, type ReplayComparison, type StepDifference } from './compare';
