/**
 * Messages as the agent sent them (`Message.sentAs`; docs/policies.md §Common, messages as sent):
 * what each rewritten message costs once its rewrite applies, under the tokenizer a SessionCounts
 * was made with. The figure is the stored count scaled by what the rewrite keeps — stored × sent /
 * logged, both counted with that tokenizer — so a calibrated ratio or S3's floored step carries
 * over and the session is never recounted.
 */
import { sentForm, type Session } from '../model';
import { createCounter } from './cost';
import { getTokenizer } from './registry';
import type { SessionCounts } from './types';

export interface SentAsTokens {
  /** The rewritten message. */
  readonly index: number;
  /** Message index of the first call that received the rewrite. */
  readonly from: number;
  /** Its tokens as sent from then on (never above its stored count). */
  readonly tokens: number;
}

/** By the counts' per-message array: the same counts are asked again by the fit, its report and the replay. */
const memo = new WeakMap<Uint32Array, readonly SentAsTokens[]>();

/** Every rewritten message of the session with its tokens as sent, by the call it applies from. */
export function sentAsTokens(session: Session, counts: SessionCounts): readonly SentAsTokens[] {
  const messages = session.messages;
  const hit = memo.get(counts.perMessage);
  if (hit) return hit;
  const out: SentAsTokens[] = [];
  let counter: ReturnType<typeof createCounter> | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (!m.sentAs) continue;
    counter ??= createCounter(getTokenizer(counts.tokenizer), { memo: false });
    const logged = counter.message(m).total;
    const sent = counter.message(sentForm(m, m.sentAs.text)).total;
    const stored = counts.perMessage[i] ?? 0;
    out.push({
      index: i,
      from: m.sentAs.fromMessage,
      tokens: logged > 0 ? Math.min(stored, Math.round((stored * sent) / logged)) : stored,
    });
  }
  out.sort((a, b) => a.from - b.from || a.index - b.index);
  memo.set(counts.perMessage, out);
  return out;
}
