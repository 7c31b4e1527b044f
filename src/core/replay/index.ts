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
 * no message is ever recounted.
 */
import { exceededDimension, backpressureDelayMs, capacityStatus, checkBudget, type BudgetLimits } from '../budget/layers';
import { resolveLimits } from '../budget/limits';
import { callCost } from '../catalog';
import { validateConfig, type ReplayConfig, type ReplayConfigInput } from '../config';
import type { Message, Session } from '../model';
import { promptTokens } from '../model';
import { PLACEHOLDER_TOKENS, STRATEGIES, type HistoryView, type StrategyContext } from '../strategies/index';
import { toRanges, range } from '../strategies/util';
import { cached, memoryStore } from '../summarize/cache';
import { extractiveSummarizer } from '../summarize/extractive';
import type { Summarizer } from '../summarize/types';
import { CALIBRATION_BASE, countWith, createCounter, defaultTokenizerFor, getTokenizer, mediaTokensFor, type SessionCounts } from '../tokens/index';
import { isTurnBoundary, turnIndex, turnStarts as computeTurnStarts } from '../turns';
import { messageFacts, parseNeedle } from './retention';
import { REGIONS, STEP_STATUSES, type MessageRange, type ReplayEvent, type ReplayResult, type RetentionLoss, type StepStatus } from './types';
import { WindowState } from './window';

