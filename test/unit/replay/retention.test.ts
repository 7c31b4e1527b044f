/**
 * Retention: a fact (identifier, path, number, name) or a user needle that a later message refers
 * to while no earlier mention is left in the window — neither history nor summary. Hand-built:
 * the task (message 0) names parseConfig, src/config/loader.ts and 4096; twelve filler turns of
 * 100-token messages follow; message 26 asks about them again.
 */
import { describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { factIndex, provideFactIndex } from '../../../src/core/replay/retention';
import type { Summarizer } from '../../../src/core/summarize/types';
import { assistant, session, user } from '../../helpers/session';

const filler = (tokens: number): string => 'x '.repeat(tokens * 2).slice(0, tokens * 4);
function task(): Message[] {
  const msgs: Message[] = [user('Please fix parseConfig in src/config/loader.ts, budget 4096'), assistant('ok')];
  for (let t = 1; t <= 12; t++) msgs.push(user(filler(100)), assistant(filler(100)));
  msgs.push(user('Did parseConfig get fixed in loader.ts within budget 4096?'), assistant('yes'));
  return msgs;
}
const base: ReplayConfigInput = {
  tokenizer: 'chars4',
  window: 2_000,
  maxOutput: 200,
  buffer: 0,
  summarizer: 'none',
  pipeline: ['drop-oldest'],
  trigger: 0.8,
  target: 0.4,
};

describe('retention', () => {
  it('reports each fact needed after its only mention left the window, with when it left and when it was needed', async () => {
    const r = await replay(session(task()), base, { needles: ['loader.ts', '/budget \\d+/'] });
    const first = r.events.find((e) => e.kind === 'compression');
    // 80% of 2,000: the request at message 19 (15 + 1 + 1,700 tokens) is the first over; drop-oldest cuts
    // messages (docs/policies.md §S2) until 40% = 800 is left: 8 × 100 = 800 → 11..18 stay, 0..10 go.
    expect(first).toMatchObject({ step: 9, dropped: [[0, 10]] });
    // Message 26 arrives before the call at message 27, step 13.
    expect(r.retention.lost).toEqual([
      { key: 'parseConfig', kind: 'identifier', lostAt: 9, neededAt: 13 },
      { key: '4096', kind: 'number', lostAt: 9, neededAt: 13 },
      { key: 'loader.ts', kind: 'needle', lostAt: 9, neededAt: 13 },
      { key: '/budget \\d+/', kind: 'needle', lostAt: 9, neededAt: 13 },
    ]);
  });

  it('tracks when each needle left the window, needed again or not', async () => {
    const r = await replay(session(task()), base, { needles: ['parseConfig', 'never-said'] });
    expect(r.retention.needles).toEqual([
      // Left with the first compression (step 9); message 26 brings it back; it is still there at the end.
      { key: 'parseConfig', firstMessage: 0, leftAt: [9] },
      { key: 'never-said', firstMessage: null, leftAt: [] },
    ]);
  });

  it('nothing is lost while the window still holds the mention', async () => {
    const r = await replay(session(task()), { ...base, window: 100_000 }, { needles: ['loader.ts'] });
    expect(r.retention.lost).toEqual([]);
  });

  it('a fact the summary kept is not lost (the extractive summary keeps identifiers, paths and numbers)', async () => {
    const r = await replay(session(task()), { ...base, pipeline: ['summarize'], summarizer: 'extractive' }, { needles: ['loader.ts'] });
    const c = r.events.find((e) => e.kind === 'compression');
    expect(c?.kind === 'compression' && c.summary).toMatch(/parseConfig/);
    expect(r.retention.lost.map((l) => l.key)).not.toContain('parseConfig');
    expect(r.retention.lost.map((l) => l.key)).not.toContain('4096');
    expect(r.retention.lost.map((l) => l.key)).not.toContain('loader.ts');
  });

  it('a bad needle regex is a clear error', async () => {
    await expect(replay(session(task()), base, { needles: ['/([a-z/'] })).rejects.toThrow(
      /needle \/\(\[a-z\/: not a valid regular expression/,
    );
  });
});

describe('a summarizer failure', () => {
  it('is an event, and the replay goes on without a summary', async () => {
    const failing: Summarizer = {
      id: 'openai',
      model: 'm',
      prompt: 'p',
      summarize: () => Promise.reject(new Error('HTTP 500 from http://127.0.0.1:1/chat/completions')),
    };
    const r = await replay(session(task()), { ...base, pipeline: ['summarize'], summarizer: 'openai' }, { summarizer: failing });
    const f = r.events.find((e) => e.kind === 'summarizer-failure');
    expect(f).toMatchObject({ step: 9, error: 'HTTP 500 from http://127.0.0.1:1/chat/completions' });
    const c = r.events.find((e) => e.kind === 'compression');
    expect(c).toMatchObject({ step: 9 });
    expect(c?.kind === 'compression' ? c.summary : 'x').toBeUndefined();
    expect(r.steps.count).toBe(14);
  });

  it('replays with a fact index handed in for the message list (the tuner ships one) as with its own, and refuses one of another list', async () => {
    const own = await replay(session(task()), base, {});
    const s = session(task());
    // Made from another copy of the same messages: what a worker receives from the one that extracted.
    const shipped = factIndex(session(task()).messages);
    provideFactIndex(s.messages, { ...shipped, offsets: shipped.offsets.slice(), ids: shipped.ids.slice() });
    expect((await replay(s, base, {})).retention).toEqual(own.retention);
    expect(own.retention.lost.length).toBeGreaterThan(0);
    // The handed-in index is the one read: an index with no mentions loses nothing.
    const empty = session(task());
    provideFactIndex(empty.messages, { keys: [], kinds: [], offsets: new Uint32Array(empty.messages.length + 1), ids: new Uint32Array(0) });
    expect((await replay(empty, base, {})).retention.lost).toEqual([]);
    expect(() => provideFactIndex(session(task().slice(1)).messages, shipped)).toThrow(/does not fit a list of 27 messages/);
  });
});
