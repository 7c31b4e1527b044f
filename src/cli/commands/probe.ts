/**
 * `ctxscope probe FILE --policy P --at CALL|next-compression|compressions --endpoint URL --model M`:
 * the counterfactual probe (docs/probe.md). Nothing is sent until the plan — requests, tokens,
 * estimated cost, where — is printed and confirmed (`--yes`, or "y" at the prompt); `--max-cost`
 * stops there when the estimate is above it. A key goes only to the endpoint it is bound to
 * (src/main/secrets.ts), exactly as for summarizers.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { LEDGER_KINDS } from '../../core/ledger/extract';
import {
  planProbe,
  probeClient,
  probeSteps,
  ProbeError,
  runProbe,
  type ProbeApi,
  type ProbeClient,
  type ProbeQuestion,
  type ProbeResult,
  type ProbeSettings,
} from '../../core/probe/index';
import { isLoopbackUrl, summarizerUrlProblem } from '../../core/summarize/remote';
import { findApiKey } from '../../main/secrets';
import { replay as runReplay } from '../../core/replay/index';
import { CliError, EXIT } from '../errors';
import { loadFile, pickSession } from '../load';
import { table } from '../table';
import { cliConfig, type ReplayCliOptions } from './replay';

interface ProbeCliOptions extends ReplayCliOptions {
  policy: string;
  at: string;
  endpoint: string;
  model: string;
  api?: string;
  replicates: string;
  questions: string;
  temperature: string;
  maxCost?: string;
  maxTokens: string;
  yes?: boolean;
  json?: boolean;
  timeout: string;
  judgeEndpoint?: string;
  judgeModel?: string;
  judgeApi?: string;
}

const questionFile = z
  .array(
    z
      .object({
        kind: z.enum(LEDGER_KINDS),
        text: z.string().min(1).max(2000),
        expected: z.string().min(1).max(2000),
        messageIndex: z.number().int().min(0).optional(),
      })
      .strict(),
  )
  .min(1)
  .max(50);

function readQuestions(path: string): ProbeQuestion[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new CliError(
      `--questions ${path}: ${e instanceof SyntaxError ? `not JSON (${e.message})` : 'no such file'}`,
      e instanceof SyntaxError ? EXIT.badInput : EXIT.usage,
    );
  }
  const parsed = questionFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new CliError(
      `--questions ${path}: at ${issue.path.join('.') || 'the top'}: ${issue.message} (expected an array of {kind, text, expected})`,
      EXIT.badInput,
    );
  }
  return parsed.data.map((q, i) => ({
    id: `q${i + 1}`,
    kind: q.kind,
    text: q.text,
    expected: q.expected,
    messageIndex: q.messageIndex ?? 0,
  }));
}

function number(name: string, v: string, min: number, max: number, integer = false): number {
  const n = Number(v);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
    throw new CliError(`${name}: expected ${integer ? 'a whole number' : 'a number'} from ${min} to ${max}, got "${v}"`, EXIT.usage);
  return n;
}

/** Anthropic's Messages API by its host, else an OpenAI-compatible server (Ollama, llama.cpp, vLLM, OpenAI). */
export function apiOf(endpoint: string, api?: string, flag = '--api'): ProbeApi {
  if (api !== undefined) {
    if (api !== 'openai' && api !== 'anthropic') throw new CliError(`${flag}: expected openai or anthropic, got "${api}"`, EXIT.usage);
    return api;
  }
  return /(^|\.)anthropic\.com$/i.test(new URL(endpoint).hostname) ? 'anthropic' : 'openai';
}

async function confirmed(prompt: string): Promise<boolean> {
  if (!process.stdin.isTTY) return false;
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(prompt)).trim());
  } finally {
    rl.close();
  }
}

const pct = (k: number, n: number): string => (n === 0 ? '–' : `${k}/${n}`);
const ci = (i: { low: number; high: number }): string => `[${Math.round(i.low * 100)}–${Math.round(i.high * 100)}%]`;

