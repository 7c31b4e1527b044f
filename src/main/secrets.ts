/**
 * API keys for remote summarizers. Core never reads the environment or the keychain: the host
 * (app, `serve`, CLI, batch workers) looks the key up here and hands it to `createSummarizer`.
 * Order: `CTXSCOPE_SUMMARIZER_KEY`, then the provider's usual variable (`OPENAI_API_KEY`,
 * `ANTHROPIC_API_KEY`), then the OS keychain (service "context-scope", account = provider).
 * A missing keychain (a headless Linux without a secret service) is not an error: no key.
 * A local OpenAI-compatible server (Ollama, llama.cpp, vLLM) needs no key at all.
 */
export type KeyProvider = 'openai' | 'anthropic';
export const KEYCHAIN_SERVICE = 'context-scope';

const ENV_NAMES: Record<KeyProvider, string> = { openai: 'OPENAI_API_KEY', anthropic: 'ANTHROPIC_API_KEY' };

export interface FoundKey {
  readonly key: string;
  /** Where it came from, for messages (never the key itself). */
  readonly from: string;
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

export async function findApiKey(provider: KeyProvider, env: Readonly<Record<string, string | undefined>> = process.env): Promise<FoundKey | undefined> {
  const own = env['CTXSCOPE_SUMMARIZER_KEY'];
  if (own) return { key: own, from: 'CTXSCOPE_SUMMARIZER_KEY' };
  const usual = env[ENV_NAMES[provider]];
  if (usual) return { key: usual, from: ENV_NAMES[provider] };
  try {
    const key = (await keychainEntry(provider)).getPassword();
    if (key) return { key, from: `the OS keychain (${KEYCHAIN_SERVICE}/${provider})` };
  } catch {
    // No keychain here (or it refused): fall through to "no key".
  }
  return undefined;
}

/** Stores a key in the OS keychain; throws a readable error when there is no keychain. */
export async function storeApiKey(provider: KeyProvider, key: string): Promise<void> {
  try {
    (await keychainEntry(provider)).setPassword(key);
  } catch (e) {
    throw new Error(`could not store the key in the OS keychain (${e instanceof Error ? e.message : String(e)}); set ${ENV_NAMES[provider]} instead`);
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
