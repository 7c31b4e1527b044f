/**
 * The model catalog (resources/models.json): context window, max output, prices per 1M tokens
 * and tokenizer family for current models, each row with its source and date. Lookup is by the
 * longest id prefix, so dated ids (`claude-sonnet-4-5-20250929`) and provider prefixes
 * (`anthropic/claude-…`, `openai/gpt-…`) find their row.
 */
import catalog from '../../resources/models.json';

export interface ModelInfo {
  readonly id: string;
  readonly provider: string;
  readonly window: number;
  readonly maxOutput: number;
  /** USD per 1M input tokens (uncached). */
  readonly input: number;
  /** USD per 1M cached input tokens read. */
  readonly cachedInput: number;
  /** USD per 1M output tokens. */
  readonly output: number;
  readonly tokenizer: string;
  readonly source: string;
  readonly date: string;
}

export const MODELS: readonly ModelInfo[] = catalog.models;
export const PROVIDER_DEFAULTS: Readonly<Record<string, { readonly window: number }>> = catalog.providers;

/** Strips provider prefixes and normalises case: `openrouter/anthropic/Claude-…` → `claude-…`. */
export function normaliseModelId(id: string): string {
  const lower = id.trim().toLowerCase();
  const slash = lower.lastIndexOf('/');
  return slash >= 0 ? lower.slice(slash + 1) : lower;
}

export function lookupModel(id: string | undefined): ModelInfo | undefined {
  if (!id) return undefined;
  const norm = normaliseModelId(id);
  let best: ModelInfo | undefined;
  for (const m of MODELS) if (norm.startsWith(m.id) && (!best || m.id.length > best.id.length)) best = m;
  return best;
}

/** Cost in USD of one call: uncached input, cached input read, and output tokens. */
export function callCost(model: ModelInfo, uncachedInput: number, cachedInput: number, output: number): number {
  return (uncachedInput * model.input + cachedInput * model.cachedInput + output * model.output) / 1_000_000;
}
