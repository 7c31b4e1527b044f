/** A batch task (tinypool, src/main/worker-pool.ts): imports and replays one transcript, answers with its summary row. */
import { importSource } from '../core/import/index';
import type { FormatId } from '../core/model';
import { replay } from '../core/replay/index';
import { STEP_STATUSES } from '../core/replay/types';
import { fileSource } from '../main/io/file-source';
import type { BatchJob, BatchRow } from './batch';
import { replayOptions } from './commands/replay';
import { loadStrategyModules } from './strategy-module';

export default async function handle(job: BatchJob): Promise<BatchRow> {
  try {
    const outcome = await importSource(fileSource(job.file), job.format ? { format: job.format as FormatId } : {});
    let steps = 0,
      compressions = 0,
      peak = 0,
      billed = 0,
      cost = 0,
      finals = 0,
      aborts = 0,
      lost = 0;
    const statuses: Record<string, number> = {};
    const options = await replayOptions(job.config, await loadStrategyModules(job.strategyModules));
    for (const s of outcome.sessions) {
      const r = await replay(s, job.config, options);
      steps += r.steps.count;
      compressions += r.totals.compressions;
      peak = Math.max(peak, r.totals.peak);
      billed += r.totals.billedInputTokens;
      cost += r.totals.cost;
      finals += r.totals.forcedFinals;
      aborts += r.totals.aborts;
      lost += r.retention.lost.length;
      for (const c of r.steps.status) statuses[STEP_STATUSES[c]!] = (statuses[STEP_STATUSES[c]!] ?? 0) + 1;
    }
    return {
      file: job.file,
      format: outcome.format,
      sessions: outcome.sessions.length,
      steps,
      compressions,
      peak,
      billedInputTokens: billed,
      cost,
      forcedFinals: finals,
      aborts,
      lost,
      statuses,
    };
  } catch (e) {
    return { file: job.file, error: e instanceof Error ? e.message : String(e) };
  }
}
