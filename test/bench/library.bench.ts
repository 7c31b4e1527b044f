/**
 * The session library at 1,000 sessions: listing reads stored rows only (every figure was computed
 * at import), so `listSessions` stays well under a frame budget however long the sessions are;
 * a delete of one session with its subagent is one transaction.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message, Session } from '../../src/core/model';
import { listLibrary } from '../../src/main/host/library';
import { openStore } from '../../src/main/store/index';
import { bestOfMs, timeMs, type BenchRow, type BenchSuite } from './harness';

const SESSIONS = 1000;
const MESSAGES = 200;

function session(k: number): Session {
  const messages: Message[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    const user = i % 2 === 0;
    messages.push({
      id: `m${i}`,
      role: user ? 'user' : 'assistant',
      parts: [{ kind: 'text', text: `${user ? 'Please look at' : 'Looked at'} file ${i} of session ${k}. `.repeat(8) }],
      timestamp: 1_700_000_000_000 + k * 1000 + i,
      ...(user
        ? {}
        : {
            usage: { convention: 'anthropic' as const, input: 10, cacheRead: 1000 + i, cacheWrite: 50, output: 40 },
            model: 'claude-sonnet-4-5',
          }),
    });
  }
  const sub: Session = {
    id: `s${k}/subagent-1`,
    format: 'claude-code',
    systemPrompt: null,
    tools: [],
    messages: messages.slice(0, 10),
    sourceCompactions: [],
    subagents: [],
    warnings: [],
  };
  return {
    id: `s${k}`,
    format: 'claude-code',
    model: 'claude-sonnet-4-5',
    cwd: `/work/project-${k % 17}`,
    systemPrompt: null,
    tools: [],
    messages,
    sourceCompactions: [],
    subagents: k % 10 === 0 ? [sub] : [],
    warnings: [],
  };
}

export const suite: BenchSuite = {
  name: 'library',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-bench-library-'));
    try {
      const store = openStore(join(dir, 'lib.db'));
      // 100 files of 10 sessions each (a tenth with a subagent): 1,100 rows, 220,000 messages.
      for (let f = 0; f < SESSIONS / 10; f++) {
        const sessions = Array.from({ length: 10 }, (_, j) => session(f * 10 + j));
        store.saveImport({ path: `/bench/f${f}.jsonl`, size: 1_000_000 + f, hash: `h${f}`, format: 'claude-code' }, sessions);
      }
      const rows = listLibrary(store).length;
      const list = await bestOfMs(5, () => listLibrary(store));
      const victim = store.listSessions()[0]!.id;
      const del = await timeMs(() => store.deleteSession(victim));
      store.close();
      return [
        { name: `listSessions, ${rows} sessions of ${MESSAGES} messages`, value: list, unit: 'ms', target: '≤ 50 ms', pass: list <= 50 },
        { name: 'deleteSession (with its subagent)', value: del, unit: 'ms' },
      ];
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
