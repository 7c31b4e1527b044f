/**
 * docs/policies.md §S1, tool output size: an output over `toolOutputMaxBytes` (12,288) enters the
 * window at the size its mode leaves — `offload`, S1's default here, "stored on disk and replaced
 * with handles": a 64-byte handle. The history exported at a call holds what the replay counted.
 */
import { describe, expect, it } from 'vitest';
import { windowAt } from '../../../src/core/export/window-at';
import { utf8Prefix, utf8Suffix } from '../../../src/core/export/tool-outputs';
import { replay } from '../../../src/core/replay/index';
import { BUDGET_FAILURE_TEXT, utf8Length } from '../../../src/core/replay/tool-preflight';
import { replayForWorker } from '../../../src/main/host/export-runner';
import { policy, prose } from '../../helpers/replay';
import { assistant, call, session, toolResult, user } from '../../helpers/session';

const big = prose(12_289, 'log');
const messages = [user('read the log'), assistant([call('big')]), toolResult('big', big), assistant('done')];
const resultText = (w: ReturnType<typeof windowAt>): string => {
  const p = w.messages[2]!.parts[0]!;
  return p.kind === 'tool_result' ? p.text : '';
};

describe('export --at writes tool outputs as the replay counted them', () => {
  it('offload (S1): the 64-byte handle, not the 12,289-byte output', async () => {
    const r = await replay(session(messages), policy('s1', { window: 200_000 }));
    expect(r.events.find((e) => e.kind === 'tool-preflight')).toMatchObject({ action: 'offload', bytesBefore: 12_289, bytesAfter: 64 });
    const w = windowAt(r, messages, 1);
    const text = resultText(w);
    // 12,289 > 12,288: stored aside; what stays is a handle of 64 bytes naming the size and the call.
    expect(utf8Length(text)).toBe(64);
    expect(text).toMatch(/^\[stored aside: 12289 bytes, tool-output\/big *\]$/);
    // The same through the export worker's slim replay.
    expect(
      resultText(
        windowAt(
          structuredClone(replayForWorker(r, { sessionId: 's', overrides: {}, at: 1, to: 'openai', redact: false, redactPatterns: [] })),
          messages,
          1,
        ),
      ),
    ).toBe(text);
    // The window at the first call, before the output arrived, does not hold it at all.
    expect(windowAt(r, messages, 0).messages).toHaveLength(1);
  });

  it('truncate: the first 12,288 bytes; head-tail: head and tail, 12,288 bytes in all', async () => {
    const t = await replay(session(messages), policy('s1', { window: 200_000, toolOutputMode: 'truncate' }));
    expect(resultText(windowAt(t, messages, 'end'))).toBe(big.slice(0, 12_288));
    const h = await replay(session(messages), policy('s1', { window: 200_000, toolOutputMode: 'head-tail' }));
    const text = resultText(windowAt(h, messages, 'end'));
    // 12,288 − 5 bytes of the mark ("\n…\n": 1 + 3 + 1) = 12,283: a head of 6,142 and a tail of 6,141.
    expect(utf8Length(text)).toBe(12_288);
    expect(text).toBe(big.slice(0, 6_142) + '\n…\n' + big.slice(12_289 - 6_141));
  });

  it('an output refused for want of room under the limit is the failure message the agent got', async () => {
    const r = await replay(session(messages), policy('s1', { window: 12_000, toolOutputMaxBytes: 0 }));
    expect(r.events.find((e) => e.kind === 'tool-preflight')).toMatchObject({ action: 'budget-exceeded', messageIndex: 2 });
    expect(resultText(windowAt(r, messages, 1))).toBe(BUDGET_FAILURE_TEXT);
  });

  it('cuts UTF-8 on character boundaries', () => {
    // "é" is 2 bytes, "😀" 4: 3 bytes hold "aé", 5 bytes of the end hold "😀" and "b" but not "é".
    expect(utf8Prefix('aé😀b', 3)).toBe('aé');
    expect(utf8Prefix('aé😀b', 6)).toBe('aé');
    expect(utf8Suffix('aé😀b', 5)).toBe('😀b');
    expect(utf8Suffix('aé😀b', 4)).toBe('b');
  });
});
