/**
 * Messages arriving before a call (docs/policies.md §Common, steps): the user's next turn (which
 * completes the previous one: S0's async path runs there), the agent's tool calls (counted for
 * S1's and S4's tool budgets), and tool results (S1's tool preflight). Each message enters the
 * retention tracker as it arrives.
 */
import { isTurnBoundary } from '../turns';
import { asyncPath } from './async-path';
import type { ReplayState, StepDecision } from './state';
import { toolResultArrives } from './tool-preflight';

/** Messages [from, k) arrive before the call of `step` (message k). */
export async function arrive(s: ReplayState, from: number, k: number, step: number, d: StepDecision): Promise<void> {
  for (let i = from; i < k; i++) {
    const m = s.messages[i]!;
    if (isTurnBoundary(m)) await asyncPath(s, i, step, d);
    for (const p of m.parts) {
      if (p.kind === 'tool_call') s.toolCalls++;
      else if (p.kind === 'tool_result') toolResultArrives(s, i, p.callId, p.text, step);
    }
    s.retention.enter(i, step);
  }
}
