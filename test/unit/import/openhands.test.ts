/**
 * The OpenHands importer rebuilds the prompt OpenHands sent (src/core/import/openhands-prompt.ts).
 * The fixture `openhands-eval.jsonl` holds two eval instances written from how OpenHands builds
 * its messages; each call's reported prompt is an o200k count of that request (system prompt,
 * tool definitions or their text form, every message), made independently of the importer.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource } from '../../../src/core/import/index';
import { messageText, type Session } from '../../../src/core/model';
import { calibrationPoints } from '../../../src/core/tokens/calibrate';
import { countWith } from '../../../src/core/tokens/index';
import { pairToolCalls } from '../../../src/core/turns';
import { fileSource } from '../../../src/main/io/file-source';

const fixture = join(__dirname, '../../fixtures/import/openhands-eval.jsonl');
const load = async (): Promise<Session[]> => (await importSource(fileSource(fixture))).sessions;

function medianAbsErrorPct(s: Session): number {
  const errs = calibrationPoints(s, countWith(s, 'tiktoken:o200k_base'))
    .map((p) => (Math.abs(p.x - p.y) / p.y) * 100)
    .sort((a, b) => a - b);
  const mid = errs.length >> 1;
  return errs.length % 2 ? errs[mid]! : (errs[mid - 1]! + errs[mid]!) / 2;
}

describe('OpenHands: the prompt as OpenHands built it', () => {
  it('estimates every call within 10% of the reported prompt, uncalibrated', async () => {
    const sessions = await load();
    expect(sessions.map((s) => s.id)).toEqual(['acme__invoices-311', 'acme__invoices-312']);
    for (const s of sessions) expect(medianAbsErrorPct(s)).toBeLessThan(10);
  });

  it("keeps the system event's tool definitions (native function calling)", async () => {
    const [native] = await load();
    expect(native!.tools.map((t) => t.name)).toEqual(['execute_bash', 'think', 'finish', 'str_replace_editor']);
  });

  it('sends recalls as user messages: workspace context and microagents, each microagent once', async () => {
    const [native] = await load();
    const texts = native!.messages.filter((m) => m.role === 'user').map(messageText);
    const workspace = texts.find((t) => t.includes('<REPOSITORY_INSTRUCTIONS>'))!;
    expect(workspace).toContain('Amounts are integers in cents everywhere');
    expect(workspace).toContain("Today's date is 2026-05-02 (UTC).");
    expect(workspace).toContain('keyword match for "github"');
    // The knowledge recall brings github again (already in) and pytest (new): only pytest is sent.
    const knowledge = texts.filter((t) => t.includes('<EXTRA_INFO>') && !t.includes('<REPOSITORY_INFO>'));
    expect(knowledge).toHaveLength(1);
    expect(knowledge[0]).toContain('keyword match for "test"');
    expect(knowledge[0]).not.toContain('GITHUB_TOKEN');
  });

  it("sends a command's output with the metadata prefix and suffix and its status lines", async () => {
    const [native] = await load();
    const first = native!.messages.find((m) => m.role === 'tool')!;
    expect(messageText(first)).toMatch(
      /2d4410e Initial import\n\[The command completed with exit code 0\.\]\n\[Current working directory: \/workspace\/invoices\]\n\[Python interpreter: \/openhands\/poetry\/bin\/python\]\n\[Command finished with exit code 0\]$/,
    );
  });

  it('an error the runtime raised is a user message, and the call it never answered is dropped', async () => {
    const [native] = await load();
    const error = native!.messages.find((m) => messageText(m).startsWith('AgentRuntimeTimeoutError'))!;
    expect(error.role).toBe('user');
    expect(messageText(error)).toMatch(/\n\[Error occurred in processing last action\]$/);
    const pairs = pairToolCalls(native!.messages);
    expect(pairs.orphanCalls).toEqual([]);
    expect(pairs.orphanResults).toEqual([]);
  });

  it('finish is the closing text of the model, not a tool call', async () => {
    const [native] = await load();
    const last = native!.messages.at(-1)!;
    expect(last.role).toBe('assistant');
    expect(last.parts.map((p) => p.kind)).toEqual(['text']);
    expect(messageText(last)).toBe('Tax is now rounded half up to the cent and both totals tests pass.');
  });

  it('non-native function calling: tools as text in the system prompt, the example around the task, results as text', async () => {
    const [, text] = await load();
    expect(text!.tools).toEqual([]);
    expect(text!.systemPrompt).toContain('---- BEGIN FUNCTION #1: execute_bash ----');
    expect(text!.systemPrompt).toContain('  (1) command (string, required): The bash command to execute.');
    const task = messageText(text!.messages[0]!);
    expect(task.startsWith("Here's a running example of how to perform a task with the provided tools.")).toBe(true);
    expect(task).toContain('--------------------- NEW TASK DESCRIPTION ---------------------\napply_discount() accepts');
    const result = text!.messages.find((m) => m.role === 'tool')!;
    expect(messageText(result).startsWith('EXECUTION RESULT of [execute_bash]:\n/workspace/invoices/invoices/totals.py:11:')).toBe(true);
  });

  it('a long observation is cut in the middle at max_message_chars', async () => {
    const long = 'x'.repeat(50) + 'y'.repeat(50);
    const events = [
      { id: 0, source: 'user', action: 'message', args: { content: 'go' } },
      {
        id: 1,
        source: 'agent',
        action: 'run',
        args: { command: 'cat big' },
        tool_call_metadata: {
          function_name: 'execute_bash',
          tool_call_id: 'c1',
          model_response: {
            id: 'r1',
            choices: [
              {
                message: {
                  content: '',
                  tool_calls: [{ id: 'c1', function: { name: 'execute_bash', arguments: '{"command":"cat big"}' } }],
                },
              },
            ],
          },
        },
      },
      {
        id: 2,
        source: 'agent',
        observation: 'read',
        cause: 1,
        content: long,
        tool_call_metadata: { function_name: 'str_replace_editor', tool_call_id: 'c1' },
      },
      {
        id: 3,
        source: 'agent',
        observation: 'edit',
        cause: 1,
        content: long,
        tool_call_metadata: { function_name: 'str_replace_editor', tool_call_id: 'c1' },
      },
    ];
    const instance = { instance_id: 'cut', metadata: { llm_config: { max_message_chars: 40 } }, history: events };
    const [s] = (await importSource(stringSource('cut.json', JSON.stringify(instance)))).sessions;
    const texts = s!.messages.filter((m) => m.role === 'tool').map(messageText);
    // A file read is already cut by the reader: sent whole. Other output: 40/2 = 20 characters each side.
    expect(texts[0]).toBe(long);
    expect(texts[1]).toBe(`${'x'.repeat(20)}\n[... Observation truncated due to length ...]\n${'y'.repeat(20)}`);
  });
});
