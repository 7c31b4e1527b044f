/**
 * The replay worker's idle-time preparation (main/host/replay-prewarm.ts, summarize/extractive.ts
 * `prepareMessageList`): a message list laid out a slice at a time — interrupted by requests and
 * resumed — must give the very summaries a list never prepared gives, and must be used for folds
 * only once whole.
 */
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { summaryTextCounter } from '../../../src/core/replay/summary-tokens';
import { extractiveSummary, extractiveSummaryText, prepareMessageList } from '../../../src/core/summarize/extractive';
import { getTokenizer } from '../../../src/core/tokens/index';
import { shapeOf } from '../../../src/core/replay/setup';
import { exchangesKnown, exchangesOfTurn, exchangeStarts } from '../../../src/core/turns';
import { createPrewarm, warmUpOrder, warmUpOverrides, type WarmOutcome } from '../../../src/main/host/replay-prewarm';
import { POLICIES } from '../../../src/core/policies/index';
import { configFor, policyOf } from '../../../src/main/host/replays';
import { assistant, call, msg, result, session, user } from '../../helpers/session';

/** Items that repeat across messages (the dedupe matters), an error result, decisions, paths. */
function list(n = 60, salt = ''): Message[] {
  const out: Message[] = [];
  for (let i = 0; i < n; i++) {
    const file = `src/pkg${i % 4}${salt}/mod${i % 6}.ts`;
    if (i % 5 === 0) out.push(user(`Please fix parseConfig${i % 3} in ${file}, limit ${1000 + (i % 7)}.`));
    out.push(
      assistant([
        { kind: 'text', text: i % 3 === 0 ? `I decided to switch the parser because step ${i % 4} fails.` : `Looking at ${file} now.` },
        call(`c${i}`, 'Read', JSON.stringify({ file_path: file })),
      ]),
    );
    out.push(
      msg('user', [
        result(`c${i}`, i % 4 === 0 ? `TypeError: x is undefined at ${file}:${i % 9}\nmore` : `ok ${i % 5}\n`.repeat(3), i % 8 === 0),
      ]),
    );
  }
  return out;
}

/**
 * Every run [a, b) of `xs` (a stride of them), summarized with and without an earlier summary;
 * `named`: each run named as the replay names its folds (FoldSource), so that it is read from the
 * list's layout — else each message's items are read (the path every other fold takes).
 */
function summaries(xs: readonly Message[], targetTokens = 200, named = true): string[] {
  const out: string[] = [];
  for (let a = 0; a < xs.length; a += 7) {
    for (let b = a + 1; b <= xs.length; b += 11) {
      const previousSummary = a % 2 === 0 ? null : extractiveSummary({ messages: xs.slice(0, a), previousSummary: null, targetTokens });
      const run = { messages: xs.slice(a, b), previousSummary, targetTokens };
      out.push(extractiveSummary(named ? { ...run, source: { list: xs, from: a } } : run));
    }
  }
  return out;
}

/** A scheduler the test runs by hand: each `later` queues a slice. */
function manual(): { later: (run: () => void) => void; runOne: () => boolean; pending: () => number } {
  const queue: (() => void)[] = [];
  return {
    later: (run) => void queue.push(run),
    runOne: () => {
      const next = queue.shift();
      next?.();
      return next !== undefined;
    },
    pending: () => queue.length,
  };
}

