/**
 * Counts a batch of texts with gpt-tokenizer (special-token text counted as text). Each encoding
 * is loaded on its first job (its rank table takes a while to parse), not at start.
 * gpt-tokenizer merges a piece in time quadratic in its length, so a text that may hold a long
 * piece (hasLongRun, src/core/tokens/bpe.ts) is counted by core's bounded counter instead: the
 * same exact numbers, O(n log n) on any input.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { hasLongRun } from '../../core/tokens/bpe';
import { getTokenizer } from '../../core/tokens/index';
import { lowerThisThreadPriority } from './priority';

type Encoding = 'o200k_base' | 'cl100k_base';
type CountTokens = (text: string, options: { disallowedSpecial: Set<string> }) => number;

// Background counting (the host's exact counts) yields the CPU to the host's main thread.
if ((workerData as { background?: boolean } | undefined)?.background) lowerThisThreadPriority();

const NO_SPECIAL = { disallowedSpecial: new Set<string>() };
const loaded = new Map<Encoding, Promise<CountTokens>>();

function encoder(encoding: Encoding): Promise<CountTokens> {
  let p = loaded.get(encoding);
  if (!p) {
    p = (encoding === 'o200k_base' ? import('gpt-tokenizer/encoding/o200k_base') : import('gpt-tokenizer/encoding/cl100k_base')).then((m) => {
      // The default 100k-entry merge cache collapses throughput once full; size it for big sessions.
      m.setMergeCacheSize(1_000_000);
      const fast = m.countTokens as CountTokens;
      const bounded = getTokenizer(`tiktoken:${encoding}`);
      return (text: string, options: { disallowedSpecial: Set<string> }) => (hasLongRun(text) ? bounded.countText(text) : fast(text, options));
    });
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
