/**
 * `ctxscope replay FILE --policy P`: re-runs the transcript's context management under a policy
 * and prints each LLM call's regions, status and reason, the events, totals and retention.
 * `--fail-on compress|final|abort|overflow` exits 4 when the replay reaches that status (a CI budget check).
 * `ctxscope compare FILE --policy A --policy B`: two policies side by side.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ConfigError, envOverrides, parseSetOverride, resolveConfig, type ReplayConfig } from '../../core/config';
import { getPolicy, listedPolicies, POLICIES, SCENARIO_POLICIES, type Policy } from '../../core/policies/index';
import { parsePolicyJSON, policyToJSON } from '../../core/policies/io';
import { replay, type ReplayOptions } from '../../core/replay/index';
import type { Strategy } from '../../core/strategies/types';
import { deleteApiKey, isKeyProvider, storeApiKey } from '../../main/secrets';
import { describeSummarizerUrl, summarizerFor, SummarizerSetupError } from '../../main/summarizer';
import { loadStrategyModules } from '../strategy-module';
import { toCliJSON } from '../../core/replay/serialize';
import type { ReplayResult } from '../../core/replay/types';
import { STEP_STATUSES } from '../../core/replay/types';
import { compare, comparisonToJSON, TOTAL_KEYS } from '../../core/replay/compare';
import { CliError, EXIT } from '../errors';
import { runBatch, type BatchRow } from '../batch';
import { expandInputs, isBatch } from '../inputs';
import { checkNeedles, loadFile, pickSession, subagentLine } from '../load';
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
  strategyModule?: string[];
  /** Message ids or 0-based indices to pin (repeatable), added to the config's `pinned`. */
  pin?: string[];
}

const collect = (v: string, prev: string[] = []): string[] => [...prev, v];

const KNOWN_POLICIES = [...POLICIES, ...SCENARIO_POLICIES].map((p) => p.id).join(', ');

/** `--policy` names a built-in policy, or a policy JSON file (as `ctxscope policies --export` writes). */
export function policyFrom(idOrFile: string): Policy {
  const builtIn = getPolicy(idOrFile);
  if (builtIn) return builtIn;
  if (/\.json$/i.test(idOrFile) || existsSync(idOrFile)) {
    let text: string;
    try {
      text = readFileSync(idOrFile, 'utf8');
    } catch {
      throw new CliError(`--policy ${idOrFile}: no such file`, EXIT.usage);
    }
    try {
      return parsePolicyJSON(text, idOrFile);
    } catch (e) {
      throw new CliError(e instanceof Error ? e.message : String(e), EXIT.badInput);
    }
  }
  throw new CliError(`--policy: expected one of ${KNOWN_POLICIES} or a policy .json file, got "${idOrFile}"`, EXIT.usage);
}

