import { resolveConfig } from '../../src/core/config';
import { replay } from '../../src/core/replay/index';
import { countWith } from '../../src/core/tokens/index';
import { getPolicy } from '../../src/core/policies/index';
import { syntheticSession } from './corpus';
const session = syntheticSession(10_000);
const counts = countWith(session, 'chars4');
const cases: [string, string, number, number][] = JSON.parse(process.argv[2]!);
(async () => {
  for (const [id, key, from, step] of cases) {
    const p = getPolicy(id)!;
    const times: number[] = [];
    for (let i = 0; i < 16; i++) {
      const cfg = resolveConfig(p.config, { tokenizer: 'chars4', window: 64000, [key]: from + i * step }, {});
      const t = performance.now();
      await replay(session, { ...cfg, summarizer: cfg.summarizer === 'none' ? 'none' : 'extractive' }, { counts, needles: [], pinned: new Set() });
      times.push(performance.now() - t);
    }
    const warm = times.slice(4).sort((a, b) => a - b);
    console.log(id.padEnd(20), key, 'first', times[0]!.toFixed(0), 'median warm', warm[warm.length >> 1]!.toFixed(1), 'ms');
  }
})();
