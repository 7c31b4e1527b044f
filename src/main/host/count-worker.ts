/**
 * Worker thread that counts a stored session exactly under one tokenizer and stores the counts,
 * so the host's event loop never tokenises: the UI shows the import's chars/4 estimates at once
 * and swaps in exact counts when this worker is done.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { countWith, mediaTokensFor } from '../../core/tokens/index';
import { openStore } from '../store/index';

interface CountRequest {
  readonly dbPath: string;
  readonly nativeBinding?: string;
  readonly sessionId: string;
  readonly tokenizer: string;
}

function run(r: CountRequest): { ok: true } | { ok: false; error: string } {
  const store = openStore(r.dbPath, r.nativeBinding ? { nativeBinding: r.nativeBinding } : {});
  try {
    const session = store.loadSession(r.sessionId);
    if (!session) return { ok: false, error: `no session ${r.sessionId}` };
    store.saveCounts(r.sessionId, countWith(session, r.tokenizer, { mediaTokens: mediaTokensFor(session.provider) }));
    return { ok: true };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  } finally {
    store.close();
  }
}

if (parentPort) parentPort.postMessage(run(workerData as CountRequest));
