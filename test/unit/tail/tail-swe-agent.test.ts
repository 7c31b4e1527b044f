/**
 * Live tail's fast path for a SWE-agent trajectory (store/tail-document.ts with
 * tail-swe-agent.ts): the `.traj` written again after a step (a trajectory step and history
 * entries at the end, the model stats moved) is read from its new entries alone and stores exactly
 * what a first import of the file stores; any other change takes the whole-file path.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { updateTail } from '../../../src/main/store/tail';
import { sameAsFreshImport } from '../../integration/store/fresh-import';
import { importedForTail } from '../../helpers/tail-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tailswe-');

type Entry = Record<string, unknown>;
const system: Entry = {
  role: 'system',
  content: 'SETTING: You are an autonomous programmer.',
  agent: 'main',
  message_type: 'system_prompt',
};
const task: Entry = {
  role: 'user',
  content: '<uploaded_files>\n/testbed\n</uploaded_files>\nFix "naturalsize".',
  agent: 'main',
  message_type: 'observation',
};
/** One step: the action with its tool call, the observation naming the call in `tool_call_ids` (as SWE-agent 1.x does). */
const step = (n: number): { history: Entry[]; step: Entry } => {
  const action = `grep -rn "compute${n}" src/m${n}.py`;
  return {
    history: [
      {
        role: 'assistant',
        content: `Step ${n}: where is compute${n}?`,
        thought: `Step ${n}`,
        action,
        agent: 'main',
        tool_calls: [{ function: { arguments: JSON.stringify({ command: action }), name: 'bash' }, id: `call_${n}`, type: 'function' }],
        message_type: 'action',
      },
      {
        role: 'tool',
        content: `OBSERVATION:\n${n}: def compute${n}(x):\n    return "x\\\\"`,
        agent: 'main',
        message_type: 'observation',
        tool_call_ids: [`call_${n}`],
      },
    ],
    step: {
      action,
      observation: `${n}: def compute${n}(x):`,
      response: `Step ${n}`,
      thought: `Step ${n}`,
      execution_time: 0.2,
      state: { open_file: 'n/a', working_dir: '/testbed' },
      query: [system],
      extra_info: {},
    },
  };
};

interface Run {
  steps: number;
  extra?: Record<string, unknown>;
  agent?: Record<string, unknown>;
  history?: (h: Entry[]) => Entry[];
}
/** The trajectory as SWE-agent saves it (json.dumps, indent 2). */
function traj(r: Run): string {
  const steps = Array.from({ length: r.steps }, (_, i) => step(i + 1));
  const history = [system, task, ...steps.flatMap((s) => s.history)];
  const info = {
    swe_agent_version: '1.1.0',
    model_stats: { instance_cost: r.steps * 0.01, tokens_sent: r.steps * 1000, tokens_received: r.steps * 50, api_calls: r.steps },
    ...r.extra,
  };
  const replay = JSON.stringify({ agent: { model: { name: 'gpt-4o' }, ...r.agent }, problem_statement: { id: 'humanize__humanize-42' } });
  return JSON.stringify(
    {
      environment: 'main',
      trajectory: steps.map((s) => s.step),
      history: r.history ? r.history(history) : history,
      info,
      replay_config: replay,
    },
    null,
    2,
  );
}

const imported = (text: string) => importedForTail(t, 'humanize__humanize-42.traj', text);

describe('live tail of a SWE-agent trajectory', () => {
  it('stores the entries a step adds from them alone, as a first import would', async () => {
    const { file, id, tail } = await imported(traj({ steps: 2 }));
    expect(tail.doc).toBeDefined();
    expect(t.store.getRow(id)!.messageCount).toBe(5);
    writeFileSync(file, traj({ steps: 3 }));
    expect(await updateTail(t.store, tail)).toMatchObject({
      fast: true,
      rewritten: false,
      sessions: [{ id, changedFrom: 5, messages: 7 }],
    });
    await sameAsFreshImport(t.store, t.dir, file, id);
    writeFileSync(file, traj({ steps: 6 }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 7, messages: 13 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
    // The observation answers its call (tool_call_ids).
    expect(t.store.loadSession(id)!.messages.at(-1)!.parts[0]).toMatchObject({ kind: 'tool_result', callId: 'call_6' });
    // A step in the trajectory whose history entries are not written yet: nothing to store.
    writeFileSync(file, traj({ steps: 7, history: (h) => h.slice(0, -2) }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [] });
    writeFileSync(file, traj({ steps: 7 }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 13, messages: 15 }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('takes the whole-file path for other keys, an earlier step or entry changed, or elided observations', async () => {
    const { file, id, tail } = await imported(traj({ steps: 3 }));
    const whole = async (text: string): Promise<void> => {
      writeFileSync(file, text);
      expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
      await sameAsFreshImport(t.store, t.dir, file, id);
    };
    await whole(traj({ steps: 4, extra: { exit_status: 'submitted' } }));
    writeFileSync(file, traj({ steps: 5, extra: { exit_status: 'submitted' } }));
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    await whole(
      traj({ steps: 5, extra: { exit_status: 'submitted' }, history: (h) => h.map((e, i) => (i === 3 ? { ...e, content: 'edited' } : e)) }),
    );
    await whole(
      traj({
        steps: 6,
        extra: { exit_status: 'submitted' },
        history: (h) => h.map((e, i) => (i === 3 ? { ...e, content: 'edited' } : e)),
      }).replace('"execution_time": 0.2', '"execution_time": 0.9'),
    );
    // Elided observations: each call changes how earlier observations were sent.
    await whole(traj({ steps: 7, agent: { history_processors: [{ type: 'last_n_observations', n: 2 }] } }));
    expect(tail.doc).toBeUndefined();
    await whole(traj({ steps: 8, agent: { history_processors: [{ type: 'last_n_observations', n: 2 }] } }));
  });
});
