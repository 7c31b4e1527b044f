/** SWE-agent: the run's config says what its prompt held beyond the logged history (src/core/import/swe-agent-config.ts). */
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { messageText, type Session } from '../../../src/core/model';

const call = (id: string, command: string) => ({ role: 'assistant', content: '', message_type: 'action', tool_calls: [{ id, type: 'function', function: { name: 'bash', arguments: JSON.stringify({ command }) } }] });
const obs = (id: string, content: string, tags?: string[]) => ({ role: 'tool', content, message_type: 'observation', tool_call_ids: [id], ...(tags ? { tags } : {}) });

function traj(agent: Record<string, unknown>): string {
  const history: unknown[] = [{ role: 'system', content: 'You are a programmer.', message_type: 'system_prompt' }, { role: 'user', content: 'Fix the bug.\nIn parse().', message_type: 'observation' }];
  for (let i = 1; i <= 6; i++) history.push(call(`c${i}`, `step ${i}`), obs(`c${i}`, `out ${i}\nline two\nline three`, i === 2 ? ['keep_output'] : undefined));
  history.push({ role: 'assistant', content: 'Done.', message_type: 'action' });
  return JSON.stringify({ environment: 'main', trajectory: [], history, info: {}, replay_config: JSON.stringify({ agent: { model: { name: 'gpt-4o' }, ...agent } }) });
}
const load = async (text: string): Promise<Session> => (await importSource(stringSource('x.traj', text))).sessions[0]!;
const observations = (s: Session): string[] => s.messages.filter((m) => m.role === 'tool').map(messageText);

describe('SWE-agent', () => {
  it('last_n_observations elides what the last call did not see in full', async () => {
    const s = await load(traj({ history_processors: [{ type: 'last_n_observations', n: 2 }] }));
    // Before the last call: 7 observations (the task + 6 outputs). Elided: observations[1 : 7 − 2]
    // = outputs 1..4, but output 2 is tagged keep_output. The task (observation 0) is never elided.
    expect(observations(s)).toEqual(['Old environment output: (3 lines omitted)', 'out 2\nline two\nline three', 'Old environment output: (3 lines omitted)', 'Old environment output: (3 lines omitted)', 'out 5\nline two\nline three', 'out 6\nline two\nline three']);
    expect(messageText(s.messages[0]!)).toBe('Fix the bug.\nIn parse().');
    expect(s.warnings.join(' ')).toMatch(/last_n_observations \(n=2\)/);
  });

  it('the older singular history_processor key counts too; without a processor nothing is elided', async () => {
    const singular = await load(traj({ history_processor: { type: 'last_n_observations', n: 5 } }));
    // 7 − 5 = 2: only output 1 is elided.
    expect(observations(singular).filter((t) => t.startsWith('Old environment output'))).toHaveLength(1);
    const none = await load(traj({}));
    expect(observations(none).some((t) => t.startsWith('Old environment output'))).toBe(false);
  });

  it("function calling: the tools are the config's bundles (hidden ones left out) and bash", async () => {
    const s = await load(traj({ tools: { parse_function: { type: 'function_calling' }, enable_bash_tool: true, bundles: [{ path: 'tools/defaults', hidden_tools: ['scroll_up'] }, { path: 'tools/search' }, { path: 'tools/submit' }, { path: 'tools/mystery' }] } }));
    expect(s.tools.map((t) => t.name)).toEqual(['bash', 'goto', 'open', 'create', 'scroll_down', 'find_file', 'search_dir', 'search_file', 'submit']);
    expect(s.warnings.join(' ')).toMatch(/not known.*tools\/mystery/);
    // Other parse functions document the commands inside the system prompt: no tools region.
    const text = await load(traj({ tools: { parse_function: { type: 'thought_action' }, bundles: [{ path: 'tools/defaults' }] } }));
    expect(text.tools).toEqual([]);
  });
});
