/** A live-tail update applied to a session a thread holds (src/main/host/session-append.ts). */
import { describe, expect, it } from 'vitest';
import { appendToSession } from '../../../src/main/host/session-append';
import type { Message, Session } from '../../../src/core/model';

const msg = (id: string): Message => ({ id, role: id.startsWith('a') ? 'assistant' : 'user', parts: [{ kind: 'text', text: id }] });
const session = (ids: string[]): Session => ({
  id: 's',
  format: 'claude-code',
  systemPrompt: null,
  tools: [],
  messages: ids.map(msg),
  sourceCompactions: [],
  subagents: [],
  warnings: [],
});

describe('appendToSession', () => {
  it('appends new messages and rewrites from where the update starts', () => {
    expect(
      appendToSession(session(['u1', 'a1']), { from: 2, previous: 2, messages: [msg('u2'), msg('a2')] })?.messages.map((m) => m.id),
    ).toEqual(['u1', 'a1', 'u2', 'a2']);
    // The last response extended: message 1 replaced.
    expect(
      appendToSession(session(['u1', 'a1']), { from: 1, previous: 2, messages: [msg('a1+'), msg('u2')] })?.messages.map((m) => m.id),
    ).toEqual(['u1', 'a1+', 'u2']);
  });

  it('refuses a session that is not the one the update started from', () => {
    expect(appendToSession(session(['u1']), { from: 2, previous: 2, messages: [msg('u2')] })).toBeUndefined();
    expect(appendToSession(session(['u1', 'a1', 'u2']), { from: 2, previous: 2, messages: [msg('u2')] })).toBeUndefined();
  });
});
