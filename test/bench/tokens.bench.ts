/** Issue 3's speed targets: bulk exact counting, the cost model's overhead, cached recounts, instant estimates. */
import { getTokenizer, createCounter, countSession } from '../../src/core/tokens/index';
import { createBulkCounter } from '../../src/main/count/bulk';
import { bestOfMs, timeMs, type BenchSuite } from './harness';
import { shortTexts, syntheticSession } from './corpus';

const FULL = process.env['CTXSCOPE_BENCH_FULL'] === '1';

export const suite: BenchSuite = {
  name: 'tokens',
  async run() {
    const n = FULL ? 100_000 : 20_000;
    const texts = shortTexts(n);
    const mb = texts.reduce((s, t) => s + Buffer.byteLength(t), 0) / 1e6;
    const ref = getTokenizer('tiktoken:o200k_base');
    ref.countText('warm up');
    const refMs = await timeMs(() => {
      for (const t of texts) ref.countText(t);
    });
    const bulk = createBulkCounter();
    await bulk.count(texts.slice(0, 2000), 'o200k_base');
    const bulkMs = await timeMs(() => bulk.count(texts, 'o200k_base'));
    await bulk.close();
    const speedup = refMs / bulkMs;

    // Cost model over the bare tokenizer, on messages of the same texts.
    const session = syntheticSession(FULL ? 20_000 : 4_000);
    // The bare tokenizer over the same content (texts, results, call arguments) vs the full cost
    // model (ids, names, overheads, breakdown), each on a fresh counter so nothing is cached.
    const bare = await bestOfMs(3, () => {
      for (const m of session.messages)
        for (const p of m.parts) {
          if (p.kind === 'text' || p.kind === 'tool_result') ref.countText(p.text);
          else if (p.kind === 'tool_call') ref.countText(p.args);
        }
    });
    const modelled = await bestOfMs(3, () => countSession(session, createCounter(ref)));
    const o200 = createCounter(ref);
    const first = await timeMs(() => countSession(session, o200));
    const cached = await bestOfMs(3, () => countSession(session, o200));
    const estMs = await bestOfMs(3, () => {
      let s = 0;
      for (const t of texts) s += t.length >> 2;
      return s;
    });
    const bytes = mb * 1e6;
    return [
      { name: `js-tiktoken o200k, 1 thread, ${n} short messages`, value: mb / (refMs / 1000), unit: 'MB/s', note: `${((refMs * 1000) / n).toFixed(0)} µs/message` },
      { name: 'bulk exact counting (gpt-tokenizer, worker threads)', value: mb / (bulkMs / 1000), unit: 'MB/s' },
      { name: 'bulk vs single-thread js-tiktoken', value: speedup, unit: '×', target: '≥ 4×', pass: speedup >= 4 },
      { name: 'cost model overhead over the bare tokenizer (o200k)', value: (modelled / bare - 1) * 100, unit: '%', target: '≤ 30%', pass: modelled / bare - 1 <= 0.3 },
      { name: 'recount of a counted session (cached)', value: first / cached, unit: '× faster', target: '≥ 50×', pass: first / cached >= 50 },
      { name: 'chars-based estimate for every message', value: bytes / (estMs / 1000) / 1e9, unit: 'GB/s' },
    ];
  },
};
