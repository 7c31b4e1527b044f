import { resolveConfig } from '../../src/core/config';
import { replay } from '../../src/core/replay/index';
import { countWith } from '../../src/core/tokens/index';
import { getPolicy } from '../../src/core/policies/index';
import { syntheticSession } from '../../test/bench/corpus';
const id = process.argv[2] ?? 's3';
const n = Number(process.argv[3] ?? 20);
const session = syntheticSession(10_000);
const counts = countWith(session, 'chars4');
const p = getPolicy(id)!;
const key = process.argv[4] ?? 'trigger';
const from = Number(process.argv[5] ?? 0.5), step = Number(process.argv[6] ?? 0.005);
(async () => {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const cfg = resolveConfig(p.config, { tokenizer: 'chars4', window: 64000, [key]: from + i * step }, {});
    const t = performance.now();
    const r = await replay(session, { ...cfg, summarizer: cfg.summarizer === 'none' ? 'none' : 'extractive' }, { counts, needles: [], pinned: new Set() });
    if (i < 3 || i === n - 1) console.log(i, (performance.now() - t).toFixed(1), 'ms', r.steps.length);
  }
  console.log('total', (performance.now() - t0).toFixed(0), 'per', ((performance.now() - t0) / n).toFixed(1));
})();