describe('prepareMessageList', () => {
  it('lays a list out a slice at a time, and the summaries of its runs are those of a list never prepared', () => {
    const plain = list();
    const laid = list();
    let slices = 1;
    // One message per slice: the most slices there can be.
    while (!prepareMessageList(laid, () => true)) slices++;
    expect(slices).toBe(laid.length);
    expect(prepareMessageList(laid, () => true)).toBe(true);
    expect(summaries(laid)).toEqual(summaries(plain, 200, false));
  });

  it('lays two lists out in alternating slices as each would be alone', () => {
    const plain = list(400);
    const one = list(400);
    const two = list(400);
    let oneDone = false;
    let twoDone = false;
    while (!oneDone || !twoDone) {
      if (!oneDone) oneDone = prepareMessageList(one, () => true);
      if (!twoDone) twoDone = prepareMessageList(two, () => true);
    }
    // A target that holds every item: a mention wrongly taken for its item's newest would show twice.
    const want = summaries(plain, 20_000, false);
    expect(summaries(one, 20_000)).toEqual(want);
    expect(summaries(two, 20_000)).toEqual(want);
  });

  it('a half-prepared list summarizes as one never prepared (a fold past its end lays it out further), and finishing it changes nothing', () => {
    const plain = list();
    const half = list();
    for (let k = 0; k < half.length / 2; k++) expect(prepareMessageList(half, () => true)).toBe(false);
    const want = summaries(plain, 200, false);
    expect(summaries(half)).toEqual(want);
    while (!prepareMessageList(half, () => true));
    expect(summaries(half)).toEqual(want);
  });
});

