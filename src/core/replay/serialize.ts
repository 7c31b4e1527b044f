/**
 * ReplayResult → JSON. Two shapes: the columnar view the UI draws from (typed arrays become
 * number arrays, summary texts left to the step detail), and the row-per-step shape the CLI prints
 * (everything). Both are deterministic: the same
 * result gives byte-identical JSON.
 */
import type { ReplayView } from '../view/replay-view';
import type { Session } from '../model';
import { lossLedgers, type LossLedger } from './ledger';
import { hasSummary } from '../summarize/summary-text';
import { stepReason } from './steps';
import { REGIONS, STEP_STATUSES, type ReplayEvent, type ReplayResult } from './types';

/**
 * An event without its summary text. The window reads a summary only in one call's detail
 * (step-detail.ts); a rolling summary is tens of KB per compression (50 MB for a replay that
 * compresses at every call), which the view and compare answers copied through JSON for nothing.
 */
export function withoutSummary<E extends ReplayEvent>(e: E): E {
  if ((e.kind !== 'compression' && e.kind !== 'source-compaction') || !hasSummary(e)) return e;
  // Copied key by key, never reading `summary`: reading it writes the text (summary-text.ts).
  const rest: Record<string, unknown> = {};
  for (const k of Object.keys(e)) if (k !== 'summary') rest[k] = (e as Record<string, unknown>)[k];
  return rest as E;
}

export function toView(r: ReplayResult): ReplayView {
  const s = r.steps;
  const regions = Object.fromEntries(REGIONS.map((k) => [k, Array.from(s.regions[k])])) as unknown as ReplayView['steps']['regions'];
  // Read once: the getter words every deferred reason (steps.ts).
  const reasons = s.reasons;
  return {
    policy: r.policy,
    config: r.config,
    steps: {
      messageIndex: Array.from(s.messageIndex),
      turn: Array.from(s.turn),
      regions,
      total: Array.from(s.total),
      limit: Array.from(s.limit),
      trigger: Array.from(s.trigger, (v) => (Number.isNaN(v) ? null : v)),
      reported: Array.from(s.reported, (v) => (Number.isNaN(v) ? null : v)),
      status: Array.from(s.status, (c) => STEP_STATUSES[c]!),
      reason: Array.from(s.reasonIndex, (i) => reasons[i] ?? ''),
      keptFrom: Array.from(s.keptFrom),
    },
    events: r.events.map(withoutSummary),
    totals: r.totals,
    retention: r.retention,
  };
}

/** The CLI's JSON: one row per step, `turn` 0-based like the table's "turn (0-based)" column. */
export interface CliReplayJSON {
  policy: string;
  config: Readonly<Record<string, unknown>>;
  steps: {
    index: number;
    message: number;
    turn: number;
    regions: Record<string, number>;
    total: number;
    limit: number;
    trigger: number | null;
    reported: number | null;
    status: string;
    reason: string;
    cacheRead?: number;
    cacheWrite?: number;
    cost?: number;
  }[];
  events: ReplayResult['events'];
  totals: ReplayResult['totals'];
  retention: ReplayResult['retention'];
  /** The agent's own compactions against its preset (compaction-check.ts), when the session has any. */
  sourceCompactions?: ReplayResult['sourceCompactions'];
  /** What left the model's view at each compression and agent compaction (ledger.ts); present when the session was given. */
  ledger?: LossLedger[];
}

/** `session`: the replayed session, to add the loss ledger (computed here, on request: the replay never pays for it). */
export function toCliJSON(r: ReplayResult, session?: Session): CliReplayJSON {
  const s = r.steps;
  const steps = [];
  for (let i = 0; i < s.count; i++) {
    steps.push({
      index: i,
      message: s.messageIndex[i]!,
      turn: s.turn[i]!,
      regions: Object.fromEntries(REGIONS.map((k) => [k, s.regions[k][i]!])),
      total: s.total[i]!,
      limit: s.limit[i]!,
      trigger: Number.isNaN(s.trigger[i]!) ? null : s.trigger[i]!,
      reported: Number.isNaN(s.reported[i]!) ? null : s.reported[i]!,
      status: STEP_STATUSES[s.status[i]!]!,
      reason: stepReason(s, i),
      ...(s.cacheRead && s.cacheWrite && s.cost ? { cacheRead: s.cacheRead[i]!, cacheWrite: s.cacheWrite[i]!, cost: s.cost[i]! } : {}),
    });
  }
  const out: CliReplayJSON = { policy: r.policy, config: r.config, steps, events: r.events, totals: r.totals, retention: r.retention };
  if (r.sourceCompactions) out.sourceCompactions = r.sourceCompactions;
  if (session) out.ledger = lossLedgers(r, session);
  return out;
}

/** The replay as JSON text: the same session, config and summarizer give byte-identical output. */
export function replayToJSON(r: ReplayResult, indent?: number, session?: Session): string {
  return JSON.stringify(toCliJSON(r, session), null, indent);
}
