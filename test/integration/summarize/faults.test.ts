/**
 * Summarizer faults against a real HTTP server on 127.0.0.1 (test/helpers/http-server.ts): a
 * server that never answers, 429 with Retry-After, 500s, malformed JSON, a connection dropped
 * mid-body and a body that trickles in a byte a second past the deadline. Each replay completes
 * every call; each failed summary is one `summarizer-failure` event; the server counts the
 * attempts, which never exceed the retries allowed; and the key the requests carried appears in
 * no event, error or export of any target.
 */
import type { ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config';
import { exportMessages, exportReport, sessionInput, TRANSCRIPT_TARGETS, windowAt } from '../../../src/core/export/index';
import type { Message } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import type { ReplayResult } from '../../../src/core/replay/types';
import { createSummarizer, memoryStore } from '../../../src/core/summarize/index';
import { closeTestServers, startTestServer, type Handler } from '../../helpers/http-server';
import { assistant, session, user } from '../../helpers/session';

afterEach(closeTestServers);

const KEY = 'sk-fault-suite-0123456789abcdefghij';

const filler = (tokens: number, tag: string): string => `${tag} `.repeat(tokens * 2).slice(0, tokens * 4);
function chat(turns: number): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(filler(100, `u${t}`)), assistant(filler(100, `a${t}`)));
  return out;
}

/** Answers with a status and no body. */
const status =
  (code: number, headers: Record<string, string> = {}): Handler =>
  (_req, _body, res) => {
    res.writeHead(code, headers);
    res.end();
  };

/** Stops a timer when the client goes away (an aborted request closes the response). */
const onGone = (res: ServerResponse, stop: () => void): void => void res.on('close', stop);

interface Fault {
  readonly name: string;
  readonly handler: Handler;
  /** Whether the client retries this failure (else one request per failed summary). */
  readonly retried: boolean;
  /** What the failure event says. */
  readonly error: RegExp;
  readonly turns: number;
  readonly timeoutMs: number;
  /** A backoff no test could wait out: a fault that retries at once must be following Retry-After. */
  readonly backoffMs: number;
}

const FAULTS: Fault[] = [
  {
    name: 'a server that never answers (timeout)',
    handler: () => {},
    retried: true,
    error: /timed out after 300 ms/,
    turns: 10,
    timeoutMs: 300,
    backoffMs: 1,
  },
  {
    name: '429 with Retry-After: 0',
    handler: status(429, { 'retry-after': '0' }),
    retried: true,
    error: /HTTP 429/,
    turns: 20,
    timeoutMs: 5_000,
    backoffMs: 600_000,
  },
  { name: '500s', handler: status(500), retried: true, error: /HTTP 500/, turns: 20, timeoutMs: 5_000, backoffMs: 1 },
  {
    name: 'malformed JSON',
    handler: (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"choices": [{"message": {"content": "cut he');
    },
    retried: false,
    error: /invalid JSON/,
    turns: 20,
    timeoutMs: 5_000,
    backoffMs: 1,
  },
  {
    name: 'a connection dropped mid-body',
    handler: (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '400' });
      res.write('{"choices": [{"message": {"content": "half a summ');
      // Past the headers and part of the promised body: the socket dies under the reader.
      setTimeout(() => res.socket?.destroy(), 20);
    },
    retried: true,
    error: /terminated|socket|other side closed/i,
    turns: 20,
    timeoutMs: 5_000,
    backoffMs: 1,
  },
  {
    name: 'a slow trickle, a byte every second past the timeout',
    handler: (_req, _body, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const body = JSON.stringify({ choices: [{ message: { content: 'a summary that arrives far too slowly' } }] });
      let at = 0;
      const timer = setInterval(() => res.write(body[at++ % body.length]!), 1_000);
      onGone(res, () => clearInterval(timer));
    },
    retried: true,
    // The deadline covers the body: bytes that keep coming do not keep the request alive.
    error: /timed out after 1500 ms/,
    turns: 10,
    timeoutMs: 1_500,
    backoffMs: 1,
  },
];

const RETRIES = 2;

/** Every export target of a replay: its report, and the compacted history at the end in each transcript format. */
function everyExport(r: ReplayResult, messages: readonly Message[]): string[] {
  const s = session([...messages]);
  const w = windowAt(r, s.messages, 'end');
  return [
    exportReport(r, 'report-json').text,
    exportReport(r, 'report-csv').text,
    ...TRANSCRIPT_TARGETS.map((to) => exportMessages(sessionInput(s, w.messages, w.summary), to).text),
  ];
}

describe('summarizer faults: the replay completes, every failure is an event, retries are bounded', () => {
  for (const f of FAULTS) {
    it(
      f.name,
      async () => {
        const server = await startTestServer(f.handler);
        const config = resolveConfig('letta', {
          tokenizer: 'chars4',
          window: 2_000,
          summarizer: 'openai',
          summarizerModel: 'local',
          summarizerUrl: server.url,
        });
        const summarizer = createSummarizer(config, {
          apiKey: KEY,
          store: memoryStore(),
          retries: RETRIES,
          backoffMs: f.backoffMs,
          timeoutMs: f.timeoutMs,
        });
        const messages = chat(f.turns);
        const r = await replay(session(messages), config, { summarizer });

        // Every call of the transcript was replayed; compressions went on without a summary.
        expect(r.steps.count).toBe(f.turns);
        expect(r.totals.compressions).toBeGreaterThan(0);
        const failures = r.events.filter((e) => e.kind === 'summarizer-failure');
        expect(failures.length).toBeGreaterThan(0);
        for (const e of failures) expect(e).toMatchObject({ error: expect.stringMatching(f.error) });
        expect(r.events.some((e) => e.kind === 'compression' && typeof e.summary === 'string' && e.summary.length > 0)).toBe(false);

        // Counted on the server: each failed summary was tried once, plus its retries when the fault is retried.
        expect(server.requests.length).toBe(failures.length * (f.retried ? RETRIES + 1 : 1));
        // The key went to the endpoint it was given for…
        for (const q of server.requests) expect(q.headers.authorization).toBe(`Bearer ${KEY}`);
        // …and nowhere else: not into an event, an error message or any export.
        expect(JSON.stringify(r.events)).not.toContain(KEY);
        for (const text of everyExport(r, messages)) expect(text).not.toContain(KEY);
      },
      60_000,
    );
  }
});
