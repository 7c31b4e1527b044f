/** SWE-agent: the run's config says what its prompt held beyond the logged history (src/core/import/swe-agent-config.ts). */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { messageText, type Session } from '../../../src/core/model';

const call = (id: string, command: string) => ({
  role: 'assistant',
  content: '',
  message_type: 'action',
  tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }],
});
const obs = (id: string, content: string, tags?: string[]) => ({
  role: 'tool',
  content,
  message_type: 'observation',
  tool_call_ids: [id],
  ...(tags ? { tags } : {}),
});

function traj(agent: Record<string, unknown>): string {
  const history: unknown[] = [
    { role: 'system', content: 'You are a programmer.', message_type: 'system_prompt' },
    { role: 'user', content: 'Fix the bug.\nIn parse().', message_type: 'observation' },
  ];
  for (let i = 1; i <= 6; i++)
    history.push(call(`c${i}`, `step ${i}`), obs(`c${i}`, `out ${i}\nline two\nline three`, i === 2 ? ['keep_output'] : undefined));
  history.push({ role: 'assistant', content: 'Done.', message_type: 'action' });
  return JSON.stringify({
    environment: 'main',
    trajectory: [],
    history,
    info: {},
    replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' }, ...agent } }),
  });
}
const load = async (text: string): Promise<Session> => (await importSource(stringSource('x.traj', text))).sessions[0]!;
const observations = (s: Session): string[] => s.messages.filter((m) => m.role === 'tool').map(messageText);

describe('SWE-agent', () => {
  it('last_n_observations: each observation says from which call on the agent sent it elided', async () => {
    const s = await load(traj({ history_processors: [{ type: 'last_n_observations', n: 2 }] }));
    // History: 0 system, 1 task, then (call i, output i) at 2i, 2i+1 for i = 1..6, 14 the last call;
    // message index = history index − 1 (the system entry is the system prompt). The query of the
    // call at history index a elides observations[1 : count − 2] of the observations before a:
    //   call 4 (h8, 4 obs: task, o1..o3) → [1:2] = o1; call 5 (h10, 5 obs) → [1:3] adds o2, tagged
    //   keep_output, so not; call 6 (h12) → [1:4] adds o3; the last call (h14) → [1:5] adds o4.
    // So o1 (m2) from m7, o3 (m6) from m11, o4 (m8) from m13; o2, o5, o6 and the task never.
    const placeholder = 'Old environment output: (3 lines omitted)';
    expect(s.messages.flatMap((m, i) => (m.sentAs ? [[i, m.sentAs.fromMessage, m.sentAs.text]] : []))).toEqual([
      [2, 7, placeholder],
      [6, 11, placeholder],
      [8, 13, placeholder],
    ]);
    // The logged text stays: the calls before the elision saw it in full.
    expect(observations(s)).toEqual([1, 2, 3, 4, 5, 6].map((i) => `out ${i}\nline two\nline three`));
    expect(messageText(s.messages[0]!)).toBe('Fix the bug.\nIn parse().');
    expect(s.warnings.join(' ')).toMatch(/last_n_observations \(n=2\): 3 observations/);
  });

  it('the older singular history_processor key counts too; without a processor nothing is elided', async () => {
    const singular = await load(traj({ history_processor: { type: 'last_n_observations', n: 5 } }));
    // Only the last call (7 observations before it) elides any: [1 : 7 − 5] = output 1 (m2), from m13.
    expect(singular.messages.flatMap((m, i) => (m.sentAs ? [[i, m.sentAs.fromMessage]] : []))).toEqual([[2, 13]]);
    const none = await load(traj({}));
    expect(none.messages.some((m) => m.sentAs)).toBe(false);
    // A processor the importer does not apply is named, not silently ignored (cache_control changes no text).
    const other = await load(traj({ history_processors: [{ type: 'closed_window' }, { type: 'cache_control', last_n_messages: 2 }] }));
    expect(other.warnings.join(' ')).toMatch(/history processors not applied .*: closed_window$/);
  });

  it("function calling: the tools are the config's bundles (hidden ones left out) and bash", async () => {
    const s = await load(
      traj({
        tools: {
          parse_function: { type: 'function_calling' },
          enable_bash_tool: true,
          bundles: [
            { path: 'tools/defaults', hidden_tools: ['scroll_up'] },
            { path: 'tools/search' },
            { path: 'tools/submit' },
            { path: 'tools/mystery' },
          ],
        },
      }),
    );
    expect(s.tools.map((t) => t.name)).toEqual([
      'bash',
      'goto',
      'open',
      'create',
      'scroll_down',
      'find_file',
      'search_dir',
      'search_file',
      'submit',
    ]);
    expect(s.warnings.join(' ')).toMatch(/not known.*tools\/mystery/);
    // Other parse functions document the commands inside the system prompt: no tools region.
    const text = await load(traj({ tools: { parse_function: { type: 'thought_action' }, bundles: [{ path: 'tools/defaults' }] } }));
    expect(text.tools).toEqual([]);
  });
});
