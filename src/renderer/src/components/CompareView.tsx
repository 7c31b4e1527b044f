/**
 * The current policy (A, as the chart shows it) against a second one (B) on the same session:
 * B gets the user's overrides unless unticked; the config differences; totals side by side; the
 * calls that differ by more than a threshold (click to jump). B's compressions are also marked
 * on the chart (RegionChart).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useRef } from 'react';
import type { CompareView as Comparison } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtInt, fmtTokens, plural, settingText } from '../format';

const ROWS: { key: keyof Comparison['totals']; label: string; money?: boolean }[] = [
  { key: 'billedInputTokens', label: 'billed input' },
  { key: 'cachedInputTokens', label: 'cache reads' },
  { key: 'cacheWriteTokens', label: 'cache writes' },
  { key: 'cost', label: 'cost', money: true },
  { key: 'compressions', label: 'compressions' },
  { key: 'tokensRemoved', label: 'tokens removed' },
  { key: 'peak', label: 'peak' },
  { key: 'forcedFinals', label: 'forced finals' },
  { key: 'aborts', label: 'aborts' },
  { key: 'overflows', label: 'overflows (above the window)' },
];

function Differences({ c }: { c: Comparison }) {
  const selectStep = useAppStore((s) => s.selectStep);
  const selected = useAppStore((s) => s.selectedStep);
  const parent = useRef<HTMLDivElement>(null);
  const v = useVirtualizer({ count: c.differences.length, getScrollElement: () => parent.current, estimateSize: () => 20, overscan: 10 });
  return (
    <div className="compare-differences" ref={parent} data-testid="compare-differences" data-count={c.differences.length}>
      <div style={{ height: v.getTotalSize(), position: 'relative' }}>
        {v.getVirtualItems().map((it) => {
          const d = c.differences[it.index]!;
          return (
            <div
              key={it.key}
              className={`diff-row${selected === d.step ? ' selected' : ''}`}
              style={{ transform: `translateY(${it.start}px)` }}
              onClick={() => selectStep(d.step)}
            >
              <span className="step">#{d.step}</span> {d.a.status} {fmtTokens(d.a.total)} → {d.b.status} {fmtTokens(d.b.total)}{' '}
              <span className="muted">
                ({d.b.total - d.a.total >= 0 ? '+' : ''}
                {fmtInt(d.b.total - d.a.total)})
              </span>
              {d.b.reason && d.b.status !== d.a.status ? <bdi className="muted"> — {d.b.reason}</bdi> : null}
            </div>
          );
        })}
      </div>
    </div>
  );
}

export function CompareView() {
  const c = useAppStore((s) => s.comparison);
  const policies = useAppStore((s) => s.policies);
  const compareId = useAppStore((s) => s.comparePolicyId);
  const setCompare = useAppStore((s) => s.setComparePolicy);
  const withOverrides = useAppStore((s) => s.compareWithOverrides);
  const setWithOverrides = useAppStore((s) => s.setCompareWithOverrides);
  const minDelta = useAppStore((s) => s.minDelta);
  const setMinDelta = useAppStore((s) => s.setMinDelta);
  const overrideCount = useAppStore((s) => Object.keys(s.overrides).length);
  const diffs = c?.configDifferences ?? [];
  const unloggedA = c?.a.steps.regions.unlogged[0] ?? 0;
  const unloggedB = c?.b.steps.regions.unlogged[0] ?? 0;
  const show = (v: number, money?: boolean): string => (money ? `$${v.toFixed(4)}` : fmtTokens(v));
  return (
    <section className="compare-view" data-testid="compare-view" aria-label="Comparison">
      <div className="compare-bar">
        <label>
          compare with{' '}
          <select data-testid="compare-picker" value={compareId ?? ''} onChange={(e) => void setCompare(e.target.value || null)}>
            <option value="">—</option>
            {policies.map((p) => (
              <option key={p.id} value={p.id}>
                {p.id}
              </option>
            ))}
          </select>
        </label>
        <label title="B is replayed with the same overrides as A">
          <input
            type="checkbox"
            data-testid="compare-overrides"
            checked={withOverrides}
            onChange={(e) => void setWithOverrides(e.target.checked)}
          />{' '}
          B gets my {overrideCount} override{overrideCount === 1 ? '' : 's'}
        </label>
        <label title="A call differs when its status changed or its request moved by more than this">
          min Δ{' '}
          <input
            className="num"
            data-testid="compare-min-delta"
            type="number"
            min={0}
            value={minDelta}
            onChange={(e) => void setMinDelta(Number(e.target.value) || 0)}
          />{' '}
          tokens
        </label>
      </div>
      {!c ? (
        <p className="muted">{compareId ? 'Comparing…' : 'Pick a second policy to replay the session under both.'}</p>
      ) : (
        <div className="compare-body">
          <div>
            <table className="compare-totals">
              <thead>
                <tr>
                  <th />
                  <th>A {c.policies[0]}</th>
                  <th>B {c.policies[1]}</th>
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
                      <td className={t.delta > 0 ? 'worse' : t.delta < 0 ? 'better' : ''}>
                        {t.ratio === null
                          ? t.delta === 0
                            ? '—'
                            : show(t.delta, r.money)
                          : `${t.ratio > 0 ? '+' : ''}${(t.ratio * 100).toFixed(1)}%`}
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
            <h5>Config differences ({diffs.length})</h5>
            <table className="config-diff" data-testid="compare-config-diff">
              <tbody>
                {diffs.slice(0, 60).map((d) => (
                  <tr key={d.key}>
                    <td>{d.key}</td>
                    <td>
                      <bdi>{settingText(d.a)}</bdi>
                    </td>
                    <td>
                      <bdi>{settingText(d.b)}</bdi>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="compare-right">
            {unloggedA > 0 || unloggedB > 0 ? (
              <p className="muted" data-testid="compare-unlogged">
                Both count what the provider counted beyond the transcript (unlogged system &amp; tools: {fmtTokens(unloggedA)} in A&apos;s
                estimator, {fmtTokens(unloggedB)} in B&apos;s), so a difference is what the policy changes.
              </p>
            ) : null}
            {c.differences.length === 0 && Object.values(c.totals).every((t) => t.delta === 0) ? (
              <p data-testid="compare-identical">
                <strong>Identical on this session:</strong> {c.policies[1]}&apos;s settings lead to the same requests and the same{' '}
                {plural(c.compressions.a.length, 'compression')} at the same calls as {c.policies[0]}&apos;s
                {c.compressions.a.length > 0 ? ` (call ${c.compressions.a.map((x) => `#${x}`).join(', ')})` : ''}; the settings that differ
                are listed on the left.
              </p>
            ) : null}
            <p className="muted">
              {fmtInt(c.differences.length)} of {fmtInt(c.steps)} calls differ by more than {fmtInt(minDelta)} tokens or in status ·
              compressions A {fmtInt(c.compressions.a.length)}, B {fmtInt(c.compressions.b.length)}
            </p>
            <Differences c={c} />
          </div>
        </div>
      )}
    </section>
  );
}
