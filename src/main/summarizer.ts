/**
 * The summarizer a config names, built where the key may be read (host, CLI, batch worker).
 *
 * The endpoint rules (a policy is shared data: it may name a URL, never where a key goes):
 * - the URL must be http(s) and not link-local (src/core/summarize/remote.ts);
 * - a key is sent only to the endpoint it is bound to (src/main/secrets.ts): env keys to the
 *   provider's official endpoint (or CTXSCOPE_SUMMARIZER_URL), keychain keys to the URL they
 *   were stored for. Any other URL gets no key at all;
 * - a URL that is not loopback, not the official endpoint, not CTXSCOPE_SUMMARIZER_URL and not a
 *   key's own endpoint would receive the transcript: it needs an explicit opt-in
 *   (`--allow-summarizer-url URL` in the CLI, `allowSummarizerUrl` in the app's host), else the
 *   replay is refused with a message naming the host.
 * A remote summarizer at its vendor's URL without a key is refused up front with a sentence
 * saying where a key goes; one at a local server (Ollama, llama.cpp, vLLM) runs without a key.
 * Summaries persist through `store` when one is given (SQLite).
 */
import type { ReplayConfig } from '../core/config';
import { createSummarizer, DEFAULT_BASE_URLS, type Summarizer, type SummaryStore } from '../core/summarize/index';
import { endpointHost, endpointKey, isLoopbackUrl, summarizerUrlProblem } from '../core/summarize/remote';
import { listApiKeys, type KeychainReader } from './secrets';

export class SummarizerSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SummarizerSetupError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

/** The environment variable through which the CLI hands its allow-list to batch worker threads. */
export const ALLOW_ENV = 'CTXSCOPE_ALLOW_SUMMARIZER_URL';

/** Endpoints this process was told to allow (CLI flag, the app's confirmation), normalised. */
const allowed = new Set<string>();

/** Allows a summarizer endpoint for this process (the user confirmed it); invalid URLs are refused. */
export function allowSummarizerUrl(url: string): void {
  const problem = summarizerUrlProblem(url);
  if (problem) throw new SummarizerSetupError(problem);
  allowed.add(endpointKey(url)!);
}

function isAllowed(endpoint: string, env: Env): boolean {
  if (allowed.has(endpoint)) return true;
  return (env[ALLOW_ENV] ?? '').split(/\s+/).some((u) => u !== '' && endpointKey(u) === endpoint);
}

export interface SummarizerOptions {
  readonly env?: Env;
  /** The keychain lookup (tests hand in their own). */
  readonly keychain?: KeychainReader;
  readonly fetch?: typeof fetch;
}

export async function summarizerFor(
  config: ReplayConfig,
  store?: SummaryStore,
  env: Env = process.env,
  options: SummarizerOptions = {},
): Promise<Summarizer | undefined> {
  const kind = config.summarizer;
  if (kind !== 'openai' && kind !== 'anthropic') return createSummarizer(config, store ? { store } : {});
  const official = DEFAULT_BASE_URLS[kind];
  const url = config.summarizerUrl ?? official;
  const problem = summarizerUrlProblem(url);
  if (problem) throw new SummarizerSetupError(problem);
  const endpoint = endpointKey(url)!;
  const keys = await listApiKeys(kind, env, ...(options.keychain ? [options.keychain] : []));
  const found = keys.find((k) => k.endpoint === endpoint);
  const trusted =
    isLoopbackUrl(url) ||
    endpoint === endpointKey(official) ||
    (!!env['CTXSCOPE_SUMMARIZER_URL'] && endpoint === endpointKey(env['CTXSCOPE_SUMMARIZER_URL'])) ||
    found !== undefined ||
    isAllowed(endpoint, env);
  if (!trusted) {
    throw new SummarizerSetupError(
      `summarizerUrl ${url} would send the transcript to ${endpointHost(url)}, which is not loopback, not ${kind}'s own endpoint and not one a key is stored for; ` +
        `if you trust it, allow it: \`--allow-summarizer-url ${url}\` (CLI), confirm it in the app, or bind a key to it with \`ctxscope key set ${kind} --url ${url}\``,
    );
  }
  if (!found && endpoint === endpointKey(official)) {
    const variable = kind === 'openai' ? 'OPENAI_API_KEY' : 'ANTHROPIC_API_KEY';
    const elsewhere = keys.length > 0 ? ` (the ${kind} key from ${keys[0]!.from} is bound to ${keys[0]!.endpoint}, not here)` : '';
    throw new SummarizerSetupError(
      `summarizer "${kind}" needs an API key for ${url}${elsewhere}: set ${variable} (or CTXSCOPE_SUMMARIZER_KEY), store one with \`ctxscope key set ${kind}\`, or point summarizerUrl at a local server`,
    );
  }
  try {
    return createSummarizer(config, {
      ...(found ? { apiKey: found.key } : {}),
      ...(store ? { store } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  } catch (e) {
    throw new SummarizerSetupError(e instanceof Error ? e.message : String(e));
  }
}

/**
 * A line on the endpoint a policy config names, for `policies --check`: loopback, the provider's
 * own, or a remote host that needs `--allow-summarizer-url`. A URL never allowed (not http(s),
 * link-local) throws SummarizerSetupError.
 */
export function describeSummarizerUrl(config: { readonly summarizer?: unknown; readonly summarizerUrl?: unknown }): string {
  const url = config.summarizerUrl;
  if (typeof url !== 'string') return '';
  const problem = summarizerUrlProblem(url);
  if (problem) throw new SummarizerSetupError(problem);
  const kind = config.summarizer === 'anthropic' ? 'anthropic' : 'openai';
  if (isLoopbackUrl(url)) return `summarizerUrl ${url}: loopback (this machine)\n`;
  if (endpointKey(url) === endpointKey(DEFAULT_BASE_URLS[kind])) return `summarizerUrl ${url}: ${kind}'s own endpoint\n`;
  return `summarizerUrl ${url}: REMOTE host ${endpointHost(url)} — replays send transcripts there only with --allow-summarizer-url ${url}, and never a key not bound to it\n`;
}
