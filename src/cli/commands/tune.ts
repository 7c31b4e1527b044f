/**
 * `ctxscope tune FILE --policy P --sweep key=from:to:step [--sweep …]`: replays the transcript
 * under every setting of the grid (the product of the sweeps) on worker threads, prints the
 * frontier of billed cost against lost references and forced finals / aborts, and proposes the
 * cheapest setting that loses no referenced fact and no needle and never forces a final turn or
 * aborts — or says that none does and names the best near-miss. `--fail-if-none` exits 4 then.
 */
import type { Command } from 'commander';
import { ConfigError, parseSetOverride } from '../../core/config';
import { SweepError, type TunePoint, type TuneResult } from '../../core/tune/index';
import { runTune, TuneCancelled } from '../../main/tune/run';
import { CliError, EXIT } from '../errors';
import { checkNeedles, loadFile, pickSession } from '../load';
import { table } from '../table';
import { policyFrom } from './replay';

interface TuneCliOptions {
  policy: string;
  sweep?: string[];
  set?: string[];
  session?: string;
  needle?: string[];
  pin?: string[];
  format?: string;
  threads?: string;
  json?: boolean;
  failIfNone?: boolean;
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

function overridesOf(sets: readonly string[]): Record<string, string | number | boolean> {
  const out: Record<string, string | number | boolean> = {};
  try {
    for (const s of sets) {
      const [k, v] = parseSetOverride(s);
      out[k] = Array.isArray(v) ? v.join(',') : v;
    }
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
  return out;
}

const settingText = (p: TunePoint): string =>
  Object.entries(p.settings)
    .map(([k, v]) => `${k}=${String(v)}`)
    .join(' ');

function printResult(r: TuneResult): void {
  const rows = r.frontier.map((i) => {
    const p = r.points[i]!;
    return [
      settingText(p),
      `$${p.cost.toFixed(4)}`,
      int(p.billedInputTokens),
      p.lostFacts,
      p.lostNeedles,
      p.forcedFinals,
      p.aborts,
      p.compressions,
      i === r.proposal ? 'proposed' : i === r.nearMiss ? 'near-miss' : '',
    ];
  });
  process.stdout.write(
    `frontier (${r.frontier.length} of ${r.points.length} settings; cost ${r.costBasis === 'usd' ? 'in USD' : 'as billed input tokens: the model has no prices'}):\n`,
  );
  process.stdout.write(
    table(['setting', 'cost', 'billed input', 'lost facts', 'lost needles', 'finals', 'aborts', 'compressions', ''], rows),
  );
  const failed = r.points.filter((p) => p.error);
  if (failed.length > 0)
    process.stdout.write(`${failed.length} setting(s) failed to replay, e.g. ${settingText(failed[0]!)}: ${failed[0]!.error}\n`);
  process.stdout.write(`\n${r.verdict}\n`);
  const pick = r.proposal ?? r.nearMiss;
  if (pick !== null)
    process.stdout.write(
      `${r.proposal !== null ? 'proposed' : 'near-miss'}: ${Object.entries(r.points[pick]!.settings)
        .map(([k, v]) => `--set ${k}=${String(v)}`)
        .join(' ')}\n`,
    );
  process.stdout.write(
    `${r.points.length} settings × ${int(r.calls)} calls in ${(r.elapsedMs / 1000).toFixed(2)} s on ${r.threads} thread(s)\n`,
  );
}

export function registerTune(program: Command): void {
  program
    .command('tune')
    .description('sweep settings of a policy on a transcript and propose the cheapest that loses nothing')
    .argument('<file>', 'transcript file')
    .requiredOption('--policy <id|file.json>', 'policy whose settings are swept')
    .option(
      '--sweep <key=from:to:step>',
      'a setting to sweep: key=from:to:step, or key=a,b,c (repeatable; the grid is their product, at most 10,000)',
      collect,
    )
    .option('--set <key=value>', 'override a config key for every setting (repeatable)', collect)
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--needle <text>', 'a string or /regex/ that must stay in the window (repeatable)', collect)
    .option('--pin <message>', 'keep a message in the window: its id or 0-based index (repeatable)', collect)
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--fail-if-none', 'exit 4 when no setting qualifies')
    .option('--json', 'print the sweep as JSON')
    .action(async (file: string, opts: TuneCliOptions) => {
      if (!opts.sweep || opts.sweep.length === 0)
        throw new CliError('--sweep: give at least one sweep, e.g. --sweep trigger=0.5:0.9:0.05', EXIT.usage);
      const threads = opts.threads === undefined ? undefined : Number(opts.threads);
      if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1 && threads <= 64))
        throw new CliError(`--threads: expected a whole number 1-64, got "${opts.threads}"`, EXIT.usage);
      const policy = policyFrom(opts.policy);
      const baseOverrides = overridesOf(opts.set ?? []);
      checkNeedles(opts.needle ?? []);
      const outcome = await loadFile(file, opts.format);
      const session = pickSession(outcome.sessions, opts.session, file);
      const pins = (opts.pin ?? []).map((p) => {
        if (!/^\d+$/.test(p)) return p;
        const m = session.messages[Number(p)];
        if (!m) throw new CliError(`--pin: message index ${p} is past the session's ${session.messages.length} messages`, EXIT.usage);
        return m.id;
      });
      // Ctrl-C ends the workers at once instead of finishing the grid.
      const abort = new AbortController();
      const onSigint = (): void => abort.abort('interrupted');
      process.once('SIGINT', onSigint);
      let result: TuneResult;
      try {
        result = await runTune({
          session,
          policy,
          sweeps: opts.sweep,
          baseOverrides,
          needles: opts.needle ?? [],
          pins,
          signal: abort.signal,
          ...(threads ? { threads } : {}),
        });
      } catch (e) {
        if (e instanceof SweepError) throw new CliError(e.message, EXIT.usage);
        if (e instanceof TuneCancelled) throw new CliError(`tune: ${e.message}`, EXIT.other);
        throw e;
      } finally {
        process.off('SIGINT', onSigint);
      }
      if (opts.json) process.stdout.write(JSON.stringify(result) + '\n');
      else printResult(result);
      if (opts.failIfNone && result.proposal === null) throw new CliError(`assertion failed: ${result.verdict}`, EXIT.assertion);
    });
}
