/**
 * The replay engine of the host (ReplayService, as the replay worker runs it) after a live-tail
 * append: the chart of the grown session continues the run kept for the same inputs
 * (core/replay/resume.ts) instead of replaying from call 0, with the result a fresh engine's full
 * replay gives; counts of replayed messages that changed, or a session read again (not patched),
 * replay it whole.
 */
import { describe, expect, it } from 'vitest';
import type { Message, Session } from '../../../src/core/model';
import { replayToJSON } from '../../../src/core/replay/index';
import { countWith, type SessionCounts } from '../../../src/core/tokens/index';
import { ReplayService, type ReplayInputs } from '../../../src/main/host/replays';
import { appendToSession } from '../../../src/main/host/session-append';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

function turns(from: number, n: number): Message[] {
  const out: Message[] = [];
  for (let t = from; t < from + n; t++) {
    out.push(user(`Fix handleRequest${t} in src/server/module${t % 9}.ts: port ${8000 + t} is wrong. ` + 'lorem '.repeat(60)));
    out.push(
      assistant([{ kind: 'text', text: `Reading module${t % 9}.` }, call(`c${t}`, 'Read', `{"file_path":"src/server/module${t % 9}.ts"}`)]),
    );
    out.push(toolResult(`c${t}`, `export const port${t} = ${9000 + t};\n`.repeat(25)));
    out.push(assistant(`Root cause: the default port ${9000 + t}. I decided to use ${8000 + t}.`));
  }
  return out;
}

const ID = 'grown';
const inputs = (policy: string): ReplayInputs => ({
  sessionId: ID,
  policy: { id: policy, config: { policy, tokenizer: 'chars4', window: 20_000, maxOutput: 2_000 } },
  overrides: {},
  needles: ['port 8003'],
  pins: [],
});

/** A service over one session the test grows, with the counts the store would hand it (overridable). */
function engine(start: Session): {
  service: ReplayService;
  grow(extra: readonly Message[], from?: number): void;
  counts: Map<number, SessionCounts>;
} {
  let held = start;
  const counts = new Map<number, SessionCounts>();
  const service = new ReplayService({
    session: () => held,
    load: (_id, tokenizer) => (tokenizer === 'chars4' ? (counts.get(held.messages.length) ?? countWith(held, 'chars4')) : undefined),
  });
  return {
    service,
    counts,
    grow(extra, from = held.messages.length) {
      // As the replay worker does on `forget` with an append: patch the session held, keep the runs.
      held = appendToSession(held, { from, previous: held.messages.length, messages: extra })!;
      service.forget(ID, undefined, true);
    },
  };
}

const fullReplay = async (s: Session, policy: string): Promise<string> =>
  replayToJSON(await new ReplayService({ session: () => s }).result(inputs(policy)));

describe('the host replay engine after an append', () => {
  for (const policy of ['s2', 'letta', 'claude-code', 'openhands-masking', 's0']) {
    it(`continues the kept run (${policy}), with the full replay's result`, async () => {
      const first = turns(0, 60);
      const e = engine(session(first));
      await e.service.result(inputs(policy));
      expect(e.service.resumed).toBe(0);
      const more = turns(60, 3);
      e.grow(more);
      const r = await e.service.result(inputs(policy));
      expect(e.service.resumed).toBe(1);
      expect(replayToJSON(r)).toBe(await fullReplay(session(JSON.parse(JSON.stringify([...first, ...more])) as Message[]), policy));
      // The last response written again (its next part arrived), then more: continued again.
      const last = more.at(-1)!;
      const rewritten = { ...last, parts: [{ kind: 'text' as const, text: 'Root cause found; patch applied.' }] };
      e.grow([rewritten, ...turns(63, 1)], first.length + more.length - 1);
      const again = await e.service.result(inputs(policy));
      expect(e.service.resumed).toBe(2);
      expect(replayToJSON(again)).toBe(
        await fullReplay(
          session(JSON.parse(JSON.stringify([...first, ...more.slice(0, -1), rewritten, ...turns(63, 1)])) as Message[]),
          policy,
        ),
      );
    });
  }

  it('replays whole when the counts of replayed messages changed (exact counts landed)', async () => {
    const first = turns(0, 20);
    const e = engine(session(first));
    await e.service.result(inputs('s2'));
    const grownList = [...first, ...turns(20, 2)];
    const c = countWith(session(grownList), 'chars4');
    const perMessage = Uint32Array.from(c.perMessage, (v, i) => (i === 3 ? v + 1 : v));
    const prefix = new Float64Array(perMessage.length + 1);
    perMessage.forEach((v, i) => (prefix[i + 1] = prefix[i]! + v));
    e.counts.set(grownList.length, { ...c, perMessage, prefix });
    e.grow(turns(20, 2));
    const runs = e.service.runs;
    await e.service.result(inputs('s2'));
    expect(e.service.runs).toBe(runs + 1);
    expect(e.service.resumed).toBe(0);
  });

  it('replays whole a session read again rather than patched (a whole-file update)', async () => {
    const first = turns(0, 20);
    const e = engine(session(first));
    await e.service.result(inputs('s2'));
    e.grow(turns(20, 1));
    // forget without `appended`: the kept runs go.
    e.service.forget(ID);
    await e.service.result(inputs('s2'));
    expect(e.service.resumed).toBe(0);
  });
});
