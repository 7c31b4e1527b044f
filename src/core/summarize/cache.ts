/**
 * Every summary is cached by the hash of (input, prompt, model): a replay that folds the same
 * messages again — another threshold, the same session reopened — never asks twice. The store
 * behind it is pluggable (a Map here, SQLite in the host).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { formatMessages, type Summarizer, type SummaryRequest } from './types';

export interface SummaryStore {
  get(key: string): string | undefined;
  set(key: string, summary: string): void;
}

export function memoryStore(): SummaryStore & { readonly size: number } {
  const map = new Map<string, string>();
  return {
    get: (k) => map.get(k),
    set: (k, v) => void map.set(k, v),
    get size() {
      return map.size;
    },
  };
}

export function summaryKey(s: Summarizer, req: SummaryRequest): string {
  const input = `${req.targetTokens}\u0000${formatMessages(req.messages, req.previousSummary)}`;
  return bytesToHex(sha256(new TextEncoder().encode(`${s.id}\u0000${s.model}\u0000${s.prompt}\u0000${input}`)));
}

export function cached(s: Summarizer, store: SummaryStore): Summarizer {
  return {
    ...s,
    async summarize(req, signal) {
      const key = summaryKey(s, req);
      const hit = store.get(key);
      if (hit !== undefined) return hit;
      const out = await s.summarize(req, signal);
      store.set(key, out);
      return out;
    },
  };
}
