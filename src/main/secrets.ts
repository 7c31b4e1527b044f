/**
 * API keys for remote summarizers, each bound to the endpoint it is for. Core never reads the
 * environment or the keychain: the host (app, `serve`, CLI, batch workers) looks the key up here
 * and hands it to `createSummarizer` — and only when the summarizer's URL is the key's endpoint
 * (src/main/summarizer.ts). A policy file names a URL; it can never name where a key goes.
 *
 * Where keys come from, and the endpoint each is bound to:
 * - `CTXSCOPE_SUMMARIZER_KEY`, then the provider's usual variable (`OPENAI_API_KEY`,
 *   `ANTHROPIC_API_KEY`): bound to the provider's official endpoint, or to
 *   `CTXSCOPE_SUMMARIZER_URL` when that is set beside them;
 * - the OS keychain (service "context-scope", account = provider): bound to the URL given to
 *   `ctxscope key set PROVIDER [--url URL]` (the official endpoint without --url). A key stored
 *   before keys carried an endpoint is bound to the official one.
 * A missing keychain (a headless Linux without a secret service) is not an error: no key.
 * A local OpenAI-compatible server (Ollama, llama.cpp, vLLM) needs no key at all.
 */
import { DEFAULT_BASE_URLS } from '../core/summarize/index';
import { endpointKey, summarizerUrlProblem } from '../core/summarize/remote';

export type KeyProvider = 'openai' | 'anthropic';
export const KEYCHAIN_SERVICE = 'context-scope';

const ENV_NAMES: Record<KeyProvider, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };
type Env = Readonly<Record<string, string | undefined>>;

export interface FoundKey {
  readonly key: string;
  /** Where it came from, for messages (never the key itself). */
  readonly from: string;
  /** The normalised endpoint (`endpointKey`) this key may be sent to, and nowhere else. */
  readonly endpoint: string;
}

interface KeychainEntry {
  getPassword(): string | null | undefined;
  setPassword(password: string): void;
  deletePassword(): boolean;
}

async function keychainEntry(provider: KeyProvider): Promise<KeychainEntry> {
  const mod = (await import('@napi-rs/keyring')) as { Entry: new (service: string, user: string) => KeychainEntry };
  return new mod.Entry(KEYCHAIN_SERVICE, provider);
}

/** What the keychain holds: `{"key":…,"url":…}`; a bare string is a key from before binding. */
export function parseStoredKey(stored: string, provider: KeyProvider): { key: string; url: string } {
  if (stored.startsWith('{')) {
    try {
      const v = JSON.parse(stored) as { key?: unknown; url?: unknown };
      if (typeof v.key === 'string' && typeof v.url === 'string') return { key: v.key, url: v.url };
    } catch {
      // Not ours: treat as a bare key.
    }
  }
  return { key: stored, url: DEFAULT_BASE_URLS[provider] };
}

/** Reads the stored value for a provider (the OS keychain; tests hand in their own). */
export type KeychainReader = (provider: KeyProvider) => Promise<string | undefined>;

const readKeychain: KeychainReader = async (provider) => (await keychainEntry(provider)).getPassword() ?? undefined;

/** Every key this host has for the provider, in priority order, each with its endpoint. */
export async function listApiKeys(
  provider: KeyProvider,
  env: Env = process.env,
  keychain: KeychainReader = readKeychain,
): Promise<FoundKey[]> {
  const out: FoundKey[] = [];
  const envEndpoint = endpointKey(env['CTXSCOPE_SUMMARIZER_URL'] || DEFAULT_BASE_URLS[provider]);
  const own = env['CTXSCOPE_SUMMARIZER_KEY'];
  if (own && envEndpoint) out.push({ key: own, from: 'CTXSCOPE_SUMMARIZER_KEY', endpoint: envEndpoint });
  const usual = env[ENV_NAMES[provider]];
  if (usual && envEndpoint) out.push({ key: usual, from: ENV_NAMES[provider], endpoint: envEndpoint });
  try {
    const stored = await keychain(provider);
    if (stored) {
      const { key, url } = parseStoredKey(stored, provider);
      const endpoint = endpointKey(url);
      if (key && endpoint) out.push({ key, from: `the OS keychain (${KEYCHAIN_SERVICE}/${provider})`, endpoint });
    }
  } catch {
    // No keychain here (or it refused): fall through to "no key".
  }
  return out;
}

/** The key bound to exactly this endpoint, if the host has one. */
export async function findApiKey(
  provider: KeyProvider,
  url: string,
  env: Env = process.env,
  keychain: KeychainReader = readKeychain,
): Promise<FoundKey | undefined> {
  const want = endpointKey(url);
  if (!want) return undefined;
  return (await listApiKeys(provider, env, keychain)).find((k) => k.endpoint === want);
}

/** Stores a key in the OS keychain, bound to `url`; throws a readable error when there is no keychain. */
export async function storeApiKey(provider: KeyProvider, key: string, url: string = DEFAULT_BASE_URLS[provider]): Promise<void> {
  const problem = summarizerUrlProblem(url);
  if (problem) throw new Error(problem.replace(/^summarizerUrl/, '--url'));
  try {
    (await keychainEntry(provider)).setPassword(JSON.stringify({ key, url: endpointKey(url) }));
  } catch (e) {
    throw new Error(
      `could not store the key in the OS keychain (${e instanceof Error ? e.message : String(e)}); set ${ENV_NAMES[provider]} instead`,
    );
  }
}

export async function deleteApiKey(provider: KeyProvider): Promise<boolean> {
  try {
    return (await keychainEntry(provider)).deletePassword();
  } catch (e) {
    throw new Error(`could not reach the OS keychain (${e instanceof Error ? e.message : String(e)})`);
  }
}

export const isKeyProvider = (v: string): v is KeyProvider => v === 'openai' || v === 'anthropic';
