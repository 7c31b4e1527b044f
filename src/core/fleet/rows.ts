/**
 * A replay turned into the fleet's rows (docs/fleet.md §Schema): one `sessions` row per
 * (session, policy), one `steps` row per call, one `compressions` row per compression or agent
 * compaction. Steps travel as column arrays (typed arrays a worker transfers without copying);
 * sessions and compressions are a few per transcript and travel as plain rows inside the same batch.
 */
import { promptTokens, type FormatId, type Message, type Session } from '../model';
import { REGIONS, STEP_STATUSES, type MessageRange, type ReplayResult } from '../replay/types';

export interface SessionRow {
  /** Index of the row's session-and-policy inside its batch: the steps and compressions point at it. */
  readonly key: number;
  readonly policy: string;
  readonly sourcePath: string;
  readonly fileHash: string;
  readonly format: string | null;
  readonly agent: string | null;
  /** The policy that stands for the agent's own context management, where the format says which. */
  readonly ownPolicy: string | null;
  readonly sessionId: string | null;
  readonly parentSessionId: string | null;
  readonly model: string | null;
  readonly project: string | null;
  readonly title: string | null;
  /** Epoch ms. */
  readonly startedAt: number | null;
  readonly endedAt: number | null;
  readonly calls: number;
  readonly turns: number;
  readonly reportedPromptTokens: number | null;
  readonly reportedOutputTokens: number | null;
  readonly reportedCacheReadTokens: number | null;
  readonly reportedCacheWriteTokens: number | null;
  readonly reportedCostUsd: number | null;
  readonly billedInputTokens: number | null;
  readonly cachedInputTokens: number | null;
  readonly cacheWriteTokens: number | null;
  readonly outputTokens: number | null;
  readonly costUsd: number | null;
  readonly compressions: number | null;
  readonly tokensRemoved: number | null;
  readonly peakTokens: number | null;
  readonly forcedFinals: number | null;
  readonly aborts: number | null;
  /** Calls whose request was above the model's window under the policy (status `overflow`). */
  readonly overflows: number | null;
  readonly lostFacts: number | null;
  readonly lostNeedles: number | null;
  readonly settingsHash: string;
  readonly status: 'ok' | 'error';
  readonly error: string | null;
}

export interface CompressionRow {
  readonly key: number;
  readonly call: number;
  /** `compression` (the replayed policy) or `agent-compaction` (what the agent itself did). */
  readonly kind: 'compression' | 'agent-compaction';
  /** async / proactive / emergency / strategy for a compression; auto / manual / unknown for a compaction. */
  readonly path: string;
  readonly strategy: string | null;
  readonly tokensBefore: number | null;
  readonly tokensAfter: number | null;
  readonly messagesDropped: number;
  readonly messagesMasked: number;
  readonly messagesSummarised: number;
  readonly factsLost: number;
}

/** The numeric step columns, in the order of the `steps` buffer table (src/core/fleet/sql.ts). */
export const STEP_NUMBER_COLUMNS = [
  'key',
  'call',
  'message_index',
  'turn',
  ...REGIONS,
  'total',
  'limit_tokens',
  'trigger_tokens',
  'reported_prompt_tokens',
  'status',
  'cost_usd',
  'cache_read_tokens',
  'cache_write_tokens',
] as const;
export type StepColumn = (typeof STEP_NUMBER_COLUMNS)[number];

export interface StepColumns {
  readonly count: number;
  readonly columns: Readonly<Record<StepColumn, Float64Array>>;
  /**
   * Per step, the provider's key of the call it replays (`ReportedUsage.callKey`: message id +
   * request id, as ccusage keys a call; null where the log has none). A resumed session repeats
   * earlier calls with their keys: `fleet report` counts each key once per policy (src/core/fleet/sql.ts).
   */
  readonly callKeys: readonly (string | null)[];
}

export interface FleetBatch {
  readonly sessions: readonly SessionRow[];
  readonly steps: StepColumns;
  readonly compressions: readonly CompressionRow[];
}

/** The agent whose transcript format this is, where the format belongs to one agent. */
const AGENT_OF: Partial<Record<FormatId, string>> = {
  'claude-code': 'claude-code',
  'claude-stream-json': 'claude-code',
  codex: 'codex',
  'gemini-cli': 'gemini-cli',
  openhands: 'openhands',
  'swe-agent': 'swe-agent',
  'mini-swe-agent': 'mini-swe-agent',
  aider: 'aider',
};

/**
 * The preset that reproduces the agent's own context management (docs/policies.md): the baseline
 * `fleet report` compares against. OpenHands logs no condenser; its default summarizes.
 */
const OWN_POLICY: Partial<Record<FormatId, string>> = {
  'claude-code': 'claude-code',
  'claude-stream-json': 'claude-code',
  codex: 'codex',
  openhands: 'openhands-summary',
};

