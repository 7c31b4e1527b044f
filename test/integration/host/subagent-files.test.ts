/**
 * Claude Code 2.x subagent files through the store and `serve`'s host: importing the parent of
 * test/fixtures/claude-code-v2 stores each `subagents/agent-<id>.jsonl` as a child session under
 * the call that ran it (one transaction), each message's raw record being its own file's line; a
 * file no call ran is kept unlinked with a warning; and a subagent file that resolves outside the
 * parent's folder (a symlink, or a linked session folder) is never read, while the files beside
 * an allowed parent stay unimportable by themselves.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventName } from '../../../src/shared/api';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { ImportAllowList, REFUSED_IMPORT } from '../../../src/main/host/import-allow';
import { importFileToStore, openStore } from '../../../src/main/store/index';
import { writersFinished } from '../../../src/main/store/import-file';

const SID = '7d3f0c2e-5a41-4b6e-9c8d-2f1e0a9b8c7d';
const fixture = join(__dirname, '../../fixtures/claude-code-v2');
let dir: string;
let project: string;
let parent: string;
let host: Host;
const done: { event: EventName; payload: Record<string, unknown> }[] = [];

/** A subagent file (every line a sidechain line) with one prompt and one answer. */
const agentText = (agentId: string, prompt: string, answer: string): string =>
  [
    {
      parentUuid: null,
      isSidechain: true,
      userType: 'external',
      sessionId: SID,
      agentId,
      uuid: `${agentId}-1`,
      timestamp: '2026-11-20T09:30:00.000Z',
      type: 'user',
      message: { role: 'user', content: prompt },
    },
    {
      parentUuid: `${agentId}-1`,
      isSidechain: true,
      userType: 'external',
      sessionId: SID,
      agentId,
      uuid: `${agentId}-2`,
      timestamp: '2026-11-20T09:30:01.000Z',
      type: 'assistant',
      message: { id: `msg_${agentId}`, role: 'assistant', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'text', text: answer }] },
    },
  ]
    .map((l) => JSON.stringify(l))
    .join('\n') + '\n';

const waitFor = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !ok(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!ok()) throw new Error(`timed out waiting for ${what}`);
};

beforeAll(async () => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'ctxscope-subfiles-')));
  // The fixture tree where Claude Code would write it, outside every agent-log root: serve may read
  // the parent only because it is named (as on serve's command line).
  project = join(dir, 'projects', '-home-dev-shop-api');
  cpSync(fixture, project, { recursive: true });
  parent = join(project, `${SID}.jsonl`);
  const subs = join(project, SID, 'subagents');
  // A subagent no call ran.
  writeFileSync(join(subs, 'agent-f00d123.jsonl'), agentText('f00d123', 'Tidy the imports.', 'Done.'));
  // A link from the subagents folder to a transcript outside the parent's folder.
  mkdirSync(join(dir, 'elsewhere'));
  writeFileSync(join(dir, 'elsewhere', 'secret.jsonl'), agentText('5ec7e70', 'OUTSIDE-SECRET prompt', 'OUTSIDE-SECRET answer'));
  symlinkSync(join(dir, 'elsewhere', 'secret.jsonl'), join(subs, 'agent-5ec7e70.jsonl'));
  const allow = new ImportAllowList();
  allow.allowFile(parent);
  host = await createHost({
    dbPath: join(dir, 'h.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [],
    importAllow: allow,
    emit: (event, payload) => done.push({ event, payload: payload as Record<string, unknown> }),
  });
});
afterAll(async () => {
  await host.close();
  await writersFinished();
  rmSync(dir, { recursive: true, force: true });
});

