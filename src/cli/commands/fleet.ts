/**
 * `ctxscope fleet run|report|query` (docs/fleet.md): many transcripts replayed under several
 * policies into one hive-partitioned Parquet dataset, the report a team lead asks for, and
 * read-only SQL over it — all computed by the embedded DuckDB.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { partitionValue, settingsHash } from '../../core/fleet/manifest';
import { parseShard, type Shard } from '../../core/fleet/shard';
import { withDataset, FleetDataError, type QueryResult, type FleetReport } from '../../main/fleet/dataset';
import { FleetRefusal, runFleet, type FleetProgress } from '../../main/fleet/run';
import { defaultDbPath } from '../../main/paths';
import { packageVersion } from '../../main/resources';
import { openStore } from '../../main/store/index';
import { CliError, EXIT } from '../errors';
import { expandInputs } from '../inputs';
import { checkFormat, checkNeedles } from '../load';
import { table } from '../table';
import { writeRaw } from '../terminal';
import { cliConfig, policyFrom, type ReplayCliOptions } from './replay';

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

interface FleetRunCli extends ReplayCliOptions {
  policy: string[];
  out: string;
  threads?: string;
  shard?: string;
  db?: string | boolean;
  overwrite?: boolean;
  failOnError?: boolean;
}

/** The library's sessions (`--db`): the source files they were imported from, where still on disk. */
function libraryFiles(db: string): string[] {
  if (!existsSync(db)) throw new CliError(`--db ${db}: no session database there`, EXIT.usage);
  const store = openStore(db, { check: true });
  try {
    return [...new Set(store.listSessions().map((s) => s.sourcePath))].filter((p) => existsSync(p)).sort();
  } finally {
    store.close();
  }
}

const fmtCell = (v: unknown): string | number =>
  v === null || v === undefined ? '-' : typeof v === 'number' ? (Number.isInteger(v) ? v : Math.round(v * 10000) / 10000) : String(v);

function printResult(r: QueryResult): void {
  process.stdout.write(
    table(
      r.columns,
      r.rows.map((row) => r.columns.map((c) => fmtCell(row[c]))),
    ),
  );
}

function printReport(r: FleetReport): void {
  process.stdout.write(`baseline: ${r.baseline ?? `each session's agent's own policy where run, else ${r.policies[0]}`}\n\n`);
  printResult(r.perPolicy);
  process.stdout.write(`\nsessions that forced a final turn, aborted or overflowed the window (${r.stopped.rows.length}):\n`);
  if (r.stopped.rows.length) printResult(r.stopped);
  process.stdout.write(`\nthe sessions where the policies differ most:\n`);
  printResult(r.differ);
  if (r.errors.rows.length) {
    process.stdout.write(`\nerrors:\n`);
    printResult(r.errors);
  }
  process.stdout.write(`\n(replays take the agent's own outputs as unchanged by a different context)\n`);
}

function progressLine(p: FleetProgress): void {
  if (!process.stderr.isTTY) return;
  const eta = p.etaMs === null ? '?' : `${Math.round(p.etaMs / 1000)}s`;
  writeRaw(
    process.stderr,
    `\r\x1b[Kfleet ${p.done}/${p.total} transcripts · ${p.rate === null ? '-' : p.rate.toFixed(1)}/s · ${eta} left · ${p.errors} errors`,
  );
}

