/**
 * A stored session's exact counts made without holding it (src/main/count/incremental.ts): the
 * numbers are those of a whole count of the loaded session; after a live-tail append only the
 * messages past the stored exact ones are read and tokenized, and the grown session's counts are
 * still those of a whole count; a count whose session changed while it ran stores nothing.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptTokens, type Message } from '../../../src/core/model';
import { CALIBRATION_BASE, countWith, mediaTokensFor } from '../../../src/core/tokens/index';
import { createBulkCounter, type BulkCounter } from '../../../src/main/count/bulk';
import { countStoredSession } from '../../../src/main/count/incremental';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, updateTail } from '../../../src/main/store/tail';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-incremental-');
const sample = join(__dirname, '..', '..', '..', 'resources', 'sample', 'sample-session.jsonl');

let bulk: BulkCounter;
beforeAll(() => {
  bulk = createBulkCounter(2);
});
afterAll(() => bulk.close());

const SESSION = '5d2c1b0a-9e8f-4a7b-8c6d-1e2f3a4b5c6d';
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A Claude Code line of a linear chain: odd n a user turn, even n an assistant reply with usage. */
function line(n: number): string {
  const user = n % 2 === 1;
  return JSON.stringify({
    parentUuid: n === 1 ? null : uuid(n - 1),
    isSidechain: false,
    type: user ? 'user' : 'assistant',
    sessionId: SESSION,
    cwd: '/w',
    uuid: uuid(n),
    timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    message: user
      ? { role: 'user', content: `question ${n}: ${'why does the window fill so fast? '.repeat(n % 7)}` }
      : {
          model: 'claude-sonnet-4-5-20250929',
          id: `msg_${n}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text: `answer ${n}: ${'because every tool result stays in it. '.repeat(n % 5)}` }],
          usage: { input_tokens: 40 + 30 * n, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
  });
}
const lines = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => line(from + i)).join('\n') + '\n';

/** What a whole count of the session as stored now gives. */
function wholeCount(id: string, tokenizer: string): { perMessage: number[]; system: number; tools: number; unlogged: number } {
  const s = t.store.loadSession(id)!;
  const c = countWith(s, tokenizer, { mediaTokens: mediaTokensFor(s.provider) });
  return { perMessage: Array.from(c.perMessage), system: c.system, tools: c.tools, unlogged: c.unlogged };
}
function stored(id: string, tokenizer: string): { perMessage: number[]; system: number; tools: number; unlogged: number } {
  const c = t.store.loadCounts(id, tokenizer)!;
  return { perMessage: Array.from(c.perMessage), system: c.system, tools: c.tools, unlogged: c.unlogged };
}

describe('exact counts of a stored session', () => {
  it('are the numbers of a whole count, for every BPE tokenizer; calibrated stores its base too', async () => {
    const id = (await importFileToStore(t.store, sample)).sessionIds[0]!;
    const n = t.store.getRow(id)!.messageCount;
    for (const tokenizer of ['calibrated', 'max:tiktoken:cl100k_base']) {
      const done = await countStoredSession(t.store, id, tokenizer, bulk);
      expect(done).toEqual({ stored: true, counted: n, messages: n });
      expect(stored(id, tokenizer)).toEqual(wholeCount(id, tokenizer));
      expect(t.store.loadCounts(id, tokenizer)!.exactThrough).toBe(n);
    }
    // calibrated's count stored its base tokenizer's: a count of that one has nothing left to read.
    expect(stored(id, CALIBRATION_BASE)).toEqual(wholeCount(id, CALIBRATION_BASE));
    expect(await countStoredSession(t.store, id, CALIBRATION_BASE, bulk)).toEqual({ stored: true, counted: 0, messages: n });
    expect(stored(id, CALIBRATION_BASE)).toEqual(wholeCount(id, CALIBRATION_BASE));
    expect(await countStoredSession(t.store, 'no-such-session', 'calibrated', bulk)).toBeUndefined();
  }, 60_000);

  it('reads each message’s role and reported usage without its text, and a message sent rewritten whole', async () => {
    const id = (await importFileToStore(t.store, sample)).sessionIds[0]!;
    const loaded = t.store.loadSession(id)!.messages;
    const heads = t.store.messageHeads(id)!;
    expect(heads.map((h) => h.role)).toEqual(loaded.map((m) => m.role));
    const prompt = (m: Message): number | null => (m.usage ? promptTokens(m.usage) : null);
    expect(heads.map(prompt)).toEqual(loaded.map(prompt));
    expect(heads.some((h) => h.usage !== undefined)).toBe(true);
    // No text is held: a head has no parts.
    expect(heads.every((h) => h.parts.length === 0)).toBe(true);

    // A SWE-agent run whose history processor elides old observations (docs/policies.md §Common,
    // messages as sent): the rewritten messages come whole, their sent form is what is counted.
    const output = `${'x'.repeat(39)}\n`.repeat(10);
    const history: unknown[] = [{ role: 'user', content: 'Fix it.', message_type: 'observation' }];
    for (let i = 1; i <= 4; i++) {
      history.push({
        role: 'assistant',
        content: '',
        message_type: 'action',
        usage: { prompt_tokens: 100 * i + 50, completion_tokens: 5 },
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: '{"command":"ls"}' } }],
      });
      history.push({ role: 'tool', content: output, message_type: 'observation', tool_call_ids: [`c${i}`] });
    }
    history.push({ role: 'assistant', content: 'Done.', message_type: 'action', usage: { prompt_tokens: 550, completion_tokens: 5 } });
    const traj = join(t.dir, 'run.traj');
    writeFileSync(
      traj,
      JSON.stringify({
        environment: 'main',
        trajectory: [],
        history,
        info: {},
        replay_config: JSON.stringify({
          agent: { model: { name: 'gpt-4o' }, history_processors: [{ type: 'last_n_observations', n: 1 }] },
        }),
      }),
    );
    const swe = (await importFileToStore(t.store, traj)).sessionIds[0]!;
    const full = t.store.loadSession(swe)!.messages;
    const sweHeads = t.store.messageHeads(swe)!;
    const rewritten = full.flatMap((m, i) => (m.sentAs ? [i] : []));
    expect(rewritten.length).toBeGreaterThan(0);
    for (const i of rewritten) expect(sweHeads[i]).toEqual(full[i]);
    const done = await countStoredSession(t.store, swe, 'calibrated', bulk);
    expect(done?.stored).toBe(true);
    expect(stored(swe, 'calibrated')).toEqual(wholeCount(swe, 'calibrated'));
  }, 60_000);

  it('after a live-tail append, tokenizes only the messages past the stored exact ones, to the numbers of a whole count', async () => {
    const file = join(t.dir, 'live.jsonl');
    writeFileSync(file, lines(1, 40));
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    expect(t.store.getRow(id)!.messageCount).toBe(40);
    expect((await countStoredSession(t.store, id, 'calibrated', bulk))?.stored).toBe(true);

    const tail = await openTail(t.store, id);
    appendFileSync(file, lines(41, 46));
    expect((await updateTail(t.store, tail))?.fast).toBe(true);
    // The append kept the 40 exact numbers and estimated the 6 new messages.
    const extended = t.store.loadCounts(id, CALIBRATION_BASE)!;
    expect(extended.perMessage.length).toBe(46);
    expect(extended.exactThrough).toBe(40);
    expect(t.store.loadCounts(id, 'calibrated')!.exactThrough).toBe(40);

    const done = await countStoredSession(t.store, id, 'calibrated', bulk);
    expect(done).toEqual({ stored: true, counted: 6, messages: 46 });
    expect(stored(id, 'calibrated')).toEqual(wholeCount(id, 'calibrated'));
    expect(stored(id, CALIBRATION_BASE)).toEqual(wholeCount(id, CALIBRATION_BASE));
    expect(t.store.loadCounts(id, 'calibrated')!.exactThrough).toBe(46);
  }, 60_000);

  it('trusts the stored exact numbers it skips (they are not read again)', async () => {
    const id = (await importFileToStore(t.store, sample)).sessionIds[0]!;
    const n = t.store.getRow(id)!.messageCount;
    await countStoredSession(t.store, id, 'tiktoken:o200k_base', bulk);
    const exact = t.store.loadCounts(id, 'tiktoken:o200k_base')!;
    // Message 0's stored number marked (+1000) and the last one's zeroed, exact through n − 1.
    const marked = exact.perMessage.slice();
    marked[0] = marked[0]! + 1000;
    marked[n - 1] = 0;
    t.store.saveCounts(id, { ...exact, perMessage: marked }, n - 1);
    expect(await countStoredSession(t.store, id, 'tiktoken:o200k_base', bulk)).toEqual({ stored: true, counted: 1, messages: n });
    const after = t.store.loadCounts(id, 'tiktoken:o200k_base')!;
    expect(after.perMessage[0]).toBe(exact.perMessage[0]! + 1000);
    expect(after.perMessage[n - 1]).toBe(exact.perMessage[n - 1]);
    // Stored numbers of another length (another state of the session) are not trusted: all counted again.
    t.store.saveCounts(id, { ...exact, perMessage: marked.slice(0, n - 1), prefix: new Float64Array(0) });
    expect(await countStoredSession(t.store, id, 'tiktoken:o200k_base', bulk)).toEqual({ stored: true, counted: n, messages: n });
    expect(Array.from(t.store.loadCounts(id, 'tiktoken:o200k_base')!.perMessage)).toEqual(Array.from(exact.perMessage));
  }, 60_000);

  it('stores nothing when the session changed while it was counted', async () => {
    const file = join(t.dir, 'racing.jsonl');
    writeFileSync(file, lines(1, 20));
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const tail = await openTail(t.store, id);
    // The append lands while the pool counts the texts read before it.
    let appended = false;
    const racing: BulkCounter = {
      warm: (encoding) => bulk.warm(encoding),
      close: () => Promise.resolve(),
      count: async (texts, encoding) => {
        if (!appended) {
          appended = true;
          appendFileSync(file, lines(21, 22));
          await updateTail(t.store, tail);
        }
        return bulk.count(texts, encoding);
      },
    };
    const done = await countStoredSession(t.store, id, 'calibrated', racing);
    expect(done).toMatchObject({ stored: false, messages: 20 });
    expect(t.store.getRow(id)!.messageCount).toBe(22);
    // Nothing of the 20 messages read before the append was stored: no exact counts at all (the
    // import stores estimates only), so the window keeps the append's and asks again.
    expect(t.store.loadCounts(id, 'calibrated')).toBeUndefined();
    expect(t.store.loadCounts(id, CALIBRATION_BASE)).toBeUndefined();
    expect(t.store.loadCounts(id, 'chars4')!.perMessage.length).toBe(22);
  }, 60_000);
});
