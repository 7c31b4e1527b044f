/**
 * A session held lazily (src/main/store/lazy-session.ts: its numbers resident, its text read from
 * SQLite a page at a time) answers every question of the debugger exactly as the session parsed
 * whole does — chart view, step detail, the full view (compressions and their summaries,
 * retention, the ledger), a comparison, the session's detail — on real-shaped fixtures and a
 * generated Claude Code session, under policies that summarize, mask and cut; and the text it
 * holds never passes its page cache's bounds while a long session is replayed; and the replays kept
 * beside a session are bounded by the calls they hold.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { ReplayService, type ReplayInputs } from '../../../src/main/host/replays';
import { appendToSession } from '../../../src/main/host/session-append';
import { importFileToStore, openStore, type SessionStore } from '../../../src/main/store/index';
import {
  keepPages,
  lazyMessages,
  lazyPages,
  loadLazySession,
  MessagePages,
  sessionPages,
  type PageCacheOptions,
} from '../../../src/main/store/lazy-session';
import { writeClaudeCodeJsonl } from '../../bench/corpus';
import { prepareMessage } from '../../../src/core/summarize/extractive';

const FIXTURES = [
  'test/fixtures/claude-code-v2/7d3f0c2e-5a41-4b6e-9c8d-2f1e0a9b8c7d.jsonl',
  'test/fixtures/compactions/claude-agentsessions-stage0-small.jsonl',
  'test/fixtures/compactions/codex-agentsessions-stage0-small.jsonl',
];
/** Small pages, few of them: every replay below reads most messages' text again through evictions. */
const TIGHT: PageCacheOptions = { pageSize: 8, maxPages: 3, maxChars: 20_000 };

let dir: string;
let store: SessionStore;
/** Stored session ids by name: the fixtures' and the generated one. */
const ids = new Map<string, string>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-lazy-'));
  store = openStore(join(dir, 'db.sqlite'));
  const generated = join(dir, 'generated.jsonl');
  await writeClaudeCodeJsonl(generated, 0, { calls: 600 });
  for (const file of [...FIXTURES, generated]) {
    const r = await importFileToStore(store, file);
    ids.set(file, r.sessionIds[0]!);
  }
}, 60_000);

afterAll(() => {
  store?.close();
  rmSync(dir, { recursive: true, force: true });
});

function serviceOf(session: Session): ReplayService {
  return new ReplayService({ session: () => session, load: (id, tokenizer) => store.loadCounts(id, tokenizer) });
}

function inputsOf(sessionId: string, policyId: string, overrides: ReplayInputs['overrides'] = {}, pins: string[] = []): ReplayInputs {
  const policy = getPolicy(policyId)!;
  return { sessionId, policy: { id: policy.id, config: policy.config }, overrides, needles: ['src/', 'error'], pins };
}

/** Everything the debugger asks of a replay, as the JSON the window receives. */
async function answers(service: ReplayService, inputs: ReplayInputs, steps: number): Promise<string[]> {
  const out = [String(await service.chart(inputs, 200)), JSON.stringify(await service.view(inputs))];
  for (const step of new Set([0, 1, Math.floor(steps / 3), Math.floor(steps / 2), steps - 2, steps - 1]))
    if (step >= 0 && step < steps) out.push(JSON.stringify(await service.detail(inputs, step)));
  return out;
}

