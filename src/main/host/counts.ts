/**
 * Token counts the host shows for a session, computed once per (session, tokenizer) and kept.
 * Interim: a chars/4 estimate (S1/S2's heuristic) until the engine's tokenizers are wired in.
 */
import type { Session } from '../../core/model';
import { messageText } from '../../core/model';

export interface HostCounts {
  readonly tokenizer: string;
  readonly approximate: boolean;
  readonly perMessage: Uint32Array;
  readonly system: number;
  readonly tools: number;
  readonly unlogged: number;
}

const chars4 = (text: string): number => Math.ceil(text.length / 4);

export function countForHost(session: Session): HostCounts {
  const perMessage = new Uint32Array(session.messages.length);
  session.messages.forEach((m, i) => {
    perMessage[i] = chars4(messageText(m));
  });
  const tools = session.tools.reduce((sum, t) => sum + chars4(t.name + t.description + JSON.stringify(t.parameters ?? {})), 0);
  return { tokenizer: 'chars4', approximate: true, perMessage, system: chars4(session.systemPrompt ?? ''), tools, unlogged: 0 };
}
