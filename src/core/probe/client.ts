/**
 * The probe's HTTP client, on the summarizer's (../summarize/remote.ts postJson): an
 * OpenAI-compatible chat-completions server or Anthropic's Messages API, with its timeouts,
 * retries with backoff on network errors, 429 (honouring Retry-After) and 5xx, and redirects
 * never followed. A malformed answer (not JSON, no choice, no content) is retried the same way;
 * what still fails ends as an error of that one replicate, never a hang. The key is the host's
 * (bound to this endpoint, src/main/secrets.ts); core reads no key itself.
 */
import { postJson, summarizerUrlProblem, SummarizerError, type RemoteOptions } from '../summarize/remote';
import type { ProbeApi } from './types';

export interface ProbeReply {
  readonly text: string;
  readonly tool?: { readonly name: string; readonly args: string };
  readonly inputTokens?: number;
  readonly outputTokens?: number;
}

export interface ProbeClientOptions {
  readonly api: ProbeApi;
  readonly endpoint: string;
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  readonly retries?: number;
  readonly backoffMs?: number;
  readonly fetch?: typeof fetch;
}

export type ProbeClient = (body: Record<string, unknown>, signal?: AbortSignal) => Promise<ProbeReply>;

class Malformed extends Error {}

function parseOpenAI(json: unknown): ProbeReply {
  const j = json as {
    choices?: { message?: { content?: unknown; tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[] } }[];
    usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
  };
  const msg = j?.choices?.[0]?.message;
  if (!msg || typeof msg !== 'object') throw new Malformed('no choices[0].message');
  const call = msg.tool_calls?.[0]?.function;
  const usage = {
    ...(typeof j.usage?.prompt_tokens === 'number' ? { inputTokens: j.usage.prompt_tokens } : {}),
    ...(typeof j.usage?.completion_tokens === 'number' ? { outputTokens: j.usage.completion_tokens } : {}),
  };
  if (call && typeof call.name === 'string') {
    const args = typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {});
    return { text: typeof msg.content === 'string' ? msg.content : '', tool: { name: call.name, args }, ...usage };
  }
  if (typeof msg.content !== 'string') throw new Malformed('no choices[0].message.content and no tool call');
  return { text: msg.content, ...usage };
}

function parseAnthropic(json: unknown): ProbeReply {
  const j = json as {
    content?: { type?: unknown; text?: unknown; name?: unknown; input?: unknown }[];
    usage?: { input_tokens?: unknown; output_tokens?: unknown };
  };
  if (!Array.isArray(j?.content)) throw new Malformed('no content[]');
  const usage = {
    ...(typeof j.usage?.input_tokens === 'number' ? { inputTokens: j.usage.input_tokens } : {}),
    ...(typeof j.usage?.output_tokens === 'number' ? { outputTokens: j.usage.output_tokens } : {}),
  };
  const text = j.content
    .filter((b) => b.type === 'text' && typeof b.text === 'string')
    .map((b) => b.text as string)
    .join('\n');
  const use = j.content.find((b) => b.type === 'tool_use' && typeof b.name === 'string');
  if (use) return { text, tool: { name: use.name as string, args: JSON.stringify(use.input ?? {}) }, ...usage };
  if (!j.content.some((b) => b.type === 'text')) throw new Malformed('no text or tool_use block in content[]');
  return { text, ...usage };
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function probeClient(o: ProbeClientOptions): ProbeClient {
  const problem = summarizerUrlProblem(o.endpoint);
  if (problem) throw new SummarizerError(problem.replace(/^summarizerUrl/, 'endpoint'));
  const base = o.endpoint.replace(/\/+$/, '');
  const url = o.api === 'openai' ? `${base}/chat/completions` : `${base}/v1/messages`;
  const headers: Record<string, string> =
    o.api === 'openai'
      ? o.apiKey
        ? { authorization: `Bearer ${o.apiKey}` }
        : {}
      : { 'anthropic-version': '2023-06-01', ...(o.apiKey ? { 'x-api-key': o.apiKey } : {}) };
  const remote: RemoteOptions = {
    baseUrl: base,
    model: '',
    timeoutMs: o.timeoutMs ?? 60_000,
    retries: o.retries ?? 2,
    backoffMs: o.backoffMs ?? 500,
    ...(o.fetch ? { fetch: o.fetch } : {}),
  };
  const attempts = (o.retries ?? 2) + 1;
  return async (body, signal) => {
    let last = '';
    for (let attempt = 0; attempt < attempts; attempt++) {
      if (attempt > 0) await sleep((o.backoffMs ?? 500) * 2 ** (attempt - 1));
      let json: unknown;
      try {
        // Network errors, timeouts, 429 and 5xx are retried inside postJson.
        json = await postJson(url, body, headers, remote, signal);
      } catch (e) {
        const message = e instanceof Error ? e.message : String(e);
        // Only an answer that is not JSON is retried here; postJson already retried the rest.
        if (!/invalid JSON/.test(message) || signal?.aborted) throw new Error(message.replace('the summarizer', 'the endpoint'));
        last = `the endpoint at ${url} answered with invalid JSON`;
        continue;
      }
      try {
        return o.api === 'openai' ? parseOpenAI(json) : parseAnthropic(json);
      } catch (e) {
        if (!(e instanceof Malformed)) throw e;
        last = `malformed answer from ${url}: ${e.message}`;
      }
    }
    throw new Error(`${last} (after ${attempts} attempts)`);
  };
}
