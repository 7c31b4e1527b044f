/**
 * A fleet worker: hashes one transcript, parses it once, replays each of its sessions (and their
 * subagents) under every policy, and answers with all the rows as one batch — step columns as
 * typed arrays moved to the main thread, not copied.
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import Tinypool, { kTransferable, kValue, type Transferable } from 'tinypool';
import { importSource } from '../../core/import/index';
import type { FormatId, Session } from '../../core/model';
import { replay, type ReplayOptions } from '../../core/replay/index';
import {
  compressionRows,
  errorRow,
  replayRow,
  sessionFacts,
  StepColumnsBuilder,
  type CompressionRow,
  type FileMeta,
  type SessionRow,
} from '../../core/fleet/rows';
import { SharedCounts } from '../../core/fleet/counts';
import { fileSource } from '../io/file-source';
import { collectGarbage } from '../store/collect-garbage';
import { summarizerFor } from '../summarizer';
import type { FleetJob, FleetPolicyJob, FleetReply } from './protocol';

async function fileHash(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path, { highWaterMark: 1 << 20 })) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** Every session of the file with the session that spawned it (subagents replay in windows of their own). */
function* withParents(sessions: readonly Session[], parent: Session | null = null): Generator<[Session, Session | null]> {
  for (const s of sessions) {
    yield [s, parent];
    yield* withParents(s.subagents, s);
  }
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * A policy's replay options, made per transcript: a summarizer caches the summaries it wrote, and
 * one kept across thousands of transcripts would hold all of them (memory growing with the fleet).
 */
async function optionsFor(p: FleetPolicyJob, needles: readonly string[]): Promise<ReplayOptions> {
  const summarizer = await summarizerFor(p.config);
  return { ...(summarizer ? { summarizer } : {}), needles: [...needles] };
}

async function handle(job: FleetJob): Promise<FleetReply> {
  const bytes = statSync(job.file).size;
  const hash = await fileHash(job.file);
  if (job.done && job.done.hash !== hash) return { file: job.file, hash, changed: true, batch: null, errors: 0, bytes };
  const policies = job.policies.filter((p) => !job.done?.policies.includes(p.id));
  if (policies.length === 0) return { file: job.file, hash, changed: false, batch: null, errors: 0, bytes };
  const meta: FileMeta = { sourcePath: job.file, fileHash: hash };
  const sessions: SessionRow[] = [];
  const compressions: CompressionRow[] = [];
  const steps = new StepColumnsBuilder();
  let errors = 0;
  let parsed: readonly Session[];
  try {
    const outcome = await importSource(fileSource(job.file), { ...(job.format ? { format: job.format as FormatId } : {}), keepRaw: false });
    parsed = outcome.sessions;
    if (parsed.length === 0) throw new Error(`${job.file}: no sessions found`);
  } catch (e) {
    for (const p of policies) sessions.push(errorRow(sessions.length, p.id, meta, p.settingsHash, message(e)));
    return {
      file: job.file,
      hash,
      changed: false,
      batch: { sessions, steps: steps.finish(), compressions },
      errors: policies.length,
      bytes,
    };
  }
  const options = await Promise.all(policies.map((p) => optionsFor(p, job.needles)));
  for (const [session, parent] of withParents(parsed)) {
    const facts = sessionFacts(session, parent);
    // Counted once per tokenizer, not once per policy: counting is most of a replay's time.
    const counts = new SharedCounts(session);
    for (const [i, p] of policies.entries()) {
      const key = sessions.length;
      try {
        const r = await replay(session, p.config, { ...options[i]!, counts: counts.for(p.config) });
        sessions.push(replayRow(key, p.id, meta, p.settingsHash, facts, r));
        steps.add(key, r, session.messages);
        for (const c of compressionRows(key, r)) compressions.push(c);
      } catch (e) {
        errors++;
        sessions.push(errorRow(key, p.id, meta, p.settingsHash, message(e), facts));
      }
    }
  }
  return { file: job.file, hash, changed: false, batch: { sessions, steps: steps.finish(), compressions }, errors, bytes };
}

/**
 * A full collection once the heap holds this much (live and dead). Nothing outlives a transcript
 * here (a forced collection after each one leaves ~40 MB, however many came before), but V8 lets
 * the old space grow with what was allocated so far: without this a worker's heap and the run's
 * RSS grew with the number of transcripts (docs/fleet.md §Speed and memory). A collection costs
 * tens of milliseconds; at this threshold (about three times what stays live) it runs once every
 * ~90 MB allocated.
 */
export const HEAP_COLLECT_BYTES = 128 * 1024 * 1024;

function collectIfGrown(): void {
  if (getHeapStatistics().used_heap_size > HEAP_COLLECT_BYTES) collectGarbage();
}

/**
 * The pool's task (src/main/worker-pool.ts): one transcript in, its rows out. The step columns'
 * buffers are moved to the main thread, not copied (tinypool's transfer list, as Tinypool.move).
 */
export default async function fleetTask(job: FleetJob): Promise<FleetReply> {
  const reply = await handle(job).catch((e: unknown): FleetReply => ({
    file: job.file,
    hash: '',
    changed: false,
    errors: job.policies.length,
    bytes: 0,
    batch: {
      sessions: job.policies.map((p, i) => errorRow(i, p.id, { sourcePath: job.file, fileHash: '' }, p.settingsHash, message(e))),
      steps: new StepColumnsBuilder().finish(),
      compressions: [],
    },
  }));
  collectIfGrown();
  const transfer = reply.batch ? Object.values(reply.batch.steps.columns).map((a) => a.buffer as ArrayBuffer) : [];
  const moved: Transferable = { [kTransferable]: transfer, [kValue]: reply };
  return Tinypool.move(moved) as unknown as FleetReply;
}
