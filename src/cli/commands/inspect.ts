/**
 * `ctxscope inspect FILE`: what a transcript holds — detected format, and per session the
 * messages by role, turns, LLM calls, tool calls, orphans, token counts by region, whether
 * the provider's usage is there, and the compactions the original agent did.
 *
 * `ctxscope inspect DIR|GLOB|FILE...` (folder scale): every transcript found, one row per file
 * and a total row; files that are not transcripts are skipped with a note on stderr. Counts are
 * chars/4 estimates unless `--exact`; files are read on worker threads when there is enough to
 * share (see `inspectFiles`).
 */
import { countGuarded, guardedCounter } from '../../main/count/guarded';
import { createReadStream, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command } from 'commander';
import { lookupModel, usageCost } from '../../core/catalog';
import { detectFormat, importSource, type ByteSource } from '../../core/import/index';
import type { Session } from '../../core/model';
import { stepIndices } from '../../core/model';
import { calibrationReport, type CalibrationReport } from '../../core/tokens/calibrate';
import { CALIBRATION_BASE, countWith, defaultTokenizerFor, getTokenizer, type SessionCounts } from '../../core/tokens/index';
import { pairToolCalls, turnStarts } from '../../core/turns';
import { countExact } from '../../main/count/exact';
import type { BulkCounter } from '../../main/count/bulk';
import { collectGarbage } from '../../main/store/collect-garbage';
import { startWorker } from '../../main/workers';
import { CliError, EXIT } from '../errors';
import { expandInputs, isBatch } from '../inputs';
import { checkFormat, loadFile, subagentLine } from '../load';
import { table } from '../table';

export interface InspectSession {
  id: string;
  title: string | null;
  model: string | null;
  messages: { system: number; user: number; assistant: number; tool: number };
  turns: number;
  steps: number;
  toolCalls: number;
  orphans: { calls: number; results: number };
  tokens: { tokenizer: string; approximate: boolean; system: number; tools: number; history: number; unlogged: number };
  reportedUsage: boolean;
  /** How well the calibrated tokenizer explains the reported prompts, scored in and out of sample (core/tokens/calibrate.ts), or why it fell back. */
  calibration: CalibrationReport | { fallback: string };
  sourceCompactions: number;
  subagents: number;
}

export interface InspectReport {
  file: string;
  format: string;
  sessions: InspectSession[];
  warnings: string[];
}

/**
 * `counts`: already counted (folder mode's `--exact` counts on the BPE pool); else counted here.
 * `calibrate`: score the calibrated fit (it needs the base tokenizer's exact counts, so folder
 * mode, which is about speed, leaves it to single-file inspect).
 */
export function inspectSession(s: Session, tokenizerId: string | undefined, given?: SessionCounts, calibrate = true): InspectSession {
  const roles = { system: 0, user: 0, assistant: 0, tool: 0 };
  let toolCalls = 0;
  for (const m of s.messages) {
    // Anthropic-shaped tool results arrive as user-role messages; they are tool output all the same.
    const toolOnly = m.role === 'user' && m.parts.length > 0 && m.parts.every((p) => p.kind === 'tool_result');
    roles[toolOnly ? 'tool' : m.role]++;
    for (const p of m.parts) if (p.kind === 'tool_call') toolCalls++;
  }
  const hasUsage = s.messages.some((m) => m.usage !== undefined);
  const id = tokenizerId ?? defaultTokenizerFor(s.model, hasUsage);
  try {
    getTokenizer(id);
  } catch (e) {
    throw new CliError(`--tokenizer: ${e instanceof Error ? e.message : String(e)}`, EXIT.usage);
  }
  const counts = given ?? countWith(s, id);
  // Calibration is judged against the base tokenizer's own counts, never the fitted ones.
  const calibration = calibrate
    ? calibrationReport(s, id === CALIBRATION_BASE ? counts : countWith(s, CALIBRATION_BASE))
    : { fallback: 'not scored when inspecting many files: inspect the one file for it' };
  const pairs = pairToolCalls(s.messages);
  return {
    id: s.id,
    title: s.title ?? null,
    model: s.model ?? null,
    messages: roles,
    turns: turnStarts(s.messages).length,
    steps: stepIndices(s.messages).length,
    toolCalls,
    orphans: { calls: pairs.orphanCalls.length, results: pairs.orphanResults.length },
    tokens: {
      tokenizer: counts.tokenizer,
      approximate: counts.approximate,
      system: counts.system,
      tools: counts.tools,
      history: counts.prefix[counts.prefix.length - 1] ?? 0,
      unlogged: counts.unlogged,
    },
    reportedUsage: hasUsage,
    calibration,
    sourceCompactions: s.sourceCompactions.length,
    subagents: s.subagents.length,
  };
}

