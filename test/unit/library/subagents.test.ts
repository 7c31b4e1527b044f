/** Which call spawned each Claude Code subagent (src/core/library/subagents.ts), on hand-built files. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { linkSubagents } from '../../../src/core/library/subagents';

let n = 0;
const base = (uuid: string, parentUuid: string | null, sidechain: boolean) => ({
  parentUuid,
  isSidechain: sidechain,
  userType: 'external',
  cwd: '/p',
  sessionId: 'sess-1',
  version: '1.0.100',
  uuid,
  timestamp: `2026-01-01T00:00:${String(n++).padStart(2, '0')}.000Z`,
});
const user = (uuid: string, parent: string | null, content: unknown, sidechain = false) => ({
  ...base(uuid, parent, sidechain),
  type: 'user',
  message: { role: 'user', content },
});
const assistant = (uuid: string, parent: string | null, content: unknown[], sidechain = false) => ({
  ...base(uuid, parent, sidechain),
  type: 'assistant',
  message: {
    id: `msg_${uuid}`,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5-20250929',
    content,
    usage: { input_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 3 },
  },
});
const task = (id: string, input: Record<string, string>) => ({ type: 'tool_use', id, name: 'Task', input });
const result = (id: string, text: string) => ({ type: 'tool_result', tool_use_id: id, content: [{ type: 'text', text }] });

/**
 * Main chain: a prompt, then three Task calls — T1 with a prompt, T2 without one (its subagent is
 * found by its answer), T3 with the same prompt as T1 (its own, second subagent). Sidechains are
 * written before the results, as Claude Code does.
 */
function file(): string {
  const lines = [
    user('u1', null, 'Survey the repo.'),
    assistant('a1', 'u1', [
      task('T1', { description: 'List files', prompt: 'List every file.', subagent_type: 'general-purpose' }),
      task('T2', { description: 'Count lines', subagent_type: 'general-purpose' }),
      task('T3', { description: 'List again', prompt: 'List every file.' }),
    ]),
    // Subagent for T2 (no prompt to match: its answer matches T2's result).
    user('s2a', null, 'How many lines are there?', true),
    assistant('s2b', 's2a', [{ type: 'text', text: '4,200 lines.' }], true),
    // Subagents for T1 and T3: same prompt, different answers.
    user('s1a', null, 'List every file.', true),
    assistant('s1b', 's1a', [{ type: 'text', text: 'a.ts, b.ts' }], true),
    user('s3a', null, 'List every file.', true),
    assistant('s3b', 's3a', [{ type: 'text', text: 'a.ts, b.ts, c.ts' }], true),
    // An unrelated sidechain nothing spawned that the file shows.
    user('s4a', null, 'Orphan work.', true),
    assistant('s4b', 's4a', [{ type: 'text', text: 'nothing' }], true),
    user('r1', 'a1', [result('T1', 'a.ts, b.ts'), result('T2', 'Counted: 4,200 lines.'), result('T3', 'a.ts, b.ts, c.ts')]),
    assistant('a2', 'r1', [{ type: 'text', text: 'Done.' }]),
  ];
  return lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
}

describe('subagent links (Claude Code sidechains)', () => {
  it('links each subagent to the Task call that spawned it: by prompt, else by answer; one subagent per call', async () => {
    const [s] = (await importSource(stringSource('s.jsonl', file()))).sessions;
    expect(s!.subagents).toHaveLength(4);
    const firstPrompts = s!.subagents.map((x) => (x.messages[0]!.parts[0] as { text: string }).text);
    const links = linkSubagents(s!);
    const byPrompt = new Map(
      links.map((l) => [
        `${firstPrompts[l.subagent]}|${s!.subagents[l.subagent]!.messages.at(-1)!
          .parts.map((p) => ('text' in p ? p.text : ''))
          .join('')}`,
        l,
      ]),
    );
    const spawner = s!.messages.findIndex((m) => m.parts.some((p) => p.kind === 'tool_call' && p.id === 'T1'));
    expect(spawner).toBeGreaterThan(0);
    expect(byPrompt.get('How many lines are there?|4,200 lines.')).toMatchObject({
      callId: 'T2',
      messageIndex: spawner,
      title: 'general-purpose: Count lines',
    });
    expect(byPrompt.get('List every file.|a.ts, b.ts')).toMatchObject({
      callId: 'T1',
      messageIndex: spawner,
      title: 'general-purpose: List files',
    });
    expect(byPrompt.get('List every file.|a.ts, b.ts, c.ts')).toMatchObject({ callId: 'T3', title: 'List again' });
    expect(byPrompt.get('Orphan work.|nothing')).toMatchObject({ callId: null, messageIndex: null, title: 'Orphan work.' });
  });

  it('links the sidechain of the import fixture to its Task call', async () => {
    const text = readFileSync(join(__dirname, '../../fixtures/import/claude-code-session.jsonl'), 'utf8');
    const [s] = (await importSource(stringSource('c.jsonl', text))).sessions;
    const [link] = linkSubagents(s!);
    expect(link).toMatchObject({ subagent: 0, callId: 'toolu_02T', title: expect.stringContaining('Find geocode callers') });
    expect(s!.messages[link!.messageIndex!]!.parts.some((p) => p.kind === 'tool_call' && p.id === 'toolu_02T')).toBe(true);
  });

  it('a session without subagents has no links', async () => {
    const [s] = (
      await importSource(
        stringSource(
          'c.jsonl',
          JSON.stringify(user('u', null, 'hi')) + '\n' + JSON.stringify(assistant('a', 'u', [{ type: 'text', text: 'yo' }])) + '\n',
        ),
      )
    ).sessions;
    expect(linkSubagents(s!)).toEqual([]);
  });
});
