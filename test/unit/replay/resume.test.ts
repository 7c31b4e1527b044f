/**
 * A replay continued over a live-tail append (core/replay/resume.ts) is the full replay of the
 * grown session. The oracle: random sessions × every built-in policy (and its trigger at 0.4) ×
 * random split points, grown by 1–3 successive appends, sometimes with the last message written
 * again (the last response extended); each version's result — continued where resume.ts allows
 * it, else replayed whole as the host does — must deep-equal a full replay of a fresh copy of that
 * version. And where a continuation could differ, it is refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Message, Session } from '../../../src/core/model';
import { getPolicy, POLICY_IDS } from '../../../src/core/policies/index';
import { carryReplayCaches } from '../../../src/core/replay/carry';
import { replay, replayToJSON, toView } from '../../../src/core/replay/index';
import { extendReplay, replayLive, resumeRefusal, type LiveReplay } from '../../../src/core/replay/resume';
import { grownShapeOf, shapeOf } from '../../../src/core/replay/setup';
import { stepIndices } from '../../../src/core/model';
import { turnStarts } from '../../../src/core/turns';
import { stepDetail } from '../../../src/core/replay/step-detail';
import { REGIONS, type ReplayResult } from '../../../src/core/replay/types';
import { countWith, type SessionCounts } from '../../../src/core/tokens/index';
import { assistant, call, session, toolResult, usage, user } from '../../helpers/session';

/** ~`tokens` chars/4 tokens of text naming a file, an order number and a port (facts a later message may need again). */
const words = (tokens: number, k: number): string =>
  `see src/mod${k % 7}.ts ORD-${k % 5} port ${8000 + (k % 3)} ` + 'ab '.repeat(tokens * 2).slice(0, tokens * 4);

const exchangeArb = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean(), fc.integer({ min: 1, max: 300 }));
/** Turns of exchanges (windows.test.ts's shape) with facts, pins, and reported usage and timestamps on some sessions. */
const messagesArb = fc
  .tuple(
    fc.array(
      fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 200 }), fc.array(exchangeArb, { minLength: 1, maxLength: 6 }), fc.boolean()),
      { minLength: 2, maxLength: 9 },
    ),
    fc.boolean(),
    fc.boolean(),
  )
  .map(([turns, reports, timed]) => {
    const msgs: Message[] = [];
    let k = 0;
    const extra = (): Partial<Message> => (timed ? { timestamp: 1_700_000_000_000 + msgs.length * 45_000 } : {});
    const answer = (content: Parameters<typeof assistant>[0]): Message =>
      assistant(content, { ...extra(), ...(reports ? { usage: usage(400 + msgs.length * 37, 0, 0, 20) } : {}) });
    turns.forEach(([newTurn, userTokens, exchanges, pin], t) => {
      if (t === 0 || newTurn) msgs.push(user(words(userTokens, k++), { ...extra(), ...(pin ? { pinned: true } : {}) }));
      for (const [calls, late, size] of exchanges) {
        const ids = Array.from({ length: calls }, () => `c${k++}`);
        msgs.push(answer(ids.length ? ids.map((id) => call(id, 'Read', `{"file_path":"src/mod${k % 7}.ts"}`)) : words(20, k++)));
        if (late && ids.length) msgs.push(answer(words(10, k++)));
        for (const id of ids) msgs.push({ ...toolResult(id, words(size, k++)), ...extra() });
      }
      msgs.push(answer(words(15, k++)));
    });
    return msgs;
  });

/** A built-in policy made to act on a small session: a small window, message triggers scaled down. */
function configOf(id: string, lowTrigger: boolean, window: number): ReplayConfigInput {
  const c = getPolicy(id)!.config;
  const scaled = c.triggerMessages !== undefined ? { triggerMessages: 24, recents: Math.min(c.recents ?? 10, 10) } : {};
  return { ...c, tokenizer: 'chars4', window, maxOutput: 300, ...scaled, ...(lowTrigger ? { trigger: 0.4 } : {}) };
}

