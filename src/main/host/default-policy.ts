/**
 * The policy a session opens on: the one of the agent that wrote it, so the first chart shows
 * what that agent would do (Claude Code's auto-compact for a Claude Code transcript, …).
 */
import type { Session } from '../../core/model';

export function defaultPolicyOf(session: Pick<Session, 'format'>): string {
  switch (session.format) {
    case 'claude-code':
    case 'claude-stream-json':
      return 'claude-code';
    case 'codex':
      return 'codex';
    case 'openhands':
      // The OpenHands importer keeps no record of which condenser the run used; its default
      // configuration summarizes (LLMSummarizingCondenser), so that preset stands in.
      return 'openhands-summary';
    default:
      return 's0';
  }
}
