/**
 * The policy a session opens on: the one of the agent that wrote it, so the first chart shows
 * what that agent would do (Claude Code's auto-compact for a Claude Code transcript, …). Each
 * format names it in its descriptor (core/formats/<format>.ts `defaultPolicy`).
 */
import { defaultPolicyOf as ofFormat } from '../../core/formats/index';
import type { Session } from '../../core/model';

export function defaultPolicyOf(session: Pick<Session, 'format'>): string {
  return ofFormat(session.format);
}
