/**
 * Counts of a grown session made from its earlier counts (README "Live tail"): the host counts the
 * tokenizers it does not store (chars/4 and the other estimators) itself, and after an append a
 * recount of the whole session (165,000 messages: 100–150 ms in the replay worker) was most of
 * what a continued replay left. Where each message's count is its own — no scale floored over
 * the running total (S3's ×1.1) and no fit over the whole session (`calibrated`) — the messages
 * kept as the same objects keep their counts and only the others are counted: the counts
 * `countWith` makes of the whole session (test/unit/tail/counts-carry.test.ts).
 */
import type { Message, Session } from '../../core/model';
import { countWith, createCounter, getTokenizer, type CostModelOptions, type SessionCounts } from '../../core/tokens/index';

/**
 * `session`'s counts under `old`'s tokenizer and `options`, reusing `old` (the counts of
 * `oldMessages`) for the first messages that are the same objects. Counted whole when the
 * tokenizer's counts are not per message.
 */
export function countsCarried(old: SessionCounts, oldMessages: readonly Message[], session: Session, options: CostModelOptions): SessionCounts {
  const tokenizer = old.tokenizer;
  if (tokenizer === 'calibrated' || old.perMessage.length !== oldMessages.length) return countWith(session, tokenizer, options);
  const counter = createCounter(getTokenizer(tokenizer), { memo: false, ...options });
  if (counter.scale !== 1) return countWith(session, tokenizer, options);
  const messages = session.messages;
  const n = messages.length;
  let same = 0;
  while (same < n && same < oldMessages.length && messages[same] === oldMessages[same]) same++;
  const perMessage = new Uint32Array(n);
  perMessage.set(old.perMessage.subarray(0, same));
  for (let i = same; i < n; i++) perMessage[i] = counter.message(messages[i]!).total;
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
  // The system prompt and tools are the session's own: counted again (a few strings).
  return { tokenizer, perMessage, prefix, system: session.systemPrompt ? Math.round(counter.system(session.systemPrompt)) : 0, tools: Math.round(counter.tools(session.tools)), unlogged: 0, approximate: counter.tokenizer.approximate };
}
