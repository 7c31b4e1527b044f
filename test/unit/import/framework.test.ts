import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectImporter, IMPORTERS, importSource, stringSource } from '../../../src/core/import/index';
import { sniffText } from '../../../src/core/import/sniff';
import type { ByteSource } from '../../../src/core/import/types';

const bytesSource = (name: string, bytes: Uint8Array): ByteSource => ({
  name,
  size: bytes.length,
  async *chunks() {
    yield bytes;
  },
});
const line = (o: unknown): string => JSON.stringify(o);
const chatLines = [line({ role: 'user', content: 'hi' }), line({ role: 'assistant', content: 'hello' }), line({ role: 'user', content: 'bye' })];

describe('bad input gets one clear error naming file, line and what was expected', () => {
  it('an empty file', async () => {
    await expect(importSource(stringSource('empty.jsonl', ''))).rejects.toThrow('empty.jsonl: a transcript, found an empty file');
  });

  it('binary data', async () => {
    await expect(importSource(bytesSource('x.bin', new Uint8Array([0x7b, 0, 1, 2, 3])))).rejects.toThrow(/x\.bin: a text transcript, found binary data/);
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
    await expect(importSource(stringSource('shape.json', '{"hello": [1, 2, 3]}'))).rejects.toThrow(/shape\.json: a known transcript format, found JSON of an unknown shape/);
  });

  it('a JSON document broken in the middle: line and column', async () => {
    const text = '{\n  "messages": [\n    {"role": "user", "content": "x"},\n    {"role": "assistant" "content": "y"}\n  ]\n}';
    await expect(importSource(stringSource('doc.json', text), { format: 'openai-chat' })).rejects.toThrow(/^doc\.json:4:\d+: valid JSON/);
  });

  it('a forced format that does not exist', async () => {
    await expect(importSource(stringSource('a.jsonl', chatLines.join('\n')), { format: 'nope' as never })).rejects.toThrow(/a known format, got "nope"/);
  });
});

describe('detection', () => {
  it('garbage is "not this format", never a throw (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json(), fc.array(fc.json()).map((a) => a.join('\n'))), (text) => {
        const sniff = sniffText('g', text, true);
        for (const imp of IMPORTERS) expect(() => imp.detect(sniff)).not.toThrow();
      }),
      { numRuns: 300 },
    );
  });

  it('a JSONL line longer than the sniffing window does not break detection', async () => {
    const big = 'x'.repeat(200_000);
    const rec = (uuid: string, parent: string | null, type: string, content: unknown) =>
      line({ parentUuid: parent, isSidechain: false, sessionId: 's1', uuid, type, timestamp: '2026-01-01T00:00:00Z', message: { role: type, content, ...(type === 'assistant' ? { id: uuid, model: 'claude-sonnet-4-5' } : {}) } });
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
    const many = Array.from({ length: 50_000 }, (_, i) => line({ role: i % 2 ? 'assistant' : 'user', content: `message ${i} `.repeat(10) })).join('\n');
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
