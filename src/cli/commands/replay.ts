/**
 * `ctxscope replay FILE --policy P`: re-runs the transcript's context management under a policy
 * and prints each LLM call's regions, status and reason, the events, totals and retention.
 * `--fail-on compress|final|abort` exits 4 when the replay reaches that status (a CI budget check).
 * `ctxscope compare FILE --policy A --policy B`: two policies side by side.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, envOverrides, parseSetOverride, resolveConfig, type ReplayConfig } from '../../core/config';
import { getPolicy, POLICIES } from '../../core/policies/index';
import { replay } from '../../core/replay/index';
import { toCliJSON, toView } from '../../core/replay/serialize';
import type { ReplayResult } from '../../core/replay/types';
import { STEP_STATUSES } from '../../core/replay/types';
import { compareViews } from '../../main/host/replays';
import { CliError, EXIT } from '../errors';
import { runBatch, type BatchRow } from '../batch';
import { expandInputs, isBatch } from '../inputs';
import { loadFile, pickSession } from '../load';
import { table } from '../table';

export interface ReplayCliOptions {
  policy?: string[] | string;
  config?: string;
  set?: string[];
  session?: string;
  needle?: string[];
  json?: boolean;
  format?: string;
  failOn?: string;
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

/** Builds the config: the policy preset, a config file's defaults, the environment, `--set`. */
export function cliConfig(policyId: string, opts: ReplayCliOptions): ReplayConfig {
  const policy = getPolicy(policyId);
  if (!policy) throw new CliError(`--policy: expected one of ${POLICIES.map((p) => p.id).join(', ')}, got "${policyId}"`, EXIT.usage);
  let file: Record<string, unknown> = {};
  if (opts.config) {
    let text: string;
    try {
      text = readFileSync(opts.config, 'utf8');
    } catch {
      throw new CliError(`--config ${opts.config}: no such file`, EXIT.usage);
    }
    try {
      const parsed = JSON.parse(text) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('expected a JSON object');
      file = parsed as Record<string, unknown>;
    } catch (e) {
      throw new CliError(`${opts.config}: expected a JSON object of config keys (${e instanceof Error ? e.message : String(e)})`, EXIT.badInput);
    }
  }
  try {
    const overrides: Record<string, string | number | boolean> = {};
    for (const s of opts.set ?? []) {
      const [k, v] = parseSetOverride(s);
      overrides[k] = Array.isArray(v) ? v.join(',') : v;
    }
    return resolveConfig(policy.config, overrides, envOverrides(process.env), file);
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
}

function checkFailOn(failOn: string | undefined): void {
  if (failOn !== undefined && !['compress', 'final', 'abort', 'warn', 'skip'].includes(failOn)) {
    throw new CliError(`--fail-on: expected compress, final or abort, got "${failOn}"`, EXIT.usage);
  }
}

function reached(r: ReplayResult, status: string): number {
  const code = STEP_STATUSES.indexOf(status as (typeof STEP_STATUSES)[number]);
  return r.steps.status.indexOf(code);
}

function printSummary(r: ReplayResult): void {
  const s = r.steps;
  const rows = [];
  for (let i = 0; i < s.count; i++) {
    rows.push([i, s.messageIndex[i]!, s.turn[i]! + 1, Math.round(s.regions.summary[i]!), Math.round(s.regions.history[i]!), Math.round(s.total[i]!), Math.round(s.limit[i]!), Number.isNaN(s.reported[i]!) ? '-' : Math.round(s.reported[i]!).toLocaleString('en-US'), STEP_STATUSES[s.status[i]!]!, (s.reasons[s.reasonIndex[i]!] ?? '').slice(0, 70)]);
  }
  process.stdout.write(table(['step', 'msg', 'turn', 'summary', 'history', 'total', 'limit', 'reported', 'status', 'reason'], rows));
  const t = r.totals;
  const cfg = r.config as { resolved?: { tokenizer?: string; window?: number } };
  process.stdout.write(
    `\npolicy ${r.policy} · tokenizer ${cfg.resolved?.tokenizer} · window ${cfg.resolved?.window?.toLocaleString('en-US')}\n` +
      `billed input ${Math.round(t.billedInputTokens).toLocaleString('en-US')} (cached ${Math.round(t.cachedInputTokens).toLocaleString('en-US')}) · output ${Math.round(t.outputTokens).toLocaleString('en-US')} · cost $${t.cost.toFixed(4)}\n` +
      `compressions ${t.compressions} · tokens removed ${Math.round(t.tokensRemoved).toLocaleString('en-US')} · peak ${Math.round(t.peak).toLocaleString('en-US')} · forced finals ${t.forcedFinals} · aborts ${t.aborts}\n` +
      `no longer remembered: ${r.retention.lost.length}${r.retention.lost.length ? ' — ' + r.retention.lost.slice(0, 8).map((l) => `${l.key} (lost @${l.lostAt}, needed @${l.neededAt})`).join(', ') : ''}\n` +
      `(replays take the agent's own outputs as unchanged by a different context)\n`,
  );
}

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('replay a transcript under a context-management policy')
    .argument('<file>', 'transcript file, or a directory / glob for batch mode')
    .requiredOption('--policy <id>', `policy: ${POLICIES.map((p) => p.id).join(', ')}`)
    .option('--config <file.json>', 'config file (JSON object of config keys) under the policy')
    .option('--set <key=value>', 'override a config key (repeatable)', collect)
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--needle <text>', 'a string or /regex/ to track in the window (repeatable)', collect)
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--fail-on <status>', 'exit 4 when a step reaches compress, final or abort')
    .option('--json', 'print the replay as JSON')
    .action(async (file: string, opts: ReplayCliOptions & { policy: string }) => {
      checkFailOn(opts.failOn);
      const config = cliConfig(opts.policy, opts);
      if (isBatch([file])) return batch(file, config, opts);
      const outcome = await loadFile(file, opts.format);
      const session = pickSession(outcome.sessions, opts.session, file);
      let result: ReplayResult;
      try {
        result = await replay(session, config, { needles: opts.needle ?? [] });
      } catch (e) {
        if (e instanceof Error && /^needle /.test(e.message)) throw new CliError(e.message, EXIT.usage);
        throw e;
      }
      if (opts.json) process.stdout.write(JSON.stringify(toCliJSON(result)) + '\n');
      else printSummary(result);
      if (opts.failOn) {
        const at = reached(result, opts.failOn);
        if (at >= 0) throw new CliError(`assertion failed: step ${at} reached status "${opts.failOn}" (${result.steps.reasons[result.steps.reasonIndex[at]!] ?? ''})`, EXIT.assertion);
      }
    });

  program
    .command('compare')
    .description('replay a transcript under two policies and compare them')
    .argument('<file>', 'transcript file')
    .requiredOption('--policy <id>', 'policy (give it twice: A and B)', collect)
    .option('--set <key=value>', 'override a config key for both (repeatable)', collect)
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: ReplayCliOptions & { policy: string[] }) => {
      if (opts.policy.length !== 2) throw new CliError(`--policy: expected exactly two policies, got ${opts.policy.length}`, EXIT.usage);
      const [a, b] = opts.policy as [string, string];
      const ca = cliConfig(a, opts);
      const cb = cliConfig(b, opts);
      const outcome = await loadFile(file, opts.format);
      const session = pickSession(outcome.sessions, opts.session, file);
      const ra = await replay(session, ca);
      const rb = await replay(session, cb);
      const view = compareViews(toView(ra), toView(rb));
      if (opts.json) {
        process.stdout.write(JSON.stringify({ a: { policy: a, totals: ra.totals }, b: { policy: b, totals: rb.totals }, totalDelta: view.totalDelta, statusDiffs: view.statusDiffs }) + '\n');
        return;
      }
      const keys = ['billedInputTokens', 'cachedInputTokens', 'outputTokens', 'cost', 'compressions', 'tokensRemoved', 'peak', 'forcedFinals', 'aborts'] as const;
      process.stdout.write(table(['total', a, b, 'b - a'], keys.map((k) => [k, round(ra.totals[k]), round(rb.totals[k]), round(rb.totals[k] - ra.totals[k])])));
      process.stdout.write(`retention losses: ${ra.retention.lost.length} vs ${rb.retention.lost.length}\n`);
      process.stdout.write(`steps with different status: ${view.statusDiffs.length}${view.statusDiffs.length ? ' — ' + view.statusDiffs.slice(0, 10).map((d) => `#${d.step} ${d.a}→${d.b}`).join(', ') : ''}\n`);
    });

  program
    .command('policies')
    .description('list the policies and their settings')
    .option('--json', 'print JSON')
    .action((opts: { json?: boolean }) => {
      if (opts.json) {
        process.stdout.write(JSON.stringify(POLICIES, null, 2) + '\n');
        return;
      }
      for (const p of POLICIES) process.stdout.write(`${p.id.padEnd(20)} ${p.label} (${p.source})\n${' '.repeat(21)}${p.description}\n${' '.repeat(21)}${JSON.stringify(p.config)}\n`);
    });
}

