/**
 * A session's detail for the window (everything but its stored row's summary): built from the
 * parsed session and its counts, wherever the session is parsed — the replay worker when there is
 * one (it parses the session for the first replay anyway, and the thread that answers requests
 * must not spend seconds on a 100 MB session), else the host's own thread.
 */
import { resolveLimits } from '../../core/budget/limits';
import type { Session } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/index';
import { shapeOf } from '../../core/replay/setup';
import type { SessionDetail } from '../../shared/api';
import { countForHost, defaultTokenizerOf } from './counts';
import { defaultPolicyOf } from './default-policy';

/** The detail without the stored row's summary and the subagent rows (the host reads those from the store). */
export type SessionDetailBody = Omit<SessionDetail, 'summary' | 'subagentSessions'>;

export function sessionDetailOf(s: Session, c: SessionCounts): SessionDetailBody {
  const limits = resolveLimits({ model: s.model, window: s.reportedContextWindow, provider: s.provider });
  const warning = limits.warnings[0] ?? (s.model ? undefined : 'the transcript names no model: default limits');
  const shape = shapeOf(s.messages);
  return {
    systemPrompt: s.systemPrompt,
    tools: s.tools.map((t) => ({ name: t.name, description: t.description })),
    tokenizer: c.tokenizer,
    approximate: c.approximate,
    counts: { system: c.system, tools: c.tools, unlogged: c.unlogged },
    // The replay's shape of the list (its steps are the assistant messages, its starts the turn
    // boundaries): made once per list, and carried over a live-tail append (core/replay/carry.ts).
    turnStarts: [...shape.starts],
    steps: Array.from(shape.stepMsg),
    sourceCompactions: s.sourceCompactions,
    subagents: s.subagents.length,
    warnings: s.warnings,
    modelInfo: { window: limits.window, maxOutput: limits.maxOutput, known: limits.model !== undefined, ...(warning ? { warning } : {}) },
    defaultPolicy: defaultPolicyOf(s),
  };
}

/** Where a session's shown counts come from: the store's, or (missing) counted here or asked for. */
export interface ShownCountsDeps {
  readonly load?: (sessionId: string, tokenizer: string) => SessionCounts | undefined;
  readonly save?: (sessionId: string, counts: SessionCounts) => void;
  /** A count worker counts exactly in the background; meanwhile the import's chars/4 estimates are shown. */
  readonly requestCount?: (sessionId: string, tokenizer: string) => void;
}

/**
 * The counts the window shows for a session under its default tokenizer: exact when stored;
 * otherwise, with a count worker, the import's estimates at once while it counts (`countsReady`
 * follows); else counted here and stored.
 */
export function shownCounts(id: string, session: Session, deps: ShownCountsDeps): SessionCounts {
  const tokenizer = defaultTokenizerOf(session);
  const n = session.messages.length;
  const stored = deps.load?.(id, tokenizer);
  if (stored && stored.perMessage.length === n) return stored;
  if (deps.requestCount) {
    deps.requestCount(id, tokenizer);
    const estimate = deps.load?.(id, 'chars4');
    return estimate && estimate.perMessage.length === n ? estimate : countForHost(session, 'chars4');
  }
  const c = countForHost(session, tokenizer);
  try {
    deps.save?.(id, c);
  } catch {
    // A read-only connection (the worker's): counted again next time, stored by the host's count worker.
  }
  return c;
}