function printResult(r: ProbeResult): void {
  process.stdout.write(
    `\ncall ${r.step} (message #${r.messageIndex}) · ${r.settings.model} at ${r.settings.endpoint} · ${r.settings.replicates} replicates · recorded next action: ${r.recorded.kind === 'tool' ? `${r.recorded.name}(${r.recorded.args.slice(0, 60)})` : 'text'}\n`,
  );
  const judged = r.settings.judge;
  const label = (task: string): string =>
    task === 'next' ? 'next action' : `${task} ${r.questions.find((q) => q.id === task)?.text.slice(0, 60) ?? ''}`;
  const rows = r.tallies.map((t) => [
    label(t.task),
    `${pct(t.original.k, t.original.n)} ${ci(t.original.interval)}${t.original.errors ? ` (${t.original.errors} failed)` : ''}`,
    `${pct(t.policy.k, t.policy.n)} ${ci(t.policy.interval)}${t.policy.errors ? ` (${t.policy.errors} failed)` : ''}`,
    t.verdict,
    ...(judged
      ? [t.judge ? `${pct(t.judge.original.k, t.judge.original.n)} · ${pct(t.judge.policy.k, t.judge.policy.n)} · ${t.judge.verdict}` : '']
      : []),
  ]);
  const head = [
    'task',
    '(a) as sent',
    '(b) under the policy',
    'verdict',
    ...(judged ? [`judge ${judged.model}: (a) · (b) · verdict`] : []),
  ];
  process.stdout.write(table(head, rows));
  const failedGrades = r.answers.filter((a) => a.judgeError);
  if (failedGrades.length > 0)
    process.stdout.write(`${failedGrades.length} grade${failedGrades.length === 1 ? '' : 's'} failed: ${failedGrades[0]!.judgeError}\n`);
  const errors = r.answers.filter((a) => a.error);
  if (errors.length > 0) process.stdout.write(`${errors.length} replicate${errors.length === 1 ? '' : 's'} failed: ${errors[0]!.error}\n`);
}