describe('Claude Code 2.x subagent files', () => {
  it('serve: importing an allowed parent stores its subagent files as child sessions under the calls that ran them', async () => {
    const { jobId } = await host.handlers.importFiles({ paths: [parent] });
    await waitFor('the import', () =>
      done.some((e) => e.payload['jobId'] === jobId && (e.event === 'importDone' || e.event === 'importFailed')),
    );
    expect(done.find((e) => e.payload['jobId'] === jobId && e.event !== 'importProgress')?.event).toBe('importDone');
    const all = await host.handlers.listSessions({});
    const top = all.filter((s) => s.parentId === null);
    expect(top).toHaveLength(1);
    // (In the library's order: by the spawning call, the unlinked one apart.)
    const kids = all.filter((s) => s.parentId === top[0]!.id).sort((a, b) => (a.title ?? '').localeCompare(b.title ?? ''));
    expect(kids.map((k) => [k.title, k.spawnedBy, k.steps])).toEqual([
      ['Explore: Profile checkout', 'toolu_01Prof', 2],
      ['general-purpose: Check test coverage', 'toolu_02Cov', 2],
      ['Tidy the imports.', null, 1],
    ]);
    // The call at spawnedAt is the Task call that ran it.
    const page = await host.handlers.getMessages({ sessionId: top[0]!.id, offset: kids[1]!.spawnedAt!, limit: 1 });
    expect(page.messages[0]!.parts.some((p) => p.kind === 'tool_call' && p.id === 'toolu_02Cov')).toBe(true);
    // A subagent's raw record is its own file's line, not the parent's line of that number.
    const raw = await host.handlers.getRawRecord({ sessionId: kids[1]!.id, index: 0 });
    expect(raw.record).toBe(readFileSync(join(project, SID, 'subagents', 'agent-b7d20a3.jsonl'), 'utf8').split('\n')[0]);
    // Nothing of the linked-in file outside the parent's folder was read.
    for (const s of all) {
      const msgs = await host.handlers.getMessages({ sessionId: s.id, offset: 0, limit: 100 });
      expect(JSON.stringify(msgs.messages)).not.toContain('OUTSIDE-SECRET');
    }
  });

  it('serve: a subagent file is importable by itself only where serve allows files (not because its parent is)', async () => {
    await expect(host.handlers.importFiles({ paths: [join(project, SID, 'subagents', 'agent-a4c1e9f.jsonl')] })).rejects.toThrow(
      REFUSED_IMPORT,
    );
    await expect(host.handlers.importFiles({ paths: [join(project, SID, 'subagents', 'agent-5ec7e70.jsonl')] })).rejects.toThrow(
      REFUSED_IMPORT,
    );
  });

  it('warns about the unlinked subagent and the refused link; a session folder linked from elsewhere is refused whole', async () => {
    const store = openStore(join(dir, 'w.db'));
    try {
      const r = await importFileToStore(store, parent, { pipeline: true });
      expect(r.warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/agent-f00d123\.jsonl: subagent f00d123 matches no call/),
          expect.stringMatching(/agent-5ec7e70\.jsonl: not read as a subagent: it is not a regular file inside the folder of /),
        ]),
      );
      expect(r.warnings.join('\n')).not.toContain('elsewhere');
      const kids = store.childrenOf(r.sessionIds[0]!);
      expect(kids.map((k) => k.spawnedBy)).toEqual(['toolu_01Prof', 'toolu_02Cov', null]);
      // Through the writer thread too, a subagent's record is its own line.
      expect(store.rawOf(kids[0]!.id, 3)).toBe(readFileSync(join(project, SID, 'subagents', 'agent-a4c1e9f.jsonl'), 'utf8').split('\n')[3]);

      // The same parent in another folder whose session folder is a link to this project's.
      const other = join(dir, 'other');
      mkdirSync(other);
      writeFileSync(join(other, `${SID}.jsonl`), readFileSync(parent, 'utf8').replace('Find why checkout', 'Find out why checkout'));
      symlinkSync(join(project, SID), join(other, SID));
      const r2 = await importFileToStore(store, join(other, `${SID}.jsonl`));
      expect(store.childrenOf(r2.sessionIds[0]!)).toEqual([]);
      expect(r2.warnings.filter((w) => w.includes('not read as a subagent'))).toHaveLength(4);
    } finally {
      store.close();
    }
  });
});
