/** The library's list view (src/main/host/views.ts): sessions of one file told apart, agents named. */
import { describe, expect, it } from 'vitest';
import { toSummaries } from '../../../src/main/host/views';
import type { StoredSessionRow } from '../../../src/main/store/sessions';

const row = (id: string, over: Partial<StoredSessionRow>): StoredSessionRow => ({
  id,
  sourcePath: '/logs/run.jsonl',
  format: 'jsonl',
  title: 'Fix the bug',
  model: null,
  messageCount: 2,
  stepCount: 1,
  turnCount: 1,
  hasUsage: false,
  startedAt: null,
  importedAt: 1,
  parentId: null,
  spawnedBy: null,
  spawnedAt: null,
  sourceId: 1,
  position: 0,
  cwd: null,
  compactions: 0,
  promptTokens: 0,
  outputTokens: 0,
  cost: null,
  endedAt: null,
  size: 10,
  cached: 0,
  ...over,
});

describe('library list view', () => {
  it('numbers same-titled sessions of one file; other files and distinct titles are left alone', () => {
    const out = toSummaries([
      row('a', { position: 0 }),
      row('b', { position: 1 }),
      row('c', { position: 2, title: 'Another task' }),
      row('d', { sourceId: 2, sourcePath: '/logs/other.jsonl' }),
      row('a-sub', { parentId: 'a', title: 'Fix the bug' }),
    ]);
    expect(out.map((s) => s.title)).toEqual(['Fix the bug #1 of 3', 'Fix the bug #2 of 3', 'Another task', 'Fix the bug', 'Fix the bug']);
  });

  it('names the agent from the format, and falls back to the file name without a title', () => {
    const [cc, oh, untitled] = toSummaries([
      row('x', { format: 'claude-code' }),
      row('y', { format: 'openhands', sourceId: 3 }),
      row('z', { title: null, sourceId: 4, sourcePath: '/logs/chat.json' }),
    ]);
    expect(cc!.agent).toBe('Claude Code');
    expect(oh!.agent).toBe('OpenHands');
    expect(untitled!.title).toBe('chat.json');
  });
});
