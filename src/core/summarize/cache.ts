/**
 * Every summary is cached by the hash of (input, prompt, model): a replay that folds the same
 * messages again — another threshold, the same session reopened — never asks twice. The store
 * behind it is pluggable (a Map here, SQLite in the host).
 */
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { Message } from '../model';
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

const utf8 = new TextEncoder();

/** Each message's digest, once per message object: a key then costs a digest per folded message, not its text. */
const messageDigests = new WeakMap<Message, Uint8Array>();
function messageDigest(m: Message): Uint8Array {
  let d = messageDigests.get(m);
  if (!d) {
    d = sha256(utf8.encode(formatMessages([m], null)));
    messageDigests.set(m, d);
  }
  return d;
}

/** Digests of recent previous summaries: a replay hands each summary back as the next one's input. */
const textDigests = new Map<string, Uint8Array>();
const TEXT_DIGESTS_KEPT = 4_096;
function textDigest(text: string): Uint8Array {
  let d = textDigests.get(text);
  if (!d) {
    d = sha256(utf8.encode(text));
    if (textDigests.size >= TEXT_DIGESTS_KEPT) textDigests.clear();
    textDigests.set(text, d);
  }
  return d;
}

/**
 * The cache key: summarizer, model, prompt, target, the previous summary and each folded message,
 * each of the last two by its digest. Work per key is a digest per folded message (computed once
 * per message) plus one for a summary not seen before — never the folded text again.
 */
export function summaryKey(s: Summarizer, req: SummaryRequest): string {
  const h = sha256.create();
  h.update(utf8.encode(`${s.id}\u0000${s.model}\u0000${s.prompt}\u0000${req.targetTokens}\u0000`));
  h.update(req.previousSummary === null ? new Uint8Array([0]) : new Uint8Array([1, ...textDigest(req.previousSummary)]));
  for (const m of req.messages) h.update(messageDigest(m));
  return bytesToHex(h.digest());
}

export function cached(s: Summarizer, store: SummaryStore): Summarizer {
  // A local summarizer recomputes faster than its key is hashed (types.ts, `local`).
  if (s.local) return s;
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
