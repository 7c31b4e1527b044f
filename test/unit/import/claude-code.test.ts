import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource, type ByteSource } from '../../../src/core/import/index';
import { fileSource } from '../../../src/main/io/file-source';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
const L = (o: Record<string, unknown>): string =>
  JSON.stringify({ sessionId: 'S', isSidechain: false, timestamp: '2026-01-01T00:00:00Z', ...o });
const u = (uuid: string, parentUuid: string | null, content: unknown, extra: Record<string, unknown> = {}) =>
  L({ type: 'user', uuid, parentUuid, message: { role: 'user', content }, ...extra });
const a = (uuid: string, parentUuid: string | null, id: string, block: unknown, usage?: unknown) =>
  L({
    type: 'assistant',
    uuid,
    parentUuid,
    message: { id, role: 'assistant', model: 'claude-sonnet-4-5', content: [block], ...(usage ? { usage } : {}) },
  });

describe('Claude Code importer', () => {
  it('imports the bundled sample: merged split lines, usage, one compaction, one subagent', async () => {
    const out = await importSource(fileSource(sample));
    expect(out.format).toBe('claude-code');
    const s = out.sessions[0]!;
    const assistants = s.messages.filter((m) => m.role === 'assistant');
    // Every API call is one message even when Claude Code wrote it over several lines.
    expect(new Set(assistants.map((m) => m.id)).size).toBe(assistants.length);
    expect(assistants.every((m) => m.usage?.convention === 'anthropic')).toBe(true);
    expect(s.sourceCompactions).toHaveLength(1);
    const c = s.sourceCompactions[0]!;
    expect(c.trigger).toBe('auto');
    expect(c.tokensBefore).toBeGreaterThan(100_000);
    expect(c.summary).toMatch(/ORD-1187/);
    // The summary is a region, never a history message.
    expect(
      s.messages.some((m) => m.parts.some((p) => p.kind === 'text' && p.text.includes('continued from a previous conversation'))),
    ).toBe(false);
    expect(s.subagents).toHaveLength(1);
    expect(s.messages.some((m) => m.sidechain)).toBe(false);
    expect(s.model).toBe('claude-sonnet-4-5-20250929');
    expect(s.systemPrompt).toBeNull();
  });

  it("sends a slash command's body (an isMeta line under the command) and an isMeta tool result; drops other isMeta notes", async () => {
    const text = [
      u(
        'u1',
        null,
        '<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>src/app.ts</command-args>',
      ),
      u('m1', 'u1', [{ type: 'text', text: 'Review the file below for bugs. List each with its line.' }], { isMeta: true }),
      a('a1', 'm1', 'msg_1', { type: 'tool_use', id: 't1', name: 'Read', input: { path: 'src/app.ts' } }),
      u('r1', 'a1', [{ type: 'tool_result', tool_use_id: 't1', content: 'body' }], { isMeta: true }),
      u('n1', 'r1', '<system-reminder>Local command output below is for the user only.</system-reminder>', { isMeta: true }),
      a('a2', 'n1', 'msg_2', { type: 'text', text: 'No bugs found.' }),
    ].join('\n');
    const s = (await importSource(stringSource('slash.jsonl', text))).sessions[0]!;
    expect(s.messages.map((m) => m.id)).toEqual(['u1', 'm1', 'a1', 'r1', 'a2']);
    expect(s.messages[1]!.parts[0]).toMatchObject({ kind: 'text', text: 'Review the file below for bugs. List each with its line.' });
  });

  it('merges one API response split over lines and keeps the usage once', async () => {
    const usage = { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 7 };
    const text = [
      u('u1', null, 'hello'),
      a('a1', 'u1', 'msg_1', { type: 'thinking', thinking: 'hmm' }, usage),
      a('a2', 'a1', 'msg_1', { type: 'tool_use', id: 't1', name: 'Read', input: { path: 'x' } }, usage),
      u('u2', 'a2', [{ type: 'tool_result', tool_use_id: 't1', content: 'file body' }]),
      a('a3', 'u2', 'msg_2', { type: 'text', text: 'done' }, usage),
    ].join('\n');
    const s = (await importSource(stringSource('split.jsonl', text))).sessions[0]!;
    expect(s.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(s.messages[1]!.parts.map((p) => p.kind)).toEqual(['reasoning', 'tool_call']);
    expect(s.messages[1]!.usage).toEqual({ convention: 'anthropic', input: 5, cacheRead: 100, cacheWrite: 20, output: 7 });
  });

  it('follows the chain from the leaf so a rewound branch is not counted', async () => {
    const text = [
      u('u1', null, 'first question'),
      a('a1', 'u1', 'm1', { type: 'text', text: 'first answer' }),
      u('u2', 'a1', 'abandoned follow-up'),
      a('a2', 'u2', 'm2', { type: 'text', text: 'abandoned answer' }),
      u('u3', 'a1', 'rewound follow-up'),
      a('a3', 'u3', 'm3', { type: 'text', text: 'kept answer' }),
      JSON.stringify({ type: 'last-prompt', leafUuid: 'a3', sessionId: 'S' }),
    ].join('\n');
    const out = await importSource(stringSource('fork.jsonl', text));
    const texts = out.sessions[0]!.messages.map((m) => (m.parts[0]?.kind === 'text' ? m.parts[0].text : ''));
    expect(texts).toEqual(['first question', 'first answer', 'rewound follow-up', 'kept answer']);
    expect(out.warnings.join()).toMatch(/off the main chain/);
  });

  it('skips and counts unknown line types, never fails on them', async () => {
    const text = [
      u('u1', null, 'q'),
      JSON.stringify({ type: 'brand-new-thing', sessionId: 'S' }),
      JSON.stringify({ type: 'brand-new-thing' }),
      a('a1', 'u1', 'm', { type: 'text', text: 'x' }),
    ].join('\n');
    const out = await importSource(stringSource('new.jsonl', text));
    expect(out.sessions[0]!.messages).toHaveLength(2);
    expect(out.warnings.join()).toMatch(/skipped 2 line\(s\) of unknown type "brand-new-thing"/);
  });

  it('reads the same whatever the chunking: CRLF, characters split between chunks, a line longer than a chunk', async () => {
    const long = 'é日😀'.repeat(30_000); // ~270 KB of multi-byte text on one line
    const text = [
      u('u1', null, 'héllo 😀'),
      a('a1', 'u1', 'm1', { type: 'text', text: long }),
      u('u2', 'a1', [{ type: 'tool_result', tool_use_id: 't', content: 'ü'.repeat(100) }]),
      a('a2', 'u2', 'm2', { type: 'text', text: 'done' }),
    ].join('\r\n');
    const bytes = new TextEncoder().encode(text);
    const chunked = (step: number): ByteSource => ({
      name: 'chunks.jsonl',
      async *chunks() {
        for (let i = 0; i < bytes.length; i += step) yield bytes.slice(i, i + step);
      },
    });
    const whole = await importSource(chunked(bytes.length));
    expect(whole.sessions[0]!.messages.map((m) => (m.parts[0]?.kind === 'text' ? m.parts[0].text.length : 0))).toEqual([
      8,
      long.length,
      0,
      4,
    ]);
    for (const step of [1, 3, 7, 1000, 1 << 16]) {
      const out = await importSource(chunked(step));
      expect(out.sessions).toEqual(whole.sessions);
    }
  });

  it('follows parents by uuid across many lines and forks, and merges a response whose lines are far apart', async () => {
    const lines: string[] = [u('u0', null, 'start')];
    let prev = 'u0';
    for (let i = 1; i <= 300; i++) {
      const id = `a${i}`;
      // Every tenth line forks off the line before last (a rewind): that parent is found by
      // uuid, not as the line just read, and the line skipped is off the chain.
      lines.push(a(id, i % 10 === 0 ? `a${i - 2}` : prev, `msg_${i}`, { type: 'text', text: `step ${i}` }));
      prev = id;
    }
    // A last line of the response `msg_291`, long after it: merged into that message.
    lines.push(a('late', prev, 'msg_291', { type: 'tool_use', id: 't', name: 'Read', input: {} }));
    const s = (await importSource(stringSource('forks.jsonl', lines.join('\n')))).sessions[0]!;
    const kept = Array.from({ length: 300 }, (_, k) => k + 1).filter((i) => i % 10 !== 9);
    expect(s.messages.map((m) => m.id)).toEqual(['u0', ...kept.map((i) => `a${i}`)]);
    const merged = s.messages.find((m) => m.id === 'a291')!;
    expect(merged.parts.map((p) => p.kind)).toEqual(['text', 'tool_call']);
  });

  it('falls back to file order when uuids repeat, and keeps a line in two sessions as two messages', async () => {
    const text = [
      u('u1', null, 'q1'),
      a('a1', 'u1', 'm1', { type: 'text', text: 'x' }),
      u('u1', 'a1', 'q1 again'),
      L({ type: 'user', uuid: 's1', parentUuid: 'a1', isSidechain: true, message: { role: 'user', content: 'side' } }),
    ].join('\n');
    const out = await importSource(stringSource('dup.jsonl', text));
    expect(out.warnings.join()).toMatch(/1 line\(s\) reuse a uuid/);
    expect(out.sessions[0]!.messages.map((m) => (m.parts[0]?.kind === 'text' ? m.parts[0].text : ''))).toEqual(['q1', 'x', 'q1 again']);
    expect(out.sessions[0]!.subagents).toHaveLength(1);

    // The leaf's parent is a sidechain line: it is in the main chain and in the subagent.
    const shared = [
      u('u1', null, 'q'),
      L({ type: 'user', uuid: 's1', parentUuid: 'u1', isSidechain: true, message: { role: 'user', content: 'side' } }),
      a('a1', 's1', 'm1', { type: 'text', text: 'x' }),
    ].join('\n');
    const s = (await importSource(stringSource('shared.jsonl', shared))).sessions[0]!;
    const inMain = s.messages.find((m) => m.id === 's1');
    const inSub = s.subagents[0]!.messages.find((m) => m.id === 's1');
    expect(inMain).toEqual(inSub);
    expect(inMain).not.toBe(inSub);
  });

  // A bare line (content only: no timestamp, model or usage) that goes on with its parent's
  // response keeps only its parts until the merge; the first line's message is merged into in
  // place unless another session takes it too (memory on split responses).
  describe('split responses over bare lines', () => {
    const bare = (uuid: string, parentUuid: string | null, id: string, text: string, extra: Record<string, unknown> = {}) =>
      JSON.stringify({
        type: 'assistant',
        uuid,
        parentUuid,
        sessionId: 'S',
        message: { id, role: 'assistant', content: [{ type: 'text', text }] },
        ...extra,
      });
    const texts = (m: { parts: readonly { kind: string }[] }) => m.parts.map((p) => ('text' in p ? p.text : p.kind));

    it('merges a bare second line on the chain, and leaves the first line whole when a fork skips it', async () => {
      const head = [
        u('u1', null, 'q'),
        a('a1', 'u1', 'm1', { type: 'text', text: 'first' }),
        bare('b2', 'a1', 'm1', 'second'),
        bare('b3', 'b2', 'm1', 'third'),
      ];
      const on = (await importSource(stringSource('on.jsonl', [...head, u('u4', 'b3', 'next')].join('\n')))).sessions[0]!;
      expect(on.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u4']);
      expect(texts(on.messages[1]!)).toEqual(['first', 'second', 'third']);
      expect(on.messages[1]!.mergedLines).toEqual([3, 4]);
      // A rewind right after the first line: the bare lines are off the chain.
      const fork = await importSource(stringSource('fork.jsonl', [...head, u('u4', 'a1', 'rewound')].join('\n')));
      const s = fork.sessions[0]!;
      expect(s.messages.map((m) => m.id)).toEqual(['u1', 'a1', 'u4']);
      expect(texts(s.messages[1]!)).toEqual(['first']);
      expect(s.messages[1]!.mergedLines).toBeUndefined();
      expect(fork.warnings.join()).toMatch(/2 message line\(s\) are off the main chain/);
    });

    it('gives a bare line its own message when a cycle puts it before the line it goes on with', async () => {
      // a1's parent is read later (z), z's parent is b2, b2's is a1; the walk starts at a1.
      const text = [
        a('a1', 'z', 'm1', { type: 'text', text: 'first' }),
        bare('b2', 'a1', 'm1', 'second'),
        u('z', 'b2', 'loop'),
        JSON.stringify({ type: 'last-prompt', leafUuid: 'a1', sessionId: 'S' }),
      ].join('\n');
      const s = (await importSource(stringSource('cycle.jsonl', text))).sessions[0]!;
      expect(s.messages.map((m) => m.id)).toEqual(['b2', 'z']);
      expect(s.messages[0]).toMatchObject({ id: 'b2', role: 'assistant', sourceLine: 2, mergedLines: [1] });
      // What its line had, in the order a message read from it has (the merge adds mergedLines).
      expect(Object.keys(s.messages[0]!)).toEqual(['id', 'role', 'parts', 'sourceLine', 'mergedLines']);
      expect(texts(s.messages[0]!)).toEqual(['second', 'first']);
    });

    it('merges into a copy when the first line is a sidechain line that its subagent takes too', async () => {
      const text = [
        u('u1', null, 'q'),
        bare('s1', 'u1', 'm1', 'side first', { isSidechain: true }),
        bare('a2', 's1', 'm1', 'main second'),
      ].join('\n');
      const s = (await importSource(stringSource('shared-split.jsonl', text))).sessions[0]!;
      const inMain = s.messages.find((m) => m.id === 's1')!;
      const inSub = s.subagents[0]!.messages.find((m) => m.id === 's1')!;
      expect(texts(inMain)).toEqual(['side first', 'main second']);
      expect(inMain.mergedLines).toEqual([3]);
      expect(texts(inSub)).toEqual(['side first']);
      expect(inSub.mergedLines).toBeUndefined();
    });

    it('tells the host when the read of a big file is over, once, and not for a small one', async () => {
      const lines = (n: number) =>
        Array.from({ length: n }, (_, k) =>
          k % 3 === 0 ? u(`l${k}`, k ? `l${k - 1}` : null, 'hi') : bare(`l${k}`, `l${k - 1}`, `m${Math.floor(k / 3)}`, 'ok'),
        ).join('\n');
      let ends = 0;
      const small = await importSource(stringSource('small.jsonl', lines(3000)), { onPhaseEnd: () => ends++ });
      expect(ends).toBe(0);
      expect(small.sessions[0]!.messages).toHaveLength(2000);
      const big = await importSource(stringSource('big.jsonl', lines(100_002)), { onPhaseEnd: () => ends++ });
      expect(ends).toBe(1);
      expect(big.sessions[0]!.messages).toHaveLength(66_668);
    });
  });

  it('gives the same sessions with the format named as when detected', async () => {
    const auto = await importSource(fileSource(sample));
    const named = await importSource(fileSource(sample), { format: 'claude-code' });
    expect(named.sessions).toEqual(auto.sessions);
  });

  it("keeps a call's usage fields in one order, the call key last: the stored body's JSON text is that order", async () => {
    const usage = { input_tokens: 3, cache_creation_input_tokens: 5, cache_read_input_tokens: 7, output_tokens: 11 };
    const text = [
      u('u1', null, 'hi'),
      L({ ...JSON.parse(a('a1', 'u1', 'msg_1', { type: 'text', text: 'one' }, usage)), requestId: 'req_1' }),
      u('u2', 'a1', 'more'),
      L({
        ...JSON.parse(
          a('a2', 'u2', 'msg_2', { type: 'text', text: 'two' }, { ...usage, cache_creation: { ephemeral_1h_input_tokens: 2 } }),
        ),
        requestId: 'req_2',
      }),
      u('u3', 'a2', 'last'),
      // A redacted id: no call key.
      L({ ...JSON.parse(a('a3', 'u3', '[REDACTED]', { type: 'text', text: 'three' }, usage)), requestId: 'req_3' }),
    ].join('\n');
    const s = (await importSource(stringSource('keys.jsonl', text))).sessions[0]!;
    const bodies = s.messages.filter((m) => m.role === 'assistant').map((m) => JSON.stringify(m.usage));
    expect(bodies).toEqual([
      '{"convention":"anthropic","input":3,"cacheRead":7,"cacheWrite":5,"output":11,"callKey":"msg_1:req_1"}',
      '{"convention":"anthropic","input":3,"cacheRead":7,"cacheWrite":5,"output":11,"cacheWrite1h":2,"callKey":"msg_2:req_2"}',
      '{"convention":"anthropic","input":3,"cacheRead":7,"cacheWrite":5,"output":11}',
    ]);
  });
});