const pct = (v: number): string => `${v.toFixed(1)}%`;

/** One line: the fit, its in-sample and out-of-sample median errors, or why it fell back. */
export function calibrationLine(c: InspectSession['calibration']): string {
  if ('fallback' in c) return `fallback — ${c.fallback}`;
  const out = c.outOfSampleError === null ? 'n/a (too few calls)' : pct(c.outOfSampleError);
  return `ratio ${c.ratio.toFixed(3)}, overhead ${c.overhead} tokens over ${c.calls} call(s); median error ${pct(c.inSampleError)} in sample, ${out} out of sample (fit on the first half, scored on the second)`;
}

export function registerInspect(program: Command): void {
  program
    .command('inspect')
    .description('show what a transcript holds: format, messages, turns, LLM calls, tool calls, tokens per region')
    .argument('<inputs...>', 'transcript file, or several files, directories or globs (folder mode)')
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--tokenizer <id>', 'tokenizer for the counts (default: the best one for the model; chars/4 in folder mode)')
    .option('--exact', 'folder mode: exact counts with the best tokenizer for each model (slower)')
    .option('--json', 'print JSON')
    .action(async (inputs: string[], opts: InspectCliOptions) => {
      if (isBatch(inputs)) return inspectFolder(inputs, opts);
      const file = inputs[0]!;
      const outcome = await loadFile(file, opts.format);
      // The parse's garbage goes before the counting passes allocate on top of it, as in import
      // (src/main/store/collect-garbage.ts): on a million split-response lines the heap held ~120 MB
      // of dead scaffolding there and the counts, the tokenizer's tables and the report came on
      // top, the peak of `inspect`.
      collectGarbage();
      const report: InspectReport = {
        file,
        format: outcome.format,
        sessions: outcome.sessions.map((s) => inspectSession(s, opts.tokenizer)),
        warnings: outcome.warnings,
      };
      if (opts.json) {
        process.stdout.write(JSON.stringify(report, null, 2) + '\n');
        return;
      }
      process.stdout.write(`${file}: ${report.format}, ${report.sessions.length} session(s)\n`);
      process.stdout.write(
        table(
          [
            'session',
            'model',
            'user',
            'asst',
            'tool',
            'turns',
            'calls',
            'tool calls',
            'orphans',
            'system',
            'tools',
            'history',
            'tokenizer',
            'usage',
            'compactions',
          ],
          report.sessions.map((s) => [
            s.title ?? s.id,
            s.model ?? '?',
            s.messages.user,
            s.messages.assistant,
            s.messages.tool,
            s.turns,
            s.steps,
            s.toolCalls,
            s.orphans.calls + s.orphans.results,
            s.tokens.system,
            s.tokens.tools,
            s.tokens.history,
            s.tokens.tokenizer + (s.tokens.approximate ? ' ~' : ''),
            s.reportedUsage ? 'yes' : 'no',
            s.sourceCompactions,
          ]),
        ),
      );
      for (const s of report.sessions)
        process.stdout.write(
          `calibration${report.sessions.length > 1 ? ` (${s.title ?? s.id})` : ''}: ${calibrationLine(s.calibration)}\n`,
        );
      for (const s of outcome.sessions)
        if (s.subagents.length > 0) process.stdout.write(`${outcome.sessions.length > 1 ? `(${s.title ?? s.id}) ` : ''}${subagentLine(s)}`);
      if (report.warnings.length)
        process.stdout.write(`${report.warnings.length} warning(s); first: ${report.warnings.slice(0, 3).join(' | ')}\n`);
    });
}

