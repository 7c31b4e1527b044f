/**
 * The debugger's answers at the sizes people open (docs/architecture.md, "The host answers at the resolution
 * the screen needs"): on a 10,000-call and a 30,000-call synthetic Claude Code session
 * (corpus.ts, claudeCodeLines: usage on every call, real auto-compactions), per built-in policy —
 * the replay, the chart view reduced to 800 buckets (target ≤ 30 ms at 30,000 calls), one call's
 * detail, and the JSON bytes of each answer (what the request thread serialises and ships).
 *
 * Counts are made once per tokenizer and not timed (the app stores them). BPE tokenizers
 * (calibrated, tiktoken, max:tiktoken) are stood in for by chars4 here: counting 100 MB with BPE
 * is the count worker's bench (tokens.bench.ts), and the replay's cost does not depend on which
 * numbers it adds up.
 *
 * Run alone: `npx tsx test/bench/run.ts debugger`.
 */
import { resolveConfig } from '../../src/core/config';
import { importSource, stringSource } from '../../src/core/import/index';
import type { Session } from '../../src/core/model';
import { POLICIES } from '../../src/core/policies/index';
import { chartView } from '../../src/core/replay/chart-view';
import { replay, resolveTokenizer } from '../../src/core/replay/index';
import { stepDetail } from '../../src/core/replay/step-detail';
import type { ReplayResult } from '../../src/core/replay/types';
import { countWith, mediaTokensFor, type SessionCounts } from '../../src/core/tokens/index';
import { bestOfMs, timeMs, type BenchRow, type BenchSuite } from './harness';
import { claudeCodeText } from './corpus';

const SIZES = [10_000, 30_000] as const;
const BUCKETS = 800;
const isBpe = (t: string): boolean => t === 'calibrated' || t.startsWith('tiktoken:') || t.startsWith('max:');

async function sessionOf(calls: number): Promise<Session> {
  const out = await importSource(stringSource('bench.jsonl', claudeCodeText({ calls })));
  return out.sessions[0]!;
}

/** The call whose detail a user most often opens: the last compression, else the middle call. */
function interestingStep(r: ReplayResult): number {
  const c = r.events.findLast((e) => e.kind === 'compression');
  return c ? c.step : Math.floor(r.steps.count / 2);
}

export const suite: BenchSuite = {
  name: 'debugger',
  async run() {
    const rows: BenchRow[] = [];
    for (const calls of SIZES) {
      const session = await sessionOf(calls);
      const counts = new Map<string, SessionCounts>();
      const countsFor = (tokenizer: string): SessionCounts => {
        const id = isBpe(tokenizer) ? 'chars4' : tokenizer;
        let c = counts.get(id);
        if (!c) counts.set(id, (c = countWith(session, id, { mediaTokens: mediaTokensFor(session.provider) })));
        return c;
      };
      const size = `${calls.toLocaleString('en-US')} calls`;
      rows.push({
        name: `${size}: session`,
        value: session.sourceCompactions.length,
        unit: 'source compactions',
        note: `${session.messages.length} messages`,
      });
      let worstChart = 0;
      for (const policy of POLICIES) {
        const config = resolveConfig(policy.config);
        const c = countsFor(resolveTokenizer(session, config));
        let result: ReplayResult | undefined;
        const replayMs = await timeMs(async () => {
          result = await replay(session, config, { counts: c });
        });
        const r = result!;
        const chartMs = await bestOfMs(5, () => chartView(r, { key: 'k', buckets: BUCKETS }));
        worstChart = Math.max(worstChart, chartMs);
        const step = interestingStep(r);
        const detailMs = await bestOfMs(5, () => stepDetail(r, session, step, { key: 'k', perMessage: c.perMessage }));
        const chartBytes = Buffer.byteLength(JSON.stringify(chartView(r, { key: 'k', buckets: BUCKETS })));
        const detailBytes = Buffer.byteLength(JSON.stringify(stepDetail(r, session, step, { key: 'k', perMessage: c.perMessage })));
        const at = `${size}, ${policy.id}`;
        rows.push(
          { name: `${at}: replay (${r.totals.compressions} compressions)`, value: replayMs, unit: 'ms' },
          {
            name: `${at}: chart view, ${BUCKETS} buckets`,
            value: chartMs,
            unit: 'ms',
            ...(calls === 30_000 ? { target: '≤ 30 ms', pass: chartMs <= 30 } : {}),
          },
          { name: `${at}: step detail (call ${step})`, value: detailMs, unit: 'ms' },
          { name: `${at}: chart view JSON`, value: chartBytes / 1024, unit: 'KB' },
          { name: `${at}: step detail JSON`, value: detailBytes / 1024, unit: 'KB' },
        );
      }
      rows.push({
        name: `${size}: slowest chart view over the policies`,
        value: worstChart,
        unit: 'ms',
        ...(calls === 30_000 ? { target: '≤ 30 ms', pass: worstChart <= 30 } : {}),
      });
    }
    return rows;
  },
};
