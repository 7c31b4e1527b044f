/**
 * Claude Code 2.x subagent files (src/core/library/subagent-files.ts, src/core/import/claude-code.ts,
 * src/core/library/subagents.ts) on the hand-built tree in test/fixtures/claude-code-v2 and on
 * variations of it: the agentId the parent's results carry, a subagent file read alone, the exact
 * link before text matching, meta titles, nesting, and files that match nothing or do not parse.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importSource, stringSource, type ImportOutcome } from '../../../src/core/import/index';
import { attachSubagentFiles, metaTitle, type SubagentFile } from '../../../src/core/library/subagent-files';
import { linkSubagents } from '../../../src/core/library/subagents';
import type { Session } from '../../../src/core/model';

const SID = '7d3f0c2e-5a41-4b6e-9c8d-2f1e0a9b8c7d';
const tree = join(__dirname, '../../fixtures/claude-code-v2');
const read = (rel: string): string => readFileSync(join(tree, rel), 'utf8');
const parentText = read(`${SID}.jsonl`);
const agentFile = (
  id: string,
  text = read(`${SID}/subagents/agent-${id}.jsonl`),
  meta: string | null = read(`${SID}/subagents/agent-${id}.meta.json`),
): SubagentFile => ({
  agentId: id,
  source: stringSource(`agent-${id}.jsonl`, text),
  ...(meta !== null ? { meta } : {}),
});
const parentOutcome = (text = parentText): Promise<ImportOutcome> => importSource(stringSource(`${SID}.jsonl`, text));
const callOf = (s: Session, callId: string): number =>
  s.messages.findIndex((m) => m.parts.some((p) => p.kind === 'tool_call' && p.id === callId));

/** One JSONL line of a subagent file (every line a sidechain line with the agent's id). */
const line = (agentId: string, uuid: string, parentUuid: string | null, type: 'user' | 'assistant', content: unknown): string =>
  JSON.stringify({
    parentUuid,
    isSidechain: true,
    userType: 'external',
    cwd: '/home/dev/shop-api',
    sessionId: SID,
    version: '2.1.30',
    agentId,
    uuid,
    timestamp: '2026-11-20T10:00:00.000Z',
    type,
    message:
      type === 'user'
        ? { role: 'user', content }
        : {
            id: `msg_${uuid}`,
            role: 'assistant',
            model: 'claude-sonnet-4-5-20250929',
            content,
            usage: { input_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, output_tokens: 1 },
          },
  });

