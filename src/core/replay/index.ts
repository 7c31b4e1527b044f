/**
 * The simulator (docs/policies.md §Common): one pass over the transcript's LLM calls (steps) that
 * rebuilds, under a config, what each request would have held — system, unlogged overhead,
 * summary, kept history, tool definitions — calling one handler per concern, in this order:
 *
 *   arrival.ts        messages before the call: turns (→ async-path.ts, S0 path 1), tool calls,
 *                     tool results (→ tool-preflight.ts, S1)
 *   sent-as.ts        messages the original agent sent rewritten from a call on (history processors)
 *   source-compactions.ts   what the original agent compacted
 *   proactive.ts      the trigger check before the call (S0 path 2, S2, S3, S4, presets)
 *   emergency.ts      S0 path 3: the true size overflows though the estimate fit
 *   guard.ts          S1's tool-budget final turn and turn_preflight (ok / skip / final)
 *   budgets.ts        S3's layers and S4's hard limits, before the call is made
 *   cost.ts           what the call is billed
 *   steps.ts          regions, limit, trigger, status and reason of the step
 *   retention.ts      facts and needles that left and were needed again
 *
 * run.ts holds the pass (set up, steps, finish); resume.ts continues a finished one over the calls
 * a live-tail append brings. setup.ts derives the session's shape, reference counts and pins;
 * compress.ts is the engine the three compression paths share. The transcript's own messages are
 * replayed as they happened: the agent's outputs are taken as unchanged by a different context.
 * Numbers per step live in typed arrays; history sizes come from prefix sums (window.ts).
 */
import type { ReplayConfig, ReplayConfigInput } from '../config';
import type { Session } from '../model';
import { finishRun, runSteps, setupRun, type ReplayOptions } from './run';
import type { ReplayResult } from './types';

export { ReplayCancelled, resolveTokenizer, STOP_CHECK_EVERY, type ReplayOptions } from './run';

/** The whole pass (run.ts): set up, every call, the result. resume.ts continues a kept run instead. */
export async function replay(
  session: Session,
  configInput: ReplayConfig | ReplayConfigInput,
  options: ReplayOptions = {},
): Promise<ReplayResult> {
  const run = setupRun(session, configInput, options);
  await runSteps(run, options.shouldStop);
  return finishRun(run);
}

export { replayToJSON, toCliJSON, toView } from './serialize';
export { reasonText, stepReason } from './steps';
export { compare, comparisonToJSON, type ReplayComparison, type StepDifference } from './compare';
