/**
 * Counts a batch of texts with gpt-tokenizer (special-token text counted as text). Each encoding
 * is loaded on its first job (its rank table takes a while to parse), not at start.
 * Counted through the long-run guard (guarded.ts): gpt-tokenizer's merge is quadratic in a
 * piece's length, core's bounded counter takes a text that may hold a long piece.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { guardedCounter, type CountTokens } from './guarded';
import { lowerThisThreadPriority } from './priority';

type Encoding = 'o200k_base' | 'cl100k_base';

// Background counting (the host's exact counts) yields the CPU to the host's main thread.
if ((workerData as { background?: boolean } | undefined)?.background) lowerThisThreadPriority();

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const loaded = new Map<Encoding, Promise<CountTokens>>();

function encoder(encoding: Encoding): Promise<CountTokens> {
  let p = loaded.get(encoding);
  if (!p) {
    p = guardedCounter(encoding);
    loaded.set(encoding, p);
  }
  return p;
}

parentPort?.on('message', (job: { id: number; encoding: Encoding; texts: string[] }) => {
  void encoder(job.encoding).then((count) => {
    const out = new Uint32Array(job.texts.length);
    for (let i = 0; i < job.texts.length; i++) out[i] = job.texts[i] ? count(job.texts[i]!, NO_SPECIAL) : 0;
    parentPort?.postMessage({ id: job.id, counts: out }, [out.buffer]);
  });
});
