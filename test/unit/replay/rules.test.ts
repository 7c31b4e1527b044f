/**
 * The rules of docs/policies.md, each on a session built so the numbers can be checked by hand
 * (chars4: 400 characters = 100 tokens, no per-message overhead; runes2.5: floor(400 × 2 / 5) + 4
 * = 164 tokens per 400-character message).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Message } from '../../../src/core/model';
import { POLICIES } from '../../../src/core/policies/index';
import { replay, resolveTokenizer } from '../../../src/core/replay/index';
import { validateConfig } from '../../../src/core/config';
import { countWith, type SessionCounts } from '../../../src/core/tokens/index';
import { keptBytes } from '../../../src/core/replay/tool-preflight';
import { summaryCounter } from '../../../src/core/replay/summary-tokens';
import { getTokenizer } from '../../../src/core/tokens/index';
import { assistant, call, session, toolResult, user } from '../../helpers/session';
import { chat, compressions, policy, prose, reasonAt, statusAt } from '../../helpers/replay';

describe('S0: the proactive path force-compresses (docs/policies.md §S0)', () => {
  it('drops the oldest ~50% of turns with a note in the summary; it does not summarize', async () => {
    // runes2.5: 164 tokens a message. maxOutput 1,000 → window 4,000 (MaxTokens × 4).
    // messages + tools + MaxTokens > window ⇔ 164 × (2j + 1) + 1,000 > 4,000: first at j = 9 (19 messages, 3,116).
    // Turns in the window at step 9: 10 (starts 0, 2, …, 18); the oldest 5 go (messages 0..9), 9 messages stay: 9 × 164 = 1,476.
    const r = await replay(
      session(chat(15)),
      policy('s0', { maxOutput: 1_000, paths: { async: false, proactive: true, emergency: false } }),
    );
    const [first] = compressions(r);
    expect(first).toMatchObject({
      step: 9,
      path: 'proactive',
      strategy: 'drop-oldest-50%',
      tokensBefore: 3_116,
      dropped: [[0, 9]],
      kept: [[10, 18]],
    });
    const note = '[Context overflow: 5 earlier turns were dropped.]';
    expect(first!.summary).toBe(note);
    // The note is 49 characters: floor(49 × 2 / 5) = 19 tokens.
    expect(first!.tokensAfter).toBe(1_476 + 19);
    expect(reasonAt(r, 9)).toBe(
      'messages + tools + MaxTokens > window (3,116 + 0 + 1,000 = 4,116 > 4,000), compaction applied: 3,116 before → 1,495 after',
    );
    // The step shows the request sent after the compression.
    expect(r.steps.total[9]).toBe(1_495);
    // Limit and trigger: window − MaxTokens = 3,000 (S0's buffer is 0).
    expect(r.steps.limit[9]).toBe(3_000);
    expect(r.steps.trigger[9]).toBe(3_000);
  });
});

describe('S3: the trigger fires at 75% (docs/policies.md §S3)', () => {
  it('fires at exactly 7,500 of 10,000', async () => {
    // chars4: users 200 tokens (800 chars), answers 50 (200 chars), system 150 (600 chars).
    // Call j sees j + 1 users and j answers: 150 + 200 (j + 1) + 50 j = 250 j + 350.
    // j = 28: 7,350 < 7,500; j = 29: 7,600? No: 250 × 29 + 350 = 7,600. Shift with the system prompt:
    // system 50 tokens (200 chars): 250 j + 250 → j = 29 gives exactly 7,500.
    const msgs: Message[] = [];
    for (let t = 0; t < 40; t++) msgs.push(user(prose(800, `u${t}`)), assistant(prose(200, `a${t}`)));
    const r = await replay(
      session(msgs, { systemPrompt: prose(200, 's') }),
      policy('s3', { tokenizer: 'chars4', window: 10_000, summarizer: 'none' }),
    );
    expect(r.steps.total[28]).toBe(7_250);
    expect(compressions(r)[0]).toMatchObject({ step: 29, tokensBefore: 7_500 });
    expect(reasonAt(r, 29)).toMatch(
      /^context window at 75% capacity \(7,500\/10,000 tokens\), compaction applied: 7,500 before → [\d,]+ after$/,
    );
    // S3 enforces its trigger basis (the window) and triggers at 0.75 × 10,000.
    expect(r.steps.limit[0]).toBe(10_000);
    expect(r.steps.trigger[0]).toBe(7_500);
  });
});

describe('the limit each step shows is the one its policy enforces (docs/policies.md §Common)', () => {
  const s = session(chat(4));
  it.each([
    // S1: 10,000 − 1,000 buffer − floor(10,000 / 4) = 6,500; no compression trigger.
    ['s1', { window: 10_000, buffer: 1_000 }, 6_500, NaN],
    // S2: 0.85 × 10,000.
    ['s2', { window: 10_000 }, 8_500, 8_500],
    // S3: its basis, the window; trigger 0.75 × 10,000.
    ['s3', { window: 10_000 }, 10_000, 7_500],
    // S4: the token budget; trigger 0.8 × 1,000,000.
    ['s4', { window: 10_000 }, 1_000_000, 800_000],
    // Claude Code at 200,000: min(floor(180,000 × 1), 167,000) = 167,000 is both.
    ['claude-code', { window: 200_000 }, 167_000, 167_000],
    // Codex: 0.9 × 10,000.
    ['codex', { window: 10_000 }, 9_000, 9_000],
  ] as const)('%s', async (id, extra, limit, trigger) => {
    const r = await replay(s, policy(id, { tokenizer: 'chars4', ...extra }));
    expect(r.steps.limit[0]).toBe(limit);
    expect(r.steps.trigger[0]).toBe(trigger);
  });
  it('a message-count trigger has no token trigger (NaN) and enforces the window', async () => {
    const r = await replay(s, policy('openhands-recent', { tokenizer: 'chars4', window: 10_000 }));
    expect(r.steps.trigger[0]).toBeNaN();
    expect(r.steps.limit[0]).toBe(10_000);
  });
});

describe('Claude Code at small windows (docs/policies.md §Presets)', () => {
  it('clamps the threshold to half the window and says so', async () => {
    // window 30,000: min(floor((30,000 − 20,000) × 1), 30,000 − 33,000) = −3,000 → clamped to 15,000.
    const r = await replay(session(chat(40)), policy('claude-code', { tokenizer: 'chars4', window: 30_000, summarizer: 'none' }));
    expect(r.steps.trigger[0]).toBe(15_000);
    expect(r.events.find((e) => e.kind === 'warning' && /clamped to 15,000/.test(e.text))).toBeDefined();
    // No compression at 0% capacity: the first call (100 tokens) is far below it.
    expect(statusAt(r, 0)).toBe('ok');
    // 100 × (2j + 1) > 15,000 first at j = 75 — beyond this 40-turn session: nothing compresses.
    expect(compressions(r)).toHaveLength(0);
  });
});

describe('a step above the limit its policy enforces is never ok', () => {
  it('holds for every built-in policy on the sample session at windows 30,000 and 60,000', async () => {
    const { importSource } = await import('../../../src/core/import/index');
    const { fileSource } = await import('../../../src/main/io/file-source');
    const s = (await importSource(fileSource(join(__dirname, '../../../resources/sample/sample-session.jsonl')))).sessions[0]!;
    const long = session(chat(40, 2_000));
    for (const sess of [s, long]) {
      const counts = new Map<string, SessionCounts>();
      for (const p of POLICIES) {
        for (const window of [30_000, 60_000]) {
          const config = validateConfig({
            ...p.config,
            window,
            ...(p.id === 's4' ? { budget: { tokens: 50_000, turns: 200, mode: 'hard' as const } } : {}),
          });
          const tok = resolveTokenizer(sess, config);
          const key = `${tok} ${config.schemaScale}`;
          if (!counts.has(key)) counts.set(key, countWith(sess, tok, { schemaScale: config.schemaScale }));
          const r = await replay(sess, config, { counts: counts.get(key)! });
          for (let i = 0; i < r.steps.count; i++) {
            if (r.steps.total[i]! > r.steps.limit[i]!) expect(`${p.id}@${window} step ${i}: ${statusAt(r, i)}`).not.toMatch(/: ok$/);
          }
        }
      }
    }
  }, 60_000);
});

describe('S1 tool_preflight is token-based (docs/policies.md §S1)', () => {
  it('a tool output that does not fit what is left under the limit becomes a failure and the next call is final', async () => {
    // limit = 4,000 − 500 buffer − 500 maxOutput = 3,000. The result: callId "c0" (1) + 12,000 chars (3,000) = 3,001
    // tokens, under toolOutputMaxBytes (12,288), more than is left after the prompt and the call.
    const msgs = [user(prose(400)), assistant([call('c0')]), toolResult('c0', prose(12_000)), assistant('done')];
    const r = await replay(
      session(msgs),
      policy('s1', { tokenizer: 'chars4', schemaScale: 1, window: 4_000, buffer: 500, maxOutput: 500 }),
    );
    const e = r.events.find((x) => x.kind === 'tool-preflight');
    expect(e).toMatchObject({ action: 'budget-exceeded', step: 1, messageIndex: 2, tokens: 3_001, bytesBefore: 12_000 });
    expect(statusAt(r, 1)).toBe('final');
    expect(reasonAt(r, 1)).toMatch(
      /^tool output 3,001 tokens > [\d,]+ left under the limit 3,000: final turn, tools restricted to final_report$/,
    );
    // The failure message stands in for the output: the request fits.
    expect(r.steps.total[1]).toBeLessThan(3_000);
  });

  it('output modes: auto picks full-chunked up to 4 chunks and read-grep beyond', () => {
    expect(keptBytes('auto', 40_000, 12_288)).toMatchObject({ mode: 'full-chunked', chunks: 4 });
    expect(keptBytes('auto', 60_000, 12_288)).toMatchObject({ mode: 'read-grep' });
    expect(keptBytes('truncate', 60_000, 12_288).kept).toBe(12_288);
    // read-grep: a 64-byte handle + a quarter of the limit (3,072).
    expect(keptBytes('read-grep', 60_000, 12_288).kept).toBe(64 + 3_072);
  });
});

describe('where the window comes from (docs/policies.md §Common)', () => {
  it('a window read from the transcript is labelled transcript', async () => {
    const r = await replay(session(chat(2), { reportedContextWindow: 50_000 }), { tokenizer: 'chars4' });
    expect(r.config.resolved).toMatchObject({ window: 50_000, windowSource: 'transcript', maxOutputSource: 'window/4' });
    const asked = await replay(session(chat(2), { reportedContextWindow: 50_000 }), { tokenizer: 'chars4', window: 20_000 });
    expect(asked.config.resolved).toMatchObject({ window: 20_000, windowSource: 'request' });
  });
});

describe('source compactions', () => {
  it('one after the last call is attached to the last step', async () => {
    const msgs = chat(3);
    const r = await replay(session(msgs, { sourceCompactions: [{ atMessage: msgs.length, trigger: 'auto', summary: 'done so far' }] }), {
      tokenizer: 'chars4',
    });
    expect(r.events.filter((e) => e.kind === 'source-compaction')).toEqual([
      expect.objectContaining({ step: 2, messageIndex: 6, trigger: 'auto' }),
    ]);
  });
});

describe('pinning from the config (docs/policies.md §Common)', () => {
  it('keeps a pinned message (by index or id) through compressions; an unknown id is an error', async () => {
    const msgs = chat(30, 4_000);
    const r = await replay(session(msgs), policy('s2', { window: 40_000, summarizer: 'none', pinned: [2] }));
    const first = compressions(r)[0]!;
    // S2's sliding window drops messages 0..15 at step 17 (docs/policies.md §S2) — message 2's turn (2, 3) stays.
    expect(first.dropped.some(([a, b]) => a <= 2 && 2 <= b)).toBe(false);
    expect(first.kept[0]).toEqual([2, 3]);
    const byId = await replay(session(msgs), policy('s2', { window: 40_000, summarizer: 'none', pinned: [msgs[2]!.id] }));
    expect(compressions(byId)[0]!.kept[0]).toEqual([2, 3]);
    await expect(replay(session(msgs), policy('s2', { pinned: ['nope'] }))).rejects.toThrow(/pinned: no message with id "nope"/);
    await expect(replay(session(msgs), policy('s2', { pinned: [999] }))).rejects.toThrow(/pinned: message index 999 is out of range/);
  });
});

describe('summary counts', () => {
  it('segment-memoized BPE counts equal counting the whole text', () => {
    const text =
      'Summary of 40 messages:\n## Earlier summary\n- Summary of 3:\n## Goal\n- read src/a.ts\n\n## Files …\n#x  \n## Facts\n- fixed   the bug\n  in worker.go\n\n\n#Done.  \n<|endoftext|> tail\n#';
    for (const id of ['tiktoken:o200k_base', 'tiktoken:cl100k_base'])
      expect(summaryCounter(id)(text)).toBe(getTokenizer(id).countText(text));
    expect(summaryCounter('max:tiktoken:o200k_base')(text)).toBe(getTokenizer('max:tiktoken:o200k_base').countText(text));
  });

  it('cutting at line starts and between ", " stays exact on texts made of the hard cases', () => {
    // Line breaks before spaces, tabs, punctuation, digits, letters, CJK; "\r\n"; commas before letters,
    // digits, spaces and punctuation; trailing white space before a break.
    const bits = [
      '\n',
      '\r\n',
      '\n\n',
      ' \n',
      '\t\n',
      ', ',
      ',',
      ',x',
      ', 12',
      ', ./src/a.ts',
      '- item',
      '## Facts',
      '  indented',
      'word',
      "it's",
      '日本語',
      '123456',
      '/path/x',
      '.\n',
      '!?',
      ' ',
      '  ',
      'ThisIsCamel',
      '…',
    ];
    let seed = 7;
    const next = (): number => ((seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff), seed);
    for (let t = 0; t < 300; t++) {
      let text = '';
      const len = 5 + (next() % 200);
      for (let i = 0; i < len; i++) text += bits[next() % bits.length];
      for (const id of ['tiktoken:o200k_base', 'tiktoken:cl100k_base'])
        expect(summaryCounter(id)(text), JSON.stringify(text)).toBe(getTokenizer(id).countText(text));
    }
  });
});