/** Grows step columns as replays are added; `finish` trims them to the rows written. */
export class StepColumnsBuilder {
  private n = 0;
  private cap = 1024;
  private cols: Record<StepColumn, Float64Array> = StepColumnsBuilder.alloc(1024);
  private readonly keys: (string | null)[] = [];

  private static alloc(cap: number): Record<StepColumn, Float64Array> {
    const out = {} as Record<StepColumn, Float64Array>;
    for (const c of STEP_NUMBER_COLUMNS) out[c] = new Float64Array(cap);
    return out;
  }

  get count(): number {
    return this.n;
  }

  private reserve(more: number): void {
    if (this.n + more <= this.cap) return;
    while (this.cap < this.n + more) this.cap *= 2;
    const next = StepColumnsBuilder.alloc(this.cap);
    for (const c of STEP_NUMBER_COLUMNS) next[c].set(this.cols[c].subarray(0, this.n));
    this.cols = next;
  }

  /** `messages`: the replayed session's, where each step's call key is read (none: every key null). */
  add(key: number, r: ReplayResult, messages?: readonly Message[]): void {
    const s = r.steps;
    this.reserve(s.count);
    const c = this.cols;
    const at = this.n;
    // The cost handler's per-call figures (src/core/replay/cost.ts); NaN (NULL in the table) in a
    // result that has none.
    const { cost, cacheRead, cacheWrite } = s;
    for (let i = 0; i < s.count; i++) {
      const j = at + i;
      c.key[j] = key;
      c.call[j] = i;
      c.message_index[j] = s.messageIndex[i]!;
      c.turn[j] = s.turn[i]!;
      for (const region of REGIONS) c[region][j] = s.regions[region][i]!;
      c.total[j] = s.total[i]!;
      c.limit_tokens[j] = s.limit[i]!;
      c.trigger_tokens[j] = s.trigger[i]!;
      c.reported_prompt_tokens[j] = s.reported[i]!;
      c.status[j] = s.status[i]!;
      c.cost_usd[j] = cost ? cost[i]! : NaN;
      c.cache_read_tokens[j] = cacheRead ? cacheRead[i]! : NaN;
      c.cache_write_tokens[j] = cacheWrite ? cacheWrite[i]! : NaN;
      const m = messages?.[s.messageIndex[i]!];
      this.keys.push((m?.role === 'assistant' ? m.usage?.callKey : undefined) ?? null);
    }
    this.n += s.count;
  }

  finish(): StepColumns {
    const columns = {} as Record<StepColumn, Float64Array>;
    for (const c of STEP_NUMBER_COLUMNS) columns[c] = this.cols[c].slice(0, this.n);
    return { count: this.n, columns, callKeys: this.keys.slice(0, this.n) };
  }
}

const rangeLength = (ranges: readonly MessageRange[] | undefined): number =>
  (ranges ?? []).reduce((a, [from, to]) => a + (to - from + 1), 0);

/** What the transcript itself reported over the session's calls (null where it reported nothing). */
function reported(
  messages: readonly Message[],
): Pick<
  SessionRow,
  'reportedPromptTokens' | 'reportedOutputTokens' | 'reportedCacheReadTokens' | 'reportedCacheWriteTokens' | 'reportedCostUsd' | 'endedAt'
> {
  let prompt = 0,
    output = 0,
    read = 0,
    write = 0,
    cost = 0,
    any = false,
    anyCost = false,
    ended: number | null = null;
  for (const m of messages) {
    if (m.timestamp !== undefined && (ended === null || m.timestamp > ended)) ended = m.timestamp;
    const u = m.role === 'assistant' ? m.usage : undefined;
    if (!u) continue;
    any = true;
    prompt += promptTokens(u);
    output += u.output;
    read += u.cacheRead;
    write += u.cacheWrite;
    if (u.costUsd !== undefined) {
      anyCost = true;
      cost += u.costUsd;
    }
  }
  return {
    reportedPromptTokens: any ? prompt : null,
    reportedOutputTokens: any ? output : null,
    reportedCacheReadTokens: any ? read : null,
    reportedCacheWriteTokens: any ? write : null,
    reportedCostUsd: anyCost ? cost : null,
    endedAt: ended,
  };
}

export interface FileMeta {
  readonly sourcePath: string;
  readonly fileHash: string;
}

/** The descriptive half of a sessions row: the same for every policy. */
export function sessionFacts(
  session: Session,
  parent: Session | null,
): Omit<
  SessionRow,
  | 'key'
  | 'policy'
  | 'sourcePath'
  | 'fileHash'
  | 'settingsHash'
  | 'status'
  | 'error'
  | 'calls'
  | 'turns'
  | 'billedInputTokens'
  | 'cachedInputTokens'
  | 'cacheWriteTokens'
  | 'outputTokens'
  | 'costUsd'
  | 'compressions'
  | 'tokensRemoved'
  | 'peakTokens'
  | 'forcedFinals'
  | 'aborts'
  | 'overflows'
  | 'lostFacts'
  | 'lostNeedles'
