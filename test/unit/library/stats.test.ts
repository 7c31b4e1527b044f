/** What the library lists about a session (src/core/library/stats.ts), per format, from real importers. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lookupModel } from '../../../src/core/catalog';
import { importSource, stringSource } from '../../../src/core/import/index';
import { sessionStats, titleOf, TITLE_CHARS } from '../../../src/core/library/stats';
import type { Message, Session } from '../../../src/core/model';

const fixture = (name: string) => join(__dirname, '../../fixtures/import', name);
const load = async (name: string) => (await importSource(stringSource(name, readFileSync(fixture(name), 'utf8')))).sessions;

const session = (messages: Message[], extra: Partial<Session> = {}): Session => ({
  id: 'x',
  format: 'jsonl',
  systemPrompt: null,
  tools: [],
  messages,
  sourceCompactions: [],
  subagents: [],
  warnings: [],
  ...extra,
});

describe('library: titles', () => {
  it('the first user prompt when the agent wrote no title, on one line and clipped', () => {
    const long = `Fix the\n\nbug   in ${'parse() '.repeat(40)}`;
    const s = session([
      { id: 'r', role: 'user', parts: [{ kind: 'tool_result', callId: 'c', isError: false, text: 'not a prompt' }] },
      { id: 'u', role: 'user', parts: [{ kind: 'text', text: long }] },
    ]);
    const t = titleOf(s)!;
    expect(t.startsWith('Fix the bug in parse() parse()')).toBe(true);
    expect(t).not.toMatch(/\n/);
    expect(t.length).toBe(TITLE_CHARS);
    expect(t.endsWith('…')).toBe(true);
  });

  it('skips context the agent injected as a user message (one whole tag), and names a slash command as typed', () => {
    const user = (text: string): Message => ({ id: text.slice(0, 8), role: 'user', parts: [{ kind: 'text', text }] });
    expect(
      titleOf(session([user('<environment_context>\n  <cwd>/repo</cwd>\n</environment_context>'), user('Why does the build fail?')])),
    ).toBe('Why does the build fail?');
    expect(
      titleOf(
        session([
          user(
            '<command-message>review is running…</command-message>\n<command-name>/review</command-name>\n<command-args>src/a.ts</command-args>',
          ),
        ]),
      ),
    ).toBe('/review src/a.ts');
    // Only injected context: better than nothing.
    expect(titleOf(session([user('<user_instructions>be brief</user_instructions>')]))).toBe(
      '<user_instructions>be brief</user_instructions>',
    );
  });

  it("the agent's own title wins over the first prompt", () => {
    expect(titleOf(session([{ id: 'u', role: 'user', parts: [{ kind: 'text', text: 'hello' }] }], { title: 'Refactor the parser' }))).toBe(
      'Refactor the parser',
    );
  });

  it('OpenHands: each instance of an eval file is titled by its instance_id, so the sessions of one file differ', async () => {
    const sessions = await load('openhands-eval.jsonl');
    expect(sessions.map(titleOf)).toEqual(['acme__invoices-311', 'acme__invoices-312']);
  });

  it('SWE-agent: the instance the trajectory solved (replay_config.problem_statement.id)', async () => {
    const traj = {
      environment: 'main',
      trajectory: [],
      info: {},
      history: [
        { role: 'user', content: 'Fix TimeDelta rounding.' },
        { role: 'assistant', content: 'Done.' },
      ],
      replay_config: {
        agent: {},
        problem_statement: { type: 'text', id: 'marshmallow-code__marshmallow-1867', text: 'TimeDelta serialization precision' },
      },
    };
    const [s] = (await importSource(stringSource('m.traj', JSON.stringify(traj)))).sessions;
    expect(s!.format).toBe('swe-agent');
    expect(titleOf(s!)).toBe('marshmallow-code__marshmallow-1867');
  });

  it('Claude Code: the title it wrote, else the first prompt the user typed; the cwd as the project', async () => {
    const [s] = await load('claude-code-session.jsonl');
    const st = sessionStats(s!);
    expect(st.title).toBe('Blank city name crashes forecast');
    const { title: _t, ...untitled } = s!;
    expect(titleOf(untitled)).toMatch(/^`weather forecast ""` crashes with a KeyError/);
    expect(st.cwd).toBe('/home/dev/weather-cli');
    expect(st.compactions).toBe(1);
  });
});

describe('library: tokens and cost', () => {
  const usage = (input: number, cacheRead: number, cacheWrite: number, output: number) => ({
    convention: 'anthropic' as const,
    input,
    cacheRead,
    cacheWrite,
    output,
  });

  it('sums reported prompt and output tokens and prices them with the catalog', () => {
    const s = session(
      [
        { id: 'u', role: 'user', parts: [{ kind: 'text', text: 'q' }], timestamp: 1000 },
        { id: 'a1', role: 'assistant', parts: [{ kind: 'text', text: 'a' }], usage: usage(10, 1000, 200, 50), timestamp: 2000 },
        { id: 'a2', role: 'assistant', parts: [{ kind: 'text', text: 'b' }], usage: usage(5, 1200, 0, 20), timestamp: 3000 },
      ],
      { model: 'claude-sonnet-4-5-20250929' },
    );
    const st = sessionStats(s);
    expect(st.promptTokens).toBe(10 + 1000 + 200 + 5 + 1200);
    expect(st.outputTokens).toBe(70);
    const m = lookupModel('claude-sonnet-4-5-20250929')!;
    expect(m).toBeDefined();
    expect(m).toMatchObject({ input: 3, cachedInput: 0.3, cacheWrite: 3.75, output: 15 });
    // Writes at the 5-minute price (1.25 × $3 = $3.75 per 1M):
    // call 1: (10 × 3 + 1,000 × 0.3 + 200 × 3.75 + 50 × 15) / 1M = (30 + 300 + 750 + 750) / 1M = $0.00183
    // call 2: (5 × 3 + 1,200 × 0.3 + 20 × 15) / 1M = (15 + 360 + 300) / 1M = $0.000675
    expect(st.cost).toBeCloseTo(0.00183 + 0.000675, 10);
    expect(st.endedAt).toBe(3000);
  });

  it("uses the source's own cost where it has one, and knows no cost without usage or price", () => {
    const own = session([{ id: 'a', role: 'assistant', parts: [], usage: { ...usage(1, 0, 0, 1), costUsd: 0.25 } }], {
      model: 'no-such-model',
    });
    expect(sessionStats(own).cost).toBe(0.25);
    const unpriced = session([{ id: 'a', role: 'assistant', parts: [], usage: usage(100, 0, 0, 10) }], { model: 'no-such-model' });
    expect(sessionStats(unpriced).cost).toBeNull();
    expect(sessionStats(unpriced).promptTokens).toBe(100);
    expect(sessionStats(session([{ id: 'a', role: 'assistant', parts: [] }])).cost).toBeNull();
  });
});
