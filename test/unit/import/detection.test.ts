/**
 * Detection never depends on key order or on where a key falls in the file (docs/architecture.md): the same
 * document with its keys shuffled, padded so its telling keys fall past the 64 KB head, is
 * detected the same; and shapes two formats share are told apart on their parsed structure.
 */
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { SNIFF_BYTES } from '../../../src/core/import/read';

const dir = join(__dirname, '../../fixtures/import');
const JSON_FIXTURES = [
  'anthropic-request.json',
  'anthropic-response.json',
  'chat-request.json',
  'gemini-session.json',
  'langchain.json',
  'mini-swe-agent.traj.json',
  'openai-chat-response.json',
  'openhands-events.json',
  'otel.json',
  'sharegpt.json',
  'swe-agent.traj',
];
const JSONL_FIXTURES = [
  'claude-code-session.jsonl',
  'codex-rollout.jsonl',
  'gemini-session.jsonl',
  'messages.jsonl',
  'openhands-output.jsonl',
  'openhands-eval.jsonl',
  'responses.jsonl',
  'stream.jsonl',
];

/** The object with its own keys in the order `order` picks (a permutation drawn by fast-check). */
function reorder(v: unknown, order: readonly number[]): unknown {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
  const entries = Object.entries(v);
  const picked = order.filter((i) => i < entries.length);
  const rest = entries.map((_, i) => i).filter((i) => !picked.includes(i));
  return Object.fromEntries([...picked, ...rest].map((i) => entries[i]!));
}

/** Top-level keys shuffled (each element's, for a list); `pad` blanks after the opening bracket push everything past the head. */
function shuffledAndPadded(text: string, order: readonly number[], pad: number): string {
  const v = JSON.parse(text) as unknown;
  const shuffled = Array.isArray(v) ? v.map((x) => reorder(x, order)) : reorder(v, order);
  const body = JSON.stringify(shuffled);
  return body[0] + ' '.repeat(pad) + body.slice(1);
}

const permutation = fc.uniqueArray(fc.nat({ max: 15 }), { minLength: 0, maxLength: 16 });
const padding = fc.integer({ min: SNIFF_BYTES, max: SNIFF_BYTES + 20_000 });

describe('detection is independent of key order and of where keys fall', () => {
  for (const file of JSON_FIXTURES) {
    it(`${file}: shuffled keys, telling keys past the head`, async () => {
      const text = readFileSync(join(dir, file), 'utf8');
      const original = await importSource(stringSource(file, text));
      await fc.assert(
        fc.asyncProperty(permutation, padding, async (order, pad) => {
          const moved = await importSource(stringSource(file, shuffledAndPadded(text, order, pad)));
          expect(moved.format).toBe(original.format);
          expect(moved.sessions.map((s) => s.messages.length)).toEqual(original.sessions.map((s) => s.messages.length));
        }),
        { numRuns: 4 },
      );
    });
  }

  for (const file of JSONL_FIXTURES) {
    it(`${file}: every line's keys shuffled, the first line longer than the head`, async () => {
      const lines = readFileSync(join(dir, file), 'utf8')
        .split('\n')
        .filter((l) => l.trim());
      const original = await importSource(stringSource(file, lines.join('\n') + '\n'));
      await fc.assert(
        fc.asyncProperty(permutation, padding, async (order, pad) => {
          const moved = lines.map((l, i) => (i === 0 ? shuffledAndPadded(l, order, pad) : JSON.stringify(reorder(JSON.parse(l), order))));
          const out = await importSource(stringSource(file, moved.join('\n') + '\n'));
          expect(out.format).toBe(original.format);
          expect(out.sessions.map((s) => s.messages.length)).toEqual(original.sessions.map((s) => s.messages.length));
        }),
        { numRuns: 3 },
      );
    });
  }
});

describe('shapes two formats share are told apart on the parsed structure', () => {
  it('an OpenAI body with text blocks and an image_url is OpenAI, and keeps the image', async () => {
    const body = {
      model: 'gpt-4o',
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'what is in this picture?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
          ],
        },
      ],
    };
    const out = await importSource(stringSource('vision.json', JSON.stringify(body)));
    expect(out.format).toBe('openai-chat');
    expect(out.sessions[0]!.messages[0]!.parts.map((p) => p.kind)).toEqual(['text', 'media']);
  });

  it('an OpenAI chat document over 64 KB with no tool_calls anywhere', async () => {
    const long = 'lorem ipsum '.repeat(8_000);
    const body = {
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: long },
        { role: 'assistant', content: 'ok' },
      ],
      model: 'gpt-4o',
    };
    const text = JSON.stringify(body, null, 2);
    expect(text.length).toBeGreaterThan(SNIFF_BYTES);
    const out = await importSource(stringSource('big.json', text));
    expect(out.format).toBe('openai-chat');
    expect(out.sessions[0]!.messages).toHaveLength(2);
  });

  it('a SWE-agent trajectory whose history starts past the head (key order trajectory, history, info)', async () => {
    const step = { action: 'ls', observation: 'x'.repeat(20_000), response: 'ls', thought: 'look', state: {} };
    const traj = {
      trajectory: [step, step, step, step],
      history: [
        { role: 'system', content: 'sys' },
        { role: 'user', content: 'fix it' },
        { role: 'assistant', content: 'ls' },
      ],
      info: {},
    };
    const out = await importSource(stringSource('t.traj', JSON.stringify(traj, null, 2)));
    expect(out.format).toBe('swe-agent');
  });

  it('JSON lines whose first line is longer than the head, whatever its key order', async () => {
    const first = { content: 'y'.repeat(SNIFF_BYTES + 10), role: 'user' };
    const text = [JSON.stringify(first), JSON.stringify({ content: 'ok', role: 'assistant' })].join('\n') + '\n';
    const out = await importSource(stringSource('long.jsonl', text));
    expect(out.format).toBe('jsonl');
    expect(out.sessions[0]!.messages).toHaveLength(2);
  });
});
