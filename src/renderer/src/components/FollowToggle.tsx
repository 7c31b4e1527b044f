/**
 * "Follow" for a live session (docs/user-guide.md "Live tail"): while the open session's file is followed,
 * a "live" badge says so (with the updates received); the toggle keeps the last call selected
 * as new calls arrive.
 */
import { useAppStore } from '../context';

export function FollowToggle() {
  const live = useAppStore((s) => s.liveSession !== null && s.liveSession === s.currentId);
  const liveError = useAppStore((s) => s.liveError);
  const updates = useAppStore((s) => s.liveUpdates);
  const following = useAppStore((s) => s.following);
  const setFollowing = useAppStore((s) => s.setFollowing);
  return (
    <span className="live-tail">
      <span
        className={live ? 'live-badge on' : 'live-badge'}
        data-testid="live-status"
        title={live ? 'The session file is followed: new lines appear within a second' : (liveError ?? 'The session file is not followed')}
      >
        {live ? `live${updates > 0 ? ` · ${updates} update${updates === 1 ? '' : 's'}` : ''}` : 'not live'}
      </span>
      <label title="Keep the last call selected as new calls arrive">
        <input type="checkbox" data-testid="follow-toggle" checked={following} onChange={(e) => setFollowing(e.target.checked)} /> Follow
      </label>
    </span>
  );
}
