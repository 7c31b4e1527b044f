/**
 * Inputs a red team (and the fuzz suite next to this file) found to crash or mislead the import:
 * each now ends in a session or in one clear error that names the file, the line and the byte.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { ImportError, type ByteSource } from '../../../src/core/import/types';
import { jsonText } from '../../../src/core/import/util';

const enc = (t: string): Uint8Array => new TextEncoder().encode(t);

/** Bytes served in chunks of `step` (Node's file stream serves 1 MiB; tests use odd sizes too). */
function bytesSource(name: string, bytes: Uint8Array, step = 1 << 16): ByteSource {
  return {
    name,
    size: bytes.length,
    async *chunks() {
      for (let i = 0; i < bytes.length; i += step) yield bytes.subarray(i, i + step);
    },
  };
}

const chat = (i: number): string => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(3) });

/** JSONL whose line `bad` (1-based) carries a Latin-1 é (0xe9) in its content; returns the é's offset. */
function latin1At(lines: number, bad: number): { bytes: Uint8Array; offset: number; column: number } {
  const parts: Uint8Array[] = [];
  let at = 0;
  let offset = -1;
  let column = -1;
  for (let i = 1; i <= lines; i++) {
    const text = chat(i) + '\n';
    if (i === bad) {
      // `{"role":"…","content":"` then the é: its column is the prefix length + 1.
      const prefix = text.slice(0, text.indexOf('"content":"') + '"content":"'.length);
      const rest = text.slice(prefix.length);
      const p = enc(prefix);
      parts.push(p, new Uint8Array([0xe9]), enc(rest));
      offset = at + p.length;
      column = p.length + 1;
      at += p.length + 1 + enc(rest).length;
    } else {
      const b = enc(text);
      parts.push(b);
      at += b.length;
    }
  }
  const bytes = new Uint8Array(at);
  let k = 0;
  for (const p of parts) {
    bytes.set(p, k);
    k += p.length;
  }
  return { bytes, offset, column };
}

async function errorOf(p: Promise<unknown>): Promise<ImportError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ImportError) return e;
    throw e;
  }
  throw new Error('expected an ImportError');
}

describe('invalid UTF-8 is reported at its exact byte and line', () => {
  for (const [lines, bad, step] of [
    [40, 20, 1 << 16],
    [6000, 4321, 1 << 16],
    [30000, 29000, 1 << 20],
    [30000, 12345, 4099],
  ] as const) {
    it(`line ${bad} of ${lines}, chunks of ${step} bytes`, async () => {
      const { bytes, offset, column } = latin1At(lines, bad);
      const e = await errorOf(importSource(bytesSource('x.jsonl', bytes, step)));
      // Not the chunk's start, not byte 0: the é itself.
      expect(e.message).toBe(`x.jsonl:${bad}:${column}: valid UTF-8 text, found an invalid byte sequence at byte ${offset} (0xe9)`);
    });
  }

  it('a stray continuation byte and a file cut inside a character', async () => {
    // `{"role":"user","content":"` is 26 bytes, then "xyz": the lone 0x80 is byte 29, column 30.
    const stray = new Uint8Array([...enc('{"role":"user","content":"xyz'), 0x80, ...enc('"}\n')]);
    expect((await errorOf(importSource(bytesSource('s.jsonl', stray)))).message).toBe(
      's.jsonl:1:30: valid UTF-8 text, found an invalid byte sequence at byte 29 (0x80)',
    );
    // "€" is e2 82 ac; the file ends after e2 82: line 1 (29 bytes + newline) + 26 bytes + 2 = 58.
    const cut = new Uint8Array([...enc('{"role":"user","content":"a"}\n{"role":"user","content":"'), 0xe2, 0x82]);
    expect((await errorOf(importSource(bytesSource('c.jsonl', cut)))).message).toBe(
      'c.jsonl: valid UTF-8 text, the file ends inside a multi-byte character (at byte 58)',
    );
  });
});

describe('a first JSONL line longer than the detection head', () => {
  // 200 KB of content on line 1: the head (64 KB) holds no line break.
  const first = JSON.stringify({ role: 'user', content: 'word '.repeat(40_000) });
  const text = [first, chat(1), chat(2)].join('\n') + '\n';

  it('is detected and read line by line', async () => {
    const out = await importSource(stringSource('long.jsonl', text));
    expect(out.format).toBe('jsonl');
    expect(out.sessions[0]!.messages).toHaveLength(3);
  });

  it('is read with --format jsonl', async () => {
    const out = await importSource(stringSource('long.jsonl', text), { format: 'jsonl' });
    expect(out.sessions[0]!.messages).toHaveLength(3);
    expect(out.sessions[0]!.messages[0]!.parts[0]).toMatchObject({ kind: 'text', text: 'word '.repeat(40_000) });
  });

  it('a one-line JSON document bigger than the head is still a document', async () => {
    const doc =
      JSON.stringify({
        messages: [
          { role: 'user', content: 'x'.repeat(100_000) },
          { role: 'assistant', content: 'ok' },
        ],
      }) + '\n';
    const out = await importSource(stringSource('doc.json', doc));
    expect(out.format).toBe('openai-chat');
    expect(out.sessions[0]!.messages).toHaveLength(2);
  });
});

