/**
 * The per-step output (docs/policies.md §Common, regions): typed arrays, one slot per call —
 * regions bottom to top (output and buffer reserved, free what is left), the request, the limit
 * the step's policy enforces and its trigger, status and reason. The regions of a compress step
 * show the request sent after the compression.
 */
import { REGIONS, STEP_STATUSES, type ReplaySteps, type StepStatus } from './types';
import type { ReplayState, StepDecision } from './state';

const STATUS_CODE = Object.fromEntries(STEP_STATUSES.map((s, i) => [s, i])) as Record<StepStatus, number>;

export class StepArrays {
  readonly regions: Record<(typeof REGIONS)[number], Float64Array>;
  readonly total: Float64Array;
  readonly limit: Float64Array;
  readonly trigger: Float64Array;
  readonly reported: Float64Array;
  readonly status: Uint8Array;
  readonly reasonIndex: Uint16Array;
  readonly keptFrom: Uint32Array;
  private readonly reasons: string[] = [''];
  private readonly reasonIds = new Map<string, number>([['', 0]]);

  /** `lean`: no reason is recorded (every reasonIndex 0), as ReplayOptions.detail 'totals' asks. */
  constructor(
    readonly count: number,
    private readonly triggerTokens: number,
    private readonly lean = false,
  ) {
    this.regions = Object.fromEntries(REGIONS.map((r) => [r, new Float64Array(count)])) as Record<(typeof REGIONS)[number], Float64Array>;
    this.total = new Float64Array(count);
    this.limit = new Float64Array(count);
    this.trigger = new Float64Array(count).fill(triggerTokens);
    this.reported = new Float64Array(count).fill(NaN);
    this.status = new Uint8Array(count);
    this.reasonIndex = new Uint16Array(count);
    this.keptFrom = new Uint32Array(count);
  }

  /** Reasons named so far ('' included). */
  get reasonCount(): number {
    return this.reasons.length;
  }

  /**
   * These steps and room for more, for a run continued over a grown session (resume.ts): the
   * first `filled` steps and the first `reasons` reasons (what the run recorded itself: a copy that
   * made its last call may have written more into these arrays) are copied; this object (a result
   * reads its arrays) stays as it is.
   */
  grownTo(count: number, filled = this.count, reasons = this.reasons.length): StepArrays {
    const g = new StepArrays(count, this.triggerTokens, this.lean);
    const n = Math.min(count, this.count, filled);
    for (const r of REGIONS) g.regions[r].set(this.regions[r].subarray(0, n));
    g.total.set(this.total.subarray(0, n));
    g.limit.set(this.limit.subarray(0, n));
    g.trigger.set(this.trigger.subarray(0, n));
    g.reported.set(this.reported.subarray(0, n));
    g.status.set(this.status.subarray(0, n));
    g.reasonIndex.set(this.reasonIndex.subarray(0, n));
    g.keptFrom.set(this.keptFrom.subarray(0, n));
    for (let q = 1; q < Math.min(reasons, this.reasons.length); q++) {
      g.reasons.push(this.reasons[q]!);
      g.reasonIds.set(this.reasons[q]!, q);
    }
    return g;
  }

  private reasonOf(text: string): number {
    let id = this.reasonIds.get(text);
    if (id === undefined) {
      id = this.reasons.length;
      if (id >= 65535) return 0;
      this.reasons.push(text);
      this.reasonIds.set(text, id);
    }
    return id;
  }

  /** The call of step j, as the handlers decided it, with the window as it is now. */
  record(s: ReplayState, j: number, k: number, request: number, d: StepDecision): void {
    const c = s.counts;
    const history = s.win.historyTokens(k);
    const r = this.regions;
    r.system[j] = c.system;
    r.unlogged[j] = c.unlogged;
    r.summary[j] = s.summaryTokens;
    r.history[j] = history;
    r.tools[j] = c.tools;
    const room = Math.max(0, s.limits.window - request);
    r.output[j] = Math.min(s.limits.maxOutput, room);
    r.buffer[j] = Math.min(s.limits.buffer, room - r.output[j]!);
    r.free[j] = room - r.output[j]! - r.buffer[j]!;
    this.total[j] = request;
    this.limit[j] = d.limit;
    this.status[j] = STATUS_CODE[d.status];
    if (!this.lean) this.reasonIndex[j] = this.reasonOf(d.reason);
    this.keptFrom[j] = s.win.keepBefore[0] ?? s.win.from;
  }

  /** A call after the run ended (abort, or the forced final turn taken): it would not have happened. */
  recordEnded(s: ReplayState, j: number, ended: 'abort' | 'final'): void {
    for (const r of REGIONS) this.regions[r][j] = this.regions[r][j - 1] ?? 0;
    this.total[j] = this.total[j - 1] ?? 0;
    this.limit[j] = this.limit[j - 1] ?? s.enforcement.limit;
    this.status[j] = STATUS_CODE[ended];
    if (!this.lean) this.reasonIndex[j] = this.reasonOf(ended === 'abort' ? 'after the abort: this call would not have happened' : 'after the forced final turn: this call would not have happened');
    this.keptFrom[j] = s.win.keepBefore[0] ?? s.win.from;
  }

  result(messageIndex: Uint32Array, turn: Uint32Array): ReplaySteps {
    return { count: this.count, messageIndex, turn, regions: this.regions, total: this.total, limit: this.limit, trigger: this.trigger, reported: this.reported, status: this.status, reasonIndex: this.reasonIndex, reasons: this.reasons, keptFrom: this.keptFrom };
  }
}
