/**
 * The ledger's extraction measured on excerpts of real transcripts labelled by hand, every kind:
 * the set the extractor was adjusted on (test/fixtures/ledger) and a holdout set it was never
 * adjusted on (test/fixtures/ledger/holdout). Prints recall and precision per kind for both; fails
 * below recall 90% / precision 80% on paths, errors and identifiers in either set.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatScores, GATED, loadSet, PRECISION_GATE, RECALL_GATE, scoreSet } from '../../helpers/ledger-labels';

const SETS = [
  { name: 'in-sample (the set the extractor was adjusted on)', dir: join(__dirname, '../../fixtures/ledger') },
  { name: 'out-of-sample (holdout, never adjusted on)', dir: join(__dirname, '../../fixtures/ledger/holdout') },
];

for (const { name, dir } of SETS) {
  describe(`loss ledger extraction, ${name}`, () => {
    const set = loadSet(dir);
    const rows = scoreSet(set);
    console.log(formatScores(`loss ledger extraction, ${name}:`, rows));

    it('the fixture labels every excerpt once, every kind', () => {
      expect(set.labels.map((l) => l.excerpt).sort((a, b) => a - b)).toEqual(set.excerpts.map((_, i) => i));
      for (const l of set.labels)
        for (const k of ['path', 'error', 'identifier', 'command', 'number', 'decision', 'instruction'] as const)
          expect(l[k], `excerpt ${l.excerpt} ${k}`).toBeDefined();
    });

    it('every kind is labelled at least once', () => {
      for (const r of rows) if (r.kind !== 'command' && r.kind !== 'decision') expect(r.labelled, r.kind).toBeGreaterThan(0);
    });

    for (const kind of GATED) {
      it(`${kind}: recall ≥ 90% and precision ≥ 80%`, () => {
        const r = rows.find((x) => x.kind === kind)!;
        expect(r.labelled).toBeGreaterThan(0);
        expect(r.recall).toBeGreaterThanOrEqual(RECALL_GATE);
        expect(r.precision).toBeGreaterThanOrEqual(PRECISION_GATE);
      });
    }
  });
}
