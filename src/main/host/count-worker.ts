/**
 * A count task (tinypool, src/main/worker-pool.ts; the host's one-thread count pool): counts a
 * stored session exactly under one tokenizer and stores the counts, so the host's event loop never
 * tokenises: the UI shows the import's chars/4 estimates at once
 * and swaps in exact counts when this worker is done. BPE tokenizers count on the bulk pool
 * (gpt-tokenizer on every core, the same numbers as js-tiktoken); the rest count here.
 */
import { countWith, mediaTokensFor } from '../../core/tokens/index';
import { backgroundCountThreads, createBulkCounter } from '../count/bulk';
import { bpeEncodingOf } from '../count/exact';
import { countStoredSession } from '../count/incremental';
import { lowerThisThreadPriority } from '../count/priority';
import { openStore } from '../store/index';
import { loadLazySession } from '../store/lazy-session';
import { traceHeap } from '../trace';

export interface CountRequest {
  readonly dbPath: string;
  readonly nativeBinding?: string;
  readonly sessionId: string;
  readonly tokenizer: string;
  /** Threads of the bulk pool (default: every core, at most four: count/bulk.ts `backgroundCountThreads`). */
  readonly threads?: number;
}

export type CountReply = { ok: true } | { ok: false; error: string };

traceHeap('count worker');

export default async function run(r: CountRequest): Promise<CountReply> {
  const store = openStore(r.dbPath, r.nativeBinding ? { nativeBinding: r.nativeBinding } : {});
  try {
    const encoding = bpeEncodingOf(r.tokenizer);
    const bulk = encoding ? createBulkCounter(r.threads ?? backgroundCountThreads(), { background: true }) : undefined;
    try {
      if (bulk && encoding) {
        // The pool's threads load their encoding while this one reads the session's heads. An
        // append that lands meanwhile is not an error: the counts it extended stay, and it asks
        // for its own recount (count/incremental.ts).
        const warm = bulk.warm(encoding);
        const done = await countStoredSession(store, r.sessionId, r.tokenizer, bulk, () => warm);
        return done ? { ok: true } : { ok: false, error: `no session ${r.sessionId}` };
      }
      // Not BPE (chars/4, runes, shannon): counted in this thread, fast, from the session held by
      // its numbers, its text read a page at a time.
      const session = loadLazySession(store, r.sessionId, { maxPages: 256, maxChars: 16 * 1024 * 1024 });
      if (!session) return { ok: false, error: `no session ${r.sessionId}` };
      store.saveCounts(r.sessionId, countWith(session, r.tokenizer, { mediaTokens: mediaTokensFor(session.provider) }));
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
