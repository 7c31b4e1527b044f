/**
 * The model catalog (resources/models.json): context window, max output, prices per 1M tokens
 * (input, cache read, cache writes for the 5-minute and the 1-hour cache, output) and tokenizer family for current models, each row with its source and date. Lookup is by the
 * longest id prefix, so dated ids (`claude-sonnet-4-5-20250929`) and provider prefixes
 * (`anthropic/claude-…`, `openai/gpt-…`) find their row.
 */
import catalog from '../../resources/models.json';
import type { ReportedUsage } from './model';

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
  /** USD per 1M tokens written to a 5-minute cache (Anthropic 1.25× input; input where there is no write premium). */
  readonly cacheWrite: number;
  /** USD per 1M tokens written to a 1-hour cache (Anthropic 2× input). */
  readonly cacheWrite1h: number;
  /** Where the cache prices come from, and the date they were read. */
  readonly cacheSource: string;
  readonly cacheDate: string;
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

/**
 * Cost in USD of one call: uncached input, cached input read, and output tokens; `cacheWrite`
 * tokens written to the 5-minute cache and `cacheWrite1h` to the 1-hour cache are priced as writes
 * (they are not in `uncachedInput`).
 */
export function callCost(
  model: ModelInfo,
  uncachedInput: number,
  cachedInput: number,
  output: number,
  cacheWrite = 0,
  cacheWrite1h = 0,
): number {
  return (
    (uncachedInput * model.input +
      cachedInput * model.cachedInput +
      cacheWrite * model.cacheWrite +
      cacheWrite1h * model.cacheWrite1h +
      output * model.output) /
    1_000_000
  );
}

/** A call's reported usage split the way it is billed: plain input, cache reads, 5-minute and 1-hour writes, output. */
export interface BilledSplit {
  readonly uncached: number;
  readonly cacheRead: number;
  readonly cacheWrite5m: number;
  readonly cacheWrite1h: number;
  readonly output: number;
}

/**
 * The reported usage as billed. Anthropic's `input` excludes reads and writes; the OpenAI
 * convention's `input` includes them (a proxy such as LiteLLM in front of Anthropic reports
 * writes inside its prompt tokens). Writes the log does not attribute to the 1-hour cache are
 * 5-minute writes, the API's default lifetime.
 */
export function billedSplit(u: ReportedUsage): BilledSplit {
  const write1h = Math.min(u.cacheWrite, u.cacheWrite1h ?? 0);
  const uncached = u.convention === 'anthropic' ? u.input : Math.max(0, u.input - u.cacheRead - u.cacheWrite);
  return { uncached, cacheRead: u.cacheRead, cacheWrite5m: u.cacheWrite - write1h, cacheWrite1h: write1h, output: u.output };
}

/** Cost in USD of one call's reported usage (the source's own cost when it logged one). */
export function usageCost(model: ModelInfo, u: ReportedUsage): number {
  if (u.costUsd !== undefined) return u.costUsd;
  const b = billedSplit(u);
  return callCost(model, b.uncached, b.cacheRead, b.output, b.cacheWrite5m, b.cacheWrite1h);
}
