/**
 * A proactive compression's reason is kept as numbers and worded when read (steps.ts,
 * DeferredReason). Whichever way it is read — one step through `stepReason`, all of them through
 * `steps.reasons`, a copy grown for a live tail — the text is the one the step was given, and the
 * JSON of a result does not depend on what was read first.
 */
import { describe, expect, it } from 'vitest';
import { replay, stepReason, toCliJSON } from '../../../src/core/replay/index';
import type { ReplayResult } from '../../../src/core/replay/types';
import { STEP_STATUSES } from '../../../src/core/replay/types';
import { extractiveSummarizer } from '../../../src/core/summarize/extractive';
import type { Summarizer } from '../../../src/core/summarize/types';
import { syntheticSession } from '../../bench/corpus';
import { policy } from '../../helpers/replay';
import { reasonTemplates, StepArrays } from '../../../src/core/replay/steps';
import { compactionWords, warnWords } from '../../../src/core/replay/proactive';
import { budgetWords } from '../../../src/core/replay/budgets';
import fc from 'fast-check';
import { int, pct, type DeferredReason, type ReplayState, type StepDecision } from '../../../src/core/replay/state';

const session = syntheticSession(400);
const cases = [
  // An event-count condenser compressing at (nearly) every call: "N messages > 20, …".
  {
    name: 'openhands-recent',
    config: policy('openhands-recent', { triggerMessages: 20 }),
    why: /^\d+ messages > 20, compaction applied: [\d,]+ before → [\d,]+ after$/,
  },
  {
    name: 'openhands-masking',
    config: policy('openhands-masking', { triggerMessages: 20, attentionWindow: 20 }),
    why: /^\d+ messages > 20, compaction applied: [\d,]+ before → [\d,]+ after$/,
  },
  // A token trigger on the window (S2's status text) and on another basis.
  {
    name: 's2',
    config: policy('s2', { window: 6_000, trigger: 0.5 }),
    why: /^context window at \d+% capacity \([\d,]+\/[\d,]+ tokens\), compaction applied: [\d,]+ before → [\d,]+ after$/,
  },
  {
    name: 'limit basis',
    config: policy('s2', { window: 20_000, maxOutput: 4_000, buffer: 1_000, trigger: 0.3, triggerBasis: 'limit' }),
    why: /^\d+% of [a-z ]+ \([\d,]+\/[\d,]+ tokens\), compaction applied: [\d,]+ before → [\d,]+ after$/,
  },
];

const compressSteps = (r: ReplayResult): number[] => {
  const out: number[] = [];
  for (let i = 0; i < r.steps.count; i++) if (STEP_STATUSES[r.steps.status[i]!] === 'compress') out.push(i);
  return out;
};

/** What StepArrays.record reads of the state: the window's history and kept list, the counts and limits. */
const recordState = {
  counts: { system: 0, unlogged: 0, tools: 0 },
  summaryTokens: 0,
  limits: { window: 100, maxOutput: 10, buffer: 0 },
  win: { historyTokens: () => 50, keepBefore: [], from: 0 },
} as unknown as ReplayState;

