/**
 * `keepRaw: 'lines'`: where an importer's records are whole lines of a JSONL file, a message
 * names its record by line (`sourceLine`, plus `mergedLines` for a response written over several
 * lines) instead of copying it into `raw` — and those lines are exactly the record `keepRaw: true`
 * keeps. Elsewhere (JSON documents, importers without `lineRecords`) `raw` is kept as before.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, lineRecordsFormat, stringSource } from '../../../src/core/import/index';
import type { Message, Session } from '../../../src/core/model';
import { fileSource } from '../../../src/main/io/file-source';

const fixtures = join(__dirname, '../../fixtures/import');
const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');

/** Every message of a session and of its subagents. */
const allMessages = (s: Session): Message[] => [...s.messages, ...s.subagents.flatMap(allMessages)];
const withoutRaw = (s: Session): Session => ({
  ...s,
  messages: s.messages.map(({ raw: _raw, ...m }) => m),
  subagents: s.subagents.map(withoutRaw),
});

/** The file's lines as the importer numbers them (1-based; CR and BOM are not part of a line). */
const linesOf = (text: string): string[] =>
  text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((l) => l.replace(/\r$/, ''));

describe('line records', () => {
  for (const path of [
    join(fixtures, 'claude-code-session.jsonl'),
    join(fixtures, 'stream.jsonl'),
    join(fixtures, 'messages.jsonl'),
    sample,
  ]) {
    it(`${path.split('/').pop()}: the named lines are the record keepRaw keeps`, async () => {
      const kept = await importSource(fileSource(path), { keepRaw: true });
      const named = await importSource(fileSource(path), { keepRaw: 'lines' });
      expect(kept.lineRecords).toBe(false);
      expect(named.lineRecords).toBe(true);
      expect(await lineRecordsFormat(fileSource(path))).toBe(named.format);
      // The same sessions, less the copies.
      expect(named.sessions).toEqual(kept.sessions.map(withoutRaw));
      const lines = linesOf(readFileSync(path, 'utf8'));
      const messages = named.sessions.flatMap(allMessages);
      const records = kept.sessions.flatMap(allMessages).map((m) => m.raw);
      expect(messages.length).toBeGreaterThan(0);
      messages.forEach((m, i) => {
        expect(m.raw).toBeUndefined();
        const record = [m.sourceLine!, ...(m.mergedLines ?? [])].map((l) => lines[l - 1]).join('\n');
        expect(record).toBe(records[i]);
      });
    });
  }

  it('a response split over lines lists the lines merged into it', async () => {
    const { sessions } = await importSource(fileSource(join(fixtures, 'claude-code-session.jsonl')));
    const merged = sessions[0]!.messages.filter((m) => m.mergedLines);
    expect(merged.length).toBeGreaterThan(0);
    for (const m of merged) for (const l of m.mergedLines!) expect(l).toBeGreaterThan(m.sourceLine!);
  });

  it('CRLF, a byte-order mark and blank lines keep the numbering', async () => {
    const text = '\uFEFF{"role":"user","content":"héllo"}\r\n\r\n{"role":"assistant","content":"hi"}\r\n';
    const named = await importSource(stringSource('crlf.jsonl', text), { keepRaw: 'lines' });
    const kept = await importSource(stringSource('crlf.jsonl', text), { keepRaw: true });
    const lines = linesOf(text);
    named.sessions[0]!.messages.forEach((m, i) => expect(lines[m.sourceLine! - 1]).toBe(kept.sessions[0]!.messages[i]!.raw));
  });

  it('JSON documents and importers without line records keep raw', async () => {
    for (const file of ['anthropic-request.json', 'codex-rollout.jsonl', 'chat-request.json']) {
      const out = await importSource(fileSource(join(fixtures, file)), { keepRaw: 'lines' });
      expect(out.lineRecords).toBe(false);
      expect(await lineRecordsFormat(fileSource(join(fixtures, file)))).toBeUndefined();
      const kept = await importSource(fileSource(join(fixtures, file)), { keepRaw: true });
      expect(out.sessions).toEqual(kept.sessions);
      if (file.endsWith('.jsonl')) expect(out.sessions.flatMap((s) => s.messages).every((m) => typeof m.raw === 'string')).toBe(true);
    }
  });
});
