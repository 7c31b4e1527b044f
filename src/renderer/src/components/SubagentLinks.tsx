/**
 * In the turn list, under the call that spawned them: the subagent sessions (Claude Code
 * sidechains) a message's Task / Agent tool call started, each a click that opens it as a session
 * of its own. Titles come from the transcript: text, isolated for bidi.
 */
import { useMemo } from 'react';
import type { SessionSummary } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtInt } from '../format';

const NONE: readonly SessionSummary[] = [];

/** Subagents by the parent message index holding the call that spawned them. */
export function useSubagentsByMessage(): ReadonlyMap<number, readonly SessionSummary[]> {
  const subs = useAppStore((s) => s.detail?.subagentSessions ?? NONE);
  return useMemo(() => {
    const m = new Map<number, SessionSummary[]>();
    for (const s of subs) {
      if (s.spawnedAt === null) continue;
      let list = m.get(s.spawnedAt);
      if (!list) m.set(s.spawnedAt, (list = []));
      list.push(s);
    }
    return m;
  }, [subs]);
}

export function SubagentLinks({ subagents }: { subagents: readonly SessionSummary[] | undefined }) {
  const open = useAppStore((s) => s.openFromLibrary);
  if (!subagents || subagents.length === 0) return null;
  return (
    <span className="subagent-links">
      {subagents.map((s) => (
        <button
          key={s.id}
          className="link subagent-link"
          data-testid="subagent-link"
          title={`open the subagent this call spawned: ${fmtInt(s.steps)} calls, ${fmtInt(s.messages)} messages`}
          onClick={(e) => {
            e.stopPropagation();
            void open(s.id);
          }}
        >
          ⤷ subagent: <bdi>{s.title}</bdi>
        </button>
      ))}
    </span>
  );
}
