/**
 * Above the chart while the open session is still being imported (a big file is opened
 * progressively): how much of the file is in, and which calls the replay on screen covers. The
 * host marks such a chart `partial`; the note goes when a chart of the whole session arrives.
 */
import { useAppStore } from '../context';

export function PartialNote() {
  const partial = useAppStore((s) => s.chart?.partial);
  const calls = useAppStore((s) => s.chart?.stepCount ?? 0);
  if (!partial) return null;
  const pct = partial.totalBytes > 0 ? Math.min(100, Math.floor((partial.bytes / partial.totalBytes) * 100)) : 0;
  return (
    <div className="partial-note" role="status" data-testid="partial-note" data-calls={calls} data-pct={pct}>
      importing… {pct}% — replay covers calls 1–{calls.toLocaleString('en-US')}; the rest appears as it is read
    </div>
  );
}
