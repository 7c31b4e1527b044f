/**
 * The summarizer a config names, built where the key may be read (host, CLI, batch worker).
 * A remote summarizer pointed at its vendor's default URL without a key is refused up front
 * with a sentence saying where a key goes; one pointed at a local server (Ollama, llama.cpp,
 * vLLM) runs without a key. Summaries persist through `store` when one is given (SQLite).
 */
import type { ReplayConfig } from '../core/config';
import { createSummarizer, DEFAULT_BASE_URLS, type Summarizer, type SummaryStore } from '../core/summarize/index';
import { findApiKey } from './secrets';

export class SummarizerSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SummarizerSetupError';
  }
}

export async function summarizerFor(config: ReplayConfig, store?: SummaryStore, env: Readonly<Record<string, string | undefined>> = process.env): Promise<Summarizer | undefined> {
  const kind = config.summarizer;
  if (kind !== 'openai' && kind !== 'anthropic') return createSummarizer(config, store ? { store } : {});
  const found = await findApiKey(kind, env);
  const url = config.summarizerUrl ?? DEFAULT_BASE_URLS[kind];
  if (!found && url === DEFAULT_BASE_URLS[kind]) {
    const variable = kind === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
    throw new SummarizerSetupError(`summarizer "${kind}" needs an API key for ${url}: set ${variable} (or CTXSCOPE_SUMMARIZER_KEY), store one with \`ctxscope key set ${kind}\`, or point summarizerUrl at a local server`);
  }
  try {
    return createSummarizer(config, { ...(found ? { apiKey: found.key } : {}), ...(store ? { store } : {}) });
  } catch (e) {
    throw new SummarizerSetupError(e instanceof Error ? e.message : String(e));
  }
}
