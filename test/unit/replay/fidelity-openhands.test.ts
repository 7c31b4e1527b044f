/**
 * Fidelity against an OpenHands event stream: LLMSummarizingCondenser (max_size 100, keep_first 1)
 * emits a `condensation` action, forgetting the middle of the view, before the first LLM call
 * whose view holds more than 100 events. The `openhands-summary` preset, replaying the imported
 * events, must fire within ±1 call of it.
 *
 * The stream is written here in OpenHands' event format (docs/reference/formats.md, OpenHands) by a small deterministic
 * agent loop that condenses the way the condenser's documentation describes.
 */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';

const MAX_SIZE = 100;
const KEEP_FIRST = 1;

function eventStream(calls: number): { text: string; condensedBeforeCall: number; forgotten: number } {
  const events: Record<string, unknown>[] = [];
  let id = 0;
  const ts = (n: number) => `2026-01-01T00:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`;
  events.push({
    id: id++,
    timestamp: ts(0),
    source: 'user',
    message: 'fix the failing test in tests/test_parse.py',
    action: 'message',
    args: { content: 'fix the failing test in tests/test_parse.py' },
  });
  // The condenser's view: ids of events the agent still sees.
  let view: number[] = [0];
  let condensedBeforeCall = -1;
  let forgotten = 0;
  for (let c = 0; c < calls; c++) {
    if (view.length > MAX_SIZE && condensedBeforeCall < 0) {
      // Keep the first event and the most recent max_size / 2 − keep_first; forget the rest, summarized.
      const keepTail = Math.floor(MAX_SIZE / 2) - KEEP_FIRST;
      const gone = view.slice(KEEP_FIRST, view.length - keepTail);
      events.push({
        id: id++,
        timestamp: ts(id),
        source: 'agent',
        action: 'condensation',
        args: { forgotten_event_ids: gone, summary: `The agent ran ${c} commands on tests/test_parse.py.`, summary_offset: KEEP_FIRST },
      });
      view = [...view.slice(0, KEEP_FIRST), ...view.slice(view.length - keepTail)];
      condensedBeforeCall = c;
      forgotten = gone.length;
    }
    const callId = `toolu_${c}`;
    const response = {
      id: `resp-${c}`,
      model: 'claude-sonnet-4-20250514',
      choices: [{ message: { content: `Step ${c}: run the test again.` } }],
      usage: { prompt_tokens: 3_000 + 150 * view.length, completion_tokens: 40 },
    };
    const action = id++;
    events.push({
      id: action,
      timestamp: ts(action),
      source: 'agent',
      action: 'run',
      args: { command: `pytest tests/test_parse.py -k case_${c}`, thought: '' },
      tool_call_metadata: { function_name: 'execute_bash', tool_call_id: callId, model_response: response, total_calls_in_response: 1 },
    });
    const obs = id++;
    events.push({
      id: obs,
      timestamp: ts(obs),
      source: 'environment',
      observation: 'run',
      cause: action,
      content: `case_${c}: 1 failed, ${c} passed`,
      extras: { exit_code: 1 },
      tool_call_metadata: { function_name: 'execute_bash', tool_call_id: callId, model_response: response, total_calls_in_response: 1 },
    });
    view.push(action, obs);
  }
  return { text: JSON.stringify(events), condensedBeforeCall, forgotten };
}

describe('fidelity: OpenHands LLM summarizing condenser', () => {
  it("the openhands-summary preset fires within ±1 call of the stream's own condensation", async () => {
    const { text, condensedBeforeCall, forgotten } = eventStream(90);
    expect(condensedBeforeCall).toBeGreaterThan(0);
    const out = await importSource(stringSource('events.json', text));
    expect(out.format).toBe('openhands');
    const s = out.sessions[0]!;
    expect(s.sourceCompactions).toHaveLength(1);
    expect(s.sourceCompactions[0]!.droppedIds).toHaveLength(forgotten);
    const r = await replay(s, getPolicy('openhands-summary')!.config);
    const real = r.events.find((e) => e.kind === 'source-compaction')!;
    expect(real.step).toBe(condensedBeforeCall);
    const simulated = r.events.find((e) => e.kind === 'compression');
    expect(simulated).toBeDefined();
    expect(Math.abs(simulated!.step - real.step)).toBeLessThanOrEqual(1);
    // Both forget about the same number of messages (the simulator cuts at a turn boundary).
    if (simulated?.kind === 'compression') {
      const dropped = simulated.dropped.reduce((n, [a, b]) => n + b - a + 1, 0);
      expect(Math.abs(dropped - forgotten)).toBeLessThanOrEqual(2);
    }
  });
});