export interface ReplayOptions {
  /** Counts under the config's tokenizer (computed when absent). */
  readonly counts?: SessionCounts;
  readonly summarizer?: Summarizer;
  /** User needles: strings, or `/regex/flags`. */
  readonly needles?: readonly string[];
  /** Message ids pinned by the user (never dropped), besides `Message.pinned`. */
  readonly pinned?: ReadonlySet<string>;
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
  const textCounter = createCounter(getTokenizer(tokenizerId === 'calibrated' ? CALIBRATION_BASE : tokenizerId));
  const summarizer = config.summarizer === 'none' ? undefined : (options.summarizer ?? defaultSummarizer);
  const limits = resolveLimits({
    window: config.window ?? session.reportedContextWindow,
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

  const stepMsg: number[] = [];
  for (let i = 0; i < n; i++) if (messages[i]!.role === 'assistant') stepMsg.push(i);
  const S = stepMsg.length;
  const turnOfMsg = turnIndex(messages);
  const starts = computeTurnStarts(messages);
  const pinnedIds = options.pinned ?? new Set<string>();
  const isPinned = (i: number): boolean => messages[i]!.pinned === true || pinnedIds.has(messages[i]!.id);
  const anyPinned = pinnedIds.size > 0 || messages.some((m) => m.pinned === true);
  // Only what the user or the agent says counts as needing a fact (tool output refreshes it).
  const speaks = (m: Message): boolean => m.role !== 'tool' && !m.parts.every((p) => p.kind === 'tool_result');

  // Per-step output arrays.
  const regions = Object.fromEntries(REGIONS.map((r) => [r, new Float64Array(S)])) as Record<(typeof REGIONS)[number], Float64Array>;
  const total = new Float64Array(S);
  const limitArr = new Float64Array(S).fill(limits.limit);
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

  const win = new WindowState(counts.perMessage, counts.prefix);
  let summary: string | null = null;
  let summaryTokens = 0;
  // Closures reassign `summary`; read it through a function so narrowing does not go stale.
  const summaryHas = (key: string): boolean => summary !== null && summary.includes(key);
  const droppedAt = new Int32Array(n).fill(-1);

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
  const b = config.budget;
  const budgetLimits: BudgetLimits = { turns: b.turns ?? Infinity, tokens: b.tokens ?? Infinity, toolCalls: b.toolCalls ?? Infinity, cost: b.cost ?? Infinity, minutes: b.minutes ?? Infinity };
  const hasBudget = Object.values(budgetLimits).some(Number.isFinite);
  let turnsSeen = 0;
  let toolCalls = 0;
  const startTime = messages.find((m) => m.timestamp !== undefined)?.timestamp;

  // Retention.
  const facts = messageFacts(messages);
  const lastMention = new Map<string, number>();
  const factKind = new Map<string, RetentionLoss['kind']>();
  const lost: RetentionLoss[] = [];
  const reportedLoss = new Set<string>();
  const needles = (options.needles ?? []).map(parseNeedle);
  const needleMentions = needles.map(() => [] as number[]);
  const needleLostAt = needles.map(() => -1);

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
  let aborted = false;

  const ctx: StrategyContext = {
    messages,
    turnStarts: starts,
    config,
    rangeTokens: (a, c) => win.rangeTokens(a, c),
    tokensOf: (i) => win.tokensOf(i),
    isMasked: (i) => win.masked[i] === 1,
  };

  const inWindow = (i: number, end: number): boolean => win.isInWindow(i, end) && win.masked[i] !== 1;

  const windowRanges = (end: number): MessageRange[] => toRanges([...win.keepBefore, ...range(win.from, end)]);

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

  const markDropped = (ranges: readonly MessageRange[], step: number): void => {
    for (const [a, z] of ranges) for (let i = a; i <= z; i++) if (droppedAt[i] === -1) droppedAt[i] = step;
  };

  const checkNeedlesLost = (end: number, step: number): void => {
    needles.forEach((nd, k) => {
      if (needleLostAt[k] !== -1) return;
      const ms = needleMentions[k]!;
      if (ms.length === 0) return;
      if (ms.some((i) => inWindow(i, end))) return;
      if (summary !== null && nd.test(summary)) return;
      needleLostAt[k] = step;
    });
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
      summary = `${summary ? summary + '\n' : ''}[Context overflow: ${inWin.filter((s) => s < cut).length} earlier turns were dropped.]`;
    } else {
      for (const id of config.pipeline) {
        const r = STRATEGIES[id](view, historyBudget, ctx);
        for (const i of r.masked) {
          if (isPinned(i)) continue;
          win.reduceTo(i, PLACEHOLDER_TOKENS);
          win.masked[i] = 1;
          maskedAny = true;
          maskedNow.push(i);
          if (droppedAt[i] === -1) droppedAt[i] = step;
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
    markDropped(droppedAll, step);
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
    checkNeedlesLost(end, step);
    return true;
  }

  for (let j = 0; j < S; j++) {
    const k = stepMsg[j]!;
    let st: StepStatus = 'ok';
    let reason = '';

    if (aborted) {
      // The agent stopped at the abort: later calls never happen.
      for (const r of REGIONS) regions[r][j] = regions[r][j - 1] ?? 0;
      total[j] = total[j - 1] ?? 0;
      status[j] = STATUS_CODE.abort;
      reasonIndex[j] = reasonOf('after the abort: this call would not have happened');
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
          if ((msgsInWindow > config.asyncMessages || basisTokens > config.asyncRatio * window) && (await compress('async', i, j, Math.max(0, targetAt - fixed - summaryTokens)))) {
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
      // Retention: a user or assistant message that mentions a fact whose earlier mention has left.
      const speaksNow = speaks(m);
      for (const f of facts[i]!) {
        const prev = lastMention.get(f.key);
        if (prev !== undefined && speaksNow && !reportedLoss.has(f.key) && !inWindow(prev, i) && !summaryHas(f.key)) {
          lost.push({ key: f.key, kind: f.kind, lostAt: Math.max(0, droppedAt[prev]!), neededAt: j });
          reportedLoss.add(f.key);
        }
        lastMention.set(f.key, i);
        factKind.set(f.key, f.kind);
      }
      needles.forEach((nd, q) => {
        if (!nd.test(messageTextCached(m))) return;
        needleMentions[q]!.push(i);
        if (needleLostAt[q] !== -1) {
          lost.push({ key: nd.key, kind: 'needle', lostAt: needleLostAt[q]!, neededAt: j });
          needleLostAt[q] = -1;
        }
      });
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
      } else if (st === 'ok') {
        st = 'warn';
        reason = `${capacityStatus(request, window)}: over the trigger, nothing left to compress outside the protected messages`;
      }
    }

    // S0 path 3: the true size (reported usage where present) overflows although the estimate did not.
    const usage = messages[k]!.usage;
    if (usage) reported[j] = promptTokens(usage);
    if (config.paths.emergency && usage && request <= limits.limit) {
      const origEstimate = fixed + origSummaryTokens + (counts.prefix[k]! - counts.prefix[origFrom]!);
      const factor = origEstimate > 0 ? promptTokens(usage) / origEstimate : 1;
      const trueSize = request * factor;
      if (trueSize > window && (await compress('emergency', k, j, 0))) {
        request = fixed + summaryTokens + win.historyTokens(k);
        st = 'compress';
        reason = `emergency: true size ${Math.round(trueSize).toLocaleString('en-US')} > window ${window.toLocaleString('en-US')} though the estimate fit`;
      }
    }

    if (toolBudgetHitAt >= 0) {
      // After the tool budget is spent the agent has one final turn, tools restricted to final_report.
      st = 'final';
      if (toolBudgetHitAt === j) forcedFinals++;
      reason = toolBudgetHitAt === j ? `tool budget exceeded (${toolCalls}/${config.toolBudget} calls): final turn, tools restricted to final_report` : 'after the forced final turn: this call would not have happened';
    }

    // S1's guard: ok / skip to a fallback model / force the final turn.
    if (st !== 'final' && config.paths.guard && request > limits.limit) {
      const withoutSchema = request - counts.tools;
      if (withoutSchema <= limits.limit) {
        events.push({ kind: 'guard', step: j, decision: 'ok', model: limits.model?.id ?? config.model ?? session.model ?? 'default', projected: request, limit: limits.limit, reason: 'only the tool schemas overflow: allowed (S1 special case)' });
      } else {
        const fallback = config.fallbackModels.find((fb) => request <= resolveLimits({ model: fb, buffer: config.buffer }).limit);
        const modelName = limits.model?.id ?? config.model ?? session.model ?? 'default';
        if (fallback) {
          st = 'skip';
          reason = `projected ${Math.round(request).toLocaleString('en-US')} > limit ${limits.limit.toLocaleString('en-US')} on ${modelName}: skip to ${fallback}`;
          events.push({ kind: 'guard', step: j, decision: 'skip', model: modelName, fallback, projected: request, limit: limits.limit, reason });
        } else {
          st = 'final';
          forcedFinals++;
          reason = `still over limit after shrink: projected ${Math.round(request).toLocaleString('en-US')} > limit ${limits.limit.toLocaleString('en-US')}; final turn, tools restricted to final_report`;
          events.push({ kind: 'guard', step: j, decision: 'final', model: modelName, projected: request, limit: limits.limit, reason });
        }
      }
    }

    // Cost of the call: the unchanged prefix since the previous call is billed as cached input.
    const cachedPart = compressedSincePrev || prevTotal < 0 ? Math.min(request, fixed) : Math.min(prevTotal, request);
    const out = usage?.output ?? counts.perMessage[k]!;
    billed += request;
    cachedIn += cachedPart;
    outputTokens += out;
    if (model) cost += callCost(model, request - cachedPart, cachedPart, out);
    prevTotal = request;
    compressedSincePrev = false;
    peak = Math.max(peak, request);

    // Budgets (S4 hard limits abort; S3 modes and backpressure).
    if (hasBudget) {
      const minutes = startTime !== undefined && messages[k]!.timestamp !== undefined ? (messages[k]!.timestamp! - startTime) / 60_000 : 0;
      const used = { turns: turnsSeen, tokens: billed + outputTokens, toolCalls, cost, minutes };
      const over = exceededDimension(budgetLimits, used);
      const check = checkBudget([{ name: 'session', limits: budgetLimits, mode: b.mode, warningThreshold: b.warningThreshold }], used);
      if (over && b.mode === 'hard') {
        st = 'abort';
        aborts++;
        aborted = true;
        reason = `${over} budget exceeded (${Math.round(used[over] * 100) / 100}/${budgetLimits[over]}): run aborted`;
        events.push({ kind: 'abort', step: j, budget: over, used: used[over], max: budgetLimits[over] });
      } else if (over) {
        if (st === 'ok') st = 'warn';
        reason ||= `${over} budget exceeded (${b.mode} mode${b.mode === 'approval' ? ': approval required' : ''})`;
        events.push({ kind: 'warning', step: j, text: reason });
      } else if (check.warnings.length > 0 && st === 'ok') {
        st = 'warn';
        reason = check.warnings[0]!;
      }
      if (b.backpressure) {
        const delay = backpressureDelayMs(check.usage);
        if (delay > 0) events.push({ kind: 'backpressure', step: j, delayMs: delay, usage: check.usage });
      }
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
    status[j] = STATUS_CODE[st];
    reasonIndex[j] = reasonOf(reason);
    keptFrom[j] = win.keepBefore[0] ?? win.from;
  }

  return {
    policy: config.policy,
    config: { ...config, resolved: { tokenizer: tokenizerId, window, maxOutput: limits.maxOutput, buffer: limits.buffer, limit: limits.limit, windowSource: limits.windowSource, model: limits.model?.id ?? null, warnings: limits.warnings } },
    steps: { count: S, messageIndex: Uint32Array.from(stepMsg), turn: Uint32Array.from(stepMsg.map((i) => turnOfMsg[i]!)), regions, total, limit: limitArr, reported, status, reasonIndex, reasons, keptFrom },
    events,
    totals: { billedInputTokens: billed, cachedInputTokens: cachedIn, outputTokens, cost, compressions, tokensRemoved, peak, forcedFinals, aborts },
    retention: { lost },
  };
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

const textCache = new WeakMap<Message, string>();
function messageTextCached(m: Message): string {
  let t = textCache.get(m);
  if (t === undefined) {
    t = m.parts.map((p) => (p.kind === 'text' || p.kind === 'reasoning' || p.kind === 'tool_result' ? p.text : p.kind === 'tool_call' ? p.args : '')).join('\n');
    textCache.set(m, t);
  }
  return t;
}

export { replayToJSON, toCliJSON, toView } from './serialize';
export { compare, type ReplayComparison, type StepDifference } from './compare';
