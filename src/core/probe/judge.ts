/**
 * The optional judge (docs/probe.md §Judge): when the user names a judge endpoint and model, each
 * recall answer is also graded by that model, correct or incorrect, beside the deterministic match
 * (./questions.ts scoreAnswer), which stays the probe's first score. Correct/incorrect rather than a
 * 0–5 scale because the tallies are k of N with Wilson intervals (./stats.ts): a grade must be a
 * success or not, and a scale would need a threshold the user cannot see. The judge is sent only
 * the question, the item's value as the transcript wrote it and the answer — never the transcript.
 */
import { callCost, lookupModel } from '../catalog';
import type { JudgeEstimate, JudgeSettings, ProbeQuestion } from './types';

/** Most tokens the judge may answer with: one word, with room for a model that adds a sentence. */
export const JUDGE_MAX_TOKENS = 16;

/** The instructions, fixed so that every grade of a run is asked the same way. */
export const JUDGE_INSTRUCTIONS =
  'You grade answers to recall questions about a conversation. The reference is the fact exactly as the conversation stated it. ' +
  'An answer is CORRECT when it gives that fact (other wording, a shorter form of a path or a name that identifies the same thing, or extra words are fine) ' +
  'and INCORRECT when it gives another fact, several candidates, or none. Reply with one word: CORRECT or INCORRECT.';

export function judgePrompt(question: ProbeQuestion, answer: string): string {
  return `${JUDGE_INSTRUCTIONS}\n\nQuestion: ${question.text}\nReference: ${question.expected}\nAnswer: ${answer}\n\nGrade:`;
}

/** The request body for one grade, in the judge endpoint's protocol, at temperature 0. */
export function judgeBody(settings: JudgeSettings, question: ProbeQuestion, answer: string): Record<string, unknown> {
  const prompt = judgePrompt(question, answer);
  return { model: settings.model, max_tokens: JUDGE_MAX_TOKENS, temperature: 0, messages: [{ role: 'user', content: prompt }] };
}

export class JudgeMalformed extends Error {}

/** The grade in a judge's reply: INCORRECT is looked for first (it contains CORRECT); neither is a malformed grade. */
export function parseGrade(text: string): boolean {
  if (/\bincorrect\b/i.test(text)) return false;
  if (/\bcorrect\b/i.test(text)) return true;
  throw new JudgeMalformed(`the judge answered neither CORRECT nor INCORRECT: "${text.slice(0, 80)}"`);
}

/**
 * What grading sends: one request per answer to a question (sides × replicates × questions), each
 * the instructions, the question, the reference and an answer of at most `maxAnswerTokens`.
 */
export function judgeEstimate(
  settings: JudgeSettings,
  questions: readonly ProbeQuestion[],
  replicates: number,
  maxAnswerTokens: number,
): JudgeEstimate {
  const requests = 2 * replicates * questions.length;
  let inputTokens = 0;
  for (const q of questions) inputTokens += 2 * replicates * (Math.ceil(judgePrompt(q, '').length / 4) + maxAnswerTokens + 20);
  const outputTokens = requests * JUDGE_MAX_TOKENS;
  const model = lookupModel(settings.model);
  const cost = model ? callCost(model, inputTokens, 0, outputTokens) : null;
  const summary = `${requests} grading requests to ${settings.endpoint} (${settings.model}): each a question, the item's value and one answer, no transcript — about ${inputTokens.toLocaleString('en-US')} input tokens, ${cost === null ? `price of ${settings.model} unknown` : `about $${cost.toFixed(4)}`}`;
  return { requests, inputTokens, outputTokens, cost, summary };
}
