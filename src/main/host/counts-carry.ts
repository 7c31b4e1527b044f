/**
 * Counts of a grown session made from its earlier counts (docs/user-guide.md "Live tail"): the host counts the
 * tokenizers it does not store (chars/4 and the other estimators) itself, and after an append a
 * recount of the whole session (165,000 messages: 100–150 ms in the replay worker) was most of
 * what a continued replay left. Where each message's count is its own — no scale floored over
 * the running total (S3's (docs/policies.md §S3) ×1.1) and no fit over the whole session (`calibrated`) — the messages
 * kept as the same objects keep their counts and only the others are counted: the counts
 * `countWith` makes of the whole session (test/unit/tail/counts-carry.test.ts).
 */
import type { Message, Session } from '../../core/model';
import { countSession, countWith, createCounter, getTokenizer, type CostModelOptions, type SessionCounts } from '../../core/tokens/index';

/**
 * `session`'s counts under `old`'s tokenizer and `options`, reusing `old` (the counts of
 * `oldMessages`) for the first messages that are the same objects (countSession's `known`, which
 * it takes only where each message's count is its own). The calibrated fit is made whole.
 */
export function countsCarried(
  old: SessionCounts,
  oldMessages: readonly Message[],
  session: Session,
  options: CostModelOptions,
): SessionCounts {
  const tokenizer = old.tokenizer;
  if (tokenizer === 'calibrated' || old.perMessage.length !== oldMessages.length) return countWith(session, tokenizer, options);
  const messages = session.messages;
  let same = 0;
  while (same < messages.length && same < oldMessages.length && messages[same] === oldMessages[same]) same++;
  return countSession(session, createCounter(getTokenizer(tokenizer), { memo: false, ...options }), {
    known: old.perMessage.subarray(0, same),
  });
}
