/** `replay --json` and the JSON report carry the loss ledger, as a user runs them. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSandbox, sample } from '../../helpers/cli-sandbox';
import type { LossLedger } from '../../../src/core/replay/ledger';

const cli = cliSandbox('ctxscope-ledger-');
const run = cli.run;

describe('loss ledger in the CLI output', () => {
  it('replay --json has one ledger per compression and one for the compaction the agent did', () => {
    const r = run('replay', sample, '--policy', 's3', '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout) as { totals: { compressions: number }; ledger: LossLedger[] };
    expect(j.ledger.filter((l) => l.source === 'replay')).toHaveLength(j.totals.compressions);
    // The sample session has one compaction of its own (inspect reports sourceCompactions: 1).
    const agent = j.ledger.filter((l) => l.source === 'agent');
    expect(agent).toHaveLength(1);
    expect(agent[0]!.lost).toBeGreaterThan(0);
    for (const l of j.ledger)
      for (const it of l.items) expect(l.removed.some(([a, z]) => it.messageIndex >= a && it.messageIndex <= z)).toBe(true);
  });

  it('the JSON report export carries the same ledger', () => {
    const out = join(cli.dir, 'report.json');
    const r = run('export', sample, '--policy', 's3', '--to', 'report-json', '--out', out);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(readFileSync(out, 'utf8')) as { ledger: LossLedger[] };
    const replayed = JSON.parse(run('replay', sample, '--policy', 's3', '--json').stdout) as { ledger: LossLedger[] };
    expect(report.ledger).toEqual(replayed.ledger);
  });
});
