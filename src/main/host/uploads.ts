/**
 * Files uploaded to `ctxscope serve` (the browser's Open… and drop): where they are kept, what
 * they may be called, how big they may be, and the one rule that the browser never learns where
 * the server put them (events about an upload name the file as the user chose it, not its path).
 * The HTTP side (streaming the body to disk, 413) is src/main/transport/upload.ts.
 */
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

/** Remembers which stored path is which upload, so events can name the file as the user chose it. */
export class UploadNames {
  private readonly names = new Map<string, string>();

  remember(storedPath: string, name: string): void {
    this.names.set(storedPath, name);
  }

  /** The payload with every stored upload path replaced by the upload's own name. */
  redact<E extends EventName>(event: E, payload: EventPayload<E>): EventPayload<E> {
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