// ---------------------------------------------------------------------------------------------
// Folder scale

export interface InspectCliOptions {
  format?: string;
  tokenizer?: string;
  exact?: boolean;
  json?: boolean;
}

/** One file's job, as the in-process path and the worker threads (src/cli/inspect-worker.ts) take it. */
export interface InspectJob {
  readonly file: string;
  readonly format?: string;
  readonly tokenizer?: string;
  readonly exact: boolean;
}

/** Provider-reported usage summed over a file's calls (subagents included: they were billed too). */
export interface ReportedTotals {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  output: number;
}

/** A call the provider identified (ReportedUsage.callKey), with what it added to its file's totals. */
export interface KeyedCall {
  readonly key: string;
  readonly subagent: boolean;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  /** USD it added to the file's cost (0 when unpriced). */
  readonly cost: number;
  readonly priced: boolean;
}

export type FileInspection =
  | {
      readonly kind: 'read';
      readonly file: string;
      readonly format: string;
      readonly sessions: InspectSession[];
      readonly calls: number;
      readonly subagentCalls: number;
      readonly reported: ReportedTotals;
      readonly cost: number | null;
      readonly warnings: number;
    }
  | { readonly kind: 'skipped'; readonly file: string; readonly reason: string }
  | { readonly kind: 'failed'; readonly file: string; readonly error: string };

export interface FolderSummary {
  files: number;
  transcripts: number;
  skipped: number;
  failed: number;
  sessions: number;
  /** LLM calls of the sessions (as single-file inspect counts them); their subagents' calls apart. */
  calls: number;
  subagentCalls: number;
  turns: number;
  toolCalls: number;
  /** Tokens of the last call's window (system + tools + history) summed over sessions. */
  tokens: number;
  /** True when any count is an estimate (chars/4 by default). */
  approximate: boolean;
  reported: ReportedTotals;
  /** USD at catalog prices (resources/models.json) or as the source reported; null when no call had a known price. */
  cost: number | null;
  /** Calls whose model has no price in the catalog and no cost in the source: left out of `cost`. */
  unpricedCalls: number;
  sourceCompactions: number;
  /**
   * Calls logged again in another file (a session resumed with `--resume`/`--continue` repeats the
   * calls before it): same `message.id` and `requestId`, counted once in these totals.
   */
  duplicateCalls: number;
}

export interface FolderReport {
  files: Extract<FileInspection, { kind: 'read' }>[];
  skipped: { file: string; reason: string }[];
  failed: { file: string; error: string }[];
  summary: FolderSummary;
}

/**
 * The exact path (src/main/count/guarded.ts) in this thread, behind the pool's interface, so
 * `countExact` runs inside a worker.
 */
function inThreadCounter(): BulkCounter {
  return {
    count: (texts, e) => countGuarded(texts, e),
    async warm(e) {
      await guardedCounter(e);
    },
    async close() {},
  };
}

let sharedCounter: BulkCounter | undefined;

/** Sums what a session and its subagents were billed into `into`; `calls`: the subagents' LLM calls. */
function usageOf(
  s: Session,
  into: ReportedTotals,
  keyed: KeyedCall[],
  subagent = false,
): { calls: number; cost: number; priced: number; unpriced: number } {
  const model = lookupModel(s.model);
  let calls = 0;
  let cost = 0;
  let priced = 0;
  let unpriced = 0;
  for (const m of s.messages) {
    const u = m.usage;
    if (!u) continue;
    into.input += u.input;
    into.cacheRead += u.cacheRead;
    into.cacheWrite += u.cacheWrite;
    into.output += u.output;
    // Each call at its own model's prices, writes as writes (5-minute or 1-hour, as the log says).
    const callModel = m.model !== undefined ? (lookupModel(m.model) ?? model) : model;
    const isPriced = u.costUsd !== undefined || callModel !== undefined;
    const callCost = callModel ? usageCost(callModel, u) : (u.costUsd ?? 0);
    if (u.callKey !== undefined)
      keyed.push({
        key: u.callKey,
        subagent: subagent || s.agentId !== undefined,
        input: u.input,
        cacheRead: u.cacheRead,
        cacheWrite: u.cacheWrite,
        output: u.output,
        cost: callCost,
        priced: isPriced,
      });
    if (!isPriced) {
      unpriced++;
      continue;
    }
    cost += callCost;
    priced++;
  }
  for (const sub of s.subagents) {
    const r = usageOf(sub, into, keyed, true);
    calls += stepIndices(sub.messages).length + r.calls;
    cost += r.cost;
    priced += r.priced;
    unpriced += r.unpriced;
  }
  return { calls, cost, priced, unpriced };
}

