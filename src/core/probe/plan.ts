/**
 * What a probe sends at one call (docs/probe.md §Probe), built without sending anything:
 * (a) the request the agent really sent, as the importer rebuilds it — its window since its own
 * last compaction, with the summary it wrote and messages as it sent them — and (b) exactly the
 * compacted history the export writes for that call under the policy (../export/window-at.ts),
 * both through the export's writers; the recall questions; the agent's recorded next action; and
 * the tokens and cost of the whole probe.
 */
import { lookupModel, callCost } from '../catalog';
import { sentForm, type Message, type Session } from '../model';
import { requestBodyOf, type ExportInput } from '../export/writers';
import { windowAt } from '../export/window-at';
import type { ReplayResult } from '../replay/types';
import { ledgersAtStep, lossLedgers } from '../replay/ledger';
import { questionsFrom } from './questions';
import { judgeEstimate } from './judge';
import { PROBE_SIDES, type ProbeEstimate, type ProbeQuestion, type ProbeSettings, type ProbeSide, type RecordedAction } from './types';

export class ProbeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProbeError';
  }
}

export interface ProbePlan {
  readonly step: number;
  readonly messageIndex: number;
  readonly inputs: Readonly<Record<ProbeSide, ExportInput>>;
  readonly questions: readonly ProbeQuestion[];
  readonly recorded: RecordedAction;
  readonly estimate: ProbeEstimate;
}

/** The original agent's request before the message at `k`: since its last own compaction, as sent. */
export function originalInput(session: Session, k: number, model: string): ExportInput {
  const messages = session.messages;
  let from = 0;
  let summary: string | null = null;
  let kept: ReadonlySet<string> = new Set();
  for (const c of session.sourceCompactions) {
    if (c.atMessage > k || c.atMessage < from) continue;
    from = c.atMessage;
    summary = c.summary ?? null;
    kept = new Set(c.keptIds ?? []);
  }
  const out: Message[] = [];
  for (let i = 0; i < k; i++) {
    const m = messages[i]!;
    if (m.sidechain === true || (i < from && !kept.has(m.id))) continue;
    out.push(m.sentAs && m.sentAs.fromMessage <= k ? sentForm(m, m.sentAs.text) : m);
  }
  return { model, systemPrompt: session.systemPrompt, summary, tools: session.tools, messages: out };
}

export function recordedAction(m: Message | undefined): RecordedAction {
  const call = m?.parts.find((p) => p.kind === 'tool_call');
  if (call && call.kind === 'tool_call') return { kind: 'tool', name: call.name, args: call.args };
  return {
    kind: 'text',
    text: (m?.parts ?? [])
      .map((p) => (p.kind === 'text' ? p.text : ''))
      .join('\n')
      .trim(),
  };
}

/** The question, appended as the user's next message, for a recall request. */
export const questionPrompt = (q: ProbeQuestion): string =>
  `Answer from the conversation so far only, in one line, without calling a tool. ${q.text}`;

/** The body sent for one task: the context as the export writes it, the model's settings, and for a question the question. */
export function bodyFor(input: ExportInput, settings: ProbeSettings, question?: ProbeQuestion): Record<string, unknown> {
  const messages: Message[] = question
    ? [...input.messages, { id: 'probe-question', role: 'user', parts: [{ kind: 'text', text: questionPrompt(question) }] }]
    : [...input.messages];
  const body = requestBodyOf({ ...input, messages, model: settings.model }, settings.api);
  body['model'] = settings.model;
  body['max_tokens'] = settings.maxAnswerTokens;
  body['temperature'] = settings.temperature;
  if (question && input.tools.length > 0) body['tool_choice'] = settings.api === 'openai' ? 'none' : { type: 'none' };
  return body;
}

/** Estimated tokens of a body: its JSON text at 4 characters a token (an estimate, said as one). */
export const bodyTokens = (body: unknown): number => Math.ceil(JSON.stringify(body).length / 4);

