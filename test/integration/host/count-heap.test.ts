/**
 * The count worker's heap bound (handlers.ts COUNT_HEAP_MB): a count whose worker dies at the
 * bound is run again without one, so the exact counts still land (`countsReady`) and are stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { countWorkerBoot } from '../../helpers/count-worker-boot';
import { createHost } from '../../../src/main/host/handlers';
import type { EventName } from '../../../src/shared/api';

const root = join(__dirname, '../../..');
const sample = join(root, 'resources/sample/sample-session.jsonl');

describe('the count worker past its heap bound', () => {
  it('counts again unbounded: the exact counts are stored and countsReady is said', async () => {
    const d = mkdtempSync(join(tmpdir(), 'ctxscope-count-heap-'));
    // The count worker from its TypeScript source, which, in a bounded heap,
    // first keeps arrays alive until it dies at the bound (as counting a session too big for it would).
    const boot = countWorkerBoot(
      d,
      '  if (v8.getHeapStatistics().heap_size_limit < 512e6) { const kept = []; for (;;) kept.push(new Array(100000).fill(kept.length)); }',
    );
    let ready: (tokenizer: string) => void = () => {};
    const countsReady = new Promise<string>((r) => (ready = r));
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const h = await createHost({
      dbPath: join(d, 'c.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [sample],
      countWorkerFile: boot,
      countHeapMb: 64,
      emit: (event: EventName, payload: unknown) => event === 'countsReady' && ready((payload as { tokenizer: string }).tokenizer),
    });
    try {
      const sid = h.initialSessionId!;
      // The import's chars/4 estimates first, while the worker counts.
      const detail = await h.handlers.getSession({ id: sid });
      expect(detail.tokenizer).toBe('chars4');
      expect(await countsReady).toBe('calibrated');
      // The bounded worker died, and the count was run again.
      expect(stderr.mock.calls.map((c) => String(c[0])).join('')).toMatch(/memory limit.*counting session .* again without a heap bound/);
      const stored = h.store.loadCounts(sid, 'calibrated');
      expect(stored?.perMessage.length).toBe(detail.summary.messages);
      expect((await h.handlers.getSession({ id: sid })).tokenizer).toBe('calibrated');
    } finally {
      stderr.mockRestore();
      await h.close();
      rmSync(d, { recursive: true, force: true });
    }
  }, 120_000);
});
