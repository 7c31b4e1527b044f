/**
 * The current policy against a second one on the same session: totals side by side with the
 * change, the steps at which each compressed, and every step whose request or status differs
 * (click to jump there).
 */
import { useAppStore } from '../context';
import { fmtInt, fmtTokens } from '../format';
import type { CompareView } from '../../../shared/api';

const ROWS: { key: keyof CompareView['totals']; label: string; money?: boolean }[] = [
  { key: 'billedInputTokens', label: 'billed input' },
  { key: 'cachedInputTokens', label: 'cached input' },
  { key: 'cost', label: 'cost', money: true },
  { key: 'compressions', label: 'compressions' },
  { key: 'tokensRemoved', label: 'tokens removed' },
  { key: 'peak', label: 'peak' },
  { key: 'forcedFinals', label: 'forced finals' },
  { key: 'aborts', label: 'aborts' },
];

export function ComparePanel() {
  const c = useAppStore((s) => s.comparison);
  const selectStep = useAppStore((s) => s.selectStep);
  if (!c) return null;
  const [a, b] = c.policies;
  const show = (v: number, money?: boolean) => (money ? `$${v.toFixed(4)}` : fmtTokens(v));
  return (
    <section className="compare-panel" data-testid="compare-panel" aria-label="Comparison">
      <table>
        <thead>
          <tr>
            <th />
            <th>{a}</th>
            <th>{b}</th>
            <th>change</th>
          </tr>
        </thead>
        <tbody>
          {ROWS.map((r) => {
            const t = c.totals[r.key];
            return (
              <tr key={r.key} data-testid={`compare-${r.key}`}>
                <td>{r.label}</td>
                <td>{show(t.a, r.money)}</td>
                <td>{show(t.b, r.money)}</td>
                <td className={t.delta > 0 ? 'worse' : t.delta < 0 ? 'better' : ''}>{t.ratio === null ? (t.delta === 0 ? '—' : show(t.delta, r.money)) : `${t.ratio > 0 ? '+' : ''}${(t.ratio * 100).toFixed(1)}%`}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
      <div className="compare-diffs">
        <p className="muted">
          compressions at {c.compressions.a.map((s) => `#${s}`).join(' ') || 'none'} vs {c.compressions.b.map((s) => `#${s}`).join(' ') || 'none'} · {fmtInt(c.differences.length)} of {fmtInt(c.steps)} calls differ
        </p>
        <ol data-testid="compare-differences">
          {c.differences.slice(0, 300).map((d) => (
            <li key={d.step} onClick={() => selectStep(d.step)}>
              <span className="step">#{d.step}</span> {d.a.status} {fmtTokens(d.a.total)} → {d.b.status} {fmtTokens(d.b.total)}
              {d.b.reason && d.b.status !== d.a.status ? <span className="muted"> — {d.b.reason}</span> : null}
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}
