/** The policy a session opens on: its agent's own. */
import { describe, expect, it } from 'vitest';
import type { FormatId } from '../../../src/core/model';
import { getPolicy } from '../../../src/core/policies/index';
import { defaultPolicyOf } from '../../../src/main/host/default-policy';

describe('defaultPolicyOf', () => {
  it("opens a session on the policy of the agent that wrote it, else S0's", () => {
    const cases: [FormatId, string][] = [
      ['claude-code', 'claude-code'],
      ['claude-stream-json', 'claude-code'],
      ['codex', 'codex'],
      ['openhands', 'openhands-summary'],
      ['gemini-cli', 's0'],
      ['openai-chat', 's0'],
    ];
    for (const [format, policy] of cases) {
      expect(defaultPolicyOf({ format })).toBe(policy);
      // Every answer is a policy the host knows.
      expect(getPolicy(policy)).toBeDefined();
    }
  });
});
