/**
 * A count task (tinypool, src/main/worker-pool.ts; the host's one-thread count pool): counts a
 * stored session exactly under one tokenizer and stores the counts, so the host's event loop never
 * tokenises: the UI shows the import's chars/4 estimates at once
 * and swaps in exact counts when this worker is done. BPE tokenizers count on the bulk pool
 * (gpt-tokenizer on every core, the same numbers as js-tiktoken); the rest count here.
 */
import { countWith, mediaTokensFor, type SessionCounts } from '../../core/tokens/index';
import { createBulkCounter } from '../count/bulk';
import { bpeEncodingOf, countExact } from '../count/exact';
import { lowerThisThreadPriority } from '../count/priority';
import { openStore } from '../store/index';
import { loadLazySession } from '../store/lazy-session';
import { traceHeap } from '../trace';

export interface CountRequest {
  readonly dbPath: string;
  readonly nativeBinding?: string;
  readonly sessionId: string;
  readonly tokenizer: string;
  /** Threads of the bulk pool (default: every core). */
  readonly threads?: number;
}

export type CountReply = { ok: true } | { ok: false; error: string };

traceHeap('count worker');

export default async function run(r: CountRequest): Promise<CountReply> {
  const store = openStore(r.dbPath, r.nativeBinding ? { nativeBinding: r.nativeBinding } : {});
  try {
    const encoding = bpeEncodingOf(r.tokenizer);
    // The pool's threads load their encoding while this one loads the session.
    const bulk = encoding ? createBulkCounter(r.threads, { background: true }) : undefined;
    try {
      const warm = encoding ? bulk?.warm(encoding) : undefined;
      // Held by its numbers, its text read a page at a time: countExact reads a slice of messages
      // twice (its texts gathered, then counted), and the pages hold a slice (count/exact.ts).
      const session = loadLazySession(store, r.sessionId, { maxPages: 256, maxChars: 16 * 1024 * 1024 });
      if (!session) return { ok: false, error: `no session ${r.sessionId}` };
      const options = { mediaTokens: mediaTokensFor(session.provider) };
      let counts: SessionCounts;
      if (bulk) {
        await warm;
        counts = await countExact(session, r.tokenizer, options, bulk);
      } else counts = countWith(session, r.tokenizer, options);
      store.saveCounts(r.sessionId, counts);
      return { ok: true };
    } finally {
      await bulk?.close();
    }
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    store.close();
  }
}

// Background work: the host's main thread keeps the CPU when it needs it.
lowerThisThreadPriority();
