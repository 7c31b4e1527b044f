/**
 * Why the agent's own compaction (a source compaction in the transcript) is not at the call where
 * the replay compressed: the agent decides on the provider's count of a call it already made,
 * after that call returns, while the replay checks its estimate of the next request before each
 * call. Written from numbers on the same screen (the marker, the call's reported prompt, the
 * policy's trigger and window), so each figure can be checked.
 */
import type { ChartView, StepDetail } from '../../../shared/api';
import { fmtInt } from '../format';

export function agentCompactionNote(chart: ChartView | null, d: StepDetail): string | null {
  if (!chart) return null;
  const here = chart.markers.find((m) => m.kind === 'source-compaction' && m.step === d.step);
  if (!here || here.kind !== 'source-compaction') return null;
  const compressions = chart.markers.filter((m) => m.kind === 'compression').map((m) => m.step);
  const nearest = compressions.length === 0 ? null : compressions.reduce((a, b) => (Math.abs(b - d.step) < Math.abs(a - d.step) ? b : a));
  const before = here.tokensBefore !== undefined ? ` at ${fmtInt(here.tokensBefore)} tokens by its own count` : '';
  const rule = d.trigger
    ? `${d.trigger.basis} = ${fmtInt(d.trigger.value)} on a ${fmtInt(d.window.value)}-token window (${d.window.source})`
    : `a ${fmtInt(d.window.value)}-token window (${d.window.source})`;
  const where =
    nearest === null
      ? 'This replay did not compress.'
      : nearest === d.step
        ? `This replay compressed at the same call.`
        : `This replay compressed at call #${nearest}: it checks its estimate of each request before the call, while the agent decides on the provider's count of a call it already made, after that call returns — ${Math.abs(d.step - nearest) === 1 ? 'one call' : `${Math.abs(d.step - nearest)} calls`} ${nearest < d.step ? 'later' : 'earlier'} here.`;
  return `The agent compacted before this call (${here.trigger})${before}, under ${chart.policy}'s rule: ${rule}. ${where}`;
}
