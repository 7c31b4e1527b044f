/**
 * A tool call and its result, found in the loaded messages: from a call forward to the result
 * that names its id, from a result back to the call. Pure; unit-tested.
 */
import type { MessageView } from '../../../shared/api';

/** How far from the message the partner is looked for (agents answer a call within a few messages). */
export const LINK_REACH = 400;

export function toolPartner(messages: ReadonlyMap<number, MessageView>, index: number, id: string, side: 'call' | 'result'): number | null {
  const dir = side === 'call' ? 1 : -1;
  for (let i = index + dir, n = 0; n < LINK_REACH && i >= 0; i += dir, n++) {
    const m = messages.get(i);
    if (!m) continue;
    for (const p of m.parts) {
      if (side === 'call' && p.kind === 'tool_result' && p.callId === id) return i;
      if (side === 'result' && p.kind === 'tool_call' && p.id === id) return i;
    }
  }
  return null;
}