/**
 * A file as a ByteSource that keeps its first chunk: detection reads the head, then the import
 * reads the whole file, and the head is not read from disk twice (a small file is read once).
 */
function headCachingSource(path: string): ByteSource {
  const CHUNK = 1 << 20;
  const size = statSync(path).size;
  let head: Uint8Array | undefined;
  return {
    name: path,
    size,
    async *chunks() {
      if (size === 0) return;
      if (head) {
        yield head;
        if (head.length >= size) return;
      }
      const start = head ? head.length : 0;
      for await (const chunk of createReadStream(path, { highWaterMark: CHUNK, start, end: size - 1 })) {
        head ??= chunk as Buffer;
        yield chunk as Buffer;
      }
    },
  };
}

/**
 * Reads and inspects one file. Not a transcript (empty, or no importer recognises its head) →
 * `skipped`; a transcript that does not parse → `failed` with the importer's FILE:LINE message.
 */
export async function inspectTranscript(job: InspectJob): Promise<FileInspection & { unpriced?: number; keyed?: KeyedCall[] }> {
  const { file } = job;
  let format: string | undefined;
  const source = headCachingSource(file);
  try {
    format = job.format ?? (await detectFormat(source));
  } catch (e) {
    return { kind: 'skipped', file, reason: e instanceof Error ? e.message : String(e) };
  }
  if (!format) return { kind: 'skipped', file, reason: 'not a transcript (no known format recognises it)' };
  try {
    const outcome = await importSource(source, { format: format as Session['format'], keepRaw: false });
    const sessions: InspectSession[] = [];
    const reported: ReportedTotals = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };
    let calls = 0;
    let subagentCalls = 0;
    let cost = 0;
    let priced = 0;
    let unpriced = 0;
    const keyed: KeyedCall[] = [];
    for (const s of outcome.sessions) {
      const hasUsage = s.messages.some((m) => m.usage !== undefined);
      const id = job.tokenizer ?? (job.exact ? defaultTokenizerFor(s.model, hasUsage) : 'chars4');
      getTokenizer(id);
      const counts = job.exact ? await countExact(s, id, {}, (sharedCounter ??= inThreadCounter())) : undefined;
      const inspected = inspectSession(s, id, counts, false);
      sessions.push(inspected);
      // A subagent's own file (Claude Code 2.x `subagents/agent-<id>.jsonl`, walked like any file
      // here): its calls are subagent calls, as when they were inline in the parent's file.
      if (s.agentId !== undefined) subagentCalls += inspected.steps;
      else calls += inspected.steps;
      const u = usageOf(s, reported, keyed);
      subagentCalls += u.calls;
      cost += u.cost;
      priced += u.priced;
      unpriced += u.unpriced;
    }
    return {
      kind: 'read',
      file,
      format: outcome.format,
      sessions,
      calls,
      subagentCalls,
      reported,
      cost: priced > 0 ? cost : null,
      warnings: outcome.warnings.length,
      unpriced,
      keyed,
    };
  } catch (e) {
    if (e instanceof CliError) throw e;
    return { kind: 'failed', file, error: e instanceof Error ? e.message : String(e) };
  }
}

/** Below this much input the worker threads' start-up costs more than they save. */
const POOL_MIN_BYTES = 4_000_000;

/**
 * Inspects every file: in this thread for a few small files, else on this thread and worker
 * threads (one per core in all), biggest files first so they finish together. Results come back
 * in input order.
 */
