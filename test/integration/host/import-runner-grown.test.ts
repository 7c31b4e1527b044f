/**
 * A progressive import through the built import worker (src/main/host/import-runner.ts, skipped
 * without a build): each chunk's written messages cross to the host as their stored JSON bodies
 * and are parsed back there, so a session held since the prefix and patched chunk by chunk with
 * them is the stored session, message for message.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Session } from '../../../src/core/model';
import { startImport } from '../../../src/main/host/import-runner';
import { appendToSession } from '../../../src/main/host/session-append';
import { claudeCodeText } from '../../bench/corpus';
import { tempStoreEach } from '../../helpers/temp-store';

const worker = join(__dirname, '../../../out/cli/import-worker.js');
const t = tempStoreEach('ctxscope-import-runner-grown-');
const before = process.env['CTXSCOPE_PROGRESSIVE'];

describe.skipIf(!existsSync(worker))('progressive import through the import worker', () => {
  beforeEach(() => {
    // Every file progressively: a 64 KB prefix, then 256 KB chunks (the worker reads this as it starts).
    process.env['CTXSCOPE_PROGRESSIVE'] = '0,64,256';
  });
  afterEach(() => {
    if (before === undefined) delete process.env['CTXSCOPE_PROGRESSIVE'];
    else process.env['CTXSCOPE_PROGRESSIVE'] = before;
  });

  it('hands each chunk over as bodies the host parses back: the held session ends as the stored one', async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, claudeCodeText({ calls: 900 }));
    let held: Session | undefined;
    let chunks = 0;
    const r = await startImport({
      path: file,
      store: t.store,
      dbPath: t.store.db.name,
      workerFile: worker,
      progressive: true,
      onVisible: (v) => (held = t.store.loadSession(v.sessionIds[0]!)),
      onGrown: (u) => {
        const s = u.sessions[0]!;
        const w = s.written!;
        // The messages themselves reach the host, not only their bodies.
        expect(w.messages.length).toBe(s.messages - s.changedFrom);
        held = appendToSession(held!, {
          from: s.changedFrom,
          previous: w.previous,
          messages: w.messages,
          ...(w.compactions ? { compactions: w.compactions } : {}),
        });
        chunks++;
      },
    }).done;
    const stored = t.store.loadSession(r.sessionIds[0]!)!;
    expect(chunks).toBeGreaterThanOrEqual(3);
    expect(stored.sourceCompactions.length).toBeGreaterThanOrEqual(2);
    expect(held!.sourceCompactions).toEqual(stored.sourceCompactions);
    expect(held!.messages).toEqual(stored.messages);
  }, 60_000);

  it("keeps the host's own connection from checkpointing while the worker stores chunks, and puts its setting back once the worker has exited", async () => {
    const file = join(t.dir, 'cc.jsonl');
    writeFileSync(file, claudeCodeText({ calls: 900 }));
    const setting = () => t.store.db.pragma('wal_autocheckpoint', { simple: true }) as number;
    const before = setting();
    expect(before).toBeGreaterThan(0);
    const seen: number[] = [];
    const run = startImport({
      path: file,
      store: t.store,
      dbPath: t.store.db.name,
      workerFile: worker,
      progressive: true,
      onGrown: () => seen.push(setting()),
    });
    await run.done;
    expect(seen.length).toBeGreaterThanOrEqual(3);
    expect(new Set(seen)).toEqual(new Set([0]));
    // The worker checkpoints after `done`, then exits: the host's setting comes back then.
    for (let i = 0; i < 200 && setting() !== before; i++) await new Promise((r) => setTimeout(r, 25));
    expect(setting()).toBe(before);
  }, 60_000);
});