> {
  return {
    format: session.format,
    agent: AGENT_OF[session.format] ?? null,
    ownPolicy: OWN_POLICY[session.format] ?? null,
    sessionId: session.id,
    parentSessionId: parent?.id ?? null,
    model: session.model ?? null,
    project: session.cwd ?? null,
    title: session.title ?? null,
    startedAt: session.startedAt ?? session.messages.find((m) => m.timestamp !== undefined)?.timestamp ?? null,
    ...reported(session.messages),
  };
}

/** A sessions row for one replay. */
export function replayRow(
  key: number,
  policy: string,
  file: FileMeta,
  settings: string,
  facts: ReturnType<typeof sessionFacts>,
  r: ReplayResult,
): SessionRow {
  const t = r.totals;
  let turns = 0;
  for (let i = 0; i < r.steps.count; i++) turns = Math.max(turns, r.steps.turn[i]! + 1);
  return {
    key,
    policy,
    ...file,
    ...facts,
    settingsHash: settings,
    calls: r.steps.count,
    turns,
    billedInputTokens: t.billedInputTokens,
    cachedInputTokens: t.cachedInputTokens,
    cacheWriteTokens: t.cacheWriteTokens ?? null,
    outputTokens: t.outputTokens,
    costUsd: t.cost,
    compressions: t.compressions,
    tokensRemoved: t.tokensRemoved,
    peakTokens: t.peak,
    forcedFinals: t.forcedFinals,
    aborts: t.aborts,
    overflows: t.overflows,
    lostFacts: r.retention.lost.length,
    lostNeedles: (r.retention.needles ?? []).filter((n) => n.leftAt.length > 0).length,
    status: 'ok',
    error: null,
  };
}

/** A sessions row for a transcript (or one of its sessions) that failed to parse or replay. */
export function errorRow(
  key: number,
  policy: string,
  file: FileMeta,
  settings: string,
  message: string,
  facts?: ReturnType<typeof sessionFacts>,
  calls = 0,
  turns = 0,
): SessionRow {
  return {
    key,
    policy,
    ...file,
    format: null,
    agent: null,
    ownPolicy: null,
    sessionId: null,
    parentSessionId: null,
    model: null,
    project: null,
    title: null,
    startedAt: null,
    endedAt: null,
    reportedPromptTokens: null,
    reportedOutputTokens: null,
    reportedCacheReadTokens: null,
    reportedCacheWriteTokens: null,
    reportedCostUsd: null,
    ...facts,
    calls,
    turns,
    billedInputTokens: null,
    cachedInputTokens: null,
    cacheWriteTokens: null,
    outputTokens: null,
    costUsd: null,
    compressions: null,
    tokensRemoved: null,
    peakTokens: null,
    forcedFinals: null,
    aborts: null,
    overflows: null,
    lostFacts: null,
    lostNeedles: null,
    settingsHash: settings,
    status: 'error',
    error: message,
  };
}

/** The compressions rows of one replay: its compressions, then the agent's own compactions. */
export function compressionRows(key: number, r: ReplayResult): CompressionRow[] {
  const lostAt = new Map<number, number>();
  for (const l of r.retention.lost) lostAt.set(l.lostAt, (lostAt.get(l.lostAt) ?? 0) + 1);
  const out: CompressionRow[] = [];
  const counted = new Set<number>();
  for (const e of r.events) {
    if (e.kind === 'compression') {
      const removed = rangeLength(e.dropped);
      // Facts lost at a call are charged to its first compression (several may run before one call).
      const facts = counted.has(e.step) ? 0 : (lostAt.get(e.step) ?? 0);
      counted.add(e.step);
      out.push({
        key,
        call: e.step,
        kind: 'compression',
        path: e.path,
        strategy: e.strategy,
        tokensBefore: e.tokensBefore,
        tokensAfter: e.tokensAfter,
        messagesDropped: e.summary !== undefined ? 0 : removed,
        messagesMasked: rangeLength(e.masked),
        messagesSummarised: e.summary !== undefined ? removed : 0,
        factsLost: facts,
      });
    } else if (e.kind === 'source-compaction') {
      out.push({
        key,
        call: e.step,
        kind: 'agent-compaction',
        path: e.trigger,
        strategy: null,
        tokensBefore: e.tokensBefore ?? null,
        tokensAfter: e.tokensAfter ?? null,
        messagesDropped: 0,
        messagesMasked: 0,
        messagesSummarised: 0,
        factsLost: 0,
      });
    }
  }
  return out;
}

/** Status names, for the SQL that turns a step's status index back into its word. */
export const STATUS_WORDS = STEP_STATUSES;
