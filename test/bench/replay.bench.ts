/**
 * The replay's speed targets, on cached counts (prefix sums): a 10,000-step replay ≤ 50 ms, one step ≤ 1 ms,
 * a 1,000-step re-run after a threshold change ≤ 5 ms, a 100-policy sweep over 10,000 steps ≤ 2 s,
 * the first run with the extractive summarizer ≤ 300 ms.
 */
import type { StrategyId } from '../../src/core/config';
import { validateConfig } from '../../src/core/config';
import { getPolicy, POLICIES } from '../../src/core/policies/index';
import { replay, resolveTokenizer } from '../../src/core/replay/index';
import type { SessionCounts } from '../../src/core/tokens/index';
import { cached, memoryStore } from '../../src/core/summarize/cache';
import { extractiveSummarizer } from '../../src/core/summarize/extractive';
import { countWith } from '../../src/core/tokens/index';
import { bestOfMs, timeMs, type BenchSuite } from './harness';
import { syntheticSession } from './corpus';
import { ledgersAtStep, lossLedgers } from '../../src/core/replay/ledger';

const SWEEP_PIPELINES: StrategyId[][] = [
  ['drop-oldest'],
  ['sliding-window'],
  ['tool-pruning', 'drop-oldest'],
  ['observation-masking', 'drop-oldest'],
  ['primers-recents'],
];

export const suite: BenchSuite = {
  name: 'replay',
  async run() {
    const big = syntheticSession(10_000);
    const bigCounts = countWith(big, 'chars4');
    const base = {
      tokenizer: 'chars4',
      window: 128_000,
      summarizer: 'none' as const,
      pipeline: ['drop-oldest' as const],
      trigger: 0.8,
      target: 0.5,
    };
    const full = await bestOfMs(3, () => replay(big, base, { counts: bigCounts }));

    const small = syntheticSession(1_000);
    const smallCounts = countWith(small, 'chars4');
    let t = 0.7;
    const rerun = await bestOfMs(5, () =>
      replay(small, { ...base, window: 32_000, trigger: (t = t === 0.7 ? 0.75 : 0.7) }, { counts: smallCounts }),
    );

    const sweep = await timeMs(async () => {
      // 100 policies: five pipelines (no LLM in the loop) × 20 thresholds.
      for (let i = 0; i < 100; i++)
        await replay(
          big,
          { ...base, pipeline: SWEEP_PIPELINES[i % SWEEP_PIPELINES.length]!, trigger: 0.5 + i * 0.004, target: 0.3 },
          { counts: bigCounts },
        );
    });

    const summarizer = cached(extractiveSummarizer, memoryStore());
    const s3 = { ...getPolicy('s3')!.config, tokenizer: 'chars4', window: 64_000, budget: {} };
    // A session just opened: counts cached (as after import), facts and turns not yet extracted.
    // Its first replay (any policy) pays for the fact extraction retention needs; then the first
    // S3 run pays for every summary (empty summary cache).
    const fresh = syntheticSession(10_000);
    const freshCounts = countWith(fresh, 'chars4');
    const opening = await timeMs(() => replay(fresh, base, { counts: freshCounts }));
    const firstSummaries = await timeMs(() => replay(fresh, s3, { counts: freshCounts, summarizer }));
    const again = await bestOfMs(3, () => replay(fresh, s3, { counts: freshCounts, summarizer }));
    // The debugger re-runs a replay on every slider move: every built-in policy, its own tokenizer,
    // counts cached (as the host has them), summaries cached after a first run.
    const perPolicy = [];
    for (const [steps, target] of [
      [10_000, 150],
      [30_000, 1_000],
    ] as const) {
      const session = syntheticSession(steps);
      const counts = new Map<string, SessionCounts>();
      for (const p of POLICIES) {
        const config = validateConfig(p.config);
        const tok = resolveTokenizer(session, config);
        const key = `${tok} ${config.schemaScale}`;
        if (!counts.has(key)) counts.set(key, countWith(session, tok, { schemaScale: config.schemaScale }));
        const ms = await bestOfMs(2, () => replay(session, config, { counts: counts.get(key)! }));
        perPolicy.push({
          name: `${p.id} at ${steps.toLocaleString('en-US')} calls (counts and summaries cached)`,
          value: ms,
          unit: 'ms',
          target: `≤ ${target.toLocaleString('en-US')} ms`,
          pass: ms <= target,
        });
      }
    }
    // The loss ledger is made on request, never by the replay: what a request for it costs on a
    // 30,000-call session — every compression's (replay --json, the report) and one call's (the step detail).
    const ledgerSession = syntheticSession(30_000);
    const ledgerConfig = validateConfig(getPolicy('s3')!.config);
    const ledgerCounts = countWith(ledgerSession, resolveTokenizer(ledgerSession, ledgerConfig), { schemaScale: ledgerConfig.schemaScale });
    const ledgerRun = await replay(ledgerSession, ledgerConfig, { counts: ledgerCounts, summarizer });
    let ledgers = 0;
    const lastCompression = ledgerRun.events.filter((e) => e.kind === 'compression').pop()?.step ?? 0;
    // The first ledger asked of a session also indexes who mentions what (once per session).
    const firstLedger = await timeMs(() => ledgersAtStep(ledgerRun, ledgerSession, lastCompression));
    const allLedgers = await timeMs(() => {
      ledgers = lossLedgers(ledgerRun, ledgerSession).length;
    });
    const oneLedger = await bestOfMs(3, () => ledgersAtStep(ledgerRun, ledgerSession, lastCompression));
    return [
      ...perPolicy,
      { name: `loss ledger of every compression (s3, 30,000 calls, ${ledgers} ledgers)`, value: allLedgers, unit: 'ms' },
      {
        name: "first loss ledger of a session (one call's, with the session's mention index; s3, 30,000 calls)",
        value: firstLedger,
        unit: 'ms',
      },
      {
        name: "loss ledger of one call (the step detail's, s3, 30,000 calls)",
        value: oneLedger,
        unit: 'ms',
        target: '≤ 50 ms',
        pass: oneLedger <= 50,
      },
      { name: 'replay 10,000 steps (cached counts)', value: full, unit: 'ms', target: '≤ 50 ms', pass: full <= 50 },
      { name: 'per step', value: full / 10_000, unit: 'ms', target: '≤ 1 ms', pass: full / 10_000 <= 1 },
      { name: 're-run 1,000 steps after a threshold change', value: rerun, unit: 'ms', target: '≤ 5 ms', pass: rerun <= 5 },
      {
        name: 'sweep of 100 policies (5 pipelines × 20 thresholds) over 10,000 steps',
        value: sweep,
        unit: 'ms',
        target: '≤ 2000 ms',
        pass: sweep <= 2000,
      },
      { name: 'first replay of a just-opened session (fact extraction, no summaries)', value: opening, unit: 'ms' },
      {
        name: 'first run with the extractive summarizer (S3, 10,000 steps, empty summary cache)',
        value: firstSummaries,
        unit: 'ms',
        target: '≤ 300 ms',
        pass: firstSummaries <= 300,
      },
      { name: 'both together (a never-opened session straight into S3)', value: opening + firstSummaries, unit: 'ms' },
      { name: 'same run with summaries cached', value: again, unit: 'ms' },
    ];
  },
};
