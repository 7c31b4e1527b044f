/**
 * Fidelity against a Codex rollout: the original agent auto-compacts (a `compacted` line) once the
 * provider-reported prompt passes 90% of `model_context_window`; the `codex` preset, replaying
 * the imported transcript with its own estimator, must fire within ±1 call of it.
 *
 * The rollout is written here, in the Codex format (docs/reference/formats.md, Codex CLI), by a small deterministic
 * agent loop. Its `last_token_usage.input_tokens` is what a provider would report: the o200k
 * count of everything sent (instructions + items, 4 tokens of framing per item) plus 1,800 tokens
 * of tool schemas that Codex rollouts do not log. The replay never sees those 1,800 tokens
 * directly — only the reported usage — which is exactly the estimation gap fidelity is about.
 */
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { getPolicy } from '../../../src/core/policies/index';
import { replay } from '../../../src/core/replay/index';

const enc = getEncoding('o200k_base');
const WINDOW = 40_000;
const HIDDEN_TOOLS = 1_800;
const VOCAB =
  'the parser reads config files and returns a tree of nodes while tests check every branch of src/parse.ts for errors in line 42 before we ship version 3 of the build'.split(
    ' ',
  );

function prose(seed: number, words: number): string {
  let x = seed * 2_654_435_761;
  const out: string[] = [];
  for (let i = 0; i < words; i++) {
    x = (x * 1_103_515_245 + 12_345) >>> 0;
    out.push(VOCAB[x % VOCAB.length]!);
  }
  return out.join(' ');
}

/** A rollout of `turns` turns (user → shell call → output → answer), compacting like Codex. */
function rollout(turns: number): { text: string; compactedBeforeCall: number } {
  const lines: string[] = [];
  const ts = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString();
  let clock = 0;
  const emit = (type: string, payload: unknown) => lines.push(JSON.stringify({ timestamp: ts(clock++), type, payload }));
  const instructions = prose(1, 700);
  emit('session_meta', {
    id: 'fid-codex',
    timestamp: ts(0),
    cwd: '/repo',
    originator: 'codex_cli_rs',
    cli_version: '0.46.0',
    base_instructions: { text: instructions },
  });
  emit('turn_context', { model: 'gpt-5-codex', cwd: '/repo' });
  emit('event_msg', { type: 'task_started', model_context_window: WINDOW });
  // What the provider sees: token counts of the items currently in the agent's history.
  let history: number[] = [];
  const base = enc.encode(instructions).length + HIDDEN_TOOLS;
  const sent = () => base + history.reduce((a, b) => a + b, 0);
  const item = (payload: Record<string, unknown>, text: string) => {
    emit('response_item', payload);
    history.push(enc.encode(text).length + 4);
  };
  let call = 0;
  let compactedBeforeCall = -1;
  let pendingCompaction = false;
  const modelCall = (payload: Record<string, unknown>, text: string) => {
    const prompt = sent();
    item(payload, text);
    emit('event_msg', {
      type: 'token_count',
      info: {
        last_token_usage: {
          input_tokens: prompt,
          cached_input_tokens: 0,
          output_tokens: 50,
          reasoning_output_tokens: 0,
          total_tokens: prompt + 50,
        },
        model_context_window: WINDOW,
      },
    });
    call++;
    if (prompt > 0.9 * WINDOW && compactedBeforeCall < 0) pendingCompaction = true;
  };
  for (let t = 0; t < turns; t++) {
    if (pendingCompaction) {
      // Codex compacts between turns: the history becomes a summary (+ the recent user message).
      const summary = `Summary: ${prose(900 + t, 120)}`;
      emit('compacted', { message: summary, replacement_history: [] });
      history = [enc.encode(summary).length + 4];
      compactedBeforeCall = call;
      pendingCompaction = false;
    }
    const ask = prose(10 + t, 180);
    item({ type: 'message', role: 'user', content: [{ type: 'input_text', text: ask }] }, ask);
    const args = JSON.stringify({ command: ['bash', '-lc', `grep -n parse src/parse.ts # ${t}`] });
    modelCall({ type: 'function_call', name: 'shell', arguments: args, call_id: `call_${t}` }, 'shell' + args);
    const out = prose(100 + t, 650);
    item({ type: 'function_call_output', call_id: `call_${t}`, output: out }, out);
    const answer = prose(500 + t, 90);
    modelCall({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] }, answer);
  }
  return { text: lines.join('\n') + '\n', compactedBeforeCall };
}

describe('fidelity: Codex auto-compact at 90% of the window', () => {
  it("the codex preset fires within ±1 call of the first prompt over 90%, at most a turn before the rollout's own compaction", async () => {
    const { text, compactedBeforeCall } = rollout(40);
    expect(compactedBeforeCall).toBeGreaterThan(0);
    const out = await importSource(stringSource('rollout-fidelity.jsonl', text));
    expect(out.format).toBe('codex');
    const s = out.sessions[0]!;
    expect(s.reportedContextWindow).toBe(WINDOW);
    expect(s.sourceCompactions).toHaveLength(1);
    const r = await replay(s, getPolicy('codex')!.config);
    const real = r.events.find((e) => e.kind === 'source-compaction')!;
    expect(real.step).toBe(compactedBeforeCall);
    const simulated = r.events.find((e) => e.kind === 'compression');
    expect(simulated).toBeDefined();
    // The replay carries the 1,800 unlogged tokens into codex's estimator (the provider counted them),
    // so it checks the request before each call and fires at the first call whose reported prompt
    // passes 0.9 × 40,000 = 36,000. Codex itself compacts only between turns, after a turn's calls
    // (a shell call and an answer: 2 calls a turn): its compaction comes 1 or 2 calls later, never before.
    const firstOver = Array.from(r.steps.reported).findIndex((p) => p > 0.9 * WINDOW);
    expect(Math.abs(simulated!.step - firstOver)).toBeLessThanOrEqual(1);
    expect(real.step - simulated!.step).toBeGreaterThanOrEqual(0);
    expect(real.step - simulated!.step).toBeLessThanOrEqual(2);
  });
});
