/**
 * The compacted history at a step of a replay: what the simulated agent had in its window
 * right before that call (or after the last one, `end`) — the kept messages with masked tool
 * results as placeholders, messages the agent itself sent rewritten by then as it sent them
 * (`Message.sentAs`), tool outputs over S1's size limit as the replay counted them (a handle, a
 * truncation; tool-outputs.ts), and the summary.
 */
import { sentForm, type Message } from '../model';
import type { ReplayResult } from '../replay/types';
import { PLACEHOLDER_TEXT } from '../strategies/index';
import { summaryOf, type SummaryText } from '../summarize/summary-text';
import { toolOutputRewrites, withToolOutputs } from './tool-outputs';

export interface WindowAt {
  readonly messages: Message[];
  readonly summary: string | null;
}

export function windowAt(result: ReplayResult, messages: readonly Message[], at: number | 'end'): WindowAt {
  const steps = result.steps;
  if (at !== 'end' && (!Number.isInteger(at) || at < 0 || at >= steps.count))
    throw new RangeError(`step ${at} is out of range (0-${steps.count - 1})`);
  const step = at === 'end' ? steps.count - 1 : at;
  const end = at === 'end' ? messages.length : steps.messageIndex[at]!;
  let kept: [number, number][] | null = null;
  let summary: SummaryText | undefined;
  const masked = new Set<number>();
  for (const e of result.events) {
    if (e.kind !== 'compression' || e.step > step) continue;
    // A compression at this very step happened before the call: it counts.
    kept = e.kept.map(([a, b]) => [a, b]);
    // The summary itself, not its text: only the last one's text is written (summary-text.ts).
    summary = summaryOf(e);
    for (const [a, b] of e.masked ?? []) for (let i = a; i <= b; i++) masked.add(i);
  }
  const indices: number[] = [];
  if (kept === null) for (let i = 0; i < end; i++) indices.push(i);
  else {
    let last = -1;
    for (const [a, b] of kept)
      for (let i = a; i <= Math.min(b, end - 1); i++) {
        indices.push(i);
        last = i;
      }
    for (let i = last + 1; i < end; i++) indices.push(i);
  }
  // The call the window is taken before: what the agent itself sent rewritten by then goes out as sent.
  const callAt = at === 'end' ? messages.length : end;
  // Tool outputs as the replay counted them (an offloaded one is its handle, docs/policies.md §S1).
  const outputs = toolOutputRewrites(result, messages, step, end);
  const out = indices.map((i) => {
    const m = messages[i]!;
    if (!masked.has(i)) {
      const sent = m.sentAs && m.sentAs.fromMessage <= callAt ? sentForm(m, m.sentAs.text) : m;
      const rewrites = outputs.get(i);
      return rewrites ? withToolOutputs(sent, rewrites) : sent;
    }
    return { ...m, parts: m.parts.map((p) => (p.kind === 'tool_result' ? { ...p, text: PLACEHOLDER_TEXT } : p)) };
  });
  return { messages: out, summary: summary?.text ?? null };
}
