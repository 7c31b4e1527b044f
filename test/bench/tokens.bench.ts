/**
 * Token counting speed on realistic, varied text: prose, code, JSON, CJK, base64 and long words,
 * generated from a seeded random source so that almost no piece repeats (a small repeated
 * vocabulary lets the piece and merge caches make any tokenizer look fast). Also the bound on
 * adversarial input: one 1 MB word, counted in O(n log n) (src/core/tokens/bpe.ts).
 */
import { getTokenizer, createCounter, countSession } from '../../src/core/tokens/index';
import { createBulkCounter } from '../../src/main/count/bulk';
import { bestOfMs, timeMs, type BenchSuite } from './harness';
import { syntheticSession } from './corpus';

const FULL = process.env['CTXSCOPE_BENCH_FULL'] === '1';

let seed = 7;
const rnd = (): number => {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return seed / 0x7fffffff;
};
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const CJK =
  '的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明';
const randomWord = (min: number, max: number, alphabet = LOWER): string => {
  const n = min + Math.floor(rnd() * (max - min + 1));
  let s = '';
  for (let i = 0; i < n; i++) s += alphabet[Math.floor(rnd() * alphabet.length)];
  return s;
};

/** One of six kinds of message text, each a few hundred bytes, almost never repeating a piece. */
function variedText(i: number): string {
  switch (i % 6) {
    case 0: // prose: random words of random length, capitalised sentences
      return (
        Array.from(
          { length: 12 + Math.floor(rnd() * 40) },
          (_, k) => (k % 9 === 0 ? randomWord(1, 1).toUpperCase() : '') + randomWord(2, 11),
        ).join(' ') + '.'
      );
    case 1: // code
      return `function ${randomWord(4, 12)}(${randomWord(1, 6)}: number, ${randomWord(1, 6)}: string) {\n  const ${randomWord(3, 9)} = ${Math.floor(rnd() * 1e6)};\n  return ${randomWord(3, 9)}.${randomWord(3, 9)}(${randomWord(3, 9)}) ?? [${Math.floor(rnd() * 999)}, '${randomWord(3, 12)}'];\n}`;
    case 2: // JSON tool arguments
      return JSON.stringify({
        path: `src/${randomWord(3, 10)}/${randomWord(3, 10)}.ts`,
        line: Math.floor(rnd() * 5000),
        query: randomWord(4, 20),
        flags: [randomWord(2, 6), randomWord(2, 6)],
        ok: rnd() > 0.5,
      });
    case 3: // CJK
      return randomWord(20, 120, CJK);
    case 4: // base64 blob
      return randomWord(100, 400, B64);
    default: // long identifiers and words (hashes, compounds)
      return Array.from({ length: 4 + Math.floor(rnd() * 6) }, () => randomWord(20, 90)).join(' ');
  }
}

export const suite: BenchSuite = {
  name: 'tokens',
  async run() {
    const n = FULL ? 100_000 : 20_000;
    seed = 7;
    const texts = Array.from({ length: n }, (_, i) => variedText(i));
    const mb = texts.reduce((s, t) => s + Buffer.byteLength(t), 0) / 1e6;
    const ref = getTokenizer('tiktoken:o200k_base');
    ref.countText('warm up');
    const refMs = await timeMs(() => {
      for (const t of texts) ref.countText(t);
    });
    const bulk = createBulkCounter();
    await bulk.warm('o200k_base');
    const bulkMs = await timeMs(() => bulk.count(texts, 'o200k_base'));
    await bulk.close();
    const speedup = refMs / bulkMs;

    // The bound: one 1 MB word of random lowercase letters (a single piece of the split pattern).
    seed = 11;
    const word = randomWord(1_000_000, 1_000_000);
    // CPU time, not wall time: on a shared machine the wall clock measures the neighbours.
    const cpu0 = process.cpuUsage();
    ref.countText(word);
    const cpu = process.cpuUsage(cpu0);
    const wordMs = (cpu.user + cpu.system) / 1000;

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
      {
        name: `core o200k, 1 thread, ${n} varied messages (prose, code, JSON, CJK, base64, long words)`,
        value: mb / (refMs / 1000),
        unit: 'MB/s',
        note: `${((refMs * 1000) / n).toFixed(0)} µs/message`,
      },
      { name: 'bulk exact counting (gpt-tokenizer, worker threads)', value: mb / (bulkMs / 1000), unit: 'MB/s' },
      { name: 'bulk vs single-thread core', value: speedup, unit: '×', target: '≥ 4×', pass: speedup >= 4 },
      { name: 'one 1 MB single word (o200k, core, CPU time)', value: wordMs, unit: 'ms', target: '≤ 1000 ms', pass: wordMs <= 1000 },
      {
        name: 'cost model overhead over the bare tokenizer (o200k)',
        value: (modelled / bare - 1) * 100,
        unit: '%',
        target: '≤ 30%',
        pass: modelled / bare - 1 <= 0.3,
      },
      {
        name: 'recount of a counted session (cached)',
        value: first / cached,
        unit: '× faster',
        target: '≥ 50×',
        pass: first / cached >= 50,
      },
      { name: 'chars-based estimate for every message', value: bytes / (estMs / 1000) / 1e9, unit: 'GB/s' },
    ];
  },
};
