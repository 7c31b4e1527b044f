/**
 * Background threads (exact counting) yield the CPU to the app's own threads: on Linux a
 * thread's nice value is its own, so the calling worker thread lowers just itself. Elsewhere
 * (and where not permitted) this does nothing.
 */
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

export function lowerThisThreadPriority(nice = 10): void {
  if (process.platform !== 'linux') return;
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isInteger(tid) && tid > 0 && tid !== process.pid) setPriority(tid, nice);
  } catch {
    // No /proc, or not allowed: run at normal priority.
  }
}
