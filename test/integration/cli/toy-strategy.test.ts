/**
 * A strategy module that describes its strategy (test/fixtures/strategies/keep-turns.mjs, through
 * `--strategy-module`): the CLI lists the policy it brings in `policies --json`, takes its setting
 * with `--set` and `CTXSCOPE_<KEY>`, and replays with it. Without the module none of that exists.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliSandbox, root, sample } from '../../helpers/cli-sandbox';

const toy = join(root, 'test', 'fixtures', 'strategies', 'keep-turns.mjs');
const { run } = cliSandbox('ctxscope-toy-');

describe('ctxscope with a strategy module that describes its strategy', () => {
  it('policies --json lists the policy the toy strategy brings, after the built-in ones', () => {
    const r = run('policies', '--json', '--strategy-module', toy);
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const policies = JSON.parse(r.stdout) as { id: string; config: { pipeline?: string[]; toyKeepTurns?: number } }[];
    expect(policies.map((p) => p.id).slice(0, 2)).toEqual(['s0', 's1']);
    const toyPolicy = policies.at(-1)!;
    expect(toyPolicy.id).toBe('toy-keep-turns');
    expect(toyPolicy.config.pipeline).toEqual(['keep-turns']);
    expect(toyPolicy.config.toyKeepTurns).toBe(2);
  });

  it('replays with it, its setting given by --set (and refused without the module)', () => {
    const r = run('replay', sample, '--policy', 'toy-keep-turns', '--strategy-module', toy, '--set', 'toyKeepTurns=1', '--json');
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    // The strategy's own note, with the count --set gave it.
    expect(r.stdout).toContain('toy: kept the last 1 turns');
    const bare = run('replay', sample, '--policy', 's2', '--set', 'toyKeepTurns=1');
    expect(bare.status).not.toBe(0);
    expect(bare.stderr).toContain('unknown config key "toyKeepTurns"');
  });
});
