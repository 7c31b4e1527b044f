/**
 * One file into the store: hash it, reuse a stored copy with the same hash, append only what is
 * new when the file grew since its last import, else parse it (streamed) and store every
 * session in one transaction. Runs in the import worker (or in-process in tests).
 */
import { createHash } from 'node:crypto';
import { createReadStream, statSync } from 'node:fs';
import { importSource } from '../../core/import/index';
import { countWith } from '../../core/tokens/index';
import type { FormatId } from '../../core/model';
import { fileSource } from '../io/file-source';
import type { SessionStore } from './sessions';

export interface StoredImport {
  readonly sessionIds: string[];
  readonly reused: boolean;
  readonly format: FormatId;
  readonly warnings: string[];
  readonly messages: number;
}

export interface ImportFileOptions {
  readonly format?: FormatId;
  readonly tolerant?: boolean;
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: { bytes: number; sessions: number; messages: number }) => void;
}

/** sha256 of the first `limit` bytes (the whole file by default). */
export async function hashFile(path: string, limit?: number): Promise<string> {
  const h = createHash('sha256');
  if (limit === 0) return h.digest('hex');
  const stream = createReadStream(path, limit !== undefined ? { end: limit - 1, highWaterMark: 1 << 20 } : { highWaterMark: 1 << 20 });
  for await (const chunk of stream) h.update(chunk as Buffer);
  return h.digest('hex');
}

export async function importFileToStore(store: SessionStore, path: string, options: ImportFileOptions = {}): Promise<StoredImport> {
  const size = statSync(path).size;
  const hash = await hashFile(path);
  const existing = store.findByHash(hash);
  if (existing && existing.length > 0) {
    const row = store.getRow(existing[0]!);
    return { sessionIds: existing, reused: true, format: row?.format ?? 'jsonl', warnings: [], messages: 0 };
  }
  const prev = store.latestByPath(path);
  const grownFrom = prev && size > prev.size && (await hashFile(path, prev.size)) === prev.hash ? prev.sourceId : undefined;
  const outcome = await importSource(fileSource(path), {
    ...(options.format ? { format: options.format } : {}),
    keepRaw: true,
    tolerant: options.tolerant ?? false,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.onProgress ? { onProgress: options.onProgress } : {}),
  });
  if (options.signal?.aborted) throw new Error(`${path}: import cancelled`);
  const sessionIds = store.saveImport({ path, size, hash, format: outcome.format }, outcome.sessions, grownFrom !== undefined ? { grownFrom } : {});
  // Estimates at once: chars/4 counts are stored with the import; exact counts follow on demand.
  outcome.sessions.forEach((s, i) => store.saveCounts(sessionIds[i]!, countWith(s, 'chars4')));
  return { sessionIds, reused: false, format: outcome.format, warnings: outcome.warnings, messages: outcome.sessions.reduce((n, s) => n + s.messages.length, 0) };
}
