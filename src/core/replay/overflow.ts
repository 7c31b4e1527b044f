/**
 * A request above the model's window is a failure, not a warning: the provider refuses a prompt
 * it cannot hold, whatever the policy's own limit or trigger says (docs/user-guide.md, statuses).
 * Runs last, after the guard, budgets and warnings, so it names the one fact that decides the call.
 * A forced final turn or an abort keeps its status: the run ends there either way.
 */
import { int, type ReplayState, type StepDecision } from './state';

export function overflowStep(s: ReplayState, request: number, d: StepDecision): void {
  if (d.status === 'final' || d.status === 'abort') return;
  // After an S1 (docs/policies.md §S1) skip the fallback model takes the call: its window is the one that counts.
  const window = d.model && d.model !== s.model ? d.model.window : s.limits.window;
  if (!(request > window)) return;
  s.totals.overflows++;
  d.status = 'overflow';
  if (!s.lean) {
    const text = `request ${int(request)} > window ${int(window)}${d.model && d.model !== s.model ? ` of ${d.model.id}` : ''}: the provider would reject this call`;
    d.reason = d.reason ? `${text} (${d.reason})` : text;
  }
}
