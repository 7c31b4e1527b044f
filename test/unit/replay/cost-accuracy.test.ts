/**
 * The replay's cost model against what the provider reported (docs/cost.md §Accuracy): a replay
 * that compresses nothing must reproduce each call's split — uncached input, cache reads, cache
 * writes — within 5% at the median call, and the session's cost within 2%, on the real sessions
 * with usage in test/fixtures/usage-corpus (sources in its README).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { billedSplit, lookupModel, usageCost } from '../../../src/core/catalog';
import { importSource, stringSource } from '../../../src/core/import/index';
import { promptTokens } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';

const DIR = join(__dirname, '../../fixtures/usage-corpus');
/** S1 with nothing to compress: a window no session fills, no tool output cut, counts calibrated on the usage. */
const NO_COMPRESSION = { window: 10_000_000, toolOutputMaxBytes: 0, tokenizer: 'calibrated' } as const;

interface Accuracy {
  readonly calls: number;
  /** Median over calls of the largest of the three parts' errors, as a share of the call's reported prompt. */
  readonly medianSplitError: number;
  /** (replay cost − reported cost) / reported cost, over the calls with usage. */
  readonly costError: number;
  readonly replayCost: number;
  readonly reportedCost: number;
}

async function accuracyOf(file: string): Promise<Accuracy> {
  const path = file.startsWith('resources/') ? join(__dirname, '../../..', file) : join(DIR, file);
  const { sessions } = await importSource(stringSource(file, readFileSync(path, 'utf8')));
  const session = sessions[0]!;
  const r = await replay(session, { policy: 's1', ...NO_COMPRESSION });
  const s = r.steps;
  const model = lookupModel(session.model);
  const errors: number[] = [];
  let reportedCost = 0;
  // Over the calls with usage only: a call the log reports nothing for has nothing to compare with.
  let replayCost = 0;
  // After the agent's own compaction a replay that compresses nothing sends what the agent no longer
  // did (the whole history): the comparison stops there (the bundled sample compacts at its 27th call).
  const compactedAt = Math.min(...session.sourceCompactions.map((c) => c.atMessage));
  for (let j = 0; j < s.count && s.messageIndex[j]! < compactedAt; j++) {
    const u = session.messages[s.messageIndex[j]!]!.usage;
    if (!u) continue;
    const real = billedSplit(u);
    const prompt = promptTokens(u);
    const read = s.cacheRead![j]!;
    const write = s.cacheWrite![j]!;
    const uncached = s.total[j]! - read - write;
    const err =
      Math.max(
        Math.abs(uncached - real.uncached),
        Math.abs(read - real.cacheRead),
        Math.abs(write - (real.cacheWrite5m + real.cacheWrite1h)),
      ) / prompt;
    errors.push(err);
    if (model) reportedCost += usageCost(model, u);
    replayCost += s.cost![j]!;
  }
  errors.sort((a, b) => a - b);
  const mid = errors.length >> 1;
  const medianSplitError = errors.length % 2 ? errors[mid]! : (errors[mid - 1]! + errors[mid]!) / 2;
  return { calls: errors.length, medianSplitError, costError: (replayCost - reportedCost) / reportedCost, replayCost, reportedCost };
}

const FILES = [
  'resources/sample/sample-session.jsonl',
  'ccviewer-5c0375b4.jsonl',
  'claude-kvsankar-real-session-01.jsonl',
  'codex-kvsankar-real-session-01.jsonl',
  'openhands-runtime-traj-basic.json',
];

describe('the replay reproduces the provider’s cache split and cost on real sessions', () => {
  for (const file of FILES) {
    it(file, async () => {
      const a = await accuracyOf(file);
      console.log(file, JSON.stringify(a));
      expect(a.calls).toBeGreaterThan(0);
      expect(a.medianSplitError).toBeLessThanOrEqual(0.05);
      expect(Math.abs(a.costError)).toBeLessThanOrEqual(0.02);
    });
  }
});
