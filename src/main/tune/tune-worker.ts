/**
 * A tuner worker, kept warm by the host between sweeps (run.ts TunePool): holds one session (the last it
 * was sent, by key) and the counts it was sent for it, and replays it under each setting of the
 * slices it is asked for. The session's derived data the replay caches per message list (facts,
 * shape, the summarizer's folds) live as long as the held session, so a second sweep on the same
 * session pays none of it. A job naming another session evicts the held one. Counts are made here
 * only for a key nobody sent (a sweep of the tokenizer, media tokens or schema scale). Summaries
 * are the extractive summarizer's: a sweep never sends a transcript to a remote endpoint.
 */
import { resolveConfig, type ReplayConfig } from '../../core/config';
import type { Session } from '../../core/model';
import { replay } from '../../core/replay/index';
import { factIndex, provideFactIndex, type FactIndex } from '../../core/replay/retention';
import { countWith, type SessionCounts } from '../../core/tokens/index';
import { provideMessageList } from '../../core/summarize/extractive';
import { outcomeOf, type TuneOutcome } from '../../core/tune/index';
import { countsKey, type TunePrepareJob, type TuneReplayJob, type TuneReply, type TuneRequest } from './protocol';

interface Held {
  readonly key: string;
  readonly session: Session;
  /** Counts by countsKey; `sent` records which payload id each came from. */
  readonly counts: Map<string, SessionCounts>;
  readonly sent: Set<string>;
}
let held: Held | undefined;

function hold(key: string, session: Session | undefined, facts?: FactIndex): Held | undefined {
  if (held?.key === key) return held;
  if (!session) return undefined;
  // A new key is a new session or a new version of it: everything derived from the old goes.
  held = { key, session, counts: new Map(), sent: new Set() };
  // Facts another worker extracted for this version: the replay's retention reads them instead of extracting.
  if (facts) provideFactIndex(session.messages, facts);
  // Every setting folds runs of this one list: its items laid out once make each fold a scan of integers.
  provideMessageList(session.messages);
  return held;
}

function countsFor(h: Held, config: ReplayConfig): SessionCounts {
  const { key, tokenizer, mediaTokens } = countsKey(h.session, config);
  let c = h.counts.get(key);
  if (!c) h.counts.set(key, (c = countWith(h.session, tokenizer, { mediaTokens, schemaScale: config.schemaScale })));
  return c;
}

async function one(
  h: Held,
  job: TuneReplayJob,
  pinned: ReadonlySet<string>,
  index: number,
  overrides: TuneReplayJob['settings'][number],
): Promise<TuneOutcome> {
  try {
    const config = resolveConfig(job.policyConfig, overrides, job.env);
    // A remote summarizer is not asked during a sweep (see above): the replay falls back to extractive.
    // Lean: the outcome reads totals and retention only, so no reason text or events are built.
    const r = await replay(
      h.session,
      { ...config, summarizer: config.summarizer === 'none' ? 'none' : 'extractive' },
      { counts: countsFor(h, config), needles: job.needles, pinned, detail: 'totals' },
    );
    return outcomeOf(index, r);
  } catch (e) {
    return {
      index,
      cost: 0,
      billedInputTokens: 0,
      lostFacts: 0,
      lostNeedles: 0,
      forcedFinals: 0,
      aborts: 0,
      compressions: 0,
      peak: 0,
      error: e instanceof Error ? e.message : String(e),
    };
  }
}

async function replayJob(job: TuneReplayJob): Promise<TuneReply> {
  const h = hold(job.sessionKey, job.session, job.facts);
  if (job.counts && h) {
    h.counts.set(job.counts.key, job.counts.counts);
    h.sent.add(job.counts.id);
  }
  const lacksCounts = job.countsId !== undefined && !h?.sent.has(job.countsId);
  if (!h || lacksCounts) return { missing: { session: !h, counts: lacksCounts } };
  const pinned = new Set(job.pins);
  const outcomes: TuneOutcome[] = [];
  for (let i = 0; i < job.indices.length; i++) outcomes.push(await one(h, job, pinned, job.indices[i]!, job.settings[i]!));
  return { outcomes };
}

function prepareJob(job: TunePrepareJob): TuneReply {
  const h = hold(job.sessionKey, job.session);
  if (!h) return { missing: { session: true, counts: false } };
  // Facts extracted once here and sent on; the other workers receive them with the session.
  const fx = factIndex(h.session.messages);
  if (!job.count) return { prepared: { facts: fx } };
  const c = countWith(h.session, job.count.tokenizer, { mediaTokens: job.count.mediaTokens, schemaScale: job.count.schemaScale });
  h.counts.set(job.count.key, c);
  h.sent.add(job.count.countsId);
  return { prepared: { facts: fx, counts: c } };
}

/** A tuner task (tinypool, src/main/worker-pool.ts): replies are copied to the host, this worker keeps its own. */
export default async function tune(job: TuneRequest): Promise<TuneReply> {
  if (job.kind === 'forget') {
    held = undefined;
    return { forgotten: true };
  }
  if (job.kind === 'prepare') return prepareJob(job);
  return replayJob(job);
}
