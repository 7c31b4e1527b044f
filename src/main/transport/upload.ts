/**
 * `POST /api/upload?name=FILE` on `ctxscope serve`: the request body is the file's bytes,
 * streamed to disk (never held in memory) under a fresh name in the uploads folder, then handed
 * to the import (the answer is the import's jobId, as importFiles answers). The client names the
 * file only by its name, which is sanitised; it never sends nor receives a server path.
 * Over the limit: 413 with the limit in the message, and nothing kept. The token, Host and Origin
 * checks are the /api/* ones (src/main/transport/http.ts) and run before this.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { rename, rm } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ApiError, type Envelope } from '../../shared/api';
import { sanitiseUploadName } from '../host/uploads';

export interface UploadTarget {
  readonly dir: string;
  readonly maxBytes: number;
  /** Imports a stored upload; `name` is the sanitised name the user chose. */
  accept(storedPath: string, name: string): Promise<{ jobId: string }>;
  /**
   * The client went away before it received the job id (Cancel pressed as the upload finished):
   * nobody can cancel that import any more, so the route asks for it to be cancelled here.
   */
  abandon?(jobId: string): void;
}

export type Route = (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void>;

const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(n < 10 * 1024 * 1024 ? 1 : 0)} MiB`;

export function uploadRoute(target: UploadTarget): Route {
  return async (req, res, url) => {
    const given = url.searchParams.get('name') ?? '';
    if (!given)
      return send(res, 400, {
        ok: false,
        error: { code: 'bad_input', message: "upload: expected ?name=FILE (the file's name) in the URL" },
      });
    const name = sanitiseUploadName(given);
    const tooBig = (size: string): Envelope<never> => ({
      ok: false,
      error: {
        code: 'bad_input',
        message: `${name}: ${size} is over this server's upload limit of ${mib(target.maxBytes)} (start serve with CTXSCOPE_UPLOAD_LIMIT_MB=N to change it)`,
      },
    });
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > target.maxBytes) {
      // Read and drop the body so the browser receives the answer instead of a reset connection.
      req.resume();
      return send(res, 413, tooBig(mib(declared)), true);
    }
    mkdirSync(target.dir, { recursive: true });
    const stored = join(target.dir, `${randomUUID()}-${name}`);
    const part = `${stored}.part`;
    const outcome = await receive(req, part, target.maxBytes);
    if (outcome !== 'ok') {
      await rm(part, { force: true });
      if (outcome === 'too-big') return send(res, 413, tooBig(`more than ${mib(target.maxBytes)}`), true);
      if (outcome === 'empty') return send(res, 400, { ok: false, error: { code: 'bad_input', message: `${name}: the file is empty` } });
      return; // the client went away: nobody to answer
    }
    await rename(part, stored);
    try {
      const { jobId } = await target.accept(stored, name);
      // The answer is the client's only way to learn the job id: if it cannot arrive, cancel the job.
      if (res.destroyed || req.socket.destroyed) {
        target.abandon?.(jobId);
        return;
      }
      res.once('close', () => {
        if (!res.writableFinished) target.abandon?.(jobId);
      });
      send(res, 200, { ok: true, value: { jobId, name } });
    } catch (e) {
      await rm(stored, { force: true });
      const error =
        e instanceof ApiError
          ? { code: e.code, message: e.message }
          : { code: 'internal' as const, message: 'upload: the import could not start' };
      send(res, error.code === 'internal' ? 500 : 400, { ok: false, error });
    }
  };
}

/** Streams the body to `path` with back-pressure, stopping (and draining the rest) past `max` bytes. */
function receive(req: IncomingMessage, path: string, max: number): Promise<'ok' | 'too-big' | 'empty' | 'aborted'> {
  return new Promise((resolve) => {
    const out = createWriteStream(path, { flags: 'wx' });
    let size = 0;
    let over = false;
    let failed = false;
    out.on('error', () => {
      failed = true;
      req.resume();
    });
    req.on('data', (chunk: Buffer) => {
      if (over || failed) return;
      size += chunk.length;
      if (size > max) {
        over = true;
        out.destroy();
        req.resume();
        return;
      }
      if (!out.write(chunk)) {
        req.pause();
        out.once('drain', () => req.resume());
      }
    });
    req.on('aborted', () => {
      failed = true;
      out.destroy();
    });
    req.on('error', () => {
      failed = true;
      out.destroy();
    });
    req.on('close', () => {
      if (req.complete) return;
      failed = true;
      out.destroy();
      resolve('aborted');
    });
    req.on('end', () => {
      if (over) return resolve('too-big');
      if (failed) return resolve('aborted');
      out.end(() => resolve(size === 0 ? 'empty' : 'ok'));
    });
  });
}

function send(res: ServerResponse, status: number, value: unknown, close = false): void {
  const body = JSON.stringify(value);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(body),
    ...(close ? { Connection: 'close' } : {}),
  });
  res.end(body);
}
