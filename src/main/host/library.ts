/**
 * The session library's host side: the list (rows only — every figure was stored at import, so
 * 1,000 sessions list without reading a message) and delete, which also drops what the host
 * holds in memory for the deleted sessions (parsed session, counts, replay results).
 */
import { ApiError, type MethodOutputs } from '../../shared/api';
import type { SessionStore } from '../store/index';
import { repeatedCallsBySession } from '../../core/library/repeated-calls';
import { toSummaries } from './views';

export function listLibrary(store: SessionStore): MethodOutputs['listSessions'] {
  // A call a resumed session repeats is counted once in the library's totals (docs/cost.md).
  const repeated = repeatedCallsBySession(store.repeatedCallRows());
  const summaries = toSummaries(store.listLibrary());
  if (repeated.size === 0) return summaries;
  return summaries.map((s) => {
    const r = repeated.get(s.id);
    return r ? { ...s, repeated: r } : s;
  });
}

/**
 * The subagents of a session, stored as sessions of their own, in spawn order, and how many it
 * has in all (`inMeta`: those a database from before v6 keeps inside the parent's metadata).
 */
export function subagentSessionsOf(
  store: SessionStore,
  id: string,
  inMeta: number,
): Pick<MethodOutputs['getSession'], 'subagents' | 'subagentSessions'> {
  const subagentSessions = toSummaries(store.childrenOf(id));
  return { subagents: inMeta + subagentSessions.length, subagentSessions };
}

export function deleteFromLibrary(store: SessionStore, id: string, forget: (id: string) => void): MethodOutputs['deleteSession'] {
  // Ids of the session and its subagents, read before they go, to drop them from memory after.
  const doomed = [id, ...descendants(store, id)];
  const r = store.deleteSession(id);
  if (!r) throw new ApiError('not_found', `no session with id "${id}" (deleted already?)`);
  for (const x of doomed) forget(x);
  return { sessions: r.sessions, messages: r.messages, calls: r.calls, cachedResults: r.cached };
}

function descendants(store: SessionStore, id: string): string[] {
  const out: string[] = [];
  for (const c of store.childrenOf(id)) out.push(c.id, ...descendants(store, c.id));
  return out;
}