describe('Claude Code 2.x subagent files', () => {
  it('keeps toolUseResult.agentId on the result message of the call that ran the subagent', async () => {
    const [s] = (await parentOutcome()).sessions;
    const results = s!.messages.filter((m) => m.agentId !== undefined);
    expect(results.map((m) => [m.agentId, m.parts.find((p) => p.kind === 'tool_result')])).toEqual([
      ['a4c1e9f', expect.objectContaining({ callId: 'toolu_01Prof' })],
      ['b7d20a3', expect.objectContaining({ callId: 'toolu_02Cov' })],
    ]);
    // Nothing else carries one.
    expect(s!.messages.filter((m) => m.role === 'assistant').every((m) => m.agentId === undefined)).toBe(true);
  });

  it('reads a subagent file by itself as its own session: detected as Claude Code, its sidechain is its window', async () => {
    const out = await importSource(stringSource('agent-b7d20a3.jsonl', read(`${SID}/subagents/agent-b7d20a3.jsonl`)));
    expect(out.format).toBe('claude-code');
    expect(out.sessions).toHaveLength(1);
    const [s] = out.sessions;
    expect(s).toMatchObject({ id: `${SID}/agent-b7d20a3`, agentId: 'b7d20a3', subagents: [] });
    expect(s!.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(s!.messages[0]!.parts[0]).toEqual({ kind: 'text', text: 'Which tests exercise the checkout flow? Give file and test name.' });
  });

  it('attaches both files as subagents linked to the calls that ran them, titled by their meta files', async () => {
    const out = await attachSubagentFiles(await parentOutcome(), [agentFile('b7d20a3'), agentFile('a4c1e9f')]);
    const [s] = out.sessions;
    // Spawn order (first line's time), whatever order the files came in.
    expect(s!.subagents.map((x) => [x.id, x.agentId, x.title])).toEqual([
      [`${SID}/agent-a4c1e9f`, 'a4c1e9f', 'Explore: Profile checkout'],
      [`${SID}/agent-b7d20a3`, 'b7d20a3', 'general-purpose: Check test coverage'],
    ]);
    const links = linkSubagents(s!);
    const spawner = callOf(s!, 'toolu_01Prof');
    expect(spawner).toBe(1);
    expect(links).toEqual([
      { subagent: 0, callId: 'toolu_01Prof', messageIndex: spawner, title: 'Explore: Profile checkout' },
      // Its prompt and answer match no call's text: only the agentId links it.
      { subagent: 1, callId: 'toolu_02Cov', messageIndex: spawner, title: 'general-purpose: Check test coverage' },
    ]);
    expect(out.warnings).toEqual([]);
  });

  it('prefers the agentId link to a text match that points elsewhere', async () => {
    // Subagent b7d20a3 given, word for word, the prompt of the OTHER call (toolu_01Prof).
    const b =
      [
        line('b7d20a3', 'x1', null, 'user', 'Profile POST /checkout and report the slowest call.'),
        line('b7d20a3', 'x2', 'x1', 'assistant', [{ type: 'text', text: 'ok' }]),
      ].join('\n') + '\n';
    const out = await attachSubagentFiles(await parentOutcome(), [agentFile('b7d20a3', b, null), agentFile('a4c1e9f')]);
    const [s] = out.sessions;
    const byAgent = new Map(linkSubagents(s!).map((l) => [s!.subagents[l.subagent]!.agentId, l.callId]));
    expect(byAgent.get('b7d20a3')).toBe('toolu_02Cov');
    expect(byAgent.get('a4c1e9f')).toBe('toolu_01Prof');
  });

  it('keeps a subagent file no call ran, unlinked, with a warning that names its file', async () => {
    const stray =
      [
        line('f00d123', 'z1', null, 'user', 'Tidy the imports.'),
        line('f00d123', 'z2', 'z1', 'assistant', [{ type: 'text', text: 'Done.' }]),
      ].join('\n') + '\n';
    const out = await attachSubagentFiles(await parentOutcome(), [
      agentFile('a4c1e9f'),
      agentFile('b7d20a3'),
      agentFile('f00d123', stray, '{"agentType":"general-purpose"}'),
    ]);
    const [s] = out.sessions;
    expect(s!.subagents).toHaveLength(3);
    const links = linkSubagents(s!);
    const k = s!.subagents.findIndex((x) => x.agentId === 'f00d123');
    expect(links[k]).toEqual({ subagent: k, callId: null, messageIndex: null, title: 'general-purpose' });
    expect(links.filter((l) => l.callId !== null)).toHaveLength(2);
    expect(out.warnings).toEqual([expect.stringMatching(/^agent-f00d123\.jsonl: subagent f00d123 matches no call/)]);
  });

  it('nests a subagent under the subagent whose result names it', async () => {
    // a4c1e9f runs a Task of its own whose result names c0ffee1.
    const a =
      [
        line('a4c1e9f', 'a1', null, 'user', 'Profile POST /checkout and report the slowest call.'),
        line('a4c1e9f', 'a2', 'a1', 'assistant', [
          { type: 'tool_use', id: 'toolu_N', name: 'Task', input: { description: 'Time tax_rates', prompt: 'Time it.' } },
        ]),
        JSON.stringify({
          ...JSON.parse(line('a4c1e9f', 'a3', 'a2', 'user', [{ type: 'tool_result', tool_use_id: 'toolu_N', content: '840 ms' }])),
          toolUseResult: { status: 'completed', agentId: 'c0ffee1' },
        }),
        line('a4c1e9f', 'a4', 'a3', 'assistant', [{ type: 'text', text: 'The slowest call is tax_rates() at 840 ms: it is not cached.' }]),
      ].join('\n') + '\n';
    const c =
      [
        line('c0ffee1', 'c1', null, 'user', 'Time it, please.'),
        line('c0ffee1', 'c2', 'c1', 'assistant', [{ type: 'text', text: 'It takes 840 ms.' }]),
      ].join('\n') + '\n';
    const out = await attachSubagentFiles(await parentOutcome(), [
      agentFile('a4c1e9f', a),
      agentFile('b7d20a3'),
      agentFile('c0ffee1', c, null),
    ]);
    const [s] = out.sessions;
    // (This a4c1e9f's lines are timed after b7d20a3's: spawn order puts it second.)
    expect(s!.subagents.map((x) => x.agentId)).toEqual(['b7d20a3', 'a4c1e9f']);
    const nested = s!.subagents[1]!;
    expect(nested.subagents.map((x) => x.agentId)).toEqual(['c0ffee1']);
    expect(linkSubagents(nested)[0]).toMatchObject({ callId: 'toolu_N', messageIndex: 1, title: 'Time tax_rates' });
    expect(out.warnings).toEqual([]);
  });

  it('skips a subagent file that does not parse, with its file and line, and keeps the parent and the others', async () => {
    const broken = read(`${SID}/subagents/agent-b7d20a3.jsonl`).replace(/\n[^\n]*\n$/, '\n{"type": "assistant", "uuid": \n');
    const out = await attachSubagentFiles(await parentOutcome(), [agentFile('a4c1e9f'), agentFile('b7d20a3', broken)]);
    expect(out.sessions[0]!.subagents.map((x) => x.agentId)).toEqual(['a4c1e9f']);
    expect(out.warnings).toEqual([expect.stringMatching(/^agent-b7d20a3\.jsonl:4:.*subagent file skipped/)]);
  });

  it('leaves an outcome of another format alone', async () => {
    const codex = await importSource(
      stringSource('r.jsonl', readFileSync(join(__dirname, '../../fixtures/import/codex-rollout.jsonl'), 'utf8')),
    );
    expect(await attachSubagentFiles(codex, [agentFile('a4c1e9f')])).toBe(codex);
  });

  it('takes a title from a meta file only when it is an object with those fields', () => {
    expect(metaTitle('{"agentType":"Explore","description":"Map endpoints","spawnDepth":1}')).toBe('Explore: Map endpoints');
    expect(metaTitle('{"description":"  Write tests "}')).toBe('Write tests');
    expect(metaTitle('{"agentType":"Plan"}')).toBe('Plan');
    for (const bad of [
      undefined,
      '',
      'not json',
      '[1,2]',
      'null',
      '"Explore"',
      '{"agentType":7,"description":["x"]}',
      '{"agentType":"  "}',
    ])
      expect(metaTitle(bad)).toBeUndefined();
  });
});
