/**
 * Many tuner sweeps at once through a real `serve` host (handlers + HTTP transport), as a user
 * opening many tuner tabs or a script would: they share the host's memory budget and queue
 * (src/main/host/work-budget.ts, docs/limits.md "Bounds"). Reports the peak RSS of this process
 * (the sweeps' worker threads are in it), the most sweeps that ran at once, how many were refused
 * with 409, and the slowest static GET while they ran. `CTXSCOPE_BENCH_FULL=1`: 16 and 32 sweeps
 * of 1,000 settings (long); else 16 sweeps of 100 settings. Run it alone (`npm run bench --
 * tune-concurrent`): peak RSS is the process's since it started.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/main/host/handlers';
import { startHttpHost, type HttpHost } from '../../src/main/transport/http';
import { claudeCodeText } from './corpus';
import type { BenchRow, BenchSuite } from './harness';

const FULL = process.env['CTXSCOPE_BENCH_FULL'] === '1';
const MB = 1_000_000;

function call(http: HttpHost, method: 'GET' | 'POST', path: string, body?: unknown): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: http.port,
        path,
        method,
        headers: method === 'POST' ? { Authorization: `Bearer ${http.token}`, 'Content-Type': 'application/json' } : {},
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

export const suite: BenchSuite = {
  name: 'tune-concurrent',
  async run() {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-tunec-'));
    const rows: BenchRow[] = [];
    try {
      const file = join(dir, 'session.jsonl');
      writeFileSync(file, claudeCodeText({ calls: 10_000 }));
      mkdirSync(join(dir, 'static'));
      writeFileSync(join(dir, 'static', 'index.html'), '<!doctype html><title>t</title>');
      const host = await createHost({
        dbPath: join(dir, 'h.db'),
        hostKind: 'serve',
        version: 'bench',
        initialFiles: [file],
        emit: () => {},
      });
      const http = await startHttpHost({ handlers: host.handlers, staticDir: join(dir, 'static'), port: 0 });
      const id = host.initialSessionId!;
      try {
        const sweep = FULL ? 'trigger=0.5:0.9995:0.0005' : 'trigger=0.5:0.995:0.005';
        for (const n of FULL ? [16, 32] : [16]) {
          const before = process.resourceUsage().maxRSS * 1024;
          let slowestGet = 0;
          let done = false;
          const gets = (async () => {
            while (!done) {
              const t0 = performance.now();
              await call(http, 'GET', '/');
              slowestGet = Math.max(slowestGet, performance.now() - t0);
              await new Promise((r) => setTimeout(r, 50));
            }
          })();
          const statuses = await Promise.all(
            Array.from({ length: n }, (_, k) =>
              call(http, 'POST', '/api/runTune', {
                sessionId: id,
                policy: 's2',
                overrides: { tokenizer: 'chars4', window: 64_000 },
                needles: [],
                sweeps: [sweep],
                channel: `bench-${n}-${k}`,
              }),
            ),
          );
          done = true;
          await gets;
          const s = host.budget.stats();
          const peak = process.resourceUsage().maxRSS * 1024;
          const label = `${n} sweeps × ${FULL ? '1,000' : '100'} settings, 10k calls`;
          rows.push({
            name: `${label}: peak RSS (process)`,
            value: peak / MB,
            unit: 'MB',
            target: `budget ${(s.budgetBytes / MB).toFixed(0)} MB (estimates)`,
            note: `before ${(before / MB).toFixed(0)} MB`,
          });
          const cap = host.budget.options.maxRunning?.sweep ?? n;
          rows.push({
            name: `${label}: most running at once`,
            value: s.peakRunning,
            unit: 'sweeps',
            target: `≤ ${cap} (CTXSCOPE_SWEEPS_AT_ONCE)`,
            pass: s.peakRunning <= cap,
          });
          rows.push({
            name: `${label}: answered 200 / 409`,
            value: statuses.filter((x) => x === 200).length,
            unit: `ok, ${statuses.filter((x) => x === 409).length} busy`,
          });
          rows.push({
            name: `${label}: slowest static GET meanwhile`,
            value: slowestGet,
            unit: 'ms',
            target: '< 1000 ms',
            pass: slowestGet < 1000,
          });
        }
      } finally {
        await http.close();
        await host.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    return rows;
  },
};
