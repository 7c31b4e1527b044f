/**
 * The lean replay the tuner runs (ReplayOptions.detail 'totals'): no reason text, no events — and
 * otherwise the full replay's result. For every built-in policy, on the sample and on a generated
 * session long enough for S3's soft budget to word a reason on most calls and S4's hard limits to
 * abort, with and without a needle: totals, retention, statuses and step numbers are the same.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReplayConfigInput } from '../../../src/core/config';
import type { Session } from '../../../src/core/model';
import { POLICIES, SCENARIO_POLICIES } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';
import type { ReplayResult } from '../../../src/core/replay/types';
import { syntheticSession } from '../../bench/corpus';

const policies = [...POLICIES, ...SCENARIO_POLICIES];

function sameOutcome(lean: ReplayResult, full: ReplayResult): void {
  expect(lean.totals).toEqual(full.totals);
  expect(lean.retention).toEqual(full.retention);
  expect(Array.from(lean.steps.status)).toEqual(Array.from(full.steps.status));
  expect(Array.from(lean.steps.total)).toEqual(Array.from(full.steps.total));
  expect(Array.from(lean.steps.keptFrom)).toEqual(Array.from(full.steps.keptFrom));
  expect(Array.from(lean.steps.regions.summary)).toEqual(Array.from(full.steps.regions.summary));
  // What lean leaves out, it leaves out entirely (a half-built list would mislead a reader).
  expect(lean.events).toEqual([]);
  expect(lean.steps.reasons).toEqual(['']);
  expect(lean.steps.reasonIndex.every((i) => i === 0)).toBe(true);
}

interface Case {
  readonly name: string;
  readonly session: () => Session;
  readonly overrides: ReplayConfigInput;
  readonly needle: string;
}

let sample: Session;
const generated = syntheticSession(1_500);
const cases: Case[] = [
  { name: 'the sample', session: () => sample, overrides: {}, needle: 'package.json' },
  // A small window: the sample compresses under every policy that can.
  { name: 'the sample, 20,000-token window', session: () => sample, overrides: { window: 20_000 }, needle: 'package.json' },
  {
    name: 'a generated 1,500-call session',
    session: () => generated,
    overrides: { tokenizer: 'chars4', window: 64_000 },
    needle: 'Working on step 123',
  },
];

beforeAll(async () => {
  const { importSource } = await import('../../../src/core/import/index');
  const { fileSource } = await import('../../../src/main/io/file-source');
  sample = (await importSource(fileSource(join(__dirname, '../../../resources/sample/sample-session.jsonl')))).sessions[0]!;
});

describe('lean replay (detail: totals)', () => {
  for (const c of cases) {
    for (const withNeedle of [false, true]) {
      it(`${c.name}${withNeedle ? ', with a needle' : ''}: every built-in policy's totals and retention equal the full replay's`, async () => {
        const session = c.session();
        const needles = withNeedle ? [c.needle] : [];
        for (const p of policies) {
          const config: ReplayConfigInput = { ...p.config, ...c.overrides };
          const full = await replay(session, config, { needles });
          const lean = await replay(session, config, { needles, detail: 'totals' });
          try {
            sameOutcome(lean, full);
          } catch (e) {
            throw new Error(`policy ${p.id}: ${e instanceof Error ? e.message : String(e)}`);
          }
        }
      }, 120_000);
    }
  }

  it('the generated session exercises what lean skips: S3 words a budget reason on most calls, S4 aborts', async () => {
    const config = { tokenizer: 'chars4', window: 64_000 } as const;
    const s3 = policies.find((p) => p.id === 's3')!;
    const s4 = policies.find((p) => p.id === 's4')!;
    const full3 = await replay(generated, { ...s3.config, ...config });
    expect(full3.steps.reasons.filter((r) => r.includes('budget')).length).toBeGreaterThan(100);
    expect(full3.totals.compressions).toBeGreaterThan(0);
    const lean4 = await replay(generated, { ...s4.config, ...config }, { detail: 'totals' });
    expect(lean4.totals.aborts).toBe(1);
  });

  it('a needle that leaves the window is tracked the same by a lean replay', async () => {
    const config = { ...policies.find((p) => p.id === 's3')!.config, tokenizer: 'chars4', window: 64_000 };
    const lean = await replay(generated, config, { needles: ['Working on step 123'], detail: 'totals' });
    expect(lean.retention.needles?.[0]?.leftAt.length ?? 0).toBeGreaterThan(0);
  });
});