const fresh = (ms: readonly Message[]): Message[] => JSON.parse(JSON.stringify(ms)) as Message[];
const counted = (s: Session): SessionCounts => countWith(s, 'chars4');
const NEEDLES = ['ORD-3', '/port 800[12]/'];

/**
 * The message as it was before the rest of it arrived: another object, its texts cut short — or,
 * with `sameText`, only its reported usage different (a streamed response's usage grows, its
 * count does not move: only the object tells the change; or it reported usage the full one lacks).
 */
const partial = (m: Message, sameText: boolean): Message =>
  sameText
    ? { ...m, usage: m.usage ? { ...m.usage, output: m.usage.output + 7 } : usage(321, 0, 0, 4) }
    : { ...m, parts: m.parts.map((p) => (p.kind === 'text' ? { ...p, text: p.text.slice(0, Math.ceil(p.text.length / 2)) } : p)) };

/** Everything a view or a comparison reads, compared. */
function expectSame(a: ReplayResult, b: ReplayResult): void {
  expect(replayToJSON(a)).toBe(replayToJSON(b));
  const s = a.steps;
  const t = b.steps;
  expect(s.count).toBe(t.count);
  for (const r of REGIONS) expect(Array.from(s.regions[r])).toEqual(Array.from(t.regions[r]));
  for (const key of ['messageIndex', 'turn', 'total', 'limit', 'trigger', 'reported', 'status', 'reasonIndex', 'keptFrom'] as const)
    expect(Array.from(s[key])).toEqual(Array.from(t[key]));
  expect(s.reasons).toEqual(t.reasons);
  expect(JSON.stringify(a.events)).toBe(JSON.stringify(b.events));
  expect(a.events).toEqual(b.events);
  expect(a.totals).toEqual(b.totals);
  expect(a.retention).toEqual(b.retention);
  expect(a.config).toEqual(b.config);
}

const policyArb = fc.tuple(fc.constantFrom(...POLICY_IDS), fc.boolean(), fc.integer({ min: 1_500, max: 6_000 }));

