/**
 * A `serve`-kind host on a temp copy of a fixture, recording its `sessionUpdated` events: the live
 * tail's host tests (integration/host/tail*.test.ts) append to `file` and wait for `nextUpdate()`.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost, type Host } from '../../src/main/host/handlers';
import type { EventPayload } from '../../src/shared/api';

export interface TailedHost {
  readonly dir: string;
  /** The copy the host imported and follows. */
  readonly file: string;
  readonly host: Host;
  readonly updates: EventPayload<'sessionUpdated'>[];
  /** Called (and emptied) at each sessionUpdated. */
  readonly waiters: (() => void)[];
  /** Resolves at the next sessionUpdated (the watcher's own pace; the test fails on its timeout otherwise). */
  nextUpdate(): Promise<void>;
  close(): Promise<void>;
}

export async function startTailedHost(fixture: string, fileName: string): Promise<TailedHost> {
  const dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-host-'));
  const file = join(dir, fileName);
  copyFileSync(fixture, file);
  const updates: EventPayload<'sessionUpdated'>[] = [];
  const waiters: (() => void)[] = [];
  const host = await createHost({
    dbPath: join(dir, 'h.db'),
    hostKind: 'serve',
    version: 't',
    initialFiles: [file],
    emit: (event, payload) => {
      if (event !== 'sessionUpdated') return;
      updates.push(payload as EventPayload<'sessionUpdated'>);
      for (const w of waiters.splice(0)) w();
    },
  });
  return {
    dir,
    file,
    host,
    updates,
    waiters,
    nextUpdate: () => new Promise((resolve) => waiters.push(resolve)),
    close: async () => {
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
