/**
 * Real vs predicted compactions (docs/user-guide.md, Events): each compaction the agent logged
 * beside the call its preset's trigger predicts, the trigger, and why it is or is not a hit.
 * Click a row to select the call the agent compacted before (the last call when it came after it).
 */
import { useAppStore } from '../context';
import { compactionRows, compactionSummary } from '../model/compaction-rows';

export function CompactionCheck() {
  const checks = useAppStore((s) => s.chart?.sourceCompactions);
  const selectStep = useAppStore((s) => s.selectStep);
  const stepCount = useAppStore((s) => s.chart?.stepCount ?? 0);
  if (!checks || checks.length === 0) return null;
  const rows = compactionRows(checks);
  return (
    <>
      <h3>Real vs predicted compactions</h3>
      <p className="muted" data-testid="compaction-check-summary">
        {compactionSummary(checks)}
      </p>
      <ol className="compaction-check" data-testid="compaction-check">
        {rows.map((r, i) => (
          <li key={i} className={r.hit ? 'hit' : 'miss'} onClick={() => selectStep(Math.max(0, Math.min(r.call, stepCount - 1)))}>
            <div>
              <span className="step">#{r.call}</span> {r.trigger} at {r.preTokens} · predicted {r.predicted} · trigger {r.formula}
            </div>
            <div>
              <span className="verdict">{r.verdict}</span> <span className="muted">{r.reason}</span>
            </div>
          </li>
        ))}
      </ol>
    </>
  );
}
