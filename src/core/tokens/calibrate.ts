/**
 * The `calibrated` tokenizer's fit: per session, a least-squares line from what we estimate the
 * transcript holds before each call (x) to what the provider reported it counted (y):
 * y ≈ ratio · x + overhead. The ratio corrects the tokenizer family (o200k for a Claude model,
 * say); the overhead is what the transcript does not log at all — Claude Code omits the system
 * prompt and tool definitions, often 15–25k tokens — and becomes its own region, "unlogged
 * system & tools", so the bars add up to what the provider really counted.
 */
import type { Session } from '../model';
import { promptTokens } from '../model';
import type { SessionCounts } from './types';

export interface CalibrationFit {
  readonly ratio: number;
  readonly overhead: number;
  /** Calls with reported usage the fit used. */
  readonly points: number;
  /** Mean absolute error of the fit over those calls, in tokens. */
  readonly meanAbsError: number;
}

/** (x, y) per call with reported usage: estimated request size (since the last source compaction) vs reported prompt. */
export function calibrationPoints(session: Session, counts: SessionCounts): { x: number; y: number }[] {
  const points: { x: number; y: number }[] = [];
  const compactionStarts = session.sourceCompactions.map((c) => c.atMessage).sort((a, b) => a - b);
  let c = 0;
  let windowStart = 0;
  for (let i = 0; i < session.messages.length; i++) {
    while (c < compactionStarts.length && compactionStarts[c]! <= i) windowStart = compactionStarts[c++]!;
    const m = session.messages[i]!;
    if (m.role !== 'assistant' || !m.usage) continue;
    // The request of call i holds everything before message i in the current window.
    const x = counts.prefix[i]! - counts.prefix[windowStart]! + counts.system + counts.tools;
    points.push({ x, y: promptTokens(m.usage) });
  }
  return points;
}

export function fitCalibration(session: Session, counts: SessionCounts): CalibrationFit {
  const pts = calibrationPoints(session, counts).filter((p) => p.y > 0);
  if (pts.length === 0) return { ratio: 1, overhead: 0, points: 0, meanAbsError: 0 };
  if (pts.length === 1) {
    const p = pts[0]!;
    return { ratio: 1, overhead: Math.max(0, p.y - p.x), points: 1, meanAbsError: 0 };
  }
  const n = pts.length;
  let sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const p of pts) {
    sx += p.x;
    sy += p.y;
    sxx += p.x * p.x;
    sxy += p.x * p.y;
  }
  const denom = n * sxx - sx * sx;
  let ratio = denom > 0 ? (n * sxy - sx * sy) / denom : 1;
  let overhead = (sy - ratio * sx) / n;
  // A negative overhead or a nonsensical ratio means the line is not physical: fall back to a
  // pure offset (ratio 1), which is what an unlogged system prompt looks like.
  if (!(ratio > 0.2 && ratio < 5) || overhead < 0) {
    ratio = 1;
    overhead = Math.max(0, (sy - sx) / n);
  }
  let err = 0;
  for (const p of pts) err += Math.abs(ratio * p.x + overhead - p.y);
  return { ratio, overhead: Math.round(overhead), points: n, meanAbsError: err / n };
}
