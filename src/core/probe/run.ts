/**
 * Runs a probe plan through a client: for each side (original, policy) and replicate, the next
 * action and every question, one request at a time; then per task the tallies, Wilson intervals
 * and verdicts (./stats.ts). A failed request is that replicate's error and is left out of n.
 */
import type { ProbeClient, ProbeReply } from './client';
import { bodyFor, type ProbePlan } from './plan';
import { scoreAnswer } from './questions';
import { judgeBody, parseGrade } from './judge';
import { verdict, wilson } from './stats';
import {
  PROBE_SIDES,
  type ActionMatch,
  type ProbeAnswer,
  type ProbeResult,
  type ProbeSettings,
  type ProbeTally,
  type RecordedAction,
} from './types';

const canonical = (args: string): string => {
  try {
    const sort = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sort)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.entries(v as Record<string, unknown>)
                .sort(([a], [b]) => (a < b ? -1 : 1))
                .map(([k, x]) => [k, sort(x)]),
            )
          : v;
    return JSON.stringify(sort(JSON.parse(args)));
  } catch {
    return args.trim();
  }
};

const wordSet = (s: string): Set<string> =>
  new Set(
    s
      .toLowerCase()
      .split(/[^a-z0-9_]+/)
      .filter((w) => w.length >= 3),
  );

/** Jaccard similarity of two texts' words (3 letters or more). */
export function textSimilarity(a: string, b: string): number {
  const x = wordSet(a);
  const y = wordSet(b);
  if (x.size === 0 && y.size === 0) return 1;
  let both = 0;
  for (const w of x) if (y.has(w)) both++;
  return both / (x.size + y.size - both);
}

/** A text answer to a text counts as the same action from this similarity on. */
export const SAME_TEXT = 0.5;

export function compareAction(recorded: RecordedAction, reply: ProbeReply): { match: ActionMatch; similarity?: number; success: boolean } {
  if (reply.tool) {
    if (recorded.kind !== 'tool') return { match: 'other-tool', success: false };
    if (reply.tool.name !== recorded.name) return { match: 'other-tool', success: false };
    return canonical(reply.tool.args) === canonical(recorded.args)
      ? { match: 'same-call', success: true }
      : { match: 'same-tool', success: false };
  }
  if (recorded.kind === 'tool') return { match: 'text-instead', success: false };
  const similarity = Math.round(textSimilarity(recorded.text, reply.text) * 1000) / 1000;
  return { match: 'text', similarity, success: similarity >= SAME_TEXT };
}

export interface RunOptions {
  readonly signal?: AbortSignal;
  readonly onAnswer?: (a: ProbeAnswer, done: number, total: number) => void;
  readonly now?: () => number;
  /**
   * The client bound to the judge's endpoint (settings.judge): each answer to a question is graded
   * by it too. Without it, or without settings.judge, nothing is graded.
   */
  readonly judge?: ProbeClient;
}

/** The judge's grade of one answer, or why there is none (its own retries are the client's). */
async function grade(
  client: ProbeClient,
  settings: ProbeSettings,
  question: ProbePlan['questions'][number],
  answer: string,
  signal?: AbortSignal,
): Promise<{ judged: boolean; judgeAnswer: string } | { judgeError: string }> {
  try {
    const reply = await client(judgeBody(settings.judge!, question, answer), signal);
    return { judged: parseGrade(reply.text), judgeAnswer: reply.text.trim().slice(0, 200) };
  } catch (e) {
    if (signal?.aborted) throw e;
    return { judgeError: e instanceof Error ? e.message : String(e) };
  }
}

export async function runProbe(
  plan: ProbePlan,
  policy: string,
  settings: ProbeSettings,
  client: ProbeClient,
  options: RunOptions = {},
): Promise<ProbeResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  const answers: ProbeAnswer[] = [];
  const success = new Map<string, boolean>();
  const judged = new Map<string, boolean>();
  const judge = settings.judge && options.judge ? options.judge : null;
  const tasks = [
    { task: 'next' as string, question: undefined as ProbePlan['questions'][number] | undefined },
    ...plan.questions.map((q) => ({ task: q.id, question: q })),
  ];
  const total = PROBE_SIDES.length * settings.replicates * tasks.length;
  for (const side of PROBE_SIDES) {
    for (let r = 0; r < settings.replicates; r++) {
      for (const t of tasks) {
        if (options.signal?.aborted) throw new Error('probe cancelled');
        let a: ProbeAnswer;
        try {
          const reply = await client(bodyFor(plan.inputs[side], settings, t.question), options.signal);
          const usage = {
            ...(reply.inputTokens !== undefined ? { inputTokens: reply.inputTokens } : {}),
            ...(reply.outputTokens !== undefined ? { outputTokens: reply.outputTokens } : {}),
          };
          const shown = reply.tool ? `${reply.tool.name}(${reply.tool.args})` : reply.text;
          if (t.question) {
            const correct = scoreAnswer(t.question.kind, t.question.expected, reply.text);
            const g = judge ? await grade(judge, settings, t.question, reply.text, options.signal) : null;
            a = { side, replicate: r, task: t.task, answer: shown, correct, ...usage, ...(g ?? {}) };
            success.set(`${side} ${r} ${t.task}`, correct);
            if (g && 'judged' in g) judged.set(`${side} ${r} ${t.task}`, g.judged);
          } else {
            const c = compareAction(plan.recorded, reply);
            a = {
              side,
              replicate: r,
              task: t.task,
              answer: shown,
              ...(reply.tool ? { tool: reply.tool } : {}),
              match: c.match,
              ...(c.similarity !== undefined ? { similarity: c.similarity } : {}),
              ...usage,
            };
            success.set(`${side} ${r} ${t.task}`, c.success);
          }
        } catch (e) {
          if (options.signal?.aborted) throw e;
          a = { side, replicate: r, task: t.task, answer: null, error: e instanceof Error ? e.message : String(e) };
        }
        answers.push(a);
        options.onAnswer?.(a, answers.length, total);
      }
    }
  }
  const tallies: ProbeTally[] = tasks.map(({ task, question }) => {
    const side = (s: 'original' | 'policy', from: ReadonlyMap<string, boolean> = success) => {
      let k = 0;
      let n = 0;
      let errors = 0;
      for (let r = 0; r < settings.replicates; r++) {
        const v = from.get(`${s} ${r} ${task}`);
        if (v === undefined) errors++;
        else {
          n++;
          if (v) k++;
        }
      }
      return { k, n, errors, interval: wilson(k, n) };
    };
    const original = side('original');
    const policyTally = side('policy');
    if (!judge || !question) return { task, original, policy: policyTally, verdict: verdict(original, policyTally) };
    const jo = side('original', judged);
    const jp = side('policy', judged);
    return {
      task,
      original,
      policy: policyTally,
      verdict: verdict(original, policyTally),
      judge: { original: jo, policy: jp, verdict: verdict(jo, jp) },
    };
  });
  return {
    version: 1,
    policy,
    step: plan.step,
    messageIndex: plan.messageIndex,
    settings,
    recorded: plan.recorded,
    questions: plan.questions,
    estimate: plan.estimate,
    answers,
    tallies,
    startedAt,
    finishedAt: now(),
  };
}
