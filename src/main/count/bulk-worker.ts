/**
 * A bulk counting task (tinypool, src/main/worker-pool.ts): counts a batch of texts exactly through
 * THE exact path (guarded.ts: gpt-tokenizer behind the long-run guard). Each encoding is loaded on
 * its first task (its rank table takes a while to parse), not at start.
 */
import { workerData } from 'node:worker_threads';
import { countGuarded, type GuardedEncoding } from './guarded';
import { lowerThisThreadPriority } from './priority';
import { traceHeap } from '../trace';

// Background counting (the host's exact counts) yields the CPU to the host's main thread. Tinypool
// hands its workers [its own data, the pool's workerData].
if ((workerData as unknown[] | undefined)?.[1] === 'background') lowerThisThreadPriority();
traceHeap('bulk count thread');

export interface BulkTask {
  readonly encoding: GuardedEncoding;
  readonly texts: readonly string[];
}

export default function count(task: BulkTask): Promise<Uint32Array> {
  return countGuarded(task.texts, task.encoding);
}
