/**
 * One snapshot per fixture (a stable text dump of the imported sessions); each fixture imported
 * with no format named gives the same result as with its format named; bad shapes fail clearly.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource } from '../../../src/core/import/index';
import { fileSource } from '../../../src/main/io/file-source';
import { dumpSessions } from '../../helpers/dump';

const dir = join(__dirname, '../../fixtures/import');
const expected: Record<string, string> = {
  'aider.chat.history.md': 'aider',
  'anthropic-request.json': 'anthropic',
  'chat-request.json': 'openai-chat',
  'langchain.json': 'langchain',
  'messages.jsonl': 'jsonl',
  'otel.json': 'otel',
  'responses.jsonl': 'openai-responses',
  'sharegpt.json': 'sharegpt',
  'stream.jsonl': 'claude-stream-json',
};

describe('fixtures', () => {
  it('every fixture has an expected format', () => {
    expect(readdirSync(dir).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [file, format] of Object.entries(expected)) {
    it(`${file} → ${format}, same with or without the format named`, async () => {
      const auto = await importSource(fileSource(join(dir, file)));
      expect(auto.format).toBe(format);
      const named = await importSource(fileSource(join(dir, file)), { format: auto.format });
      expect(named.sessions).toEqual(auto.sessions);
      expect(dumpSessions(auto.format, auto.sessions)).toMatchSnapshot();
    });
  }

  it('keeps what each format says about usage and its convention', async () => {
    const a = await importSource(fileSource(join(dir, 'anthropic-request.json')));
    expect(a.sessions[0]!.messages.at(-1)!.usage).toEqual({ convention: 'anthropic', input: 12, cacheRead: 900, cacheWrite: 50, output: 8 });
    const r = await importSource(fileSource(join(dir, 'responses.jsonl')));
    expect(r.sessions[0]!.messages.find((m) => m.usage)!.usage).toMatchObject({ convention: 'openai', input: 120, cacheRead: 100, reasoning: 12 });
    const aider = await importSource(fileSource(join(dir, 'aider.chat.history.md')));
    expect(aider.sessions[0]!.messages.filter((m) => m.usage).map((m) => [m.usage!.input, m.usage!.output, m.usage!.coarse])).toEqual([
      [2_400, 104, true],
      [2_600, 80, true],
    ]);
  });
});
