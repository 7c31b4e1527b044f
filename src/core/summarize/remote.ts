/**
 * Summarizers behind an HTTP endpoint: any OpenAI-compatible chat-completions server (OpenAI,
 * Ollama, llama.cpp server, vLLM) and Anthropic's Messages API. Both send the prompt of docs/policies.md §S3, time out,
 * and retry with exponential backoff on network errors, 429 and 5xx. The key is handed in by the
 * host (environment or OS keychain); core never reads either.
 */
import { formatMessages, s3Prompt, type Summarizer, type SummaryRequest } from './types';

export interface RemoteOptions {
  readonly baseUrl: string;
  readonly model: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  readonly retries?: number;
  /** First backoff delay; doubles per retry. */
  readonly backoffMs?: number;
  readonly fetch?: typeof fetch;
}

export class SummarizerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SummarizerError';
  }
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function postJson(url: string, body: unknown, headers: Record<string, string>, o: RemoteOptions, signal?: AbortSignal): Promise<unknown> {
  const attempts = (o.retries ?? 2) + 1;
  let lastError = '';
  // A 429/503 may say how long to wait (Retry-After, seconds); honoured up to 30 s, else exponential backoff.
  let retryAfterMs: number | undefined;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(retryAfterMs ?? (o.backoffMs ?? 500) * 2 ** (attempt - 1));
    retryAfterMs = undefined;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), o.timeoutMs ?? 60_000);
    const onAbort = (): void => controller.abort();
    signal?.addEventListener('abort', onAbort);
    try {
      const res = await (o.fetch ?? fetch)(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal: controller.signal });
      if (res.ok) {
        const text = await res.text();
        try {
          return JSON.parse(text) as unknown;
        } catch {
          throw new SummarizerError(`the summarizer at ${url} answered with invalid JSON`);
        }
      }
      lastError = `HTTP ${res.status} from ${url}`;
      if (res.status !== 429 && res.status < 500) break;
      const seconds = Number(res.headers.get('retry-after'));
      if (Number.isFinite(seconds) && seconds >= 0) retryAfterMs = Math.min(seconds * 1000, 30_000);
    } catch (e) {
      if (e instanceof SummarizerError) throw e;
      lastError = controller.signal.aborted && !signal?.aborted ? `timed out after ${o.timeoutMs ?? 60_000} ms (${url})` : `${e instanceof Error ? e.message : String(e)} (${url})`;
      if (signal?.aborted) break;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
  throw new SummarizerError(lastError);
}

const trimSlash = (u: string): string => u.replace(/\/+$/, '');

export function openaiCompatibleSummarizer(o: RemoteOptions): Summarizer {
  return {
    id: 'openai',
    model: o.model,
    prompt: s3Prompt('{conversation}', 0),
    async summarize(req: SummaryRequest, signal?: AbortSignal) {
      const body = {
        model: o.model,
        messages: [{ role: 'user', content: s3Prompt(formatMessages(req.messages, req.previousSummary), req.targetTokens) }],
        max_tokens: req.targetTokens,
        temperature: 0.2,
      };
      const json = (await postJson(`${trimSlash(o.baseUrl)}/chat/completions`, body, o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}, o, signal)) as {
        choices?: { message?: { content?: unknown } }[];
      };
      const text = json.choices?.[0]?.message?.content;
      if (typeof text !== 'string' || text.trim() === '') throw new SummarizerError('the summarizer answered without text (choices[0].message.content)');
      return text.trim();
    },
  };
}

export function anthropicSummarizer(o: RemoteOptions): Summarizer {
  return {
    id: 'anthropic',
    model: o.model,
    prompt: s3Prompt('{conversation}', 0),
    async summarize(req: SummaryRequest, signal?: AbortSignal) {
      const body = {
        model: o.model,
        max_tokens: req.targetTokens,
        temperature: 0.2,
        messages: [{ role: 'user', content: s3Prompt(formatMessages(req.messages, req.previousSummary), req.targetTokens) }],
      };
      const headers: Record<string, string> = { 'anthropic-version': '2023-06-01', ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}) };
      const json = (await postJson(`${trimSlash(o.baseUrl)}/v1/messages`, body, headers, o, signal)) as { content?: { type?: string; text?: unknown }[] };
      const text = (json.content ?? []).filter((b) => b.type === 'text' && typeof b.text === 'string').map((b) => b.text as string).join('\n');
      if (text.trim() === '') throw new SummarizerError('the summarizer answered without text (content[].text)');
      return text.trim();
    },
  };
}
