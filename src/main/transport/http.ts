/**
 * The contract over HTTP, for `ctxscope serve`: the same handler table the Electron app uses,
 * reachable from a browser on this machine only.
 *
 * Security (the server holds transcripts, which can contain secrets):
 * - binds 127.0.0.1 only;
 * - every /api call needs `Authorization: Bearer <token>`, a random per-run secret (401 otherwise);
 * - the Host header must name this server (127.0.0.1:PORT or localhost:PORT), which defeats
 *   DNS rebinding; a foreign Origin is refused too;
 * - static files get a strict CSP, no referrer (the token is in the page URL), no framing.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { AddressInfo } from 'node:net';
import { isJsonText, isWrittenAhead, type EventName, type EventPayload, type Handlers } from '../../shared/api';
import { traceSpan } from '../trace';
import { dispatch, type Logger } from './dispatch';
import type { Route } from './upload';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const MAX_BODY_BYTES = 1 << 20;

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export interface HttpHostOptions {
  readonly handlers: Handlers;
  /** Folder of the built renderer (index.html + assets). */
  readonly staticDir: string;
  /** 0 = a random free port. */
  readonly port?: number;
  /** Defaults to a fresh random token. */
  readonly token?: string;
  readonly log?: Logger;
  /** Extra POST routes under /api/ (e.g. `/api/upload`), behind the same token, Host and Origin checks. */
  readonly routes?: Readonly<Record<string, Route>>;
}

export interface HttpHost {
  readonly server: Server;
  readonly port: number;
  readonly token: string;
  readonly url: string;
  /** Sends an event to every connected renderer. */
  emit<E extends EventName>(event: E, payload: EventPayload<E>): void;
  close(): Promise<void>;
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

export async function startHttpHost(options: HttpHostOptions): Promise<HttpHost> {
  const token = options.token ?? newToken();
  const tokenBytes = Buffer.from(token);
  const log = options.log ?? (() => {});
  const staticRoot = resolve(options.staticDir);
  const streams = new Set<ServerResponse>();
  let port = 0;

  const allowedHosts = (): Set<string> => new Set([`127.0.0.1:${port}`, `localhost:${port}`]);

  const authorised = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization ?? '';
    const match = /^Bearer (.+)$/.exec(header);
    if (!match) return false;
    const given = Buffer.from(match[1]!);
    return given.length === tokenBytes.length && timingSafeEqual(given, tokenBytes);
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      log(`http: ${err instanceof Error ? err.message : String(err)}`);
      if (!res.headersSent) sendJson(res, 500, { ok: false, error: { code: 'internal', message: 'internal error' } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');

    // DNS rebinding: a page on evil.example resolving to 127.0.0.1 still sends its own Host.
    if (!allowedHosts().has(req.headers.host ?? '')) {
      sendText(res, 403, 'Forbidden: unexpected Host header');
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !allowedHosts().has(origin.replace(/^http:\/\//, ''))) {
      sendText(res, 403, 'Forbidden: cross-origin request');
      return;
    }

    const url = new URL(req.url ?? '/', `http://${req.headers.host}`);
    if (url.pathname.startsWith('/api/')) {
      res.setHeader('Cache-Control', 'no-store');
      if (!authorised(req)) {
        sendJson(res, 401, { ok: false, error: { code: 'bad_input', message: 'missing or wrong token' } });
        return;
      }
      if (url.pathname === '/api/events' && req.method === 'GET') {
        openEventStream(req, res);
        return;
      }
      const route = Object.prototype.hasOwnProperty.call(options.routes ?? {}, url.pathname) ? options.routes![url.pathname] : undefined;
      if (route && req.method === 'POST') return route(req, res, url);
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        sendJson(res, 405, { ok: false, error: { code: 'bad_input', message: 'API calls are POST' } });
        return;
      }
      const method = decodeOrNull(url.pathname.slice('/api/'.length));
      if (method === null) {
        sendJson(res, 400, { ok: false, error: { code: 'bad_input', message: 'malformed %-escape in the URL' } });
        return;
      }
      let payload: unknown;
      try {
        payload = JSON.parse((await readBody(req)) || '{}');
      } catch (err) {
        const message = err instanceof BodyTooLarge ? err.message : 'request body is not valid JSON';
        sendJson(res, 400, { ok: false, error: { code: 'bad_input', message } });
        return;
      }
      const span = traceSpan(`http ${method}`);
      const envelope = await dispatch(options.handlers, method, payload, log);
      span();
      const status = envelope.ok
        ? 200
        : envelope.error.code === 'bad_input'
          ? 400
          : envelope.error.code === 'not_found'
            ? 404
            : envelope.error.code === 'internal'
              ? 500
              : 409;
      sendJson(res, status, envelope, isWrittenAhead(method));
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendText(res, 405, 'Method not allowed');
      return;
    }
    await serveStatic(url.pathname, res);
  }

  function openEventStream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' });
    res.write(': connected\n\n');
    streams.add(res);
    req.on('close', () => streams.delete(res));
  }

  async function serveStatic(pathname: string, res: ServerResponse): Promise<void> {
    const decoded = decodeOrNull(pathname);
    if (decoded === null) {
      sendText(res, 400, 'Bad request: malformed %-escape in the URL');
      return;
    }
    const relative = pathname === '/' ? 'index.html' : decoded.replace(/^\/+/, '');
    const file = normalize(join(staticRoot, relative));
    if (file !== staticRoot && !file.startsWith(staticRoot + sep)) {
      sendText(res, 404, 'Not found');
      return;
    }
    let body: Buffer;
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      body = await readFile(file);
    } catch {
      sendText(res, 404, 'Not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[extname(file)] ?? 'application/octet-stream',
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Cache-Control': 'no-cache',
    });
    res.end(body);
  }

  await new Promise<void>((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolvePromise();
    });
  });
  port = (server.address() as AddressInfo).port;

  return {
    server,
    port,
    token,
    url: `http://127.0.0.1:${port}/?token=${encodeURIComponent(token)}`,
    emit(event, payload) {
      const frame = `event: ${event}\ndata: ${JSON.stringify(payload)}\n\n`;
      for (const res of streams) res.write(frame);
    },
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const res of streams) res.end();
        streams.clear();
        server.close(() => resolveClose());
        server.closeAllConnections();
      }),
  };
}

class BodyTooLarge extends Error {}

/** decodeURIComponent, or null for a malformed escape such as `%E0%A4%A` (a client error, not a 500). */
function decodeOrNull(s: string): string | null {
  try {
    return decodeURIComponent(s);
  } catch {
    return null;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolveBody, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new BodyTooLarge(`request body over ${MAX_BODY_BYTES} bytes`));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolveBody(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** `writtenAhead`: the envelope of a WrittenAhead method, whose answer may be JsonText, sent as it is. */
function sendJson(res: ServerResponse, status: number, value: unknown, writtenAhead = false): void {
  const answer =
    writtenAhead && typeof value === 'object' && value !== null && 'ok' in value && value.ok === true && 'value' in value
      ? value.value
      : undefined;
  const body = isJsonText(answer) ? `{"ok":true,"value":${answer.jsonText}}` : JSON.stringify(value);
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
}

function sendText(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
