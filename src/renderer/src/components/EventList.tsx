/**
 * The replay's events in step order: compressions (what was dropped, before/after), warnings,
 * guard decisions, tool preflight actions, aborts, and what the original agent really did
 * (source compactions) — plus the facts the agent would no longer remember. Click to jump.
 */
import { useAppStore } from '../context';
import { fmtInt } from '../format';
import type { ReplayEvent } from '../../../core/replay/types';

function describeEvent(e: ReplayEvent): string {
  switch (e.kind) {
    case 'compression':
      return `${e.path} compression (${e.strategy}): ${fmtInt(e.tokensBefore)} → ${fmtInt(e.tokensAfter)} tokens, dropped ${e.dropped.map(([a, b]) => `#${a}–${b}`).join(', ') || 'nothing'}${e.note ? ` — ${e.note}` : ''}`;
    case 'warning':
      return e.text;
    case 'guard':
      return `guard: ${e.decision} on ${e.model}${e.fallback ? ` → ${e.fallback}` : ''} (${fmtInt(e.projected)}/${fmtInt(e.limit)}) ${e.reason}`;
    case 'tool-preflight':
      return `tool result ${e.callId}: ${e.action} (${fmtInt(e.bytesBefore)} → ${fmtInt(e.bytesAfter)} bytes)`;
    case 'abort':
      return `abort: ${e.budget} budget ${fmtInt(e.used)}/${fmtInt(e.max)}`;
    case 'backpressure':
      return `backpressure: ${e.delayMs} ms at ${(e.usage * 100).toFixed(0)}%`;
    case 'summarizer-failure':
      return `summarizer failed: ${e.error}`;
    case 'source-compaction':
      return `the original agent compacted here (${e.trigger})${e.tokensBefore !== undefined ? `: ${fmtInt(e.tokensBefore)}` : ''}${e.tokensAfter !== undefined ? ` → ${fmtInt(e.tokensAfter)}` : ''}`;
  }
}

export function EventList() {
  const replay = useAppStore((s) => s.replay);
  const selectStep = useAppStore((s) => s.selectStep);
  if (!replay) return null;
  const lost = replay.retention.lost;
  const needles = replay.retention.needles ?? [];
  return (
    <section className="event-list" data-testid="event-list">
      <h3>Events ({replay.events.length})</h3>
      <ol>
        {replay.events.map((e, i) => (
          <li key={i} className={`event event-${e.kind}`} onClick={() => selectStep(e.step)}>
            <span className="step">#{e.step}</span> {describeEvent(e)}
          </li>
        ))}
      </ol>
      {needles.length > 0 ? (
        <>
          <h3>Needles</h3>
          <ol data-testid="needle-list">
            {needles.map((n) => (
              <li key={n.key} onClick={() => (n.leftAt[0] !== undefined ? selectStep(n.leftAt[0]) : undefined)}>
                <code>{n.key}</code>{' '}
                {n.firstMessage === null
                  ? <span className="muted">never mentioned</span>
                  : n.leftAt.length === 0
                    ? <span>first at message #{n.firstMessage}, stays in the window</span>
                    : <span>first at message #{n.firstMessage}, left the window at {n.leftAt.map((s) => `#${s}`).join(', ')}</span>}
              </li>
            ))}
          </ol>
        </>
      ) : null}
      <h3>No longer remembered ({lost.length})</h3>
      <ol data-testid="retention-list">
        {lost.slice(0, 500).map((l, i) => (
          <li key={i} onClick={() => selectStep(l.neededAt)}>
            <code>{l.key}</code> <span className="muted">({l.kind})</span> lost at #{l.lostAt}, needed at #{l.neededAt}
          </li>
        ))}
      </ol>
    </section>
  );
}