describe('a replay continued over an append (oracle, property)', () => {
  const RUNS = 400;
  let resumed = 0;
  let versions = 0;
  let compressed = 0;
  let lost = 0;

  it('equals the full replay of the grown session: every built-in policy, 1–3 appends, the last response extended', async () => {
    await fc.assert(
      fc.asyncProperty(
        messagesArb,
        policyArb,
        fc.array(fc.double({ min: 0.05, max: 0.95, noNaN: true }), { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom('no', 'cut', 'usage'), { minLength: 3, maxLength: 3 }),
        fc.boolean(),
        fc.array(fc.tuple(fc.boolean(), fc.nat(10_000)), { maxLength: 2 }),
        async (msgs, [id, low, window], cuts, extended, carry, compactionAt) => {
          const config = configOf(id, low, window);
          const ends = [...new Set(cuts.map((c) => Math.max(1, Math.floor(c * msgs.length))))].sort((x, y) => x - y);
          ends.push(msgs.length);
          // Anywhere, or (half of them) right after a version's last message: after its last call.
          const compactions = compactionAt.map(([afterAVersion, x], q) => ({
            atMessage: afterAVersion ? ends[x % ends.length]! : x % (msgs.length + 1),
            trigger: 'auto' as const,
            tokensBefore: 1000 + q,
            summary: `compacted ${q}`,
          }));
          let live: LiveReplay | undefined;
          let held: Message[] | undefined;
          for (let v = 0; v < ends.length; v++) {
            const end = ends[v]!;
            // The last message of a version before the final one is, now and then, only the start of itself.
            const ext = v < ends.length - 1 ? extended[v]! : 'no';
            const list = ext !== 'no' ? [...msgs.slice(0, end - 1), partial(msgs[end - 1]!, ext === 'usage')] : msgs.slice(0, end);
            // As the host's appendToSession: the same objects up to the first one written again.
            if (held && carry) {
              let from = 0;
              while (from < held.length && held[from] === list[from]) from++;
              carryReplayCaches(held, list, from);
            }
            // Compactions the original agent did, as far as this version of the file goes (one may follow its last call).
            const sourceCompactions = compactions.filter((c) => c.atMessage <= end);
            const grown = session(list, { sourceCompactions });
            const options = { counts: counted(grown), needles: NEEDLES };
            let got = live ? await extendReplay(live, grown, options) : undefined;
            if (got) resumed++;
            else got = await replayLive(grown, config, options);
            versions++;
            const copy = session(fresh(list), { sourceCompactions });
            const expected = await replay(copy, config, { counts: counted(copy), needles: NEEDLES });
            expectSame(got.result, expected);
            // What the views read of it: the view, and the detail of the first and the last calls.
            expect(toView(got.result)).toEqual(toView(expected));
            for (const step of new Set(expected.steps.count > 0 ? [0, expected.steps.count - 1] : [])) {
              expect(stepDetail(got.result, grown, step, { key: 'k', perMessage: options.counts.perMessage })).toEqual(
                stepDetail(expected, copy, step, { key: 'k', perMessage: counted(copy).perMessage }),
              );
            }
            if (expected.totals.compressions > 0) compressed++;
            if (expected.retention.lost.length > 0) lost++;
            live = got.live;
            held = list;
          }
        },
      ),
      { numRuns: RUNS },
    );
    // The oracle is not vacuous: most appends were continued, not replayed whole.
    // Not vacuous: most appends were continued rather than replayed whole (about 4 in 5 here), and
    // the versions compared compress and lose facts often.
    expect(resumed).toBeGreaterThan((versions - RUNS) / 2);
    expect(compressed).toBeGreaterThan(versions / 5);
    expect(lost).toBeGreaterThan(versions / 10);
  }, 120_000);

  it('leaves the kept run as it was: continued twice, the same result, and the earlier result unchanged', async () => {
    const msgs = fc.sample(messagesArb, { numRuns: 1, seed: 7 })[0]!;
    const half = Math.floor(msgs.length / 2);
    const first = session(msgs.slice(0, half));
    const a = await replayLive(first, configOf('s2', true, 2_000), { counts: counted(first) });
    const before = replayToJSON(a.result);
    const grown = session(msgs);
    const once = await extendReplay(a.live, grown, { counts: counted(grown) });
    const twice = await extendReplay(a.live, grown, { counts: counted(grown) });
    expect(once).toBeDefined();
    expectSame(once!.result, twice!.result);
    expect(replayToJSON(a.result)).toBe(before);
  });
});

describe('the shape of a grown session', () => {
  it('made from the earlier shape is the shape of the whole list (property)', () => {
    fc.assert(
      fc.property(messagesArb, fc.double({ min: 0, max: 1, noNaN: true }), fc.boolean(), (msgs, at, rewrite) => {
        const cut = Math.max(1, Math.floor(at * msgs.length));
        const old = msgs.slice(0, cut);
        // The last message written again (another object), or not; then the rest.
        const grown = rewrite ? [...old.slice(0, -1), { ...old.at(-1)! }, ...msgs.slice(cut)] : msgs;
        const shape = grownShapeOf(old, shapeOf(old), grown);
        expect(shape).toEqual(shapeOf(fresh(grown)));
        // What the session detail sends from it (host/session-detail.ts): the steps and turn starts.
        expect(Array.from(shape.stepMsg)).toEqual(stepIndices(grown));
        expect(shape.starts).toEqual(turnStarts(grown));
      }),
      { numRuns: 300 },
    );
  });
});

describe('a continuation that could differ is refused', () => {
  const msgs = fc.sample(messagesArb, { numRuns: 1, seed: 11 })[0]!;
  const half = Math.floor(msgs.length / 2);
  const first = session(msgs.slice(0, half));
  const grown = session(msgs);
  const config = configOf('s2', true, 2_000);
  const liveOf = async (cfg: ReplayConfigInput = config, s: Session = first): Promise<LiveReplay> =>
    (await replayLive(s, cfg, { counts: counted(s) })).live;

  it('continues a plain append (the control for the refusals below)', async () => {
    expect(resumeRefusal(await liveOf(), grown, { counts: counted(grown) })).toBeUndefined();
  });

  it('when a replayed message counts differently (exact counts landed, the fit moved)', async () => {
    const c = counted(grown);
    const perMessage = Uint32Array.from(c.perMessage);
    perMessage[1]! += 1;
    const prefix = new Float64Array(perMessage.length + 1);
    for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
    const live = await liveOf();
    expect(resumeRefusal(live, grown, { counts: { ...c, perMessage, prefix } })).toMatch(/count of message 1 changed/);
    expect(await extendReplay(live, grown, { counts: { ...c, perMessage, prefix } })).toBeUndefined();
  });

  it('when the system prompt, tools or unlogged overhead count differently', async () => {
    const c = counted(grown);
    expect(resumeRefusal(await liveOf(), grown, { counts: { ...c, unlogged: c.unlogged + 5 } })).toMatch(
      /system prompt, tools or unlogged/,
    );
  });

  it('when a replayed message is another object (rewritten by the append)', async () => {
    const rewritten = session([...fresh(msgs.slice(0, 1)), ...msgs.slice(1)]);
    expect(resumeRefusal(await liveOf(), rewritten, { counts: counted(rewritten) })).toMatch(/message 0 is not the one replayed/);
  });

  it('but continues a run that ended (a hard budget aborted it): later calls are recorded as not made, as a full replay records them', async () => {
    const cfg = { ...config, budget: { turns: 2, mode: 'hard' as const } };
    const live = await liveOf(cfg);
    expect(live.closed).toBeUndefined();
    const got = await extendReplay(live, grown, { counts: counted(grown) });
    expect(got).toBeDefined();
    expect(got!.result.totals.aborts).toBe(1);
    expectSame(got!.result, await replay(session(fresh(msgs)), cfg));
  });

  it('but continues past a compaction after the last call: it moves to the call after it, as in a full replay', async () => {
    const sourceCompactions = [{ atMessage: half, trigger: 'auto' as const, summary: 'earlier work' }];
    const live = await liveOf(config, session(msgs.slice(0, half), { sourceCompactions }));
    const g = session(msgs, { sourceCompactions });
    const got = await extendReplay(live, g, { counts: counted(g) });
    expect(got).toBeDefined();
    const full = await replay(session(fresh(msgs), { sourceCompactions }), config);
    expect(full.events.find((e) => e.kind === 'source-compaction')!.step).toBeGreaterThan(0);
    expectSame(got!.result, full);
  });

  it('but continues when the last response is written again (its next lines arrived): the kept run stands before that call', async () => {
    const k = msgs.findLastIndex((m, i) => i < half && m.role === 'assistant');
    const before = session([...msgs.slice(0, k), { ...msgs[k]!, parts: [{ kind: 'text', text: 'thinking' }] }]);
    const live = await liveOf(config, before);
    const got = await extendReplay(live, grown, { counts: counted(grown) });
    expect(got).toBeDefined();
    expectSame(got!.result, await replay(session(fresh(msgs)), config));
  });

  it('when a source compaction lands among the replayed calls', async () => {
    const g = session(msgs, { sourceCompactions: [{ atMessage: 1, trigger: 'auto' }] });
    expect(resumeRefusal(await liveOf(), g, { counts: counted(g) })).toMatch(/source compaction was added/);
  });

  it('when an append brings a message the agent sent rewritten (SWE-agent eliding observations)', async () => {
    // A new message sent as a placeholder from the last call on: setup counts the rewrites and warns with their number.
    const at = msgs.length - 2;
    const rewritten = session([
      ...msgs.slice(0, at),
      { ...msgs[at]!, sentAs: { text: '(elided)', fromMessage: msgs.length - 1 } },
      ...msgs.slice(at + 1),
    ]);
    const live = await liveOf();
    expect(resumeRefusal(live, rewritten, { counts: counted(rewritten) })).toMatch(/rewritten messages \(sentAs\) changed/);
  });

  it('but continues over rewrites it knew of, as a full replay does', async () => {
    const list = [...msgs.slice(0, 2), { ...msgs[2]!, sentAs: { text: '(elided)', fromMessage: 4 } }, ...msgs.slice(3)];
    const live = await liveOf(config, session(list.slice(0, half)));
    const g = session(list);
    const got = await extendReplay(live, g, { counts: counted(g) });
    expect(got).toBeDefined();
    expectSame(got!.result, await replay(session(fresh(list)), config));
  });

  it('when the summarizer is remote', async () => {
    const live = await liveOf({ ...config, summarizer: 'openai' });
    expect(live.closed).toMatch(/remote/);
  });

  it('when the limits move (a reported window, another model)', async () => {
    const g = session(msgs, { reportedContextWindow: 50_000 });
    expect(resumeRefusal(await liveOf({ ...config, window: undefined }), g, { counts: counted(g) })).toMatch(
      /limits changed|model or provider/,
    );
  });

  it('when the first reported usage arrives and the tokenizer is chosen by it', async () => {
    const plain = msgs.map((m) => (m.usage ? { ...m, usage: undefined } : m));
    const s = session(plain.slice(0, half), { model: 'claude-sonnet-4-5' });
    const g = session(
      [...plain.slice(0, half), ...plain.slice(half).map((m) => (m.role === 'assistant' ? { ...m, usage: usage(500) } : m))],
      { model: 'claude-sonnet-4-5' },
    );
    const live = (await replayLive(s, { ...config, tokenizer: 'auto' })).live;
    expect(resumeRefusal(live, g)).toMatch(/tokenizer|reference/);
  });
});

describe('a live tail of a session with more than a thousand reported calls', () => {
  // A transcript that leaves a 15,000-token system prompt out, its reported prompts a little off the
  // line (±24 tokens, as providers' framing is), the last one 3,000 over it: a least-squares fit over
  // every call moves with each new call (here by about 3,000 / 1,101 ≈ 3 tokens of overhead). Fitted
  // on the first 1,024 calls once there are 1,024 to 2,047 of them (core/tokens/calibrate.ts
  // fittedCalls), the line of 1,100 calls and of 1,101 is the same.
  const pairs = (n: number): Message[] => {
    const msgs: Message[] = [];
    let sent = 0;
    for (let k = 0; k < n; k++) {
      msgs.push(user(`question ${k} ` + 'ab '.repeat(40)));
      sent += 33;
      const noise = k === n - 1 ? 3_000 : ((k * 7919) % 49) - 24;
      msgs.push(assistant(`answer ${k} ` + 'cd '.repeat(8), { usage: usage(15_000 + sent + noise) }));
      sent += 9;
    }
    return msgs;
  };
  const config: ReplayConfigInput = { ...getPolicy('s2')!.config, window: 10_000_000 };

  it('continues each append instead of replaying the whole session (the fit holds still)', async () => {
    const all = pairs(1_101);
    const first = session(all.slice(0, 2_200));
    const live = (await replayLive(first, config, { counts: counted(first) })).live;
    const grown = session(all);
    expect(resumeRefusal(live, grown, { counts: counted(grown) })).toBeUndefined();
    const got = await extendReplay(live, grown, { counts: counted(grown) });
    expect(got).toBeDefined();
    expect(got!.result.steps.regions.unlogged[0]).toBeGreaterThan(14_000);
    expectSame(got!.result, await replay(session(fresh(all)), config));
  });
});
