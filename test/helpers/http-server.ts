/**
 * The one local HTTP server the summarizer tests talk to: it listens on 127.0.0.1 on a free
 * port, records every request (method, path, headers, body) and answers with a handler — by
 * default a summary in both the OpenAI chat-completions and the Anthropic messages shape.
 * Faulty behaviours (stalls, 429s, dropped sockets, trickles) are handlers too (see
 * test/integration/summarize/faults.test.ts).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

/** Answers request number `n` (0-based), whose body has been read already. */
export type Handler = (req: IncomingMessage, body: string, res: ServerResponse, n: number) => void;

export interface TestServer {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** `origin` + `/v1`: what a policy names as its summarizerUrl. */
  readonly url: string;
  /** Every request received so far, in order (recorded before the handler runs). */
  readonly requests: RecordedRequest[];
  readonly server: Server;
  /** Closes the server, cutting connections still open (a handler that never answers leaves some). */
  close(): Promise<void>;
}

/** A 200 carrying `text` as an OpenAI and as an Anthropic answer at once. */
export function summaryAnswer(text: string): Handler {
  return (_req, _body, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({ choices: [{ message: { role: 'assistant', content: text } }], type: 'message', content: [{ type: 'text', text }] }),
    );
  };
}

const open = new Set<TestServer>();

export async function startTestServer(handler: Handler = summaryAnswer('ok summary')): Promise<TestServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const n = requests.length;
      requests.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      handler(req, body, res, n);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const s: TestServer = {
    origin,
    url: `${origin}/v1`,
    requests,
    server,
    close: () =>
      new Promise<void>((r) => {
        open.delete(s);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
  open.add(s);
  return s;
}

/** Closes every server this helper started and has not closed yet (for afterEach / afterAll). */
export async function closeTestServers(): Promise<void> {
  await Promise.all([...open].map((s) => s.close()));
}
