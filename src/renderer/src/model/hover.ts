/**
 * The hover card's reason line for one chart bucket: why the guard decided what it did, with its
 * numbers — for ok calls too, where the replay records no reason (docs/architecture.md: every number shown can
 * be explained by another on the same screen). Pure; the chart view holds no per-call reasons, so a
 * non-ok status is explained by its marker (never downsampled), an ok one by request against limit.
 */
import type { ChartView } from '../../../shared/api';
import { fmtInt } from '../format';
import { bucketRange } from './chart-geometry';
import { markerLabel } from './marker-label';

export function bucketReason(view: ChartView, b: number): string {
  const [from, to] = bucketRange(view, b);
  const status = view.status[b] ?? 'ok';
  const kind = status === 'compress' ? 'compression' : status;
  const marker = status === 'ok' ? undefined : view.markers.find((m) => m.kind === kind && m.step <= to && (m.until ?? m.step) >= from);
  if (marker) return `${status}: ${markerLabel(marker)}`;
  const total = view.total.max[b];
  const limit = view.limit.max[b];
  if (total === null || total === undefined || limit === null || limit === undefined || limit <= 0) return status;
  return `${status}: ${fmtInt(total)} of ${fmtInt(limit)} limit (${Math.round((total / limit) * 100)}%)`;
}
