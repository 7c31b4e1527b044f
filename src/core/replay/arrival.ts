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

/**
 * Messages [from, k) arrive before the call of `step` (message k). Without S0's async path nothing
 * here waits, so it runs synchronously and returns undefined: the replay awaits only a promise,
 * and an await per call over 10,000 calls, replayed 100 times by a sweep, was a share of it.
 */
export function arrive(s: ReplayState, from: number, k: number, step: number, d: StepDecision): Promise<void> | undefined {
  if (s.config.paths.async) return arriveWithAsyncPath(s, from, k, step, d);
  for (let i = from; i < k; i++) enter(s, i, step);
  return undefined;
}

/** The same with S0's async path at each turn start: a promise only from a summary that is awaited on. */
function arriveWithAsyncPath(s: ReplayState, from: number, k: number, step: number, d: StepDecision): Promise<void> | undefined {
  const turnOf = s.shape.turnOfMsg;
  for (let i = from; i < k; i++) {
    // A boundary is where the turn number goes up (turnIndex counts them so): read from the shape,
    // not from each message's parts at every replay. Message 0 starts turn 0 either way: asked.
    if (i === 0 ? isTurnBoundary(s.messages[0]!) : turnOf[i] !== turnOf[i - 1]) {
      const pending = asyncPath(s, i, step, d);
      if (pending)
        return pending.then(() => {
          enter(s, i, step);
          return arriveWithAsyncPath(s, i + 1, k, step, d);
        });
    }
    enter(s, i, step);
  }
  return undefined;
}

function enter(s: ReplayState, i: number, step: number): void {
  if (toolResultsInert(s)) {
    // Nothing happens to a tool result on arrival: the calls are counted from the shape, and the
    // parts (of every message, at every replay of a sweep) are not read — that loop led the profile.
    s.toolCalls += s.shape.toolCallsOf[i]!;
    s.retention.enter(i, step);
    return;
  }
  for (const p of s.messages[i]!.parts) {
    if (p.kind === 'tool_call') s.toolCalls++;
    else if (p.kind === 'tool_result') toolResultArrives(s, i, p.callId, p.text, step);
  }
  s.retention.enter(i, step);
}

/**
 * toolResultArrives does nothing under this config: no size cap, no tool budget, no preflight —
 * the only things that set `toolBudgetHitAt` or change a result (tool-preflight.ts).
 */
function toolResultsInert(s: ReplayState): boolean {
  const c = s.config;
  return !(c.toolOutputMaxBytes > 0) && c.toolBudget === undefined && !c.paths.toolPreflight;
}
