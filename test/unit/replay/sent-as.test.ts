/**
 * Messages as the agent sent them (docs/policies.md §Common, messages as sent): a SWE-agent run
 * with `last_n_observations` (n = 1) elides older observations call by call, and each call is
 * replayed on the history as the processor left it for that call — in the replay's history
 * region, in the step detail's context, and in the estimate the calibration is fitted on.
 *
 * chars4, no per-message overhead, tool ids and names counted (docs/policies.md §Tokenizers):
 *   system "sys" 3 chars → 1; task "Fix it." 7 → 2;
 *   call ci: id "ci" 1 + name "bash" 1 + args '{"command":"ls"}' (16) 4 = 6;
 *   output: call id 1 + 10 lines of 40 chars = 400 → 100, so 101;
 *   its placeholder "Old environment output: (10 lines omitted)" 42 chars → 11, + call id 1 = 12.
 */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { windowAt } from '../../../src/core/export/window-at';
import { messageText, type Session } from '../../../src/core/model';
import { replay } from '../../../src/core/replay/index';
import { stepDetail } from '../../../src/core/replay/step-detail';
import { calibrationPoints } from '../../../src/core/tokens/calibrate';
import { countWith } from '../../../src/core/tokens/index';

const output = `${'x'.repeat(39)}\n`.repeat(10);
const PLACEHOLDER = 'Old environment output: (10 lines omitted)';

/** History: 0 system, 1 task, (call ci, output oi) at 2i, 2i+1 for i = 1..4, 10 the last call. */
function traj(o1 = output, c4args = '{"command":"ls"}'): string {
  const history: unknown[] = [
    { role: 'system', content: 'sys', message_type: 'system_prompt' },
    { role: 'user', content: 'Fix it.', message_type: 'observation' },
  ];
  // Reported prompts (made up, only their presence matters to the fit's points).
  const usage = (i: number) => ({ prompt_tokens: 100 * i + 50, completion_tokens: 5 });
  for (let i = 1; i <= 4; i++) {
    history.push({
      role: 'assistant',
      content: '',
      message_type: 'action',
      usage: usage(i),
      tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'bash', arguments: i === 4 ? c4args : '{"command":"ls"}' } }],
    });
    history.push({ role: 'tool', content: i === 1 ? o1 : output, message_type: 'observation', tool_call_ids: [`c${i}`] });
  }
  history.push({ role: 'assistant', content: 'Done.', message_type: 'action', usage: usage(5) });
  return JSON.stringify({
    environment: 'main',
    trajectory: [],
    history,
    info: {},
    replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' }, history_processors: [{ type: 'last_n_observations', n: 1 }] } }),
  });
}
const load = async (text = traj()): Promise<Session> => (await importSource(stringSource('x.traj', text))).sessions[0]!;

// Messages (history index − 1): m0 task, m1 c1, m2 o1, m3 c2, m4 o2, m5 c3, m6 o3, m7 c4, m8 o4, m9 last.
// Calls at m1, m3, m5, m7, m9 see 1, 2, 3, 4, 5 observations; n = 1 elides [1 : count − 1]:
// none, none, o1, o1–o2, o1–o3. So o1 is sent elided from m5, o2 from m7, o3 from m9.
// History per call, logged: 2 | 2+6+101 = 109 | 109+107 = 216 | 323 | 430; each elided output saves
// 101 − 12 = 89: 2, 109, 216 − 89 = 127, 323 − 178 = 145, 430 − 267 = 163.
const HISTORY = [2, 109, 127, 145, 163];

describe('messages as the agent sent them', () => {
  it('each call is replayed on the history as the processor produced it for that call', async () => {
    const s = await load();
    expect(s.messages.flatMap((m, i) => (m.sentAs ? [[i, m.sentAs.fromMessage]] : []))).toEqual([
      [2, 5],
      [4, 7],
      [6, 9],
    ]);
    const r = await replay(s, { policy: 's1', tokenizer: 'chars4', window: 10_000_000 });
    expect(Array.from(r.steps.regions.history)).toEqual(HISTORY);
    // Request = system 1 + history (no tools: the run does not call functions by config).
    expect(Array.from(r.steps.total)).toEqual(HISTORY.map((h) => h + 1));
    expect(r.events.some((e) => e.kind === 'warning' && /3 messages the agent sent rewritten/.test(e.text))).toBe(true);
  });

  it("the step detail shows the placeholders as the call's context (masked, with the text sent)", async () => {
    const s = await load();
    const r = await replay(s, { policy: 's1', tokenizer: 'chars4', window: 10_000_000 });
    expect(stepDetail(r, s, 1, { key: 'k' }).context.history).toMatchObject({ tokens: 109, masked: [], sentAs: [] });
    const d = stepDetail(r, s, 3, { key: 'k' });
    expect(d.context.history).toMatchObject({
      tokens: 145,
      ranges: [[0, 6]],
      masked: [
        [2, 2],
        [4, 4],
      ],
    });
    expect(d.context.history.sentAs).toEqual([
      { messageIndex: 2, text: PLACEHOLDER },
      { messageIndex: 4, text: PLACEHOLDER },
    ]);
    expect(d.messageStates).toEqual([
      [0, 1, 'window'],
      [2, 2, 'masked'],
      [3, 3, 'window'],
      [4, 4, 'masked'],
      [5, 6, 'window'],
      [7, 9, 'future'],
    ]);
  });

  it('the exported window at a call holds the placeholders that call received', async () => {
    const s = await load();
    const r = await replay(s, { policy: 's1', tokenizer: 'chars4', window: 10_000_000 });
    const texts = windowAt(r, s.messages, 3).messages.map(messageText);
    expect(texts).toHaveLength(7);
    expect([texts[2], texts[4], texts[6]]).toEqual([PLACEHOLDER, PLACEHOLDER, output]);
    expect(windowAt(r, s.messages, 1).messages.map(messageText)[2]).toBe(output);
  });

  it('what only an elided observation held is lost from the call that got the placeholder', async () => {
    // o1 (m2) names a path; c4 (m7) names it again. o1 is a placeholder from the call at m5 (step 2) on,
    // so when c4 enters (before step 4) the path is in no message the model still reads.
    const o1 = `${'src/app/parser.py '.padEnd(39, 'x')}\n${output.slice(40)}`;
    const s = await load(traj(o1, '{"command":"cat src/app/parser.py"}'));
    const r = await replay(s, { policy: 's1', tokenizer: 'chars4', window: 10_000_000 });
    expect(r.retention.lost).toContainEqual(expect.objectContaining({ key: 'src/app/parser.py', lostAt: 2, neededAt: 4 }));
  });

  it('the calibration is fitted on the requests as sent, call by call', async () => {
    const s = await load();
    const points = calibrationPoints(s, countWith(s, 'chars4'));
    expect(points.map((p) => [p.index, p.x])).toEqual([1, 3, 5, 7, 9].map((k, j) => [k, HISTORY[j]! + 1]));
  });
});
