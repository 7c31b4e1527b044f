/**
 * Many concurrent tuner sweeps at a real host served over HTTP (`ctxscope serve`'s transport):
 * they share one memory budget and one queue (src/main/host/work-budget.ts). With a budget that
 * holds two sweeps of this session, no more than two ever run at once; the rest wait their turn
 * and finish, or — past the queue — get HTTP 409 `busy` with a message naming the budget.
 */
import { mkdtempSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { costOf } from '../../../src/main/host/work-budget';
import { startHttpHost, type HttpHost } from '../../../src/main/transport/http';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
const opened: { host: Host; http: HttpHost }[] = [];

/** A host whose budget holds exactly two sweeps of the sample at once, with `maxWaiting` places in its queue. */
async function serve(maxWaiting: number, name: string): Promise<{ host: Host; http: HttpHost; id: string }> {
  const oneSweep = costOf('sweep', statSync(sample).size, availableParallelism());
  const host = await createHost({
    dbPath: join(dir, `${name}.db`),
    hostKind: 'serve',
    version: 't',
    initialFiles: [sample],
    emit: () => {},
    workBudget: { budgetBytes: 2 * oneSweep, maxWaiting },
  });
  const http = await startHttpHost({ handlers: host.handlers, staticDir: join(dir, 'static'), port: 0 });
  opened.push({ host, http });
  return { host, http, id: host.initialSessionId! };
}

function post(
  http: HttpHost,
  method: string,
  body: unknown,
): Promise<{ status: number; json: { ok: boolean; value?: { points: unknown[] }; error?: { code: string; message: string } } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: http.port,
        path: `/api/${method}`,
        method: 'POST',
        headers: { Authorization: `Bearer ${http.token}`, 'Content-Type': 'application/json' },
      },
      (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) as never }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}
function get(http: HttpHost, path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port: http.port, path, method: 'GET' }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    })
      .on('error', reject)
      .end();
  });
}

const sweep = (id: string, k: number) => ({
  sessionId: id,
  policy: 's2',
  overrides: { window: 64_000 },
  needles: [],
  sweeps: ['slidingWindow=2:30:4'],
  channel: `sweep-${k}`,
});

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-budget-'));
  mkdirSync(join(dir, 'static'));
  writeFileSync(join(dir, 'static', 'index.html'), '<!doctype html><title>t</title>');
});
afterAll(async () => {
  for (const o of opened) {
    await o.http.close();
    await o.host.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('concurrent sweeps share the host memory budget', () => {
  it('16 sweeps at once: never more than two run together, the others wait and all finish; static files are served meanwhile', async () => {
    const { host, http, id } = await serve(16, 'wait');
    const sweeps = Array.from({ length: 16 }, (_, k) => post(http, 'runTune', sweep(id, k)));
    // While they run and wait, the page is still served.
    expect(await get(http, '/')).toBe(200);
    const answers = await Promise.all(sweeps);
    expect(answers.map((a) => a.status)).toEqual(Array(16).fill(200));
    for (const a of answers) expect(a.json.value!.points).toHaveLength(8); // 2, 6, …, 30
    const s = host.budget.stats();
    expect(s.peakRunning).toBe(2);
    expect(s.peakUsedBytes).toBeLessThanOrEqual(s.budgetBytes);
    expect(s).toMatchObject({ running: 0, usedBytes: 0, waiting: 0, refused: 0 });
  });

  it('past the queue a sweep is refused with 409 busy naming the budget; what was admitted still completes', async () => {
    const { host, http, id } = await serve(2, 'refuse');
    const answers = await Promise.all(Array.from({ length: 12 }, (_, k) => post(http, 'runTune', sweep(id, k))));
    const ok = answers.filter((a) => a.status === 200);
    const refused = answers.filter((a) => a.status === 409);
    // Every answer is one or the other.
    expect(ok.length + refused.length).toBe(12);
    // Two run and two wait at most while the twelve arrive: at least four finish, the rest are refused.
    expect(ok.length).toBeGreaterThanOrEqual(4);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(r.json.error!.code).toBe('busy');
      expect(r.json.error!.message).toMatch(
        /^busy: this sweep needs about \d+ MB of the host's \d+ MB memory budget; 2 request\(s\) running hold \d+ MB and 2 wait \(the queue holds at most 2\)/,
      );
    }
    const s = host.budget.stats();
    expect(s.peakRunning).toBeLessThanOrEqual(2);
    expect(s.refused).toBe(refused.length);
    // A sweep sent once the others ended is admitted again.
    expect((await post(http, 'runTune', sweep(id, 99))).status).toBe(200);
  });
});
