/** Counts a batch of texts with gpt-tokenizer (special-token text counted as text). */
import { parentPort } from 'node:worker_threads';
import { countTokens as countO200k, setMergeCacheSize as cacheO200k } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as countCl100k, setMergeCacheSize as cacheCl100k } from 'gpt-tokenizer/encoding/cl100k_base';

// The default 100k-entry merge cache collapses throughput once full; size it for big sessions.
cacheO200k(1_000_000);
cacheCl100k(1_000_000);
const NO_SPECIAL = { disallowedSpecial: new Set<string>() };

parentPort?.on('message', (job: { id: number; encoding: 'o200k_base' | 'cl100k_base'; texts: string[] }) => {
  const count = job.encoding === 'o200k_base' ? countO200k : countCl100k;
  const out = new Uint32Array(job.texts.length);
  for (let i = 0; i < job.texts.length; i++) out[i] = job.texts[i] ? count(job.texts[i]!, NO_SPECIAL) : 0;
  parentPort?.postMessage({ id: job.id, counts: out }, [out.buffer]);
});
