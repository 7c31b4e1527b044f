/**
 * The import collects the parse's garbage before its save (src/main/store/collect-garbage.ts):
 * without it the peak RSS of a big `ctxscope import` came after the parse, on top of garbage
 * V8 had no reason to collect (docs/reliability.md; figures in docs/benchmarks.md "Memory"). Peak RSS is not
 * asserted here (no memory figures in tests); these check that the collection really happens
 * (an unreachable object is gone) and that the writer path asks for it, once.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type * as CollectGarbage from '../../../src/main/store/collect-garbage';

const collected = vi.hoisted(() => ({ calls: 0 }));
vi.mock('../../../src/main/store/collect-garbage', async (importOriginal) => {
  const real = await importOriginal<typeof CollectGarbage>();
  return {
    collectGarbage: () => {
      collected.calls++;
      real.collectGarbage();
    },
  };
});

const { collectGarbage } = await import('../../../src/main/store/collect-garbage');
const { importFileToStore, openStore } = await import('../../../src/main/store/index');
const { writersFinished } = await import('../../../src/main/store/import-file');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-gc-'));
  collected.calls = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A WeakRef made in a task of its own: a target stays alive until the task that made the ref ends. */
async function unreachable(): Promise<WeakRef<object>> {
  const ref = await new Promise<WeakRef<object>>((resolve) =>
    setImmediate(() => resolve(new WeakRef({ big: new Array<number>(1 << 16).fill(1) }))),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return ref;
}

describe('collectGarbage', () => {
  it('frees an object nothing refers to any more', async () => {
    const ref = await unreachable();
    collectGarbage();
    expect(ref.deref()).toBeUndefined();
  });

  it('runs once on the writer path, and not on the in-thread path', async () => {
    const file = join(dir, 'chat.jsonl');
    writeFileSync(
      file,
      Array.from({ length: 20 }, (_, i) => JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}` })).join('\n') +
        '\n',
    );
    const store = openStore(join(dir, 'a.db'));
    const viaThread = await importFileToStore(store, file, { pipeline: false });
    expect(viaThread.messages).toBe(20);
    expect(collected.calls).toBe(0);
    const other = openStore(join(dir, 'b.db'));
    const viaWriter = await importFileToStore(other, file, { pipeline: true });
    await writersFinished();
    expect(viaWriter.messages).toBe(20);
    expect(other.loadSession(viaWriter.sessionIds[0]!)).toEqual(store.loadSession(viaThread.sessionIds[0]!));
    expect(collected.calls).toBe(1);
    store.close();
    other.close();
  });
});
