/**
 * The export dialog's preview on a long session: how long the count of what will be redacted
 * takes (every string of the export through secretlint, the built-in patterns and one user
 * pattern) for the whole 10,000-call session and for the compacted history at the end, against
 * the same export without redaction. The dialog asks again after each change, so this is the
 * wait a person sees; it runs on the host (the app's main process, `serve`'s server).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHost } from '../../src/main/host/handlers';
import { writeClaudeCodeJsonl } from './corpus';
import { bestOfMs, type BenchRow, type BenchSuite } from './harness';

export const suite: BenchSuite = {
  name: 'export',
  async run(): Promise<BenchRow[]> {
    const dir = mkdtempSync(join(tmpdir(), 'ctxscope-export-bench-'));
    try {
      const file = join(dir, 's10k.jsonl');
      await writeClaudeCodeJsonl(file, 0, { calls: 10_000 });
      const host = await createHost({ dbPath: join(dir, 'b.db'), hostKind: 'serve', version: 'bench', initialFiles: [file], emit: () => {} });
      const base = { sessionId: host.initialSessionId!, overrides: {}, at: 'end' as const, to: 'openai' as const, redactPatterns: ['/ORD-\\d+/'] };
      const rows: BenchRow[] = [];
      const plain = await bestOfMs(3, () => host.handlers.previewExport({ ...base, redact: false }));
      rows.push({ name: 'preview, 10k calls, whole session, no redaction', value: plain, unit: 'ms' });
      const redacted = await bestOfMs(3, () => host.handlers.previewExport({ ...base, redact: true }));
      rows.push({ name: 'preview, 10k calls, whole session, redaction count', value: redacted, unit: 'ms' });
      const window = await bestOfMs(3, () => host.handlers.previewExport({ ...base, policy: 'claude-code', redact: true }));
      rows.push({ name: 'preview, 10k calls, compacted history at the end, redaction count', value: window, unit: 'ms' });
      await host.close();
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
