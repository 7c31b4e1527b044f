/**
 * An import worker started before there is a file to import (import-worker.ts `role: 'spare'`):
 * it loads the import's code and opens the store while the window is idle, so opening a file in
 * the running app does not wait for a thread to start, its modules to load and its connection to
 * open (100–150 ms on a 2-core machine, more while it is busy) before the file's first calls are
 * read. One at a time; taken by the next import, started again once that import has ended.
 */
import { Worker } from 'node:worker_threads';
import type { ImportSpareData } from './import-protocol';

export class SpareImportWorker {
  private spare: Worker | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly workerFile: string,
    private readonly dbPath: string,
    private readonly nativeBinding?: string,
  ) {}

  /** Starts a spare in `delayMs` (off the moment an import ends) unless one is waiting or about to start. */
  prepare(delayMs = 0): void {
    if (this.closed || this.spare || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.closed || this.spare) return;
      const data: ImportSpareData = {
        role: 'spare',
        dbPath: this.dbPath,
        ...(this.nativeBinding ? { nativeBinding: this.nativeBinding } : {}),
      };
      const worker = new Worker(this.workerFile, { workerData: data });
      // A waiting spare never keeps the process alive.
      worker.unref();
      const gone = (): void => {
        if (this.spare === worker) this.spare = undefined;
      };
      worker.once('exit', gone);
      worker.once('error', gone);
      this.spare = worker;
    }, delayMs);
    this.timer.unref();
  }

  /** A spare is started and not yet taken. */
  get waiting(): boolean {
    return this.spare !== undefined;
  }

  /** The waiting spare, now the caller's (it sends the spare its `start`); undefined when there is none. */
  take(): Worker | undefined {
    const worker = this.spare;
    this.spare = undefined;
    worker?.ref();
    return worker;
  }

  /** Stops a waiting spare; none starts after this. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const worker = this.take();
    if (worker) await worker.terminate();
  }
}