async function withData<T>(dir: string, fn: Parameters<typeof withDataset<T>>[1]): Promise<T> {
  try {
    return await withDataset(dir, fn);
  } catch (e) {
    if (e instanceof FleetDataError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
}

export function registerFleet(program: Command): void {
  const fleet = program
    .command('fleet')
    .description('replay many transcripts under several policies into Parquet, then report and query it');

  fleet
    .command('run')
    .description('replay transcripts under each --policy into a hive-partitioned Parquet dataset in --out')
    .argument('[inputs...]', 'transcript files, folders (recursive) or globs')
    .requiredOption('--policy <id|file.json>', 'a policy (repeatable)', collect)
    .requiredOption('--out <dir>', 'the dataset folder')
    .option('--set <key=value>', 'override a config key for every policy (repeatable)', collect)
    .option('--config <file.json>', 'config file (JSON object of config keys) under every policy')
    .option('--needle <text>', 'a string or /regex/ to track in the window (repeatable)', collect)
    .option('--db [path]', "add the library's sessions (their source files); default the app's database")
    .option('--format <id>', 'skip detection and read every file as this format')
    .option('--threads <n>', 'worker threads (default: one per core)')
    .option('--shard <I/N>', 'only the I-th of N shares of the inputs (a stable hash of the path)')
    .option('--overwrite', 'replace a dataset written with other settings')
    .option('--fail-on-error', 'exit 3 when a transcript failed to parse or replay')
    .option('--json', 'print the run summary as JSON')
    .action(async (inputs: string[], opts: FleetRunCli) => {
      let shard: Shard | undefined;
      if (opts.shard !== undefined) {
        try {
          shard = parseShard(opts.shard);
        } catch (e) {
          throw new CliError((e as Error).message, EXIT.usage);
        }
      }
      const threads = opts.threads === undefined ? undefined : Number(opts.threads);
      if (threads !== undefined && !(Number.isInteger(threads) && threads >= 1 && threads <= 256))
        throw new CliError(`--threads: expected a whole number 1-256, got "${opts.threads}"`, EXIT.usage);
      checkFormat(opts.format);
      checkNeedles(opts.needle ?? []);
      const policies = opts.policy.map((id) => {
        const config = cliConfig(id, opts);
        const partition = partitionValue(policyFrom(id).id);
        return { id: partition, config, settings: config as unknown as Record<string, unknown>, settingsHash: settingsHash(config) };
      });
      const dup = policies.find((p, i) => policies.findIndex((q) => q.id === p.id) !== i);
      if (dup) throw new CliError(`--policy: ${dup.id} is named twice (each policy is one partition)`, EXIT.usage);
      const files = inputs.length > 0 ? await expandInputs(inputs) : [];
      if (opts.db !== undefined) files.push(...libraryFiles(typeof opts.db === 'string' ? opts.db : defaultDbPath()));
      const unique = [...new Set(files.map((f) => resolve(f)))].sort();
      if (unique.length === 0) throw new CliError('fleet run: no transcripts (give files, folders, globs or --db)', EXIT.usage);
      const out = resolve(opts.out);
      // Session rows per part-file write; a knob for tests and very small machines (docs/fleet.md §Memory).
      const flushSessions = Number(process.env['CTXSCOPE_FLEET_FLUSH_SESSIONS'] ?? '') || undefined;
      // SIGINT (Ctrl-C) or SIGTERM (a batch system's stop) ends the run cleanly: no new transcript
      // starts, the ones in flight finish, what was replayed is written as whole part files and the
      // folder is left as a rerun resumes it. A second signal exits at once (part files are renamed
      // only when complete, so even that leaves no partial file).
      const abort = new AbortController();
      let stoppedBy: NodeJS.Signals | null = null;
      const onSignal = (signal: NodeJS.Signals): void => {
        if (stoppedBy) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
        stoppedBy = signal;
        if (process.stderr.isTTY) writeRaw(process.stderr, '\r\x1b[K');
        process.stderr.write(`ctxscope: ${signal}: finishing the transcripts in flight and writing what is done (again to stop at once)\n`);
        abort.abort(signal);
      };
      process.on('SIGINT', onSignal);
      process.on('SIGTERM', onSignal);
      let result;
      try {
        result = await runFleet({
          files: unique,
          inputs: [...inputs, ...(opts.db !== undefined ? [`--db ${opts.db === true ? defaultDbPath() : String(opts.db)}`] : [])],
          policies,
          needles: opts.needle ?? [],
          out,
          version: packageVersion(),
          ...(opts.format ? { format: opts.format } : {}),
          ...(threads ? { threads } : {}),
          ...(shard ? { shard } : {}),
          overwrite: opts.overwrite ?? false,
          ...(flushSessions ? { flushSessions } : {}),
          onProgress: progressLine,
          signal: abort.signal,
        });
      } catch (e) {
        if (e instanceof FleetRefusal) throw new CliError(e.message, EXIT.usage);
        throw e;
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
      if (process.stderr.isTTY) writeRaw(process.stderr, '\r\x1b[K');
      const { manifest: _manifest, ...summary } = result;
      if (opts.json) process.stdout.write(JSON.stringify(summary) + '\n');
      else
        process.stdout.write(
          `fleet: ${result.total} transcript(s)${result.shard.count > 1 ? ` in shard ${result.shard.index}/${result.shard.count} (of ${unique.length})` : ''} under ${policies.map((p) => p.id).join(', ')}: ` +
            `${result.done - result.skipped - result.changed.length} replayed, ${result.skipped} already written, ${result.errors} failed\n` +
            `rows written: sessions ${result.rows.sessions}, steps ${result.rows.steps}, compressions ${result.rows.compressions} → ${out} (${(result.elapsedMs / 1000).toFixed(1)} s)\n`,
        );
      if (result.cancelled)
        throw new CliError(
          `fleet run: stopped by ${stoppedBy ?? 'a signal'} after ${result.done} of ${result.total} transcript(s); what was replayed is written — run the same command again to finish`,
          EXIT.other,
        );
      if (result.changed.length > 0)
        throw new CliError(
          `${result.changed.length} file(s) changed since ${out} was written (e.g. ${result.changed[0]}); rerun with --overwrite to replay everything again`,
          EXIT.badInput,
        );
      if (result.errors > 0) {
        process.stderr.write(
          `ctxscope: ${result.errors} session row(s) failed (status = error); see: ctxscope fleet query ${out} "SELECT source_path, policy, error FROM sessions WHERE status = 'error'"\n`,
        );
        if (opts.failOnError) throw new CliError(`--fail-on-error: ${result.errors} session row(s) failed`, EXIT.badInput);
      }
    });

  fleet
    .command('report')
    .description('per policy: total and median cost, savings against a baseline, stops, lost facts; where policies differ most')
    .argument('<dir>', 'the --out folder of fleet run')
    .option('--baseline <policy>', "the policy to save against (default: each session's agent's own policy where run, else the first)")
    .option('--json', 'print JSON')
    .action(async (dir: string, opts: { baseline?: string; json?: boolean }) => {
      const report = await withData(dir, (d) => d.report(opts.baseline));
      if (opts.json) process.stdout.write(JSON.stringify(report) + '\n');
      else printReport(report);
    });

  fleet
    .command('query')
    .description('run one read-only SELECT over the views sessions, steps and compressions')
    .argument('<dir>', 'the --out folder of fleet run')
    .argument('<sql>', 'a single SELECT statement')
    .option('--json', 'print JSON (an array of row objects)')
    .action(async (dir: string, sql: string, opts: { json?: boolean }) => {
      const r = await withData(dir, (d) => d.query(sql));
      if (opts.json) process.stdout.write(JSON.stringify(r.rows) + '\n');
      else printResult(r);
    });
}
