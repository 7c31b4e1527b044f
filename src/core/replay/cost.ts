/**
 * The cost handler (docs/policies.md §Common, cost): each call is billed its request as input —
 * the prefix unchanged since the previous call as cached input (after a compression only system +
 * tools are unchanged; the first call has nothing cached) — and the transcript's own output.
 * A call the budgets abort is not made and not billed. Calls the agent makes beside its loop (S1's
 * full-chunked extraction) are billed where they happen (`billSideCalls`).
 */
import type { ModelInfo } from '../catalog';
import { callCost } from '../catalog';
import type { ReplayState } from './state';

export class CostHandler {
  private prevRequest = -1;
  private compressedSincePrev = true;

  /** A copy to go on from (resume.ts continues a kept run and leaves it as it was). */
  clone(): CostHandler {
    return Object.assign(new CostHandler(), { prevRequest: this.prevRequest, compressedSincePrev: this.compressedSincePrev });
  }

  /** A compression ran before the coming call: the cache is broken after system + tools. */
  compressed(): void {
    this.compressedSincePrev = true;
  }

  bill(s: ReplayState, k: number, request: number, model: ModelInfo | undefined): void {
    const cachedPart = this.prevRequest < 0 ? 0 : this.compressedSincePrev ? Math.min(request, s.fixed) : Math.min(this.prevRequest, request);
    // The message's `usage?.output ?? perMessage[k]`, from the shape's table (setup.ts).
    const out = s.shape.outputAt[k] === 1 ? s.shape.outputOf[k]! : s.counts.perMessage[k]!;
    const t = s.totals;
    t.billedInputTokens += request;
    t.cachedInputTokens += cachedPart;
    t.outputTokens += out;
    if (model) t.cost += callCost(model, request - cachedPart, cachedPart, out);
    t.peak = Math.max(t.peak, request);
    this.prevRequest = request;
    this.compressedSincePrev = false;
    s.callsMade++;
  }
}

/**
 * LLM calls made beside the agent's loop — S1's full-chunked extraction, one call per chunk
 * (docs/policies.md §S1) — billed with nothing cached at the session model's prices. They count
 * in the tokens and cost the budgets see, not in the agent's turns (S4's turns are loop iterations).
 */
export function billSideCalls(s: ReplayState, input: number, output: number): void {
  const t = s.totals;
  t.billedInputTokens += input;
  t.outputTokens += output;
  if (s.model) t.cost += callCost(s.model, input, 0, output);
}