export function registerProbe(program: Command): void {
  program
    .command('probe')
    .description(
      "ask a model at one call with the context the agent had and with the policy's, and compare (sends the transcript to --endpoint after you confirm)",
    )
    .argument('<file>', 'transcript file')
    .requiredOption('--policy <id|file.json>', 'the policy whose compacted history is probed')
    .requiredOption('--at <call>', 'a call number, next-compression (the first compression) or compressions (each)')
    .requiredOption('--endpoint <url>', 'an OpenAI-compatible server (…/v1) or https://api.anthropic.com')
    .requiredOption('--model <id>', 'the model to probe with')
    .option('--api <openai|anthropic>', "the endpoint's protocol (default: anthropic for anthropic.com, else openai)")
    .option('--replicates <n>', 'times each request is sent', '3')
    .option(
      '--questions <auto|file.json>',
      'recall questions: from the loss ledger (auto) or a JSON file of {kind, text, expected}',
      'auto',
    )
    .option('--temperature <t>', 'sampling temperature', '0.7')
    .option('--max-tokens <n>', 'most tokens per answer', '256')
    .option('--max-cost <usd>', 'stop before sending when the estimated cost is above this')
    .option('--timeout <ms>', 'per request', '60000')
    .option('--judge-endpoint <url>', 'also grade each recall answer CORRECT/INCORRECT by a judge model at this endpoint')
    .option('--judge-model <id>', 'the judge model (with --judge-endpoint)')
    .option('--judge-api <openai|anthropic>', "the judge endpoint's protocol (default: anthropic for anthropic.com, else openai)")
    .option('--set <key=value>', 'override a config key (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--session <id|n>', 'which session of the file (default: the first)')
    .option('--format <id>', 'skip detection and read the file as this format')
    .option('--yes', 'send without asking')
    .option('--json', 'print the probe as JSON')
    .action(async (file: string, opts: ProbeCliOptions) => {
      const problem = summarizerUrlProblem(opts.endpoint);
      if (problem) throw new CliError(problem.replace(/^summarizerUrl/, '--endpoint'), EXIT.usage);
      const api = apiOf(opts.endpoint, opts.api);
      let settings: ProbeSettings = {
        api,
        endpoint: opts.endpoint,
        model: opts.model,
        replicates: number('--replicates', opts.replicates, 1, 50, true),
        temperature: number('--temperature', opts.temperature, 0, 2),
        maxAnswerTokens: number('--max-tokens', opts.maxTokens, 1, 8192, true),
      };
      let judge: ProbeSettings['judge'];
      if ((opts.judgeEndpoint === undefined) !== (opts.judgeModel === undefined))
        throw new CliError('--judge-endpoint and --judge-model go together: give both or neither', EXIT.usage);
      if (opts.judgeEndpoint !== undefined && opts.judgeModel !== undefined) {
        const judgeProblem = summarizerUrlProblem(opts.judgeEndpoint);
        if (judgeProblem) throw new CliError(judgeProblem.replace(/^summarizerUrl/, '--judge-endpoint'), EXIT.usage);
        judge = { api: apiOf(opts.judgeEndpoint, opts.judgeApi, '--judge-api'), endpoint: opts.judgeEndpoint, model: opts.judgeModel };
      } else if (opts.judgeApi !== undefined) throw new CliError('--judge-api needs --judge-endpoint and --judge-model', EXIT.usage);
      if (judge) settings = { ...settings, judge };
      const maxCost = opts.maxCost === undefined ? undefined : number('--max-cost', opts.maxCost, 0, 1e6);
      const questions = opts.questions === 'auto' ? 'auto' : readQuestions(opts.questions);
      const config = cliConfig(opts.policy, opts);
      const outcome = await loadFile(file, opts.format);
      const session = pickSession(outcome.sessions, opts.session, file);
      const result = await runReplay(session, config);
      let plans;
      try {
        plans = probeSteps(result, opts.at).map((step) => planProbe(session, result, step, settings, questions));
      } catch (e) {
        if (e instanceof ProbeError) throw new CliError(e.message, EXIT.usage);
        throw e;
      }
      // The plan, before anything is sent.
      let cost = 0;
      let priced = true;
      // Grading counts in the cost and the cap like the probe's own requests.
      let judgePriced = true;
      for (const p of plans) {
        process.stderr.write(`call ${p.step}: ${p.estimate.summary}\n`);
        if (p.estimate.cost === null) priced = false;
        else cost += p.estimate.cost;
        const j = p.estimate.judge;
        if (j) {
          process.stderr.write(`call ${p.step}, judge: ${j.summary}\n`);
          if (j.cost === null) judgePriced = false;
          else cost += j.cost;
        }
      }
      const requests = plans.reduce((n, p) => n + p.estimate.requests + (p.estimate.judge?.requests ?? 0), 0);
      const tokens = plans.reduce((n, p) => n + p.estimate.inputTokens + (p.estimate.judge?.inputTokens ?? 0), 0);
      const where = judge ? `${opts.endpoint} and the judge at ${judge.endpoint}` : opts.endpoint;
      process.stderr.write(
        `in all: ${requests} requests, about ${tokens.toLocaleString('en-US')} input tokens, ${priced && judgePriced ? `about $${cost.toFixed(4)}` : 'cost unknown'} — to ${where}\n`,
      );
      if (maxCost !== undefined) {
        // An unknown price is $0 only on this machine (a local server); elsewhere it cannot be held to a cap.
        if (judge && !judgePriced && !isLoopbackUrl(judge.endpoint))
          throw new CliError(
            `--max-cost: the price of the judge ${judge.model} is unknown, so the cap cannot be checked; nothing was sent`,
            EXIT.usage,
          );
        if (!priced && !isLoopbackUrl(opts.endpoint))
          throw new CliError(
            `--max-cost: the price of ${opts.model} is unknown, so the cap cannot be checked; nothing was sent`,
            EXIT.usage,
          );
        if (cost > maxCost)
          throw new CliError(`--max-cost: the estimate $${cost.toFixed(4)} is above $${maxCost}; nothing was sent`, EXIT.usage);
      }
      if (!opts.yes && !(await confirmed(`Send ${requests} requests with the transcript to ${where}? [y/N] `))) {
        throw new CliError(`nothing was sent: confirm with --yes${process.stdin.isTTY ? '' : ' (no terminal to ask on)'}`, EXIT.usage);
      }
      const key = await findApiKey(api, opts.endpoint);
      const client: ProbeClient = probeClient({
        api,
        endpoint: opts.endpoint,
        ...(key ? { apiKey: key.key } : {}),
        timeoutMs: number('--timeout', opts.timeout, 100, 600_000, true),
      });
      // The judge's own key: the one bound to the judge endpoint, never the probe endpoint's.
      let judgeClient: ProbeClient | undefined;
      if (judge) {
        const judgeKey = await findApiKey(judge.api, judge.endpoint);
        judgeClient = probeClient({
          api: judge.api,
          endpoint: judge.endpoint,
          ...(judgeKey ? { apiKey: judgeKey.key } : {}),
          timeoutMs: number('--timeout', opts.timeout, 100, 600_000, true),
        });
      }
      const results: ProbeResult[] = [];
      for (const p of plans) {
        results.push(
          await runProbe(p, opts.policy, settings, client, {
            ...(judgeClient ? { judge: judgeClient } : {}),
            onAnswer: (_a, done, total) => {
              if (!opts.json && process.stderr.isTTY) process.stderr.write(`\rcall ${p.step}: ${done}/${total} answers`);
            },
          }),
        );
        if (!opts.json && process.stderr.isTTY) process.stderr.write('\n');
      }
      if (opts.json) process.stdout.write(JSON.stringify({ file, policy: opts.policy, session: session.id, probes: results }) + '\n');
      else for (const r of results) printResult(r);
    });
}
