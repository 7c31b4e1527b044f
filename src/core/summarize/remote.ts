/**
 * Summarizers behind an HTTP endpoint: any OpenAI-compatible chat-completions server (OpenAI,
 * Ollama, llama.cpp server, vLLM) and Anthropic's Messages API. Both send the prompt of docs/policies.md §S3, time out,
 * and retry with exponential backoff on network errors, 429 and 5xx. The key is handed in by the
 * host (environment or OS keychain); core never reads either.
 *
 * Endpoints: only http(s), never a link-local host (169.254.0.0/16, fe80::/10: where cloud
 * metadata services answer) — a policy file is shared data and must not point the summarizer at
 * the machine's own credentials. Which key may go to which endpoint is the host's rule
 * (src/main/summarizer.ts), on the normalised form `endpointKey` gives. A URL carrying
 * credentials (`http://user:pw@host/`) is refused, and every message shows a URL with its
 * userinfo masked (`shownUrl`), so a password never reaches an event, a log or an error.
 *
 * A redirect (3xx) is a failure, never followed and never retried: the key and the transcript are
 * bound to this endpoint. The summarizer remembers it and fails every later request of the same
 * summarizer at once, without sending anything (docs/limits.md, "Bounds").
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

/** The hosts of cloud metadata services that are names, not link-local addresses. */
const METADATA_HOSTS = new Set(['metadata.google.internal', 'metadata', 'metadata.azure.internal', 'instance-data']);

interface ParsedUrl {
  readonly username: string;
  readonly password: string;
  readonly protocol: string;
  readonly hostname: string;
  readonly port: string;
  readonly pathname: string;
}

// `URL` exists in every runtime core runs in; platform.d.ts does not declare it, so it is reached
// through globalThis with the few fields used here.
const URLClass = (globalThis as unknown as { URL: new (u: string) => ParsedUrl }).URL;

function parseUrl(url: string): ParsedUrl | undefined {
  try {
    return new URLClass(url);
  } catch {
    return undefined;
  }
}

/** IPv4 dotted quad to its four numbers (the URL parser has already normalised 0x/decimal forms). */
const ipv4 = (host: string): number[] | undefined => {
  const m = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  return m ? m.slice(1).map(Number) : undefined;
};

