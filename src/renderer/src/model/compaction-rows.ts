/**
 * The Events tab's "real vs predicted compactions": one row per compaction the agent logged,
 * against its preset (core/replay/compaction-check.ts), in words and numbers a reader can check.
 */
import type { ChartView } from '../../../shared/api';

type Check = NonNullable<ChartView['sourceCompactions']>[number];

export interface CompactionRow {
  readonly call: number;
  /** "auto", "manual", "unknown". */
  readonly trigger: string;
  /** "180,936", or "—" when the log gives no size. */
  readonly preTokens: string;
  /** "#20 (180,868)", or "none up to #21". */
  readonly predicted: string;
  /** "167,000 at 200,000 (model)". */
  readonly formula: string;
  /** "hit", "1 call early", "8.3% past", … */
  readonly verdict: string;
  readonly hit: boolean;
  readonly reason: string;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

function verdictOf(c: Check): string {
  if (c.hit) return 'hit';
  if (c.trigger === 'manual') return 'manual';
  const parts: string[] = [];
  if (c.callError === null) parts.push('not predicted');
  else if (c.callError !== 0)
    parts.push(`${Math.abs(c.callError)} call${Math.abs(c.callError) === 1 ? '' : 's'} ${c.callError < 0 ? 'early' : 'late'}`);
  if (c.tokensError !== null)
    parts.push(`${(Math.abs(c.tokensError) * 100).toFixed(1)}% ${c.tokensError < 0 ? 'below' : 'past'} the trigger`);
  return parts.join(', ') || 'miss';
}

export function compactionRows(checks: readonly Check[]): CompactionRow[] {
  return checks.map((c) => ({
    call: c.call,
    trigger: c.trigger,
    preTokens: c.preTokens === null ? '—' : int(c.preTokens),
    predicted: c.predictedCall === null ? `none up to #${c.call}` : `#${c.predictedCall} (${int(c.predictedTokens ?? 0)})`,
    formula: `${int(c.triggerTokens)} at ${int(c.window)} (${c.windowSource})`,
    verdict: verdictOf(c),
    hit: c.hit,
    reason: c.reason,
  }));
}

/** "2 of 3 predicted (±1 call, trigger within 2%)". */
export function compactionSummary(checks: readonly Check[]): string {
  const sized = checks.filter((c) => c.preTokens !== null && c.trigger !== 'manual');
  return `${checks.filter((c) => c.hit).length} of ${sized.length} sized auto compaction${sized.length === 1 ? '' : 's'} predicted by the ${checks[0]?.preset ?? ''} preset (±1 call, trigger within 2%)`;
}