describe('deferred reasons', () => {
  it('a soft budget: each warning worded from its figures, the first exceeded one as its event says', async () => {
    const config = policy('s3', { tokenizer: 'chars4', window: 64_000, budget: { tokens: 400_000, mode: 'soft', warningThreshold: 0.5 } });
    const big = syntheticSession(1_200);
    const r = await replay(big, config);
    const warned: number[] = [];
    for (let i = 0; i < r.steps.count; i++) if (STEP_STATUSES[r.steps.status[i]!] === 'warn') warned.push(i);
    const texts = warned.map((i) => stepReason(r.steps, i));
    expect(texts.filter((t) => /^session tokens budget at \d+% \([\d,]+ of 400,000\)$/.test(t)).length).toBeGreaterThan(20);
    const exceeded = texts.filter((t) => /^session tokens budget exceeded \([\d,]+ of 400,000; soft mode\)$/.test(t));
    expect(exceeded.length).toBeGreaterThan(20);
    const event = r.events.find((e) => e.kind === 'warning' && e.text.startsWith('session tokens budget exceeded'));
    expect(event?.kind === 'warning' && event.text).toBe(exceeded[0]);
    // Read through the list on a fresh result: the same texts.
    const again = await replay(big, config);
    expect(warned.map((i) => again.steps.reasons[again.steps.reasonIndex[i]!])).toEqual(texts);
  });

  it('over the trigger with nothing to compress: each warning worded when read, as it was worded at the call', async () => {
    // Letta's trigger below its target: after compressing to the target it is still over the
    // trigger, so most calls warn, each with its own numbers.
    const config = policy('letta', { tokenizer: 'chars4', window: 8_000, maxOutput: 1_000, trigger: 0.4 });
    const one = await replay(session, config);
    // The config asked for this window: the trigger's basis (letta's is the window).
    const window = 8_000;
    const warned: number[] = [];
    for (let i = 0; i < one.steps.count; i++) if (STEP_STATUSES[one.steps.status[i]!] === 'warn') warned.push(i);
    expect(warned.length).toBeGreaterThan(100);
    // The sentence the call used to format (proactive.ts before the reason was deferred), from the step's own numbers.
    const said = (i: number): string => {
      const request = one.steps.total[i]!;
      return `context window at ${pct(request, window)} capacity (${int(request)}/${int(window)} tokens): over the trigger ${int(one.steps.trigger[i]!)} with nothing left to compress outside the protected messages`;
    };
    const alone = stepReason(one.steps, warned[50]!);
    expect(alone).toBe(said(warned[50]!));
    for (const i of warned) expect(stepReason(one.steps, i)).toBe(said(i));
    const all = await replay(session, config);
    expect(Array.from(all.steps.reasonIndex, (x) => all.steps.reasons[x] ?? '')).toEqual(
      Array.from({ length: one.steps.count }, (_, i) => stepReason(one.steps, i)),
    );
    expect(JSON.stringify(toCliJSON(one))).toBe(JSON.stringify(toCliJSON(all)));
  });

  it('a call with the same deferred reason as the call before shares its index; another reason takes a new one', () => {
    const words = (n: ArrayLike<number>, at: number, name: string): string => `${name} ${n[at]} ${n[at + 1]}`;
    const reason = (n0: number, n1: number): DeferredReason => ({ words, n0, n1, n2: 0, n3: 0, n4: 0, n5: 0, name: 'r' });
    const out = new StepArrays(6, NaN);
    const decided = (deferred: DeferredReason | undefined, text = ''): StepDecision => ({
      status: 'warn',
      reason: text,
      deferred,
      limit: 100,
      model: undefined,
    });
    out.record(recordState, 0, 0, 50, decided(reason(1, NaN)));
    out.record(recordState, 1, 0, 50, decided(reason(1, NaN)));
    out.record(recordState, 2, 0, 50, decided(reason(2, NaN)));
    out.record(recordState, 3, 0, 50, decided(undefined, 'plain text'));
    out.record(recordState, 4, 0, 50, decided(reason(2, NaN)));
    out.record(recordState, 5, 0, 50, decided(reason(2, 5)));
    const steps = out.result(new Uint32Array(6), new Uint32Array(6));
    const idx = Array.from(steps.reasonIndex);
    expect(idx[1]).toBe(idx[0]);
    expect(new Set([idx[0], idx[2], idx[3], idx[4], idx[5]]).size).toBe(5);
    expect(Array.from({ length: 6 }, (_, i) => stepReason(steps, i))).toEqual([
      'r 1 NaN',
      'r 1 NaN',
      'r 2 NaN',
      'plain text',
      'r 2 NaN',
      'r 2 5',
    ]);
  });

  it('a template known without wording is the template of the words (property)', () => {
    // Numbers of every kind the words write differently (NaN, negative, -0, fractions, huge) among plain ones.
    const num = fc.oneof(
      fc.nat(2_000_000),
      fc.nat(2_000_000),
      fc.double({ noNaN: false }),
      fc.constantFrom(NaN, -0, 0, -1, 0.5, 999.5, 1e21, 2 ** 53, Infinity),
    );
    // n0, n1 and n2 as each words take them: warnWords and compactionWords read n2 as whyOf's kind;
    // budgetWords n0 as what it says and n1 as the dimension (out of range too), n2 and n3 as
    // figures (money and minutes with fractions, odd budgets such as 1e-7 or 0.123).
    const figure = fc.oneof(num, fc.double({ min: 0, max: 50, noNaN: true }), fc.constantFrom(1e-7, 0.123, 0.02, 2, 30, 12.25));
    const numbers = fc.oneof(
      fc.tuple(num, num, fc.constantFrom(0, 1, 2, 3), num, num, num),
      fc.tuple(fc.constantFrom(0, 1, 2, 3, 0.5), fc.constantFrom(0, 1, 2, 3, 4, 5, -1), figure, figure, num, num),
    );
    const name = fc.constantFrom('window', 'limit', '', ' x ', 'max 2 tokens', 'session', 'agent');
    const ofText = (t: string): string => t.replace(/\d[\d,.]*/g, '#');
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.constantFrom(warnWords, compactionWords, budgetWords), numbers, name), { minLength: 1, maxLength: 8 }),
        (reasons) => {
          const out = new StepArrays(reasons.length, NaN);
          reasons.forEach(([words, [n0, n1, n2, n3, n4, n5], nm], j) =>
            out.record(recordState, j, 0, 50, {
              status: 'warn',
              reason: '',
              deferred: { words, n0, n1, n2, n3, n4, n5, name: nm },
              limit: 100,
              model: undefined,
            }),
          );
          const steps = out.result(new Uint32Array(reasons.length), new Uint32Array(reasons.length));
          // Templates first (nothing worded yet), then the words.
          const templateOf = reasonTemplates(steps, ofText);
          const templates = reasons.map((_, j) => templateOf(steps.reasonIndex[j]!));
          expect(templates).toEqual(reasons.map((_, j) => ofText(stepReason(steps, j))));
        },
      ),
      { numRuns: 3000 },
    );
  });

  for (const c of cases)
    it(`${c.name}: worded one by one or all at once, each compress step has its own reason`, async () => {
      const one = await replay(session, c.config);
      const steps = compressSteps(one);
      expect(steps.length).toBeGreaterThan(5);
      // One step read alone first (the step detail's way), then every other.
      const alone = stepReason(one.steps, steps[5]!);
      expect(alone).toMatch(c.why);
      const byStep = Array.from({ length: one.steps.count }, (_, i) => stepReason(one.steps, i));
      for (const i of steps) expect(byStep[i]).toMatch(c.why);
      expect(byStep[steps[5]!]).toBe(alone);
      // The contract readers use, on a result nobody read before: the same texts.
      const all = await replay(session, c.config);
      const viaList = Array.from(all.steps.reasonIndex, (x) => all.steps.reasons[x] ?? '');
      expect(viaList).toEqual(byStep);
      // The JSON does not depend on the order of reading.
      expect(JSON.stringify(toCliJSON(one))).toBe(JSON.stringify(toCliJSON(all)));
    });
});

/**
 * A compression waits for its summary only when the summarizer answers later (a remote one): the
 * same summaries arriving at once or as promises give the same replay, through every path that
 * compresses (S0's async and proactive paths, a summarizing condenser).
 */
describe('a summary that arrives later', () => {
  const later: Summarizer = { id: 'later', model: 'm', prompt: '', summarize: async (req) => extractiveSummarizer.summarize(req) };
  const atOnce: Summarizer = { ...extractiveSummarizer, id: 'at-once' };
  for (const [name, config] of [
    ['s0', policy('s0', { window: 8_000, maxOutput: 1_000 })],
    ['openhands-summary', policy('openhands-summary', { triggerMessages: 30 })],
  ] as const)
    it(`${name}: gives the replay a summary at once gives`, async () => {
      const a = await replay(session, config, { summarizer: atOnce });
      const b = await replay(session, config, { summarizer: later });
      expect(a.events.filter((e) => e.kind === 'compression').length).toBeGreaterThan(3);
      expect(JSON.stringify(toCliJSON(b))).toBe(JSON.stringify(toCliJSON(a)));
    });
});
