/** Top bar: which session is open, a picker for the others, and its vital numbers. */
import { useAppStore } from '../context';
import { Actions } from './Actions';
import { FollowToggle } from './FollowToggle';
import { fmtInt } from '../format';

export function SessionBar() {
  const sessions = useAppStore((s) => s.sessions);
  const currentId = useAppStore((s) => s.currentId);
  const detail = useAppStore((s) => s.detail);
  const openSession = useAppStore((s) => s.openSession);
  return (
    <header className="session-bar">
      <h1>Context Scope</h1>
      <select aria-label="Session" data-testid="session-picker" value={currentId ?? ''} onChange={(e) => void openSession(e.target.value)}>
        {sessions.map((s) => (
          <option key={s.id} value={s.id}>
            {`\u2068${s.title}\u2069 (${s.format}, ${fmtInt(s.messages)} messages)`}
          </option>
        ))}
      </select>
      <Actions />
      <FollowToggle />
      {detail ? (
        <span className="facts" data-testid="session-facts">
          {detail.summary.format} · <bdi>{detail.summary.model ?? 'model unknown'}</bdi> · {fmtInt(detail.summary.turns)} turns · {fmtInt(detail.summary.steps)} LLM calls ·{' '}
          {detail.tokenizer}
          {detail.approximate ? ' (approximation)' : ''}
        </span>
      ) : null}
    </header>
  );
}
