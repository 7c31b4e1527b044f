/**
 * A tuner worker: holds one session (from workerData) and replays it under each setting of the
 * slices it is sent, answering with each setting's outcome. Counts are made at most once per
 * (tokenizer, media tokens, schema scale) — only a sweep of those keys needs more than the one set
 * the worker was given. Summaries are the extractive summarizer's (cached for the worker's life):
 * a sweep never sends a transcript to a remote endpoint, however the policy is configured.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { resolveConfig, type ReplayConfig } from '../../core/config';
import { replay } from '../../core/replay/index';
import { countWith, type SessionCounts } from '../../core/tokens/index';
import { outcomeOf, type TuneOutcome } from '../../core/tune/index';
import { countsKey, type TuneReply, type TuneRequest, type TuneWorkerData } from './protocol';

const data = workerData as TuneWorkerData;
const session = data.session;
const pinned = new Set(data.pins);
const counts = new Map<string, SessionCounts>(data.counts ? [[data.counts.key, data.counts.counts]] : []);

function countsFor(config: ReplayConfig): SessionCounts {
  const { key, tokenizer, mediaTokens } = countsKey(session, config);
  let c = counts.get(key);
  if (!c) counts.set(key, (c = countWith(session, tokenizer, { mediaTokens, schemaScale: config.schemaScale })));
  return c;
}

async function one(index: number, overrides: TuneRequest['settings'][number]): Promise<TuneOutcome> {
  try {
    const config = resolveConfig(data.policyConfig, overrides, data.env);
    // A remote summarizer is not asked during a sweep (see above): the replay falls back to extractive.
    const r = await replay(session, { ...config, summarizer: config.summarizer === 'none' ? 'none' : 'extractive' }, { counts: countsFor(config), needles: data.needles, pinned });
    return outcomeOf(index, r);
  } catch (e) {
    return { index, cost: 0, billedInputTokens: 0, lostFacts: 0, lostNeedles: 0, forcedFinals: 0, aborts: 0, compressions: 0, peak: 0, error: e instanceof Error ? e.message : String(e) };
  }
}

parentPort?.on('message', (job: TuneRequest) => {
  void (async () => {
    const outcomes: TuneOutcome[] = [];
    for (let i = 0; i < job.settings.length; i++) outcomes.push(await one(job.first + i, job.settings[i]!));
    parentPort?.postMessage({ id: job.id, outcomes } satisfies TuneReply);
  })();
});