async function batch(input: string, config: ReplayConfig, opts: ReplayCliOptions): Promise<void> {
  const files = await expandInputs([input]);
  if (files.length === 0) throw new CliError(`${input}: no transcripts found`, EXIT.usage);
  const rows = await runBatch(
    files.map((file) => ({ file, config, ...(opts.format ? { format: opts.format } : {}) })),
    (row) => {
      if (!opts.json) process.stderr.write(`${row.error ? '✗' : '✓'} ${row.file}\n`);
    },
  );
  if (opts.json) process.stdout.write(JSON.stringify(rows) + '\n');
  else
    process.stdout.write(
      table(
        ['file', 'format', 'calls', 'compressions', 'peak', 'cost', 'finals', 'aborts', 'lost', 'error'],
        rows.map((r: BatchRow) => [r.file, r.format ?? '-', r.steps ?? 0, r.compressions ?? 0, Math.round(r.peak ?? 0), `$${(r.cost ?? 0).toFixed(4)}`, r.forcedFinals ?? 0, r.aborts ?? 0, r.lost ?? 0, (r.error ?? '').slice(0, 60)]),
      ),
    );
  if (opts.failOn) {
    const hit = rows.find((r) => (r.statuses?.[opts.failOn!] ?? 0) > 0);
    if (hit) throw new CliError(`assertion failed: ${hit.file} reached status "${opts.failOn}"`, EXIT.assertion);
  }
  if (rows.some((r) => r.error)) throw new CliError(`${rows.filter((r) => r.error).length} of ${rows.length} transcript(s) failed`, EXIT.badInput);
}

const round = (n: number): number => (Math.abs(n) < 10 ? Math.round(n * 10000) / 10000 : Math.round(n));
