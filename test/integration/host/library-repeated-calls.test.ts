/**
 * A folder with a resumed session (docs/cost.md, "Folders of sessions"): Claude Code's `--resume`
 * starts a new file that repeats the calls before it with their keys (message id + request id).
 * The library lists both files, and its totals count each call once and say how many they skipped.
 *
 * Fixture: the real anonymised session test/fixtures/usage-corpus/ccviewer-5c0375b4.jsonl (10
 * main-chain calls and 10 subagent calls, 20 keys in all, counted from its lines) as the resumed
 * file, and its first 30 lines as the earlier file — every call of which the resumed file repeats.
 * So the library's totals must equal the resumed file's own, and the skipped calls are the
 * earlier file's calls.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import type { SessionSummary } from '../../../src/shared/api';

const source = join(__dirname, '../../fixtures/usage-corpus/ccviewer-5c0375b4.jsonl');
let dir: string;
let host: Host;
let earlierPath: string;
let resumedPath: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-repeated-'));
  const lines = readFileSync(source, 'utf8')
    .split('\n')
    .filter((l) => l !== '');
  earlierPath = join(dir, 'earlier.jsonl');
  resumedPath = join(dir, 'resumed.jsonl');
  writeFileSync(earlierPath, lines.slice(0, 30).join('\n') + '\n');
  // The resumed file: a new session id, the same calls (keys) and more after them.
  writeFileSync(resumedPath, lines.map((l) => l.replaceAll('5c0375b4-57a5-4f26-b12d-d022ee4e51b7', 'resumed-0000')).join('\n') + '\n');
  host = await createHost({
    dbPath: join(dir, 'l.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [earlierPath, resumedPath],
    emit: () => {},
  });
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The library's totals line (src/renderer/src/model/library-totals.ts): each session's figures less what its repeats add. */
function libraryTotals(all: readonly SessionSummary[]) {
  return {
    calls: sum(all, (s) => s.steps - (s.repeated?.calls ?? 0)),
    promptTokens: sum(all, (s) => s.promptTokens - (s.repeated?.promptTokens ?? 0)),
    outputTokens: sum(all, (s) => s.outputTokens - (s.repeated?.outputTokens ?? 0)),
    cost: sum(all, (s) => (s.cost ?? 0) - (s.repeated?.cost ?? 0)),
    repeatedCalls: sum(all, (s) => s.repeated?.calls ?? 0),
  };
}

const sum = (xs: readonly SessionSummary[], f: (s: SessionSummary) => number): number => xs.reduce((n, s) => n + f(s), 0);

describe('library totals over a resumed session', () => {
  it('count every call once and say how many copies they skipped', async () => {
    const all = await host.handlers.listSessions({});
    // A session and its subagents belong to the file whose top-level session is their root.
    const rootOf = (s: SessionSummary): SessionSummary => (s.parentId === null ? s : rootOf(all.find((x) => x.id === s.parentId)!));
    const of = (path: string): SessionSummary[] => all.filter((s) => rootOf(s).sourcePath === path);
    const earlier = of(earlierPath);
    const resumed = of(resumedPath);
    expect(earlier.length).toBeGreaterThan(0);
    expect(resumed.length).toBeGreaterThan(0);

    const t = libraryTotals(all);
    // Every call of the earlier file is in the resumed one: one copy of each is skipped.
    expect(t.repeatedCalls).toBe(sum(earlier, (s) => s.steps));
    expect(t.repeatedCalls).toBeGreaterThan(0);
    // What is left is the resumed file's own figures: 20 calls (10 main chain + 10 subagent).
    expect(t.calls).toBe(sum(resumed, (s) => s.steps));
    expect(t.calls).toBe(20);
    expect(t.promptTokens).toBe(sum(resumed, (s) => s.promptTokens));
    expect(t.outputTokens).toBe(sum(resumed, (s) => s.outputTokens));
    expect(t.cost).toBeCloseTo(
      sum(resumed, (s) => s.cost ?? 0),
      9,
    );
  });
});
