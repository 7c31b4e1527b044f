/**
 * A chart of a session still being imported carries `partial` (src/shared/api.ts ImportPartial):
 * added to the answer as the replay wrote it, without parsing it again (a chart view is written
 * ahead as JSON text on the replay worker).
 */
import { isJsonText, type ChartView, type EventPayload, type ImportPartial, type JsonText } from '../../shared/api';
import type { ChartViewWire } from '../../shared/marker-columns';

export function withPartial(
  view: ChartViewWire | JsonText<ChartViewWire>,
  partial: ImportPartial,
): ChartViewWire | JsonText<ChartViewWire> {
  if (!isJsonText(view)) return { ...view, partial } satisfies Pick<ChartView, 'partial'>;
  const text = view.jsonText.trimEnd();
  // The answer is one JSON object: its closing brace gives way to one more member.
  if (!text.endsWith('}')) return view;
  return { ...view, jsonText: `${text.slice(0, -1)},"partial":${JSON.stringify(partial)}}` };
}

/** The least time between two `sessionUpdated` of a session being imported. */
const MIN_GAP_MS = 500;

/**
 * `sessionUpdated` for a session that grows by chunks, paced by how long its chart takes: each
 * event makes the window ask for the chart again, and a chart still being replayed when the next
 * chunk lands was asked for in vain (on a busy machine the first chart of a big session never
 * came while every chunk restarted it). An event waits while a chart of the session is being made,
 * then at least twice the last chart's time (MIN_GAP_MS at least); the newest totals win; `flush`
 * sends what waits at once (the import ended).
 */
export class GrowthEvents {
  private readonly last = new Map<string, number>();
  private readonly chartMs = new Map<string, number>();
  private readonly waiting = new Map<string, { payload: EventPayload<'sessionUpdated'>; timer: ReturnType<typeof setTimeout> }>();

  constructor(private readonly send: (payload: EventPayload<'sessionUpdated'>) => void) {}

  private readonly inflight = new Map<string, number>();

  /** A chart of the session was asked for: growth waits until it is answered. */
  charting(sessionId: string): void {
    this.inflight.set(sessionId, (this.inflight.get(sessionId) ?? 0) + 1);
  }

  /** A chart of the session was answered (or failed) in `ms`: what waited is sent after the gap. */
  charted(sessionId: string, ms: number): void {
    this.chartMs.set(sessionId, ms);
    const n = (this.inflight.get(sessionId) ?? 1) - 1;
    if (n > 0) this.inflight.set(sessionId, n);
    else this.inflight.delete(sessionId);
    const pending = this.waiting.get(sessionId);
    if (n <= 0 && pending) this.grown(pending.payload);
  }

  grown(payload: EventPayload<'sessionUpdated'>): void {
    const id = payload.sessionId;
    if (this.inflight.has(id)) {
      // Sent once the chart being made is answered (the newest totals).
      const pending = this.waiting.get(id);
      if (pending) clearTimeout(pending.timer);
      const merged = pending?.payload.rewritten ? { ...payload, rewritten: true } : payload;
      this.waiting.set(id, { payload: merged, timer: setTimeout(() => undefined, 0) });
      return;
    }
    const gap = Math.max(MIN_GAP_MS, 2 * (this.chartMs.get(id) ?? 0));
    const wait = (this.last.get(id) ?? -Infinity) + gap - performance.now();
    const pending = this.waiting.get(id);
    if (pending) clearTimeout(pending.timer);
    // A rewrite said once is said until it is sent.
    const merged = pending?.payload.rewritten ? { ...payload, rewritten: true } : payload;
    if (wait <= 0) {
      this.waiting.delete(id);
      this.sendNow(merged);
      return;
    }
    this.waiting.set(id, { payload: merged, timer: setTimeout(() => this.flush(id), wait) });
  }

  flush(sessionId: string): void {
    const pending = this.waiting.get(sessionId);
    if (!pending) return;
    clearTimeout(pending.timer);
    this.waiting.delete(sessionId);
    this.sendNow(pending.payload);
  }

  private sendNow(payload: EventPayload<'sessionUpdated'>): void {
    this.last.set(payload.sessionId, performance.now());
    this.send(payload);
  }
}
