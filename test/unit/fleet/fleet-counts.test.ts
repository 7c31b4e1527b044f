/**
 * The counts a fleet replay shares between its policies (src/core/fleet/counts.ts) are the counts
 * each replay would have made on its own, and a replay given them is the replay that counted
 * for itself — so sharing changes the time a fleet run takes, never a figure it writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/core/config';
import { countSpec, SharedCounts } from '../../../src/core/fleet/counts';
import { importSource, stringSource } from '../../../src/core/import/index';
import type { Session } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { replay, replayToJSON } from '../../../src/core/replay/index';
import { countWith } from '../../../src/core/tokens/index';
import { claudeCodeText } from '../../bench/corpus';

const FIXTURES = join(__dirname, '..', '..', 'fixtures', 'import');
const POLICIES = ['s0', 's1', 's2', 's3', 's4', 'claude-code', 'codex'];

async function sessionsOf(name: string, text: string): Promise<Session[]> {
  return (await importSource(stringSource(name, text))).sessions as Session[];
}

const corpus = async (): Promise<Session[]> => [
  ...(await sessionsOf('claude-code-session.jsonl', readFileSync(join(FIXTURES, 'claude-code-session.jsonl'), 'utf8'))),
  ...(await sessionsOf('codex-rollout.jsonl', readFileSync(join(FIXTURES, 'codex-rollout.jsonl'), 'utf8'))),
  // A generated session long enough to compress under every policy, with texts that repeat.
  ...(await sessionsOf('generated.jsonl', claudeCodeText({ calls: 120 }))),
];

describe('counts shared by the policies of a fleet replay', () => {
  it('are, for every policy, exactly the counts countWith makes under that policy’s spec', async () => {
    for (const session of await corpus()) {
      const shared = new SharedCounts(session);
      for (const id of POLICIES) {
        const config = resolveConfig(getPolicy(id)!.config, {});
        const spec = countSpec(session, config);
        const alone = countWith(session, spec.tokenizer, { mediaTokens: spec.mediaTokens, schemaScale: spec.schemaScale });
        expect(shared.for(config), `${session.format} ${id} (${spec.tokenizer})`).toEqual(alone);
      }
    }
  });

  it('counts once per distinct spec, however many policies ask', async () => {
    const [session] = await sessionsOf('generated.jsonl', claudeCodeText({ calls: 30 }));
    const shared = new SharedCounts(session!);
    const specs = new Set<string>();
    for (const id of [...POLICIES, ...POLICIES]) {
      const config = resolveConfig(getPolicy(id)!.config, {});
      specs.add(JSON.stringify(countSpec(session!, config)));
      const first = shared.for(config);
      // The same object comes back: nothing is counted twice.
      expect(shared.for(config)).toBe(first);
    }
    expect(shared.passes).toBe(specs.size);
    expect(specs.size).toBeLessThan(POLICIES.length * 2);
  });

  it('give the same replay as counting inside the replay', async () => {
    const [session] = await sessionsOf('generated.jsonl', claudeCodeText({ calls: 120 }));
    const shared = new SharedCounts(session!);
    for (const id of ['s1', 's3', 'claude-code']) {
      const config = resolveConfig(getPolicy(id)!.config, {});
      const own = replayToJSON(await replay(session!, config));
      const given = replayToJSON(await replay(session!, config, { counts: shared.for(config) }));
      expect(given, id).toEqual(own);
    }
  });
});