describe('a session held lazily', () => {
  const cases = [...FIXTURES, 'generated'].flatMap((file) =>
    ['claude-code', 'letta', 'openhands-masking', 'openhands-summary', 's3'].map((policy) => [file, policy] as const),
  );

  it.each(cases)(
    'answers as the session parsed whole: %s under %s',
    async (file, policyId) => {
      const id = ids.get(file) ?? [...ids.values()].at(-1)!;
      const whole = store.loadSession(id)!;
      // Primed as the replay worker loads it (facts and summary items read while each page is at
      // hand) for the fixtures; the generated session not, so that its replays read through the pages.
      const lazy = loadLazySession(store, id, file === 'generated' ? TIGHT : { ...TIGHT, prime: prepareMessage })!;
      expect(lazy.messages.length).toBe(whole.messages.length);
      const steps = whole.messages.filter((m) => m.role === 'assistant').length;
      // A tight window makes the policies compress often; one pinned message takes the pins' path.
      const overrides = { window: 6_000, maxOutput: 1_000 };
      const pins = [whole.messages[Math.floor(whole.messages.length / 2)]!.id];
      const a = serviceOf(whole);
      const b = serviceOf(lazy);
      expect(await answers(b, inputsOf(id, policyId, overrides, pins), steps)).toEqual(
        await answers(a, inputsOf(id, policyId, overrides, pins), steps),
      );
      // A comparison of two settings, and the session's detail.
      const other = inputsOf(id, policyId, { ...overrides, window: 9_000 }, pins);
      const options = { minDelta: 0 };
      expect(JSON.stringify(await b.compare(inputsOf(id, policyId, overrides, pins), other, options))).toBe(
        JSON.stringify(await a.compare(inputsOf(id, policyId, overrides, pins), other, options)),
      );
      expect(b.session(id)).toEqual(a.session(id));
    },
    60_000,
  );

  it('reads back every message as stored: fields, parts and their text', () => {
    for (const id of ids.values()) {
      const whole = store.loadSession(id)!;
      const lazy = loadLazySession(store, id, TIGHT)!;
      const { messages: wm, ...wmeta } = whole;
      const { messages: lm, ...lmeta } = lazy;
      expect(lmeta).toEqual(wmeta);
      // JSON of a lazily held message (its parts written whole) is the stored message's.
      for (let i = 0; i < wm.length; i++) expect(JSON.parse(JSON.stringify(lm[i]))).toEqual(wm[i]);
    }
  });

  it('holds no text in its messages: a part reads its text through the pages', () => {
    const lazy = loadLazySession(store, [...ids.values()].at(-1)!, TIGHT)!;
    let parts = 0;
    for (const m of lazy.messages)
      for (const p of m.parts) {
        parts++;
        if (p.kind === 'media') continue;
        // No own property holds the text (a getter on the part's class reads it).
        expect(Object.getOwnPropertyNames(p)).not.toContain('text');
        expect(Object.getOwnPropertyNames(p)).not.toContain('args');
      }
    expect(parts).toBeGreaterThan(1_000);
  });

  it('keeps the text it reads within its bounds while a long session is replayed', async () => {
    const id = [...ids.values()].at(-1)!;
    const lazy = loadLazySession(store, id, TIGHT)!;
    const pages = lazyPages(lazy)!;
    // Where a page's characters are counted: the stored bodies, 8 messages a page.
    const bodies = store.messageBodies(id, 0, lazy.messages.length);
    let biggestPage = 0;
    for (let p = 0; p < bodies.length; p += TIGHT.pageSize!)
      biggestPage = Math.max(
        biggestPage,
        bodies.slice(p, p + TIGHT.pageSize!).reduce((n, b) => n + b.length, 0),
      );
    const allChars = bodies.reduce((n, b) => n + b.length, 0);
    const service = serviceOf(lazy);
    for (const policy of ['claude-code', 'letta', 'openhands-summary'])
      for (const window of [6_000, 12_000]) await service.chart(inputsOf(id, policy, { window, maxOutput: 1_000 }), 200);
    const stats = pages.stats();
    // It read the text (more pages than it holds) and never held more than it may: 3 pages, and
    // 20,000 characters unless one page alone is bigger (the page just read is always held).
    expect(stats.loads).toBeGreaterThan(TIGHT.maxPages!);
    expect(stats.peakPages).toBeLessThanOrEqual(TIGHT.maxPages!);
    expect(stats.peakChars).toBeLessThanOrEqual(Math.max(TIGHT.maxChars!, biggestPage));
    expect(stats.peakChars).toBeLessThan(allChars / 10);
  }, 60_000);

  it('stays lazy through a live-tail append, the new messages read from the store', () => {
    const id = [...ids.values()].at(-1)!;
    const whole = store.loadSession(id)!;
    const n = whole.messages.length;
    // The session held as it was 10 messages ago (a prefix read through the same pages), then the
    // update that rewrites its last 2 messages and adds 10.
    const lazy = loadLazySession(store, id, TIGHT)!;
    const held = { ...lazy, messages: lazy.messages.slice(0, n - 10) };
    keepPages(lazy, held.messages);
    const grown = appendToSession(held, { from: n - 12, previous: n - 10, messages: whole.messages.slice(n - 12) })!;
    expect(grown.messages).toHaveLength(n);
    expect(lazyPages(grown)).toBe(lazyPages(lazy));
    for (let i = 0; i < n - 12; i++) expect(grown.messages[i]).toBe(lazy.messages[i]);
    for (let i = n - 12; i < n; i++) {
      expect(grown.messages[i]).not.toBe(whole.messages[i]);
      expect(JSON.parse(JSON.stringify(grown.messages[i]))).toEqual(whole.messages[i]);
      for (const p of grown.messages[i]!.parts) expect(Object.getOwnPropertyNames(p)).not.toContain('text');
    }
  });
});

