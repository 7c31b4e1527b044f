/** Top bar: which session is open (a button that opens the library), and its vital numbers. */
import { useAppStore } from '../context';
import { Actions } from './Actions';
import { LocalLogsButton } from './LocalLogs';
import { FollowToggle } from './FollowToggle';
import { plural } from '../format';
import { Library } from './Library';
import { FleetButton } from './FleetButton';

export function SessionBar() {
  const detail = useAppStore((s) => s.detail);
  const openLibrary = useAppStore((s) => s.openLibrary);
  const openSession = useAppStore((s) => s.openSession);
  const parentId = detail?.summary.parentId ?? null;
  const spawnedAt = detail?.summary.spawnedAt ?? null;
  const selectMessage = useAppStore((s) => s.selectMessage);
  const currentId = useAppStore((s) => s.currentId);
  // Back to the call that spawned this subagent, not to the parent's first call.
  const openParent = async (id: string): Promise<void> => {
    const child = currentId;
    await openSession(id);
    if (spawnedAt !== null && child !== id) selectMessage(spawnedAt);
  };
  return (
    <header className="session-bar">
      <h1>Context Scope</h1>
      <button
        className="session-picker-button"
        data-testid="session-picker"
        data-session-id={detail?.summary.id ?? ''}
        aria-haspopup="dialog"
        title="Open the session library"
        onClick={() => void openLibrary()}
      >
        <bdi>{detail?.summary.title ?? 'No session'}</bdi> ▾
      </button>
      {parentId ? (
        <button
          className="link"
          data-testid="open-parent"
          title="This is a subagent: open the session that spawned it"
          onClick={() => void openParent(parentId)}
        >
          ↑ parent session
        </button>
      ) : null}
      <Actions />
      <LocalLogsButton />
      <FollowToggle />
      <FleetButton />
      {detail ? (
        <span className="facts" data-testid="session-facts" data-tokenizer={detail.tokenizer}>
          {detail.summary.format} · <bdi>{detail.summary.model ?? 'model unknown'}</bdi> · {plural(detail.summary.turns, 'turn')} ·{' '}
          {plural(detail.summary.steps, 'LLM call')} · {detail.tokenizer}
          {detail.approximate ? ' (approximation)' : ''}
        </span>
      ) : null}
      <Library />
    </header>
  );
}
