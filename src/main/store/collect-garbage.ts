/**
 * One full garbage collection, on demand, where a big import's phase ends: between its parse and
 * its save (importFileToStore), between the Claude Code importer's read and its merges
 * (ImportOptions.onPhaseEnd, from the store's import and the CLI's loadFile), and between
 * `inspect`'s parse and its counts.
 *
 * Why: a big parse leaves its scaffolding behind as garbage (the Claude Code importer's per-line
 * table, the line messages a split response was merged away from, read buffers): ~180 MB of
 * dead heap and ~40 MB of dead array buffers on a million split-response lines, beside ~210 MB
 * of live session. The save that follows allocates only short-lived rows, so V8 sees no reason
 * for a full collection and the garbage stays until the process exits, while the save's own
 * working set (new space, batches in flight, the writer thread) is added on top of it: the peak
 * RSS of `ctxscope import` came after the parse (docs/reliability.md; figures in docs/benchmarks.md "Memory").
 * One full collection there costs a fraction of a second on such a heap and nothing on a small one.
 * The same held inside the parse and in `inspect`: on a million split-response lines each of the
 * three collections takes ~25–120 MB of dead heap off the peak that followed it.
 *
 * Node exposes `gc` only under --expose-gc; the flag can be set at run time, and a context made
 * after that has the function. If that fails (an embedder that forbids it), nothing is collected
 * early and only the memory figure is worse.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | null | undefined;

function resolveGc(): (() => void) | null {
  const own: unknown = (globalThis as { gc?: unknown }).gc;
  if (typeof own === 'function') return own as () => void;
  try {
    setFlagsFromString('--expose-gc');
    const made: unknown = runInNewContext('gc');
    return typeof made === 'function' ? (made as () => void) : null;
  } catch {
    return null;
  }
}

/** Runs a full, synchronous garbage collection when the runtime allows it; else does nothing. */
export function collectGarbage(): void {
  gc ??= resolveGc();
  gc?.();
}