/** An IPv6 host (brackets stripped) as eight 16-bit groups; IPv4-mapped tails are folded in. */
function ipv6(host: string): number[] | undefined {
  if (!host.startsWith('[') || !host.endsWith(']')) return undefined;
  let h = host.slice(1, -1).toLowerCase();
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(h);
  if (v4) {
    const q = ipv4(v4[1]!)!;
    h = h.slice(0, -v4[1]!.length) + `${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const [head, tail] = h.split('::') as [string, string | undefined];
  const a = head ? head.split(':') : [];
  const b = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const groups = tail === undefined ? a : [...a, ...Array<string>(8 - a.length - b.length).fill('0'), ...b];
  return groups.length === 8 ? groups.map((g) => parseInt(g, 16)) : undefined;
}

/** The IPv4 address an IPv6 one maps (::ffff:a.b.c.d), if it does. */
function mappedV4(g: number[]): number[] | undefined {
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return [g[6]! >> 8, g[6]! & 255, g[7]! >> 8, g[7]! & 255];
  return undefined;
}

/**
 * True for 127.0.0.0/8, ::1 and `localhost`. Not `*.localhost`: not every resolver keeps those on
 * this machine, and a name that reaches DNS could point anywhere.
 */
export function isLoopbackUrl(url: string): boolean {
  const u = parseUrl(url);
  if (!u) return false;
  const host = u.hostname.toLowerCase();
  if (host === 'localhost') return true;
  const v6 = ipv6(host);
  const v4 = ipv4(host) ?? (v6 ? mappedV4(v6) : undefined);
  if (v4) return v4[0] === 127;
  return v6 !== undefined && v6.slice(0, 7).every((x) => x === 0) && v6[7] === 1;
}

/**
 * The URL as messages may show it: any userinfo (`user:password@`) replaced by `***@`, found by
 * hand so that even a URL the parser refuses never shows what sits before its host's `@`.
 */
export function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)@/i, '$1***@');
}

/** Why a summarizer endpoint is refused, or undefined when it may be used. */
export function summarizerUrlProblem(raw: string): string | undefined {
  const u = parseUrl(raw);
  const url = shownUrl(raw);
  if (!u) return `summarizerUrl "${url}" is not a valid URL`;
  if (u.username !== '' || u.password !== '')
    return `summarizerUrl "${url}": credentials in the URL (user:password@) are not allowed, they would be sent and shown with it; store a key for the endpoint instead (\`ctxscope key set\`)`;
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    return `summarizerUrl "${url}": only http and https endpoints are allowed, not ${u.protocol}`;
  const host = u.hostname.toLowerCase();
  const v6 = ipv6(host);
  const v4 = ipv4(host) ?? (v6 ? mappedV4(v6) : undefined);
  const linkLocal = (v4 !== undefined && v4[0] === 169 && v4[1] === 254) || (v6 !== undefined && !v4 && (v6[0]! & 0xffc0) === 0xfe80);
  if (linkLocal || METADATA_HOSTS.has(host))
    return `summarizerUrl "${url}": ${host} is a link-local or cloud-metadata host, never a summarizer`;
  if (host === '' || (v4 !== undefined && v4.every((x) => x === 0)) || (v6 !== undefined && v6.every((x) => x === 0)))
    return `summarizerUrl "${url}": ${host || 'an empty host'} is not a host to send to`;
  return undefined;
}

/**
 * The normalised endpoint a key is bound to: scheme, host, port (default ports dropped) and path
 * without trailing slashes, e.g. `https://api.openai.com/v1`. Undefined for an invalid URL.
 */
export function endpointKey(url: string): string | undefined {
  const u = parseUrl(url);
  if (!u) return undefined;
  const port =
    u.port && !((u.protocol === 'http:' && u.port === '80') || (u.protocol === 'https:' && u.port === '443')) ? `:${u.port}` : '';
  return `${u.protocol}//${u.hostname.toLowerCase()}${port}${u.pathname.replace(/\/+$/, '')}`;
}

/** The host (and port) of an endpoint, for messages. */
export const endpointHost = (url: string): string => {
  const u = parseUrl(url);
  return u ? `${u.hostname}${u.port ? `:${u.port}` : ''}` : url;
};

function checkedBaseUrl(o: RemoteOptions): void {
  const problem = summarizerUrlProblem(o.baseUrl);
  if (problem) throw new SummarizerError(problem);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A summarizer that answered with a redirect: nothing more is sent to it (see the header). */
export class SummarizerRedirectError extends SummarizerError {
  constructor(message: string) {
    super(message);
    this.name = 'SummarizerRedirectError';
  }
}

export async function postJson(
  rawUrl: string,
  body: unknown,
  headers: Record<string, string>,
  o: RemoteOptions,
  signal?: AbortSignal,
): Promise<unknown> {
  const url = shownUrl(rawUrl);
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
      // Never follow a redirect: the key and the transcript are bound to this endpoint, and a
      // redirect would hand both to whatever host it names. 'manual' hands the 3xx back as an
      // answer ('error' made it a network error, which was retried).
      const res = await (o.fetch ?? fetch)(rawUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: controller.signal,
        redirect: 'manual',
      });
      // An opaque redirect (a browser's fetch) has status 0.
      if (res.status === 0 || (res.status >= 300 && res.status < 400)) {
        // Read and dropped, so the connection is free again.
        void res.text().catch(() => '');
        throw new SummarizerRedirectError(
          `the summarizer at ${url} answered HTTP ${res.status || '3xx'} (a redirect): redirects are never followed nor retried, the key and the transcript go only to the configured endpoint; set summarizerUrl to the endpoint itself`,
        );
      }
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
      lastError =
        controller.signal.aborted && !signal?.aborted
          ? `timed out after ${o.timeoutMs ?? 60_000} ms (${url})`
          : `${e instanceof Error ? e.message : String(e)} (${url})`;
      if (signal?.aborted) break;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
  throw new SummarizerError(lastError);
}

const trimSlash = (u: string): string => u.replace(/\/+$/, '');

/**
 * `post` for one summarizer: after a redirect every later call fails at once with the same error,
 * so a replay with many compressions sends one request, not one per compression.
 */
function poster(): typeof postJson {
  let redirected: SummarizerRedirectError | undefined;
  return async (...args) => {
    if (redirected) throw redirected;
    try {
      return await postJson(...args);
    } catch (e) {
      if (e instanceof SummarizerRedirectError) redirected = e;
      throw e;
    }
  };
}

export function openaiCompatibleSummarizer(o: RemoteOptions): Summarizer {
  checkedBaseUrl(o);
  const post = poster();
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
      const json = (await post(
        `${trimSlash(o.baseUrl)}/chat/completions`,
        body,
        o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {},
        o,
        signal,
      )) as {
        choices?: { message?: { content?: unknown } }[];
      };
      const text = json.choices?.[0]?.message?.content;
      if (typeof text !== 'string' || text.trim() === '')
        throw new SummarizerError('the summarizer answered without text (choices[0].message.content)');
      return text.trim();
    },
  };
}

export function anthropicSummarizer(o: RemoteOptions): Summarizer {
  checkedBaseUrl(o);
  const post = poster();
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
      const json = (await post(`${trimSlash(o.baseUrl)}/v1/messages`, body, headers, o, signal)) as {
        content?: { type?: string; text?: unknown }[];
      };
      const text = (json.content ?? [])
        .filter((b) => b.type === 'text' && typeof b.text === 'string')
        .map((b) => b.text as string)
        .join('\n');
      if (text.trim() === '') throw new SummarizerError('the summarizer answered without text (content[].text)');
      return text.trim();
    },
  };
}
