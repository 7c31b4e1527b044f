/**
 * What opening, measuring and exporting a 100 MB session (`make-session.ts --mb 100`) costs every
 * other request: the longest the host's request thread (the app's main process, `serve`'s server)
 * is blocked while each runs, through the host with its workers as `serve` starts them (from
 * their TypeScript sources here). Measured as the longest gap between ticks of a 1 ms interval,
 * as export.bench.ts does. Open is broken down per request the renderer makes when a session is
 * opened, so the one that blocks is named. `CTXSCOPE_HOST_BENCH_MB` changes the size.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../../src/main/host/handlers';
import { replayWorkerSource } from '../../src/main/host/replay-client';
import { writeClaudeCodeJsonl } from './corpus';
import { longestBlockMs, type BenchRow, type BenchSuite } from './harness';

/** A `.mjs` that registers tsx and loads a worker's TypeScript source (what the built `.js` is). */
function bootFile(dir: string, name: string): string {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const f = join(dir, `${name}-boot.mjs`);
  writeFileSync(
    f,
    `import { register } from ${JSON.stringify(join(root, 'node_modules/tsx/dist/esm/api/index.mjs'))};\nregister();\n// A task module for tinypool (the count worker): its default export runs a task.\nexport default (await import(${JSON.stringify(join(root, `src/main/host/${name}.ts`))})).default;\n`,
  );
  return f;
}

export const suite: BenchSuite = {
  name: 'host-thread',
  async run(): Promise<BenchRow[]> {
    const mb = Number(process.env.CTXSCOPE_HOST_BENCH_MB ?? 100);
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-host-thread-bench-'));
    const rows: BenchRow[] = [];
    const target = { target: '≤ 100 ms' };
    const row = (name: string, value: number): void =>
      void rows.push({ name: `${mb} MB: longest request-thread block, ${name}`, value, unit: 'ms', ...target, pass: value <= 100 });
    try {
      const file = join(dir, 'big.jsonl');
      await writeClaudeCodeJsonl(file, mb);
      let countsReady: () => void = () => {};
      const counted = new Promise<void>((r) => (countsReady = r));
      let imported: (ids: string[]) => void = () => {};
      const importDone = new Promise<string[]>((r) => (imported = r));
      const host = await createHost({
        dbPath: join(dir, 'h.db'),
        hostKind: 'serve',
        version: 'bench',
        initialFiles: [],
        importWorkerFile: bootFile(dir, 'import-worker'),
        countWorkerFile: bootFile(dir, 'count-worker'),
        replayWorkerFile: replayWorkerSource()!,
        emit: (event, payload) => {
          if (event === 'countsReady') countsReady();
          if (event === 'importDone') imported((payload as { sessionIds: string[] }).sessionIds);
        },
      });
      try {
        // Opening a file the library does not hold yet: the import (in its worker) to the end.
        let ids: string[] = [];
        row(
          'import (importFiles → importDone)',
          await longestBlockMs(async () => (await host.handlers.importFiles({ paths: [file] }), (ids = await importDone))),
        );
        const id = ids[0]!;
        // Each answer as `serve` sends it (JSON.stringify; Electron's IPC clones it likewise).
        const sent = (p: Promise<unknown>) => p.then((v) => JSON.stringify(v).length);
        const policy = (await host.handlers.listPolicies({}))[0]!.id;
        const open = async (when: string): Promise<void> => {
          // Open, as the renderer asks when a session is picked: each request, then all of them.
          row(`open${when}: listSessions`, await longestBlockMs(() => sent(host.handlers.listSessions({}))));
          let defaultPolicy = policy;
          row(
            `open${when}: getSession`,
            await longestBlockMs(async () => (defaultPolicy = (await host.handlers.getSession({ id })).defaultPolicy)),
          );
          row(`open${when}: getSession sent (JSON)`, await longestBlockMs(() => sent(host.handlers.getSession({ id }))));
          row(
            `open${when}: getMessages (first page of 200)`,
            await longestBlockMs(() => sent(host.handlers.getMessages({ sessionId: id, offset: 0, limit: 200 }))),
          );
          row(
            `open${when}: getChartView (default policy, 1,200 buckets)`,
            await longestBlockMs(() =>
              sent(host.handlers.getChartView({ sessionId: id, policy: defaultPolicy, overrides: {}, needles: [], buckets: 1200 })),
            ),
          );
          row(
            `open${when}: listPolicies, getConfigFields, listLocalLogs`,
            await longestBlockMs(() =>
              Promise.all([
                sent(host.handlers.listPolicies({})),
                sent(host.handlers.getConfigFields({ policy: defaultPolicy, overrides: {} })),
                sent(host.handlers.listLocalLogs({})),
              ]),
            ),
          );
          // As the window asks when a session is picked: everything at once.
          const all = (): Promise<unknown> =>
            Promise.all(
              [
                host.handlers.listSessions({}),
                host.handlers.getSession({ id }),
                host.handlers.getMessages({ sessionId: id, offset: 0, limit: 200 }),
                host.handlers.getChartView({ sessionId: id, policy: defaultPolicy, overrides: {}, needles: [], buckets: 1200 }),
                host.handlers.listPolicies({}),
                host.handlers.getConfigFields({ policy: defaultPolicy, overrides: {} }),
              ].map(sent),
            );
          row(`open${when}: all of them at once, answers sent (JSON)`, await longestBlockMs(all));
        };
        await open(' (estimates; exact counts running)');
        await counted;
        await open(' (exact counts stored)');
        row(
          'getAccuracy (first: session read and counted in the export worker)',
          await longestBlockMs(() => sent(host.handlers.getAccuracy({ sessionId: id }))),
        );
        const base = { sessionId: id, overrides: {}, at: 'end' as const, to: 'openai' as const, redactPatterns: ['/ORD-\\d+/'] };
        row(
          'previewExport with redaction (worker holds the session)',
          await longestBlockMs(() => sent(host.handlers.previewExport({ ...base, redact: true }))),
        );
        row(
          'exportSession openai, whole session (the handler)',
          await longestBlockMs(() => host.handlers.exportSession({ ...base, redact: false })),
        );
        row(
          'exportSession openai, whole session, answer sent (JSON of ~the session size)',
          await longestBlockMs(() => sent(host.handlers.exportSession({ ...base, redact: false }))),
        );
      } finally {
        await host.close();
      }
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