/** Builds the config: the policy preset, a config file's defaults, the environment, `--set`. */
export function cliConfig(policyId: string, opts: ReplayCliOptions): ReplayConfig {
  const policy = policyFrom(policyId);
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
      throw new CliError(
        `${opts.config}: expected a JSON object of config keys (${e instanceof Error ? e.message : String(e)})`,
        EXIT.badInput,
      );
    }
  }
  try {
    const overrides: Record<string, string | number | boolean> = {};
    for (const s of opts.set ?? []) {
      const [k, v] = parseSetOverride(s);
      overrides[k] = Array.isArray(v) ? v.join(',') : v;
    }
    const config = resolveConfig(policy.config, overrides, envOverrides(process.env), file);
    // `--pin 12 --pin msg_01…`: a number is a message index, anything else a message id (docs/policies.md §Common).
    const pins = (opts.pin ?? []).map((p) => (/^\d+$/.test(p) ? Number(p) : p));
    return pins.length > 0 ? { ...config, pinned: [...config.pinned, ...pins] } : config;
  } catch (e) {
    if (e instanceof ConfigError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
}

/** What a replay needs beside the session and config: the summarizer the config names, user strategies. */
export async function replayOptions(config: ReplayConfig, strategies: Readonly<Record<string, Strategy>>): Promise<ReplayOptions> {
  const custom = config.pipeline.filter((p) => p.startsWith('custom:')).map((p) => p.slice('custom:'.length));
  const missing = custom.filter((n) => !(n in strategies));
  if (missing.length > 0) {
    const known = Object.keys(strategies);
    throw new CliError(
      `pipeline names custom:${missing[0]} but ${known.length ? `the strategy modules export only ${known.join(', ')}` : 'no --strategy-module was given'}`,
      EXIT.usage,
    );
  }
  try {
    const summarizer = await summarizerFor(config);
    return { ...(summarizer ? { summarizer } : {}), strategies };
  } catch (e) {
    if (e instanceof SummarizerSetupError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
}

async function runReplay(session: Parameters<typeof replay>[0], config: ReplayConfig, options: ReplayOptions): Promise<ReplayResult> {
  try {
    return await replay(session, config, options);
  } catch (e) {
    if (e instanceof Error && /^needle /.test(e.message)) throw new CliError(e.message, EXIT.usage);
    if (e instanceof Error && /^strategy /.test(e.message)) throw new CliError(e.message, EXIT.badInput);
    if (e instanceof Error && /^pinned: /.test(e.message))
      throw new CliError(`--pin / pinned: ${e.message.slice('pinned: '.length)}`, EXIT.usage);
    throw e;
  }
}

function checkFailOn(failOn: string | undefined): void {
  if (failOn !== undefined && !['compress', 'final', 'abort', 'warn', 'skip', 'overflow'].includes(failOn)) {
    throw new CliError(`--fail-on: expected compress, final, abort, warn, skip or overflow, got "${failOn}"`, EXIT.usage);
  }
}

function reached(r: ReplayResult, status: string): number {
  const code = STEP_STATUSES.indexOf(status as (typeof STEP_STATUSES)[number]);
  return r.steps.status.indexOf(code);
}

/** Money to a hundredth of a cent: the figures that explain a budget abort stay apart ($0.0220 of $0.02). */
const usd = (n: number): string => `$${n.toFixed(4)}`;
const int = (n: number): string => Math.round(n).toLocaleString('en-US');

function printSummary(r: ReplayResult): void {
  const s = r.steps;
  const rows = [];
  for (let i = 0; i < s.count; i++) {
    const trigger = s.trigger[i]!;
    rows.push([
      i,
      s.messageIndex[i]!,
      s.turn[i]!,
      Math.round(s.regions.summary[i]!),
      Math.round(s.regions.history[i]!),
      Math.round(s.total[i]!),
      Math.round(s.limit[i]!),
      Number.isNaN(trigger) ? '-' : int(trigger),
      Number.isNaN(s.reported[i]!) ? '-' : int(s.reported[i]!),
      STEP_STATUSES[s.status[i]!]!,
      (s.reasons[s.reasonIndex[i]!] ?? '').slice(0, 90),
    ]);
  }
  // Turns are 0-based here as in --json (docs/policies.md §Common): the column says so.
  process.stdout.write(
    table(['step', 'msg', 'turn (0-based)', 'summary', 'history', 'total', 'limit', 'trigger', 'reported', 'status', 'reason'], rows),
  );
  const t = r.totals;
  const cfg = r.config as { resolved?: { tokenizer?: string; window?: number; windowSource?: string; enforcedLimitBasis?: string } };
  const res = cfg.resolved;
  process.stdout.write(
    `\npolicy ${r.policy} · tokenizer ${res?.tokenizer} · window ${res?.window?.toLocaleString('en-US')} (${res?.windowSource}) · limit = ${res?.enforcedLimitBasis}\n` +
      `billed input ${int(t.billedInputTokens)} (cache reads ${int(t.cachedInputTokens)}, writes ${int(t.cacheWriteTokens ?? 0)}) · output ${int(t.outputTokens)} · cost ${usd(t.cost)}\n` +
      `compressions ${t.compressions} · tokens removed ${int(t.tokensRemoved)} · peak ${int(t.peak)} · forced finals ${t.forcedFinals} · aborts ${t.aborts} · overflows ${t.overflows}\n` +
      `no longer remembered: ${r.retention.lost.length}${
        r.retention.lost.length
          ? ' — ' +
            r.retention.lost
              .slice(0, 8)
              .map((l) => `${l.key} (lost @${l.lostAt}, needed @${l.neededAt})`)
              .join(', ')
          : ''
      }\n` +
      `(replays take the agent's own outputs as unchanged by a different context)\n`,
  );
}

export function registerReplay(program: Command): void {
  program
    .command('replay')
    .description('replay a transcript under a context-management policy')
    .argument('<file>', 'transcript file, or a directory / glob for batch mode')
    .requiredOption('--policy <id|file.json>', `policy: ${KNOWN_POLICIES}, or a policy JSON file`)
    .option('--config <file.json>', 'config file (JSON object of config keys) under the policy')
    .option('--set <key=value>', 'override a config key (repeatable)', collect)
    .option('--strategy-module <file.js>', 'load your own strategies (use them as custom:<name> in pipeline; repeatable)', collect)
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--needle <text>', 'a string or /regex/ to track in the window (repeatable)', collect)
    .option('--pin <message>', 'keep a message in the window: its id or 0-based index (repeatable)', collect)
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--fail-on <status>', 'exit 4 when a step reaches compress, final, abort, warn, skip or overflow (a request above the window)')
    .option('--json', 'print the replay as JSON')
    .action(async (file: string, opts: ReplayCliOptions & { policy: string }) => {
      checkFailOn(opts.failOn);
      // Modules first: a strategy they describe brings config keys and policies of its own.
      const strategies = await loadStrategyModules(opts.strategyModule ?? []);
      const config = cliConfig(opts.policy, opts);
      const options = await replayOptions(config, strategies);
      if (isBatch([file])) return batch(file, config, opts);
      const outcome = await loadFile(file, opts.format);
      const session = pickSession(outcome.sessions, opts.session, file);
      checkNeedles(opts.needle ?? []);
      const result = await runReplay(session, config, { ...options, needles: opts.needle ?? [] });
      // Subagents run in windows of their own: counted here, replayed with --session <their id>.
      if (opts.json) process.stdout.write(JSON.stringify({ ...toCliJSON(result, session), subagents: session.subagents.length }) + '\n');
      else {
        printSummary(result);
        if (session.subagents.length > 0) process.stdout.write(subagentLine(session));
      }
      if (opts.failOn) {
        const at = reached(result, opts.failOn);
        if (at >= 0)
          throw new CliError(
            `assertion failed: step ${at} reached status "${opts.failOn}" (${result.steps.reasons[result.steps.reasonIndex[at]!] ?? ''})`,
            EXIT.assertion,
          );
      }
    });

  program
    .command('compare')
    .description('replay a transcript under two policies and compare them')
    .argument('<file>', 'transcript file')
    .requiredOption('--policy <id|file.json>', 'policy (give it twice: A and B)', collect)
    .option('--set <key=value>', 'override a config key for both (repeatable)', collect)
    .option('--strategy-module <file.js>', 'load your own strategies (repeatable)', collect)
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--json', 'print JSON')
    .action(async (file: string, opts: ReplayCliOptions & { policy: string[] }) => {
      if (opts.policy.length !== 2) throw new CliError(`--policy: expected exactly two policies, got ${opts.policy.length}`, EXIT.usage);
      const [a, b] = opts.policy as [string, string];
      const strategies = await loadStrategyModules(opts.strategyModule ?? []);
      const ca = cliConfig(a, opts);
      const cb = cliConfig(b, opts);
      const outcome = await loadFile(file, opts.format);
      const session = pickSession(outcome.sessions, opts.session, file);
      const ra = await runReplay(session, ca, await replayOptions(ca, strategies));
      const rb = await runReplay(session, cb, await replayOptions(cb, strategies));
      const c = compare(ra, rb);
      if (opts.json) {
        process.stdout.write(
          JSON.stringify({ ...comparisonToJSON(c), a: { policy: a, totals: ra.totals }, b: { policy: b, totals: rb.totals } }) + '\n',
        );
        return;
      }
      process.stdout.write(
        table(
          ['total', a, b, 'b - a', 'change'],
          TOTAL_KEYS.map((k) => [
            k,
            round(c.totals[k].a),
            round(c.totals[k].b),
            round(c.totals[k].delta),
            c.totals[k].ratio === null ? '-' : `${(c.totals[k].ratio! * 100).toFixed(1)}%`,
          ]),
        ),
      );
      process.stdout.write(`compressions at steps: ${c.compressions.a.join(', ') || 'none'} vs ${c.compressions.b.join(', ') || 'none'}\n`);
      process.stdout.write(`retention losses: ${ra.retention.lost.length} vs ${rb.retention.lost.length}\n`);
      process.stdout.write(
        `steps that differ: ${c.differences.length}${
          c.differences.length
            ? ' — ' +
              c.differences
                .slice(0, 10)
                .map((d) => `#${d.step} ${d.a.status}→${d.b.status} (${round(d.b.total - d.a.total)})`)
                .join(', ')
            : ''
        }\n`,
      );
    });

  program
    .command('policies')
    .description('list the policies and their settings')
    .option('--json', 'print JSON')
    .option('--export <id>', 'print one policy as a JSON file to edit and pass back with --policy FILE.json')
    .option('--check <file.json>', 'validate a policy JSON file')
    .option('--strategy-module <file.js>', 'load strategies a module describes, with the policies they bring (repeatable)', collect)
    .action(async (opts: { json?: boolean; export?: string; check?: string; strategyModule?: string[] }) => {
      await loadStrategyModules(opts.strategyModule ?? []);
      const listed = listedPolicies();
      if (opts.export !== undefined) {
        const p = getPolicy(opts.export);
        if (!p) throw new CliError(`--export: expected one of ${KNOWN_POLICIES}, got "${opts.export}"`, EXIT.usage);
        process.stdout.write(policyToJSON(p));
        return;
      }
      if (opts.check !== undefined) {
        const p = policyFrom(opts.check);
        process.stdout.write(`${opts.check}: policy "${p.id}" is valid\n${describeSummarizerUrl(p.config)}`);
        return;
      }
      if (opts.json) {
        process.stdout.write(JSON.stringify(listed, null, 2) + '\n');
        return;
      }
      for (const p of listed)
        process.stdout.write(
          `${p.id.padEnd(20)} ${p.label} (${p.source})\n${' '.repeat(21)}${p.description}\n${' '.repeat(21)}${JSON.stringify(p.config)}\n`,
        );
      process.stdout.write(`\nscenario variants: ${SCENARIO_POLICIES.map((p) => p.id).join(', ')}\n`);
    });

  program
    .command('key')
    .description('store or delete a summarizer API key in the OS keychain (the key is read from stdin)')
    .argument('<action>', 'set or delete')
    .argument('<provider>', 'openai or anthropic')
    .option('--url <url>', "the endpoint this key is for (default: the provider's own); it is sent nowhere else")
    .action(async (action: string, provider: string, keyOpts: { url?: string }) => {
      if (!isKeyProvider(provider)) throw new CliError(`<provider>: expected openai or anthropic, got "${provider}"`, EXIT.usage);
      if (action === 'delete') {
        const gone = await deleteApiKey(provider).catch((e: unknown) => {
          throw new CliError(e instanceof Error ? e.message : String(e), EXIT.other);
        });
        process.stdout.write(gone ? `deleted the ${provider} key from the keychain\n` : `no ${provider} key in the keychain\n`);
        return;
      }
      if (action !== 'set') throw new CliError(`<action>: expected set or delete, got "${action}"`, EXIT.usage);
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(c as Buffer);
      const key = Buffer.concat(chunks).toString('utf8').trim();
      if (!key) throw new CliError('expected the key on stdin (e.g. `ctxscope key set openai < key.txt`)', EXIT.usage);
      await storeApiKey(provider, key, keyOpts.url).catch((e: unknown) => {
        throw new CliError(
          e instanceof Error ? e.message : String(e),
          /^--url/.test(String(e instanceof Error ? e.message : e)) ? EXIT.usage : EXIT.other,
        );
      });
      process.stdout.write(`stored the ${provider} key in the keychain, for ${keyOpts.url ?? 'its official endpoint'} only\n`);
    });
}

async function batch(input: string, config: ReplayConfig, opts: ReplayCliOptions): Promise<void> {
  const files = await expandInputs([input]);
  if (files.length === 0) throw new CliError(`${input}: no transcripts found`, EXIT.usage);
  const rows = await runBatch(
    files.map((file) => ({ file, config, strategyModules: opts.strategyModule ?? [], ...(opts.format ? { format: opts.format } : {}) })),
    (row) => {
      if (!opts.json) process.stderr.write(`${row.error ? '✗' : '✓'} ${row.file}\n`);
    },
  );
  if (opts.json) process.stdout.write(JSON.stringify(rows) + '\n');
  else
    process.stdout.write(
      table(
        ['file', 'format', 'calls', 'compressions', 'peak', 'cost', 'finals', 'aborts', 'lost', 'error'],
        rows.map((r: BatchRow) => [
          r.file,
          r.format ?? '-',
          r.steps ?? 0,
          r.compressions ?? 0,
          Math.round(r.peak ?? 0),
          `$${(r.cost ?? 0).toFixed(4)}`,
          r.forcedFinals ?? 0,
          r.aborts ?? 0,
          r.lost ?? 0,
          (r.error ?? '').slice(0, 60),
        ]),
      ),
    );
  if (opts.failOn) {
    const hit = rows.find((r) => (r.statuses?.[opts.failOn!] ?? 0) > 0);
    if (hit) throw new CliError(`assertion failed: ${hit.file} reached status "${opts.failOn}"`, EXIT.assertion);
  }
  if (rows.some((r) => r.error))
    throw new CliError(`${rows.filter((r) => r.error).length} of ${rows.length} transcript(s) failed`, EXIT.badInput);
}

const round = (n: number): number => (Math.abs(n) < 10 ? Math.round(n * 10000) / 10000 : Math.round(n));