/** The steps `--at` names: a call number, the first compression, or every compression. */
export function probeSteps(result: ReplayResult, at: string): number[] {
  const compressions = [...new Set(result.events.filter((e) => e.kind === 'compression').map((e) => e.step))].sort((a, b) => a - b);
  if (at === 'next-compression') {
    if (compressions.length === 0)
      throw new ProbeError(
        '--at next-compression: this replay never compresses (choose a call number, or a policy or window that compresses)',
      );
    return [compressions[0]!];
  }
  if (at === 'compressions') {
    if (compressions.length === 0) throw new ProbeError('--at compressions: this replay never compresses');
    return compressions;
  }
  if (!/^\d+$/.test(at)) throw new ProbeError(`--at: expected a call number, "next-compression" or "compressions", got "${at}"`);
  const step = Number(at);
  if (step >= result.steps.count)
    throw new ProbeError(`--at ${step}: this replay has ${result.steps.count} calls (0–${result.steps.count - 1})`);
  return [step];
}

/**
 * The plan at `step`. Questions: `auto` from the "needed later" items of every ledger up to the
 * call (what left the view by then), or the user's own.
 */
export function planProbe(
  session: Session,
  result: ReplayResult,
  step: number,
  settings: ProbeSettings,
  questions: 'auto' | readonly ProbeQuestion[],
): ProbePlan {
  const k = result.steps.messageIndex[step]!;
  const original = originalInput(session, k, settings.model);
  const w = windowAt(result, session.messages, step);
  const policy: ExportInput = {
    model: settings.model,
    systemPrompt: session.systemPrompt,
    summary: w.summary,
    tools: session.tools,
    messages: w.messages,
  };
  const ledgers = questions === 'auto' ? lossLedgers(result, session).filter((l) => l.step <= step) : [];
  // The ledger at this very call is the step detail's; earlier ones are what left before.
  if (questions === 'auto' && ledgers.length === 0) ledgers.push(...ledgersAtStep(result, session, step));
  const qs = questions === 'auto' ? questionsFrom(ledgers, session.messages) : [...questions];
  const inputs = { original, policy };
  return {
    step,
    messageIndex: k,
    inputs,
    questions: qs,
    recorded: recordedAction(session.messages[k]),
    estimate: estimate(inputs, qs, settings),
  };
}

/** Tokens and cost of the whole probe: every side × replicate × (next action + each question). */
export function estimate(
  inputs: Readonly<Record<ProbeSide, ExportInput>>,
  questions: readonly ProbeQuestion[],
  settings: ProbeSettings,
): ProbeEstimate {
  const contextTokens = { original: bodyTokens(bodyFor(inputs.original, settings)), policy: bodyTokens(bodyFor(inputs.policy, settings)) };
  const perContext = 1 + questions.length;
  const questionTokens = questions.reduce((n, q) => n + Math.ceil(q.text.length / 4) + 30, 0);
  let inputTokens = 0;
  for (const side of PROBE_SIDES) inputTokens += settings.replicates * (perContext * contextTokens[side] + questionTokens);
  const requests = PROBE_SIDES.length * settings.replicates * perContext;
  const outputTokens = requests * settings.maxAnswerTokens;
  const model = lookupModel(settings.model);
  const cost = model ? callCost(model, inputTokens, 0, outputTokens) : null;
  const summary = `${requests} requests to ${settings.endpoint} (${settings.model}): the system prompt, the conversation up to the call (${contextTokens.original.toLocaleString('en-US')} tokens as the agent sent it, ${contextTokens.policy.toLocaleString('en-US')} under the policy), the tool definitions and ${questions.length} question${questions.length === 1 ? '' : 's'}, ${settings.replicates} times each — about ${inputTokens.toLocaleString('en-US')} input tokens and at most ${outputTokens.toLocaleString('en-US')} output tokens, ${cost === null ? `price of ${settings.model} unknown (a local model costs nothing per token)` : `about $${cost.toFixed(4)}`}`;
  const judge = settings.judge ? judgeEstimate(settings.judge, questions, settings.replicates, settings.maxAnswerTokens) : undefined;
  return { contextTokens, requests, inputTokens, outputTokens, cost, summary, ...(judge ? { judge } : {}) };
}
