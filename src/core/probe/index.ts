/** The counterfactual probe (docs/probe.md): plan (pure), client (HTTP through an injected fetch), run, statistics. */
export * from './types';
export { wilson, verdict, type Interval, type Verdict } from './stats';
export { questionsFrom, scoreAnswer, MAX_QUESTIONS } from './questions';
export { planProbe, probeSteps, originalInput, bodyFor, estimate, ProbeError, type ProbePlan } from './plan';
export { probeClient, type ProbeClient, type ProbeReply, type ProbeClientOptions } from './client';
export { runProbe, compareAction, textSimilarity, type RunOptions } from './run';
export { judgeBody, judgePrompt, judgeEstimate, parseGrade, JUDGE_INSTRUCTIONS, JUDGE_MAX_TOKENS } from './judge';
