/**
 * In the turn list, under the call that spawned them: the subagent sessions (Claude Code
 * sidechains) a message's Task / Agent tool call started, one row each, a click that opens it as
 * a session of its own. Titles come from the transcript: text, isolated for bidi.
 */
import { useMemo, type CSSProperties } from 'react';
import type { SessionSummary } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtInt } from '../format';

const NONE: readonly SessionSummary[] = [];

/** The session's subagents linked to a call, in the order of the messages that spawned them. */
export function useLinkedSubagents(): readonly SessionSummary[] {
  const subs = useAppStore((s) => s.detail?.subagentSessions ?? NONE);
  return useMemo(() => subs.filter((s) => s.spawnedAt !== null).sort((a, b) => a.spawnedAt! - b.spawnedAt!), [subs]);
}

export function SubagentRow({ subagent: s, style }: { subagent: SessionSummary | undefined; style: CSSProperties }) {
  const open = useAppStore((st) => st.openFromLibrary);
  if (!s) return <div className="subagent-row" style={style} />;
  return (
    <div
      className="subagent-row"
      data-testid="subagent-row"
      data-spawned-at={s.spawnedAt ?? ''}
      style={style}
      role="option"
      aria-selected={false}
      title={`a subagent this call spawned (${s.spawnedBy ?? ''}): open it as a session of its own`}
      onClick={() => void open(s.id)}
    >
      <button className="link subagent-link" data-testid="subagent-link">
        ⤷ subagent: <bdi>{s.title}</bdi>
      </button>
      <span className="muted">
        {fmtInt(s.steps)} calls · {fmtInt(s.messages)} messages
      </span>
    </div>
  );
}
