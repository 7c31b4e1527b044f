import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectImporter, IMPORTERS, importSource, stringSource } from '../../../src/core/import/index';
import { sniffText } from '../../../src/core/import/sniff';
import { ImportError, type ByteSource, type ImportInput, type ParseContext } from '../../../src/core/import/types';

const bytesSource = (name: string, bytes: Uint8Array): ByteSource => ({
  name,
  size: bytes.length,
  async *chunks() {
    yield bytes;
  },
});
const line = (o: unknown): string => JSON.stringify(o);
const chatLines = [
  line({ role: 'user', content: 'hi' }),
  line({ role: 'assistant', content: 'hello' }),
  line({ role: 'user', content: 'bye' }),
];

describe('bad input gets one clear error naming file, line and what was expected', () => {
  it('an empty file', async () => {
    await expect(importSource(stringSource('empty.jsonl', ''))).rejects.toThrow('empty.jsonl: a transcript, found an empty file');
  });

  it('binary data', async () => {
    await expect(importSource(bytesSource('x.bin', new Uint8Array([0x7b, 0, 1, 2, 3])))).rejects.toThrow(
      /x\.bin:1:2: a text transcript, found binary data \(a NUL byte at byte 1\)/,
    );
  });

  it('UTF-16', async () => {
    const utf16 = new Uint8Array([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]);
    await expect(importSource(bytesSource('w.json', utf16))).rejects.toThrow(/w\.json:1:1: UTF-8 text, found UTF-16/);
  });

  it('a UTF-8 BOM is accepted', async () => {
    const body = new TextEncoder().encode(chatLines.join('\n') + '\n');
    const withBom = new Uint8Array([0xef, 0xbb, 0xbf, ...body]);
    const out = await importSource(bytesSource('bom.jsonl', withBom));
    expect(out.sessions[0]?.messages).toHaveLength(3);
  });

  it('invalid JSON in the middle: line and column', async () => {
    const text = [chatLines[0], '{"role": "assistant", "content": oops}', chatLines[2]].join('\n') + '\n';
    await expect(importSource(stringSource('mid.jsonl', text))).rejects.toThrow(/^mid\.jsonl:2:\d+: valid JSON/);
  });

  it('a truncated last line', async () => {
    const text = chatLines.join('\n') + '\n{"role":"user","content":"cut';
    await expect(importSource(stringSource('cut.jsonl', text))).rejects.toThrow(/cut\.jsonl:4: a complete last line/);
  });

  it('tolerant mode skips bad lines and says how many', async () => {
    const text = [chatLines[0], '{nope', chatLines[1], 'also bad', chatLines[2]].join('\n');
    const out = await importSource(stringSource('t.jsonl', text), { tolerant: true });
    expect(out.skippedLines).toBe(2);
    expect(out.sessions[0]?.messages).toHaveLength(3);
    expect(out.warnings[0]).toMatch(/skipped 2 line\(s\).*line 2/);
  });

  it('valid JSON of an unknown shape', async () => {
    await expect(importSource(stringSource('shape.json', '{"hello": [1, 2, 3]}'))).rejects.toThrow(
      /shape\.json:1:1: a known transcript format, found JSON of an unknown shape/,
    );
  });

  it('a JSON document broken in the middle: line and column', async () => {
    const text = '{\n  "messages": [\n    {"role": "user", "content": "x"},\n    {"role": "assistant" "content": "y"}\n  ]\n}';
    await expect(importSource(stringSource('doc.json', text), { format: 'openai-chat' })).rejects.toThrow(/^doc\.json:4:\d+: valid JSON/);
  });

  it('invalid JSON in the middle: the exact column, and nothing is returned', async () => {
    const text = [chatLines[0], '{"role": "assistant", "content": oops}', chatLines[2]].join('\n') + '\n';
    const progress: number[] = [];
    // Column 34 is the "o" of oops.
    await expect(importSource(stringSource('mid.jsonl', text), { onProgress: (p) => progress.push(p.sessions) })).rejects.toThrow(
      /^mid\.jsonl:2:34: valid JSON/,
    );
    expect(progress.every((n) => n === 0)).toBe(true);
  });

  it('an agent log broken in the middle or cut at the end fails the whole import, naming the line', async () => {
    const cc = (uuid: string, parentUuid: string | null) =>
      line({
        parentUuid,
        isSidechain: false,
        sessionId: 'S',
        uuid,
        type: 'user',
        timestamp: '2026-01-01T00:00:00Z',
        message: { role: 'user', content: 'q' },
      });
    await expect(
      importSource(stringSource('cc.jsonl', [cc('a', null), '{"parentUuid":"a","uuid":"b",,}', cc('c', 'a')].join('\n') + '\n')),
    ).rejects.toThrow(/^cc\.jsonl:2:30: valid JSON \(/);
    await expect(
      importSource(stringSource('cc.jsonl', [cc('a', null), cc('b', 'a'), cc('c', 'b').slice(0, 40)].join('\n'))),
    ).rejects.toThrow(/^cc\.jsonl:3: a complete last line: the file ends mid-record/);
    const codex = (type: string, payload: unknown) => line({ timestamp: '2026-01-01T00:00:00Z', type, payload });
    const rollout = [
      codex('session_meta', { id: 'r1' }),
      codex('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
      '{"timestamp":"2026-01-01T00:00:01Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hel',
    ];
    await expect(importSource(stringSource('rollout.jsonl', rollout.join('\n')))).rejects.toThrow(
      /^rollout\.jsonl:3: a complete last line/,
    );
  });

  it('tolerant mode on an agent log: imports the rest, reports the count and the first five', async () => {
    const codex = (type: string, payload: unknown) => line({ timestamp: '2026-01-01T00:00:00Z', type, payload });
    const good = [
      codex('session_meta', { id: 'r1' }),
      codex('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }),
      codex('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] }),
    ];
    const bad = Array.from({ length: 7 }, (_, i) => `{"broken": ${i}`);
    const text = [good[0], ...bad.slice(0, 4), good[1], ...bad.slice(4), good[2], '{"timestamp":"cut'].join('\n');
    const out = await importSource(stringSource('tol.jsonl', text), { tolerant: true });
    expect(out.format).toBe('codex');
    expect(out.skippedLines).toBe(8);
    expect(out.sessions[0]!.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const summary = out.warnings[0]!;
    expect(summary).toMatch(
      /^tol\.jsonl: skipped 8 line\(s\) that are not valid JSON; first: line 2: .*; line 3: .*; line 4: .*; line 5: .*; line 7: [^;]*$/,
    );
  });

  it('a BOM-prefixed UTF-8 JSON document imports exactly like the same file without it', async () => {
    const doc = line({
      model: 'claude-sonnet-4-5',
      max_tokens: 1024,
      system: 'Be brief.',
      messages: [
        { role: 'user', content: 'Ping' },
        { role: 'assistant', content: [{ type: 'text', text: 'Pong' }] },
      ],
    });
    const body = new TextEncoder().encode(doc);
    const plain = await importSource(bytesSource('doc.json', body));
    const bom = await importSource(bytesSource('doc.json', new Uint8Array([0xef, 0xbb, 0xbf, ...body])));
    expect(bom.format).toBe('anthropic');
    expect(bom.sessions).toEqual(plain.sessions);
  });

  it('other encodings and empty variants: one clear error naming the file', async () => {
    await expect(importSource(bytesSource('be.json', new Uint8Array([0xfe, 0xff, 0, 0x7b, 0, 0x7d])))).rejects.toThrow(
      /^be\.json:1:1: UTF-8 text, found UTF-16/,
    );
    await expect(importSource(bytesSource('bom-only.json', new Uint8Array([0xef, 0xbb, 0xbf])))).rejects.toThrow(
      /^bom-only\.json: a transcript, found an empty file$/,
    );
    await expect(importSource(stringSource('blank.jsonl', ' \n\n  \n'))).rejects.toThrow(
      /^blank\.jsonl: a transcript, found an empty file$/,
    );
    await expect(importSource(stringSource('notes.txt', 'hello world\n'))).rejects.toThrow(
      /^notes\.txt:1:1: a known transcript format, found text of an unknown shape starting "hello world\\n"/,
    );
    await expect(importSource(stringSource('u.jsonl', '{"a":1}\n{"b":2}\n'))).rejects.toThrow(
      /^u\.jsonl:1:1: a known transcript format, found JSON lines of an unknown shape/,
    );
  });

  it('invalid UTF-8 (a Latin-1 file) in JSONL or a JSON document: one clear encoding error', async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    const latin1 = (before: string, after: string) => new Uint8Array([...enc(before), 0xe9, ...enc(after)]);
    // The é (0xe9) follows the 29 bytes of `{"role":"user","content":"caf`: byte 29, line 1, column 30.
    await expect(importSource(bytesSource('one.jsonl', latin1('{"role":"user","content":"caf', '"}\n')))).rejects.toThrow(
      /^one\.jsonl:1:30: valid UTF-8 text, found an invalid byte sequence at byte 29 \(0xe9\)/,
    );
    // Line 2 starts after line 1 and its newline; `{"role":"assistant","content":"caf` is 34 bytes.
    const second = enc(chatLines[0]!).length + 1 + 34;
    await expect(
      importSource(bytesSource('two.jsonl', latin1(chatLines[0] + '\n{"role":"assistant","content":"caf', '"}\n' + chatLines[2] + '\n'))),
    ).rejects.toThrow(new RegExp(`^two\\.jsonl:2:35: valid UTF-8 text, found an invalid byte sequence at byte ${second} `));
    await expect(
      importSource(bytesSource('doc.json', latin1('{"system":"x","max_tokens":5,"messages":[{"role":"user","content":"caf', '"}]}'))),
    ).rejects.toThrow(/^doc\.json:1:71: valid UTF-8 text, found an invalid byte sequence at byte 70 \(0xe9\)/); // 70 bytes before the é
  });

  it('a truncated JSON document names the line and column, not "unknown shape"', async () => {
    await expect(importSource(stringSource('cut.json', '{\n  "messages": [\n    {"role": "user", "content": "x"}'))).rejects.toThrow(
      /^cut\.json:3:\d+: valid JSON/,
    );
  });

  it('UTF-16 without a BOM is named as UTF-16, not as binary data', async () => {
    await expect(importSource(bytesSource('le.json', new Uint8Array([0x7b, 0, 0x7d, 0, 0x0a, 0])))).rejects.toThrow(
      /^le\.json:1:1: UTF-8 text, found UTF-16/,
    );
    await expect(importSource(bytesSource('be.json', new Uint8Array([0, 0x7b, 0, 0x7d, 0, 0x0a])))).rejects.toThrow(
      /^be\.json:1:1: UTF-8 text, found UTF-16/,
    );
    // Real binary (NULs with no such pattern) is still binary.
    await expect(importSource(bytesSource('b.bin', new Uint8Array([0x7b, 0, 0, 0, 0x91, 0x22, 0, 7])))).rejects.toThrow(/binary data/);
  });

  it('a forced format that does not exist', async () => {
    await expect(importSource(stringSource('a.jsonl', chatLines.join('\n')), { format: 'nope' as never })).rejects.toThrow(
      /a known format, got "nope"/,
    );
  });
});

describe('detection', () => {
  it('garbage is "not this format", never a throw (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.array(fc.json()).map((a) => a.join('\n')),
        ),
        (text) => {
          const sniff = sniffText('g', text, true);
          for (const imp of IMPORTERS) expect(() => imp.detect(sniff)).not.toThrow();
        },
      ),
      { numRuns: 300 },
    );
  });

  it('format-shaped garbage: detect answers, parse returns sessions or throws an ImportError, never anything else (property)', async () => {
    const ctx: ParseContext = { name: 'garbage', keepRaw: true, lineRecords: false, warn() {}, progress() {} };
    const KEYS = [
      'type',
      'payload',
      'role',
      'content',
      'message',
      'messages',
      'uuid',
      'parentUuid',
      'logicalParentUuid',
      'sessionId',
      'isSidechain',
      'isCompactSummary',
      'compactMetadata',
      'subtype',
      'projectHash',
      'toolCalls',
      'tool_calls',
      'tool_call_id',
      'id',
      'source',
      'action',
      'observation',
      'args',
      'cause',
      'tool_call_metadata',
      'model_response',
      'history',
      'trajectory',
      'info',
      'instance_id',
      'conversations',
      'data',
      'resourceSpans',
      'input',
      'output',
      'usage',
      'choices',
      'parts',
      'replacement_history',
      '$set',
      '$rewindTo',
      'trajectory_format',
      'extra',
      'system',
      'tools',
      'function',
      'text',
      'summary',
      'forgotten_event_ids',
      'forgotten_events_start_id',
      'forgotten_events_end_id',
    ];
    const WORDS = [
      'user',
      'assistant',
      'system',
      'gemini',
      'model',
      'tool',
      'message',
      'function_call',
      'function_call_output',
      'reasoning',
      'session_meta',
      'response_item',
      'event_msg',
      'turn_context',
      'compacted',
      'token_count',
      'condensation',
      'compact_boundary',
      'tool_use',
      'tool_result',
      'thinking',
      'image',
      'text',
      'chat.completion',
      'mini-swe-agent-1.1',
    ];
    const shaped = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom(...WORDS),
        fc.jsonValue(),
        fc.array(tie('object'), { maxLength: 3 }),
        tie('object'),
      ),
      object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 6 }),
    }));
    const sameShape = (e: unknown): boolean => e instanceof ImportError;
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(shaped.object, fc.array(shaped.object, { maxLength: 4 }), fc.jsonValue()),
        fc.array(shaped.object, { maxLength: 5 }),
        fc.boolean(),
        async (doc, rows, complete) => {
          const jsonl = rows.map((r) => JSON.stringify(r)).join('\n');
          for (const text of [JSON.stringify(doc), jsonl]) {
            const sniff = sniffText('g', complete ? text : text.slice(0, Math.max(1, text.length - 7)), complete);
            for (const imp of IMPORTERS) expect(typeof imp.detect(sniff)).toBe('boolean');
          }
          for (const imp of IMPORTERS) {
            const inputs: ImportInput[] = [
              { kind: 'json', value: doc },
              {
                kind: 'jsonl',
                lines: (async function* () {
                  let n = 0;
                  for (const value of rows) yield { line: ++n, value, raw: JSON.stringify(value) };
                })(),
              },
              { kind: 'text', text: jsonl },
            ];
            for (const input of inputs) {
              try {
                expect(Array.isArray(await imp.parse(input, ctx))).toBe(true);
              } catch (e) {
                if (!sameShape(e)) throw new Error(`${imp.id} threw ${String(e)} on ${input.kind}`);
              }
            }
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('a JSONL line longer than the sniffing window does not break detection', async () => {
    const big = 'x'.repeat(200_000);
    const rec = (uuid: string, parent: string | null, type: string, content: unknown) =>
      line({
        parentUuid: parent,
        isSidechain: false,
        sessionId: 's1',
        uuid,
        type,
        timestamp: '2026-01-01T00:00:00Z',
        message: { role: type, content, ...(type === 'assistant' ? { id: uuid, model: 'claude-sonnet-4-5' } : {}) },
      });
    const text = [rec('u1', null, 'user', big), rec('a1', 'u1', 'assistant', [{ type: 'text', text: 'ok' }])].join('\n') + '\n';
    const out = await importSource(stringSource('long.jsonl', text));
    expect(out.format).toBe('claude-code');
    expect(out.sessions[0]?.messages).toHaveLength(2);
  });

  it('the bundled sample is detected as Claude Code', () => {
    const head = readFileSync(join(__dirname, '../../../resources/sample/sample-session.jsonl'), 'utf8').slice(0, 65536);
    expect(detectImporter(sniffText('sample', head, false))?.id).toBe('claude-code');
  });
});

describe('cancellation and progress', () => {
  it('reports progress and can be cancelled, returning nothing', async () => {
    const many = Array.from({ length: 50_000 }, (_, i) =>
      line({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(10) }),
    ).join('\n');
    const seen: number[] = [];
    const ok = await importSource(stringSource('many.jsonl', many), { onProgress: (p) => seen.push(p.bytes) });
    expect(ok.sessions[0]?.messages).toHaveLength(50_000);
    expect(seen.length).toBeGreaterThan(1);
    expect(seen[seen.length - 1]).toBe(new TextEncoder().encode(many).length);
    const controller = new AbortController();
    const pending = importSource(stringSource('many.jsonl', many), { signal: controller.signal, onProgress: () => controller.abort() });
    await expect(pending).rejects.toThrow(/cancelled/);
  });
});
