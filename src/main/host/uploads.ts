/**
 * Files uploaded to `ctxscope serve` (the browser's Open… and drop): where they are kept, what
 * they may be called, how big they may be, and the one rule that the browser never learns where
 * the server put them (events about an upload name the file as the user chose it, not its path).
 * The HTTP side (streaming the body to disk, 413) is src/main/transport/upload.ts.
 */
import { rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { EventName, EventPayload } from '../../shared/api';

/** 1 GiB: a 100 MB transcript is ordinary, a multi-gigabyte body is a mistake (or an attack on the disk). */
export const DEFAULT_UPLOAD_LIMIT = 1024 * 1024 * 1024;

/** The limit: `CTXSCOPE_UPLOAD_LIMIT_MB` (mebibytes, a positive integer) when set, else DEFAULT_UPLOAD_LIMIT. */
export function uploadLimit(env: Readonly<Record<string, string | undefined>> = process.env): number {
  const raw = env['CTXSCOPE_UPLOAD_LIMIT_MB'];
  const mb = raw === undefined ? NaN : Number(raw);
  return Number.isInteger(mb) && mb > 0 ? mb * 1024 * 1024 : DEFAULT_UPLOAD_LIMIT;
}

/** Uploads live in `uploads/` beside the database (null for an in-memory database: nowhere to keep them). */
export function uploadsDirFor(dbPath: string): string | null {
  return dbPath === ':memory:' ? null : join(dirname(dbPath), 'uploads');
}

/**
 * A file name the client sent, made safe to use as the last part of a path: no folders (only the
 * last segment of either separator counts), no leading dots, only letters, digits, `.`, `_`, `-`
 * (others become `_`), at most 120 characters, never empty.
 */
export function sanitiseUploadName(raw: string): string {
  const last = basename(raw.replace(/\\/g, '/'));
  const safe = last
    .normalize('NFKC')
    .replace(/[^A-Za-z0-9._-]/g, '_')
    .replace(/^[.]+/, '')
    .slice(-120);
  return safe.replace(/^[._-]+$/, '') || 'upload';
}

/**
 * The uploads of one `serve`: each stored upload is made importable (the allow-list's uploads
 * hook) and imported; the events of its job name the file as the user chose it (never the
 * server's path); and an upload that is not kept as a session — its import cancelled, failed, or
 * a copy of a file already stored — is deleted, so nothing of it is left behind.
 */
export class Uploads {
  private readonly names = new Map<string, string>();
  private readonly jobs = new Map<string, string>();

  constructor(
    private readonly allow: { allowFile(path: string): void },
    private readonly importFiles: (paths: string[]) => Promise<{ jobId: string }>,
    private readonly remove: (path: string) => Promise<void> = (path) => rm(path, { force: true }),
  ) {}

  /** The upload route's `accept`: allow, remember, import. */
  async accept(stored: string, name: string): Promise<{ jobId: string }> {
    this.names.set(stored, name);
    this.allow.allowFile(stored);
    const { jobId } = await this.importFiles([stored]);
    this.jobs.set(jobId, stored);
    return { jobId };
  }

  /** The event as the browser may see it (upload paths replaced by names); settles the upload's file at its job's end. */
  event<E extends EventName>(event: E, payload: EventPayload<E>): EventPayload<E> {
    if (event === 'importDone' || event === 'importFailed') {
      const end = payload as EventPayload<'importDone'> | EventPayload<'importFailed'>;
      const stored = this.jobs.get(end.jobId);
      if (stored !== undefined) {
        this.jobs.delete(end.jobId);
        if (!('sessionIds' in end) || end.reused) void this.remove(stored).catch(() => {});
      }
    }
    return this.redact(event, payload);
  }

  private redact<E extends EventName>(event: E, payload: EventPayload<E>): EventPayload<E> {
    if (this.names.size === 0 || (event !== 'importProgress' && event !== 'importFailed')) return payload;
    const swap = (text: string): string => {
      let out = text;
      for (const [path, name] of this.names) if (out.includes(path)) out = out.split(path).join(name);
      return out;
    };
    const p = payload as Record<string, unknown>;
    const out: Record<string, unknown> = { ...p };
    for (const key of ['file', 'error'] as const) if (typeof p[key] === 'string') out[key] = swap(p[key]);
    return out as EventPayload<E>;
  }
}
