/**
 * Token counts the host shows for a session: computed once per (session, tokenizer) with the
 * engine's tokenizers (the model family's default unless one is asked for) and kept.
 */
import type { Session } from '../../core/model';
import { countWith, defaultTokenizerFor, mediaTokensFor, type SessionCounts } from '../../core/tokens/index';

export function hasReportedUsage(session: Session): boolean {
  return session.messages.some((m) => m.usage !== undefined);
}

export function defaultTokenizerOf(session: Session): string {
  return defaultTokenizerFor(session.model, hasReportedUsage(session));
}

export function countForHost(session: Session, tokenizer = defaultTokenizerOf(session)): SessionCounts {
  return countWith(session, tokenizer, { mediaTokens: mediaTokensFor(session.provider) });
}
