/**
 * What a replay cached for a message list, carried over to the list a live-tail append makes of it
 * (docs/user-guide.md "Live tail"). The replay's caches are keyed by the message list: a grown session is a
 * new list, and without this its next replay would extract every fact and summarize every fold of
 * the whole session again (on a 100 MB session most of a replay's time), though only the last
 * messages are new. `next` must hold `old`'s first `from` messages as the same objects.
 */
import type { Message } from '../model';
import { carryLayout } from '../summarize/extractive';
import { carryFoldMemo } from './compress';
import { carryCacheFacts, carryTimes } from './cost';
import { carryFacts } from './retention';
import { carryShape } from './setup';

export function carryReplayCaches(old: readonly Message[], next: readonly Message[], from: number): void {
  for (let i = 0; i < from; i++)
    if (old[i] !== next[i]) throw new Error(`carryReplayCaches: message ${i} is not the one the caches were made for`);
  carryFacts(old, next, from);
  carryFoldMemo(old, next, from);
  carryLayout(old, next, from);
  carryTimes(old, next, from);
  carryCacheFacts(old, next, from);
  carryShape(old, next, from);
}