describe('deep nesting', () => {
  const deepArray = (n: number): string => '['.repeat(n) + ']'.repeat(n);
  const deepObject = (n: number): string => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

  it('writes a value of any depth back as the same JSON text', () => {
    for (const t of [deepArray(20_000), deepObject(20_000), '{"b":[1,{"c":"é\\n"}],"a":null}']) expect(jsonText(JSON.parse(t))).toBe(t);
  });

  it('tool arguments and results nested 5,000 deep import as text', async () => {
    const lines = [
      JSON.stringify({ role: 'user', content: 'hi' }),
      `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":${deepArray(5000)}}}]}`,
      `{"role":"tool","tool_call_id":"c1","content":${deepObject(5000)}}`,
    ];
    const out = await importSource(stringSource('deep.jsonl', lines.join('\n')));
    const [, call, result] = out.sessions[0]!.messages;
    expect(call!.parts[0]).toMatchObject({ kind: 'tool_call', args: deepArray(5000) });
    expect(result!.parts[0]).toMatchObject({ kind: 'tool_result', text: deepObject(5000) });
  });

  it('a tool schema nested past the documented depth is refused at its line and column', async () => {
    const doc = JSON.stringify({
      messages: [{ role: 'user', content: 'x' }],
      tools: [{ type: 'function', function: { name: 'f', parameters: {} } }],
    });
    const at = doc.indexOf('"parameters":{}') + '"parameters":'.length;
    const text = doc.slice(0, at) + deepObject(6000) + doc.slice(at + 2);
    const e = await errorOf(importSource(stringSource('deep.json', text)));
    // Depth before the schema: the document, "tools", the tool, "function" = 4 brackets; the
    // 1,001st bracket is the schema's 997th `{"a":`, whose `{` is 5 × 996 characters into it.
    const column = at + 5 * 996 + 1;
    expect(e.message).toBe(`deep.json:1:${column}: JSON nested at most 1,000 levels deep (arrays and objects), found deeper`);
  });
});

describe('JSONL of messages converted a few hundred lines at a time', () => {
  it('reads as one list: leading system messages form the prompt, ids count every line', async () => {
    // 300 leading system lines (more than one conversion batch of 256), then 300 messages with a
    // system message at line 451 (which stays in the history).
    const lines: string[] = [];
    for (let i = 0; i < 300; i++) lines.push(JSON.stringify({ role: 'system', content: `rule ${i}` }));
    for (let i = 300; i < 600; i++)
      lines.push(JSON.stringify({ role: i === 450 ? 'system' : i % 2 ? 'assistant' : 'user', content: `m${i}` }));
    const out = await importSource(stringSource('many.jsonl', lines.join('\n')));
    const s = out.sessions[0]!;
    expect(s.systemPrompt).toBe(Array.from({ length: 300 }, (_, i) => `rule ${i}`).join('\n\n'));
    expect(s.messages).toHaveLength(300);
    // The id names the message's index among all lines (0-based), its sourceLine the file line.
    expect(s.messages[0]).toMatchObject({ id: 'many.jsonl#300', sourceLine: 301, role: 'user' });
    expect(s.messages[150]).toMatchObject({ id: 'many.jsonl#450', sourceLine: 451, role: 'system' });
    expect(s.messages[299]).toMatchObject({ id: 'many.jsonl#599', sourceLine: 600 });
  });
});

describe('OpenTelemetry spans with a malformed start', () => {
  it('imports them with the start unknown instead of throwing (the fuzz suite found `"__deep__"`)', async () => {
    const doc = JSON.parse(readFileSync(join(__dirname, '../../fixtures/import/otel.json'), 'utf8')) as {
      resourceSpans: { scopeSpans: { spans: Record<string, unknown>[] }[] }[];
    };
    const spans = doc.resourceSpans[0]!.scopeSpans[0]!.spans;
    const good = await importSource(stringSource('otel.json', JSON.stringify(doc)));
    spans[0]!['startTimeUnixNano'] = '__deep__';
    spans[1]!['startTimeUnixNano'] = -5;
    const bad = await importSource(stringSource('otel.json', JSON.stringify(doc)));
    expect(bad.sessions).toHaveLength(good.sessions.length);
    // Same messages; no time where it could not be read.
    expect(bad.sessions[0]!.messages.map((m) => m.id)).toEqual(good.sessions[0]!.messages.map((m) => m.id));
    expect(good.sessions[0]!.messages.filter((m) => (m.timestamp ?? 0) > 0)).toHaveLength(2);
    expect(bad.sessions[0]!.messages.filter((m) => (m.timestamp ?? 0) > 0)).toHaveLength(0);
  });
});
