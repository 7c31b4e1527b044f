/**
 * Property: any input ends in sessions or in one clear ImportError — never an uncaught
 * exception, a stack overflow or a hang (docs/reliability.md). Inputs are the valid fixtures of
 * every format (test/fixtures/import, and the real-transcript corpus folder where one exists) with one mutation
 * from ./mutate.ts each. The default run is small and quick; `npm run fuzz` runs 10,000 inputs
 * (CTXSCOPE_FUZZ_RUNS sets the number, CTXSCOPE_FUZZ_SEED replays a run).
 *
 * A failure prints the fixture and the mutation; save the bytes under ./cases (see
 * cases.test.ts) so the crash stays fixed.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyMutation, mutation } from './mutate';
import { importOutcome } from './outcome';

const FIXTURES = join(__dirname, '../../fixtures/import');
const CORPUS = '/work/shared/corpus';

/** Every fixture file, and corpus transcripts up to 160 KB (bigger ones only slow the run down). */
function inputs(): { name: string; bytes: Uint8Array }[] {
  const files = readdirSync(FIXTURES).map((f) => join(FIXTURES, f));
  if (existsSync(CORPUS)) {
    for (const d of readdirSync(CORPUS)) {
      const sub = join(CORPUS, d);
      if (!statSync(sub).isDirectory()) continue;
      for (const f of readdirSync(sub)) if (statSync(join(sub, f)).size <= 160_000) files.push(join(sub, f));
    }
  }
  return files.map((f) => ({ name: f.split('/').slice(-2).join('/'), bytes: new Uint8Array(readFileSync(f)) }));
}

const longRun = process.env['npm_lifecycle_event'] === 'fuzz';
const RUNS = Number(process.env['CTXSCOPE_FUZZ_RUNS'] ?? (longRun ? 10_000 : 120));
const SEED = process.env['CTXSCOPE_FUZZ_SEED'] !== undefined ? Number(process.env['CTXSCOPE_FUZZ_SEED']) : undefined;

describe('import fuzz: every mutated transcript ends in sessions or one clear error', () => {
  const all = inputs();

  it('the fixtures themselves import', async () => {
    for (const f of all) expect(await importOutcome(f.name, f.bytes)).toHaveProperty('sessions');
  });

  it(
    `${RUNS} mutated inputs`,
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.constantFrom(...all), mutation, fc.constantFrom(1, 7, 4096, 1 << 16), async (input, m, step) => {
          const bytes = applyMutation(input.bytes, m);
          const outcome = await importOutcome(input.name, bytes, step);
          // Invalid UTF-8 put into valid text is reported where it was put (up to 3 bytes before:
          // it may have cut a character of the file short, which is then the invalid sequence).
          if ('error' in outcome && m.kind === 'insertBytes' && /UTF-8 text, found an invalid/.test(outcome.error)) {
            expect(outcome.error).toMatch(/:\d+:\d+: valid UTF-8 text, found an invalid byte sequence at byte \d+/);
            const put = Math.min(input.bytes.length, Math.floor(m.at * input.bytes.length));
            const said = Number(/ at byte (\d+)/.exec(outcome.error)![1]);
            expect(said).toBeGreaterThanOrEqual(put - 3);
            expect(said).toBeLessThanOrEqual(put + m.bytes.length);
          }
        }),
        {
          numRuns: RUNS,
          ...(SEED !== undefined ? { seed: SEED } : {}),
          ...(longRun ? {} : { interruptAfterTimeLimit: 8_000 }),
          endOnFailure: true,
        },
      );
    },
    longRun ? 0 : 60_000,
  );
});
