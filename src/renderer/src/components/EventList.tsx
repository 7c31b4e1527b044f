/**
 * Every marker of the replay in call order — compressions (by path), the agent's own
 * compactions, guard warn / skip / final / abort — each with its one-line explanation; click one
 * to select its call. Then the facts the agent would no longer remember and the needles.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import { useAppStore } from '../context';
import { markerLabel } from '../model/marker-label';
import { CompactionCheck } from './CompactionCheck';

export function EventList() {
  const markers = useAppStore((s) => s.chart?.markers);
  const retention = useAppStore((s) => s.chart?.retention);
  const selected = useAppStore((s) => s.selectedStep);
  const selectStep = useAppStore((s) => s.selectStep);
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: markers?.length ?? 0, getScrollElement: () => parent.current, estimateSize: () => 20, overscan: 10 });
  if (!markers || !retention)
    return (
      <section className="event-list empty" data-testid="event-list">
        Replaying…
      </section>
    );
  const needles = retention.needles ?? [];
  return (
    <section className="event-list" data-testid="event-list">
      <h3>Events ({markers.length})</h3>
      <div className="events-scroll" ref={parent}>
        <div style={{ height: v.getTotalSize(), position: 'relative' }}>
          {v.getVirtualItems().map((it) => {
            const m = markers[it.index]!;
            return (
              <div
                key={it.key}
                className={`event event-${m.kind}${m.kind === 'compression' ? ` path-${m.path}` : ''}${selected === m.step ? ' selected' : ''}`}
                data-testid="event-row"
                data-step={m.step}
                style={{ transform: `translateY(${it.start}px)` }}
                onClick={() => selectStep(m.step)}
              >
                <span className="step">#{m.step}</span>{' '}
                <span className="kind">
                  {m.kind === 'compression' ? `${m.path} ` : ''}
                  {m.kind}
                </span>{' '}
                <bdi>{markerLabel(m)}</bdi>
              </div>
            );
          })}
        </div>
      </div>
      <CompactionCheck />
      {needles.length > 0 ? (
        <>
          <h3>Needles</h3>
          <ol data-testid="needle-list">
            {needles.map((n) => (
              <li key={n.key} onClick={() => (n.leftAt[0] !== undefined ? selectStep(n.leftAt[0]) : undefined)}>
                <code>
                  <bdi>{n.key}</bdi>
                </code>{' '}
                {n.firstMessage === null ? (
                  <span className="muted">never mentioned</span>
                ) : n.leftAt.length === 0 ? (
                  <span>first at message #{n.firstMessage}, stays in the window</span>
                ) : (
                  <span>
                    first at message #{n.firstMessage}, left the window at {n.leftAt.map((s) => `#${s}`).join(', ')}
                  </span>
                )}
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <h3>No longer remembered ({retention.lost.length})</h3>
      <ol data-testid="retention-list">
        {retention.lost.slice(0, 200).map((l, i) => (
          <li key={i} onClick={() => selectStep(l.neededAt)}>
            <code>
              <bdi>{l.key}</bdi>
            </code>{' '}
            <span className="muted">({l.kind})</span> lost at #{l.lostAt}, needed at #{l.neededAt}
          </li>
        ))}
      </ol>
    </section>
  );
}