describe('a session read while it grows', () => {
  it('is read a step at a time through one page cache, each message as stored and without its text, pages read before a step read again', () => {
    const id = [...ids.values()].at(-1)!;
    const whole = store.loadSession(id)!.messages;
    // The store as an import leaves it between chunks: only the first `stored` messages exist yet.
    let stored = 100;
    const growingStore = {
      messageBodies: (sid: string, from: number, to: number) => store.messageBodies(sid, from, Math.min(to, stored)),
    } as unknown as SessionStore;
    const pages = sessionPages(growingStore, id, { pageSize: 64, maxPages: 4, maxChars: 1_000_000 });
    const first = lazyMessages(growingStore, id, 0, stored, pages);
    // Message 99's page (64–127) is read now, holding the 36 messages stored so far.
    expect(JSON.parse(JSON.stringify(first[99]))).toEqual(whole[99]);
    stored = 400;
    const next = lazyMessages(growingStore, id, 100, stored, pages);
    const held = [...first, ...next];
    expect(held).toHaveLength(400);
    for (let i = 0; i < held.length; i++) expect(JSON.parse(JSON.stringify(held[i]))).toEqual(whole[i]);
    for (const m of held)
      for (const p of m.parts) {
        expect(Object.getOwnPropertyNames(p)).not.toContain('text');
        expect(Object.getOwnPropertyNames(p)).not.toContain('args');
      }
    expect(pages.stats().peakPages).toBeLessThanOrEqual(4);
  });
});

describe('the page cache', () => {
  it('evicts the least recently used page and reads a page once while it is held', () => {
    const reads: number[] = [];
    const body = (i: number) => JSON.stringify({ id: `m${i}`, role: 'user', parts: [{ kind: 'text', text: `message ${i}` }] });
    const pages = new MessagePages(
      (from, to) => {
        reads.push(from);
        return Array.from({ length: Math.min(to, 100) - from }, (_, k) => body(from + k));
      },
      { pageSize: 10, maxPages: 2, maxChars: 1_000_000 },
    );
    const text = (i: number) => (pages.partsOf(i)[0] as { text: string }).text;
    expect([text(0), text(9), text(15), text(3)]).toEqual(['message 0', 'message 9', 'message 15', 'message 3']);
    expect(reads).toEqual([0, 10]);
    // Page 2 evicts page 1 (page 0 was used last), then page 1 is read again.
    text(25);
    text(5);
    text(12);
    expect(reads).toEqual([0, 10, 20, 10]);
    expect(pages.stats()).toMatchObject({ loads: 4, pages: 2, peakPages: 2 });
    expect(() => pages.partsOf(100)).toThrow(/no stored message #100/);
  });

  it('drops the pages an append rewrote', () => {
    let version = 0;
    const pages = new MessagePages((from, to) =>
      Array.from({ length: to - from }, (_, k) => JSON.stringify({ parts: [{ kind: 'text', text: `v${version} ${from + k}` }] })),
    );
    const text = (i: number) => (pages.partsOf(i)[0] as { text: string }).text;
    expect(text(300)).toBe('v0 300');
    expect(text(3)).toBe('v0 3');
    version = 1;
    pages.invalidateFrom(260);
    // Message 3's page (0–255) is kept; 300's (256–511) is read again.
    expect([text(3), text(300)]).toEqual(['v0 3', 'v1 300']);
  });
});

describe('the replays kept', () => {
  it('hold at most stepsKept calls together, the newest always', async () => {
    const id = [...ids.values()].at(-1)!;
    const lazy = loadLazySession(store, id)!;
    const steps = lazy.messages.filter((m) => m.role === 'assistant').length;
    // Room for two results of this session, not three.
    const service = new ReplayService({ session: () => lazy, load: (i, t) => store.loadCounts(i, t), stepsKept: Math.floor(2.5 * steps) });
    const at = (window: number) => inputsOf(id, 'claude-code', { window, maxOutput: 1_000 });
    for (const window of [6_000, 7_000, 8_000]) await service.chart(at(window), 100);
    expect(service.runs).toBe(3);
    // The two newest are answered from the cache; the oldest was let go and is replayed.
    await service.detail(at(8_000), 0);
    await service.detail(at(7_000), 0);
    expect(service.runs).toBe(3);
    await service.detail(at(6_000), 0);
    expect(service.runs).toBe(4);
  }, 60_000);
});