describe('replay prewarm', () => {
  it('prepares the list in slices on later turns and stops when a request interrupts, then goes on when idle again', async () => {
    const xs = list(200);
    const sched = manual();
    const prewarm = createPrewarm({ sliceMs: 0, later: sched.later, rehearsalMs: 0 });
    prewarm.idle('s', xs);
    // Nothing runs synchronously: the answer that made the worker idle is sent first.
    expect(sched.pending()).toBe(1);
    for (let k = 0; k < 5; k++) expect(sched.runOne()).toBe(true);
    prewarm.interrupt();
    // The slice queued before the interrupt does nothing and queues nothing more.
    sched.runOne();
    expect(sched.pending()).toBe(0);
    await prewarm.settled;
    expect(prepareMessageList(xs, () => true)).toBe(false);
    prewarm.idle('s', xs);
    let turns = 0;
    while (sched.runOne()) turns++;
    await prewarm.settled;
    // It went on where it stopped and finished: nothing is left to prepare.
    expect(turns).toBeGreaterThan(10);
    expect(prepareMessageList(xs, () => true)).toBe(true);
    expect(summaries(xs)).toEqual(summaries(list(200), 200, false));
  });

  it('prepares a session once: the grown list a live-tail append hands over is not laid out again', async () => {
    const xs = list(20);
    const sched = manual();
    const prewarm = createPrewarm({ sliceMs: 1_000, later: sched.later, rehearsalMs: 0 });
    prewarm.idle('s', xs);
    while (sched.runOne());
    await prewarm.settled;
    expect(prepareMessageList(xs, () => true)).toBe(true);
    const grown = [...xs, ...list(5)];
    prewarm.idle('s', grown);
    expect(sched.pending()).toBe(0);
    expect(prepareMessageList(grown, () => true)).toBe(false);
    // Folds of the grown list (inside the old one, or reaching past it) summarize as before.
    expect(summaries(grown)).toEqual(summaries([...list(20), ...list(5)], 200, false));
    // Another session is prepared.
    const other = list(10);
    prewarm.idle('t', other);
    while (sched.runOne());
    await prewarm.settled;
    expect(prepareMessageList(other, () => true)).toBe(true);
  });

  it('then rehearses the summarizer for its time budget, once per worker, on later turns like the rest', async () => {
    // Turns taken to prepare a list alone, and with a rehearsal after it.
    const turnsOf = async (rehearsalMs: number): Promise<{ turns: number; again: number }> => {
      const xs = list(200);
      const sched = manual();
      const prewarm = createPrewarm({ sliceMs: 0, later: sched.later, rehearsalMs });
      prewarm.idle('s', xs, 'tiktoken:o200k_base');
      let turns = 0;
      const t0 = performance.now();
      while (sched.runOne()) {
        turns++;
        expect(performance.now() - t0).toBeLessThan(10_000);
      }
      await prewarm.settled;
      expect(prepareMessageList(xs, () => true)).toBe(true);
      // Once per worker: idle again (this session or another already prepared) schedules nothing.
      prewarm.idle('s', xs, 'tiktoken:o200k_base');
      return { turns, again: sched.pending() };
    };
    const plain = await turnsOf(0);
    const rehearsed = await turnsOf(20);
    expect(plain.turns).toBeGreaterThan(list(200).length);
    expect(rehearsed.turns).toBeGreaterThan(plain.turns);
    expect([plain.again, rehearsed.again]).toEqual([0, 0]);
    // Nothing it wrote changed what a summary of the list is.
    const xs = list(200);
    const prewarm = createPrewarm({ sliceMs: 5, rehearsalMs: 20 });
    prewarm.idle('s', xs, 'tiktoken:o200k_base');
    await new Promise((r) => setTimeout(r, 50));
    await prewarm.settled;
    expect(summaries(xs)).toEqual(summaries(list(200), 200, false));
  });

  it('counts the prepared items ahead with a BPE tokenizer, so a summary of them is counted with fewer encodings and to the same count', async () => {
    // Each case its own items (salted), so one case's counts are not the other's.
    const countCalls = async (tokenizer: string, salt: string): Promise<{ calls: number; count: number; exact: number }> => {
      const xs = list(120, salt);
      const sched = manual();
      const prewarm = createPrewarm({ sliceMs: 1_000, later: sched.later, rehearsalMs: 0 });
      prewarm.idle('s', xs, tokenizer);
      while (sched.runOne());
      await prewarm.settled;
      const bpe = getTokenizer('tiktoken:o200k_base');
      const countText = bpe.countText.bind(bpe);
      let calls = 0;
      bpe.countText = (text: string): number => {
        calls++;
        return countText(text);
      };
      try {
        const summary = extractiveSummaryText({ messages: xs.slice(10, 200), previous: null, targetTokens: 20_000 });
        const count = summaryTextCounter('tiktoken:o200k_base')(summary);
        return { calls, count, exact: countText(summary.text) };
      } finally {
        bpe.countText = countText;
      }
    };
    const ahead = await countCalls('tiktoken:o200k_base', '-a');
    const cold = await countCalls('chars4', '-b');
    expect(ahead.count).toBe(ahead.exact);
    expect(cold.count).toBe(cold.exact);
    // The same items but for the salt: as many pieces to count, most of them counted ahead.
    expect(cold.calls).toBeGreaterThan(10);
    expect(ahead.calls).toBeLessThan(cold.calls / 2);
  });

  it('after a chart: prepares the session the worker holds, and a session it cannot find (or a config that fails) ends nothing', async () => {
    const s = session(list(30), { id: 'x' });
    const sched = manual();
    const prewarm = createPrewarm({ sliceMs: 1_000, later: sched.later, rehearsalMs: 0 });
    const inputs = {
      sessionId: 'x',
      policy: { id: 'letta', config: { policy: 'letta', trigger: 0.9, target: 0.7, pipeline: ['summarize' as const] } },
      overrides: {},
      needles: [],
      pins: [],
    };
    expect(() =>
      prewarm.afterChart(() => {
        throw new Error('no session with id "x"');
      }, inputs),
    ).not.toThrow();
    expect(() => prewarm.afterChart(() => s, { ...inputs, overrides: { trigger: 'high' } })).not.toThrow();
    expect(sched.pending()).toBe(0);
    prewarm.afterChart(() => s, inputs);
    while (sched.runOne());
    await prewarm.settled;
    expect(prepareMessageList(s.messages, () => true)).toBe(true);
  });

  it("works out every turn's exchange starts in the idle time, as a replay cutting within turns would", async () => {
    const xs = list(120);
    const { starts } = shapeOf(xs);
    expect(starts.length).toBeGreaterThan(10);
    expect(exchangesKnown(xs, starts)).toBe(0);
    const sched = manual();
    const prewarm = createPrewarm({ sliceMs: 0, later: sched.later, rehearsalMs: 0 });
    prewarm.idle('s', xs);
    while (sched.runOne());
    await prewarm.settled;
    expect(exchangesKnown(xs, starts)).toBe(starts.length);
    // What it kept is what each turn's exchange starts are.
    starts.forEach((a, t) => expect(exchangesOfTurn(xs, starts, t)).toEqual(exchangeStarts(xs, a, starts[t + 1] ?? xs.length)));
  });

  it("warms each policy up once after its chart; the warm-up setting moves the policy's own trigger", async () => {
    const xs = list(40);
    const sched = manual();
    const order: string[] = [];
    const prewarm = createPrewarm({
      sliceMs: 1_000,
      later: sched.later,
      rehearsalMs: 0,
      whenStillIdle: sched.later,
      warm: async (inputs) => {
        order.push(`warm ${inputs.policy.id}`);
        return 'done';
      },
    });
    const chart = (policy: string): void =>
      prewarm.afterChart(() => session(xs), { sessionId: 's', policy: policyOf(policy), overrides: {}, needles: [], pins: [] });
    chart('letta');
    while (sched.runOne());
    await prewarm.settled;
    await new Promise((r) => setTimeout(r, 0));
    chart('letta');
    await new Promise((r) => setTimeout(r, 0));
    // Another policy (counted with another tokenizer: its counting ahead runs first).
    chart('s0');
    while (sched.runOne());
    await prewarm.settled;
    await new Promise((r) => setTimeout(r, 0));
    expect(order).toEqual(['warm letta', 'warm s0']);
    // The setting, dragged far (by hand from the presets, policies/index.ts):
    // openhands-summary's 100 messages halved → 50;
    expect(warmUpOverrides(configFor('openhands-summary', {}))).toEqual({ triggerMessages: 50 });
    // Claude Code's target 0.15 doubled → 0.3, and never past 0.9 (0.6 × 2 = 1.2 → 0.9);
    expect(warmUpOverrides(configFor('claude-code', {}))).toEqual({ target: 0.3 });
    expect(warmUpOverrides(configFor('claude-code', { target: 0.6 }))).toEqual({ target: 0.9 });
    // a ratio trigger halved, its target lowered by 15 % (to thousandths): s0 1 → 0.5 and
    // 0.5 → 0.425; letta 0.9 → 0.45 and 0.7 → 0.595; a trigger overridden to 0.5 → 0.25.
    expect(warmUpOverrides(configFor('s0', {}))).toEqual({ trigger: 0.5, target: 0.425 });
    expect(warmUpOverrides(configFor('letta', {}))).toEqual({ trigger: 0.45, target: 0.595 });
    expect(warmUpOverrides(configFor('letta', { trigger: 0.5 }))).toEqual({ trigger: 0.25, target: 0.595 });
    // A message count never below 2 (3 → 1.5 → 2).
    expect(warmUpOverrides(configFor('openhands-summary', { triggerMessages: 3 }))).toEqual({ triggerMessages: 2 });
  });

  it("warms the other policies after the chart's own, each once; a waiting request stops the chain, which goes on at the next idle time", async () => {
    const xs = list(40);
    const sched = manual();
    const order: string[] = [];
    // What each warm-up answers, by policy, in turn (then 'done').
    const script = new Map<string, WarmOutcome[]>([
      ['s2', ['request']],
      ['s3', ['skipped', 'skipped']],
    ]);
    const prewarm = createPrewarm({
      sliceMs: 1_000,
      later: sched.later,
      rehearsalMs: 0,
      whenStillIdle: sched.later,
      warm: async (inputs, own) => {
        order.push(`${own ? 'own' : 'other'} ${inputs.policy.id}`);
        return script.get(inputs.policy.id)?.shift() ?? 'done';
      },
      alsoWarm: (inputs) =>
        ['letta', 's2', 's3', 's4'].filter((id) => id !== inputs.policy.id).map((id) => ({ ...inputs, policy: policyOf(id) })),
    });
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 20; i++) {
        while (sched.runOne());
        await new Promise((r) => setTimeout(r, 0));
      }
    };
    const sessionOf = (): ReturnType<typeof session> => session(xs);
    prewarm.afterChart(sessionOf, { sessionId: 's', policy: policyOf('letta'), overrides: {}, needles: [], pins: [] });
    await settle();
    // s2 answered 'request': the chain stopped there, s3 and s4 untouched.
    expect(order).toEqual(['own letta', 'other s2']);
    // A request answered while the worker waits to be still idle: no warm-up starts for that idle time.
    prewarm.interrupt();
    prewarm.resume(sessionOf);
    prewarm.interrupt();
    await settle();
    expect(order).toEqual(['own letta', 'other s2']);
    // A request was answered (a step's detail): the chain goes on from s2; s3 could not run.
    prewarm.interrupt();
    prewarm.resume(sessionOf);
    await settle();
    expect(order).toEqual(['own letta', 'other s2', 'other s2', 'other s3', 'other s4']);
    // Each next idle time: only what was skipped is tried again (until it runs); what ran is not.
    prewarm.resume(sessionOf);
    await settle();
    expect(order.slice(5)).toEqual(['other s3']);
    prewarm.resume(sessionOf);
    await settle();
    expect(order.slice(6)).toEqual(['other s3']);
    prewarm.resume(sessionOf);
    await settle();
    expect(order.slice(7)).toEqual([]);
    // s4 picked: warmed before as another's, it is warmed again as its own (once); the others are
    // not — letta included, warmed as its own at the start, which counts as another's too.
    prewarm.afterChart(sessionOf, { sessionId: 's', policy: policyOf('s4'), overrides: {}, needles: [], pins: [] });
    await settle();
    expect(order.slice(7)).toEqual(['own s4']);
    prewarm.afterChart(sessionOf, { sessionId: 's', policy: policyOf('s4'), overrides: {}, needles: [], pins: [] });
    await settle();
    expect(order.slice(8)).toEqual([]);
    // s2 picked: the same.
    prewarm.afterChart(sessionOf, { sessionId: 's', policy: policyOf('s2'), overrides: {}, needles: [], pins: [] });
    await settle();
    expect(order.slice(8)).toEqual(['own s2']);
  });

  it('orders the other policies for warming up: those writing summaries first, the list order otherwise', () => {
    const ordered = warmUpOrder(POLICIES).map((p) => p.id);
    expect([...ordered].sort()).toEqual(POLICIES.map((p) => p.id).sort());
    // By hand from each preset's pipeline (the strategies whose descriptor summarizes: summarize, primers-recents,
    // head-tail) and its summarizer ('none' for OpenHands' recent, masking and amortized presets):
    expect(ordered).toEqual([
      's0',
      's3',
      's4',
      'claude-code',
      'codex',
      'openhands-summary',
      'letta',
      's1',
      's2',
      'openhands-recent',
      'openhands-masking',
      'openhands-amortized',
    ]);
  });

  it('does nothing more for a list already prepared', async () => {
    const xs = list(20);
    while (!prepareMessageList(xs, () => false));
    const sched = manual();
    // A slice long enough for what is left (the turns' exchange starts of 20 messages): with the
    // default 2 ms a loaded machine (CI) needed a second slice, and the test failed on timing.
    const prewarm = createPrewarm({ sliceMs: 1_000, later: sched.later, rehearsalMs: 0 });
    prewarm.idle('s', xs);
    expect(sched.runOne()).toBe(true);
    expect(sched.pending()).toBe(0);
    await prewarm.settled;
  });
});
