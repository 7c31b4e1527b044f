/**
 * Picks the summarizer a config names. The host hands in what core must not read itself: the
 * API key (environment or OS keychain), and optionally its fetch and a persistent summary store
 * (SQLite). Every summarizer comes back wrapped in the (input, prompt, model) cache.
 */
import type { ReplayConfig } from '../config';
import { cached, memoryStore, type SummaryStore } from './cache';
import { extractiveSummarizer } from './extractive';
import { anthropicSummarizer, openaiCompatibleSummarizer } from './remote';
import type { Summarizer } from './types';

export interface SummarizerHost {
  readonly apiKey?: string;
  readonly fetch?: typeof fetch;
  readonly store?: SummaryStore;
  readonly timeoutMs?: number;
  readonly retries?: number;
  readonly backoffMs?: number;
}

export const DEFAULT_BASE_URLS = { openai: 'https://api.openai.com/v1', anthropic: 'https://api.anthropic.com' } as const;

export function createSummarizer(
  config: Pick<ReplayConfig, 'summarizer' | 'summarizerModel' | 'summarizerUrl'>,
  host: SummarizerHost = {},
): Summarizer | undefined {
  const store = host.store ?? memoryStore();
  switch (config.summarizer) {
    case 'none':
      return undefined;
    case 'extractive':
      return cached(extractiveSummarizer, store);
    case 'openai':
    case 'anthropic': {
      if (!config.summarizerModel)
        throw new Error(`summarizer "${config.summarizer}": set summarizerModel (e.g. --set summarizerModel=gpt-4o-mini)`);
      const options = {
        baseUrl: config.summarizerUrl ?? DEFAULT_BASE_URLS[config.summarizer],
        model: config.summarizerModel,
        ...(host.apiKey !== undefined ? { apiKey: host.apiKey } : {}),
        ...(host.fetch ? { fetch: host.fetch } : {}),
        ...(host.timeoutMs !== undefined ? { timeoutMs: host.timeoutMs } : {}),
        ...(host.retries !== undefined ? { retries: host.retries } : {}),
        ...(host.backoffMs !== undefined ? { backoffMs: host.backoffMs } : {}),
      };
      return cached(config.summarizer === 'openai' ? openaiCompatibleSummarizer(options) : anthropicSummarizer(options), store);
    }
  }
}

export { cached, memoryStore, summaryKey, type SummaryStore } from './cache';
export { extractiveSummarizer, extractiveSummary } from './extractive';
export { anthropicSummarizer, openaiCompatibleSummarizer, SummarizerError, type RemoteOptions } from './remote';
export { s3Prompt, type Summarizer, type SummaryRequest } from './types';