export async function inspectFiles(
  jobs: readonly InspectJob[],
  sizes: readonly number[],
  threads = availableParallelism(),
  poolMinBytes = POOL_MIN_BYTES,
): Promise<(FileInspection & { unpriced?: number; keyed?: KeyedCall[] })[]> {
  const total = sizes.reduce((a, b) => a + b, 0);
  const n = Math.max(1, Math.min(threads, jobs.length));
  if (n === 1 || total < poolMinBytes) {
    const out = [];
    for (const job of jobs) out.push(await inspectTranscript(job));
    return out;
  }
  const order = jobs.map((_, i) => i).sort((a, b) => sizes[b]! - sizes[a]!);
  const results: (FileInspection & { unpriced?: number; keyed?: KeyedCall[] })[] = new Array(jobs.length);
  const here = dirname(fileURLToPath(import.meta.url));
  let next = 0;
  // This thread takes files from the same queue while the workers start: n parsers in all.
  const inThisThread = async (): Promise<void> => {
    for (let k = next++; k < order.length; k = next++) results[order[k]!] = await inspectTranscript(jobs[order[k]!]!);
  };
  const workers = Array.from({ length: n - 1 }, () =>
    startWorker([join(here, 'inspect-worker.js'), join(here, '..', 'inspect-worker.js')], join(here, '..', 'inspect-worker.ts')),
  );
  const drive = (w: (typeof workers)[number]): Promise<void> =>
    new Promise((resolve, reject) => {
      const send = (): void => {
        const k = next++;
        if (k >= order.length) return resolve();
        const i = order[k]!;
        w.once('message', (r: FileInspection & { unpriced?: number; keyed?: KeyedCall[]; usageError?: string }) => {
          if (r.usageError !== undefined) return reject(new CliError(r.usageError, EXIT.usage));
          results[i] = r;
          send();
        });
        w.postMessage(jobs[i]);
      };
      w.once('error', reject);
      send();
    });
  try {
    await Promise.all([...workers.map(drive), inThisThread()]);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

export function summarise(results: readonly (FileInspection & { unpriced?: number; keyed?: KeyedCall[] })[]): FolderReport {
  const report: FolderReport = {
    files: [],
    skipped: [],
    failed: [],
    summary: {
      files: results.length,
      transcripts: 0,
      skipped: 0,
      failed: 0,
      sessions: 0,
      calls: 0,
      subagentCalls: 0,
      turns: 0,
      toolCalls: 0,
      tokens: 0,
      approximate: false,
      reported: { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 },
      cost: null,
      unpricedCalls: 0,
      sourceCompactions: 0,
      duplicateCalls: 0,
    },
  };
  const t = report.summary;
  const seen = new Set<string>();
  for (const r of results) {
    if (r.kind === 'skipped') report.skipped.push({ file: r.file, reason: r.reason });
    else if (r.kind === 'failed') report.failed.push({ file: r.file, error: r.error });
    else {
      const { unpriced, keyed, ...row } = r;
      report.files.push(row);
      t.calls += r.calls;
      t.subagentCalls += r.subagentCalls;
      t.unpricedCalls += unpriced ?? 0;
      for (const k of ['input', 'cacheRead', 'cacheWrite', 'output'] as const) t.reported[k] += r.reported[k];
      if (r.cost !== null) t.cost = (t.cost ?? 0) + r.cost;
      // A call an earlier file logged already (a resumed session's file repeats it): taken out again.
      for (const c of keyed ?? []) {
        if (!seen.has(c.key)) {
          seen.add(c.key);
          continue;
        }
        t.duplicateCalls++;
        if (c.subagent) t.subagentCalls--;
        else t.calls--;
        for (const k of ['input', 'cacheRead', 'cacheWrite', 'output'] as const) t.reported[k] -= c[k];
        if (c.priced) t.cost = (t.cost ?? 0) - c.cost;
        else t.unpricedCalls--;
      }
      for (const s of r.sessions) {
        t.sessions++;
        t.turns += s.turns;
        t.toolCalls += s.toolCalls;
        t.tokens += s.tokens.system + s.tokens.tools + s.tokens.history + s.tokens.unlogged;
        t.approximate ||= s.tokens.approximate;
        t.sourceCompactions += s.sourceCompactions;
      }
    }
  }
  t.transcripts = report.files.length;
  t.skipped = report.skipped.length;
  t.failed = report.failed.length;
  return report;
}

/** Control characters of a file name would drive the terminal: show them as `?`. */
function printable(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    out += c < 0x20 || (c >= 0x7f && c <= 0x9f) ? '?' : ch;
  }
  return out;
}

async function inspectFolder(inputs: readonly string[], opts: InspectCliOptions): Promise<void> {
  checkFormat(opts.format);
  if (opts.tokenizer !== undefined) {
    try {
      getTokenizer(opts.tokenizer);
    } catch (e) {
      throw new CliError(`--tokenizer: ${e instanceof Error ? e.message : String(e)}`, EXIT.usage);
    }
  }
  const files = await expandInputs(inputs);
  if (files.length === 0) throw new CliError(`${inputs.join(' ')}: no files found`, EXIT.usage);
  const sizes = files.map((f) => statSync(f).size);
  const jobs = files.map((file): InspectJob => ({
    file,
    exact: opts.exact === true,
    ...(opts.format ? { format: opts.format } : {}),
    ...(opts.tokenizer ? { tokenizer: opts.tokenizer } : {}),
  }));
  const report = summarise(await inspectFiles(jobs, sizes));
  for (const s of report.skipped) process.stderr.write(`ctxscope: skipped ${printable(s.file)}: ${printable(s.reason)}\n`);
  for (const f of report.failed) process.stderr.write(`ctxscope: ${printable(f.error)}\n`);
  const t = report.summary;
  if (opts.json) process.stdout.write(JSON.stringify(report) + '\n');
  else {
    const usd = (c: number | null): string => (c === null ? '-' : `$${c.toFixed(2)}`);
    const rows = report.files.map((r) => {
      let tokens = 0;
      let compactions = 0;
      for (const s of r.sessions) {
        tokens += s.tokens.system + s.tokens.tools + s.tokens.history + s.tokens.unlogged;
        compactions += s.sourceCompactions;
      }
      return [
        printable(r.file),
        r.format,
        r.sessions.length,
        r.calls,
        tokens,
        r.reported.input + r.reported.cacheRead + r.reported.cacheWrite,
        r.reported.output,
        usd(r.cost),
        compactions,
      ];
    });
    rows.push([
      'total',
      `${t.transcripts} file(s)`,
      t.sessions,
      t.calls,
      t.tokens,
      t.reported.input + t.reported.cacheRead + t.reported.cacheWrite,
      t.reported.output,
      usd(t.cost),
      t.sourceCompactions,
    ]);
    process.stdout.write(
      table(
        [
          'file',
          'format',
          'sessions',
          'calls',
          t.approximate ? 'tokens ~' : 'tokens',
          'reported in',
          'reported out',
          'cost',
          'compactions',
        ],
        rows,
      ),
    );
    process.stdout.write(
      `${t.transcripts} transcript(s), ${t.skipped} skipped, ${t.failed} failed · ${t.turns.toLocaleString('en-US')} turns · ${t.toolCalls.toLocaleString('en-US')} tool calls · ${t.subagentCalls.toLocaleString('en-US')} subagent calls` +
        (t.approximate ? ' · tokens ~ are chars/4 estimates (--exact to count)' : '') +
        (t.duplicateCalls > 0 ? ` · ${t.duplicateCalls.toLocaleString('en-US')} call(s) repeated by resumed sessions counted once` : '') +
        (t.unpricedCalls > 0
          ? ` · ${t.unpricedCalls.toLocaleString('en-US')} call(s) of models without a price left out of the cost`
          : '') +
        '\n',
    );
  }
  if (report.failed.length > 0)
    throw new CliError(`${report.failed.length} of ${t.transcripts + t.failed} transcript(s) failed to read`, EXIT.badInput);
  if (t.transcripts === 0) throw new CliError(`no transcripts among ${files.length} file(s)`, EXIT.badInput);
}
