/**
 * The Tuner tab: sweep settings of the current policy on the open session (on the host's worker
 * threads), see every setting as a point of billed cost against lost references — the frontier
 * joined, runs that forced a final turn or aborted marked — and the proposal: the cheapest setting
 * that loses no referenced fact and no needle and never ends the run early, or, when none does,
 * the best near-miss (drawn with recharts, as the other plots). A click on a point (or its row, or Apply) writes its settings to the config
 * panel and the replay re-runs with them.
 */
import { useEffect, useMemo } from 'react';
import { CartesianGrid, ResponsiveContainer, Scatter, ScatterChart, XAxis, YAxis } from 'recharts';
import type { TunePoint, TuneResult } from '../../../core/tune/index';
import { useAppStore } from '../context';
import { fmtInt, fmtTokens } from '../format';
import { preferredSweepKey } from '../../../core/tune/index';
import { sweepable, sweepCount, sweepsProblem } from '../slices/tuner';
import { plotPoints } from './tuner-plot-points';
import './TunerPanel.css';

/** The grid cap of the core (src/core/tune/grid.ts): the panel says so before the host has to. */
const CAP = 10_000;

const money = (r: TuneResult, p: TunePoint): string =>
  r.costBasis === 'usd' ? `$${p.cost.toFixed(4)}` : `${fmtTokens(p.billedInputTokens)} tokens`;
const settingsText = (p: TunePoint): string =>
  Object.entries(p.settings)
    .map(([k, v]) => `${k} = ${String(v)}`)
    .join(', ');
const ended = (p: TunePoint): number => p.forcedFinals + p.aborts;
const lost = (p: TunePoint): number => p.lostFacts + p.lostNeedles;

function Sweeps() {
  const fields = useAppStore((s) => s.fields);
  const sweeps = useAppStore((s) => s.tuneSweeps);
  const setSweep = useAppStore((s) => s.setTuneSweep);
  const remove = useAppStore((s) => s.removeTuneSweep);
  const options = useMemo(() => fields.filter(sweepable), [fields]);
  // A first sweep to start from: the setting the policy's trigger acts on (claude-code: its auto-compact share).
  useEffect(() => {
    const key = preferredSweepKey(options);
    if (sweeps.length === 0 && key) setSweep(0, { key });
  }, [sweeps.length, options, setSweep]);
  const num = (i: number, k: 'from' | 'to' | 'step', v: number) => (
    <input
      type="number"
      className="num"
      data-testid={`tuner-${k}-${i}`}
      aria-label={`sweep ${i + 1} ${k}`}
      value={v}
      step="any"
      onChange={(e) => setSweep(i, { [k]: e.target.valueAsNumber })}
    />
  );
  return (
    <div className="tuner-sweeps">
      {sweeps.map((s, i) => (
        <div className="tuner-sweep" key={i} data-testid={`tuner-sweep-${i}`}>
          <select
            data-testid={`tuner-key-${i}`}
            aria-label={`sweep ${i + 1} setting`}
            value={s.key}
            onChange={(e) => setSweep(i, { key: e.target.value })}
          >
            {options.some((f) => f.key === s.key) ? null : <option value={s.key}>{s.key || 'choose a setting'}</option>}
            {options.map((f) => (
              <option key={f.key} value={f.key}>
                {f.label} ({f.key})
              </option>
            ))}
          </select>
          from {num(i, 'from', s.from)} to {num(i, 'to', s.to)} step {num(i, 'step', s.step)}
          <span className="muted"> {fmtInt(sweepCount(s))} value(s)</span>
          <button className="link" aria-label={`remove sweep ${i + 1}`} onClick={() => remove(i)}>
            ✕
          </button>
        </div>
      ))}
      <button
        data-testid="tuner-add"
        disabled={options.length === 0 || sweeps.length >= 6}
        onClick={() => setSweep(sweeps.length, { key: (options.find((f) => !sweeps.some((s) => s.key === f.key)) ?? options[0])!.key })}
      >
        + Sweep a setting
      </button>
    </div>
  );
}

/** One drawn point: the sweep's point with its place on the plot and what marks it. */
interface PlotDatum {
  readonly p: TunePoint;
  readonly x: number;
  readonly y: number;
  readonly cls: string;
  readonly r: number;
}

const axisTick = { fill: 'var(--muted)', fontSize: 10 };
const axisLabel = { fill: 'var(--muted)', fontSize: 10 };

function Frontier({ r, applied, onPick }: { r: TuneResult; applied: number | null; onPick: (i: number) => void }) {
  const x = (p: TunePoint): number => (r.costBasis === 'usd' ? p.cost : p.billedInputTokens);
  // At most ~1,000 circles: the frontier, the proposal, the applied point and each axis' extremes always among them.
  const pick = useMemo(() => plotPoints(r.points, r.frontier, [r.proposal, r.nearMiss, applied], x, lost, ended), [r, applied]);
  const rank = (p: TunePoint): number => (p.index === r.proposal || p.index === r.nearMiss ? 2 : p.onFrontier ? 1 : 0);
  // Drawn in order of interest, so the proposal and the frontier lie on top where points overlap.
  const data: PlotDatum[] = pick.indices
    .map((i) => r.points[i]!)
    .sort((a, b) => rank(a) - rank(b))
    .map((p) => ({
      p,
      x: x(p),
      y: lost(p),
      r: p.index === r.proposal || p.index === r.nearMiss ? 6 : p.onFrontier ? 4 : 3,
      cls: [
        'pt',
        p.onFrontier ? 'on' : '',
        ended(p) > 0 ? 'ended' : lost(p) === 0 ? 'good' : 'lossy',
        p.index === r.proposal ? 'proposed' : '',
        p.index === r.nearMiss ? 'near' : '',
        p.index === applied ? 'applied' : '',
      ]
        .filter(Boolean)
        .join(' '),
    }));
  const front = r.frontier.map((i) => ({ x: x(r.points[i]!), y: lost(r.points[i]!) }));
  const xs = data.map((d) => d.x);
  const x0 = Math.min(...xs);
  const x1 = Math.max(...xs);
  // One setting (or all at one cost): the axis still needs a width, the point sits in its middle.
  const xDomain: [number, number] = x0 === x1 ? [x0 - (Math.abs(x0) || 1) / 2, x1 + (Math.abs(x1) || 1) / 2] : [x0, x1];
  const y1 = Math.max(1, ...data.map((d) => d.y));
  const xLabel = (v: number): string => (r.costBasis === 'usd' ? `$${v.toFixed(2)}` : fmtTokens(v));
  return (
    <figure className="tuner-plot" data-testid="tuner-frontier" role="group" aria-label="Settings: billed cost against lost references">
      {pick.hidden > 0 && (
        <figcaption className="tick muted" data-testid="tuner-plot-thinned">
          {fmtInt(pick.indices.length)} of {fmtInt(pick.indices.length + pick.hidden)} settings drawn
        </figcaption>
      )}
      <ResponsiveContainer width="100%" height={220}>
        <ScatterChart margin={{ top: 10, right: 16, bottom: 18, left: 4 }}>
          <CartesianGrid stroke="var(--line)" />
          <XAxis
            type="number"
            dataKey="x"
            domain={xDomain}
            ticks={x0 === x1 ? [x0] : [x0, x1]}
            tickFormatter={xLabel}
            tick={axisTick}
            stroke="var(--muted)"
            label={{
              value: `${r.costBasis === 'usd' ? 'billed cost (USD)' : 'billed input tokens'} →`,
              position: 'insideBottom',
              offset: -10,
              ...axisLabel,
            }}
          />
          <YAxis
            type="number"
            dataKey="y"
            domain={[0, y1]}
            ticks={[0, y1]}
            allowDecimals={false}
            tick={axisTick}
            stroke="var(--muted)"
            width={44}
            label={{ value: 'lost', angle: -90, position: 'insideLeft', offset: 10, ...axisLabel }}
          />
          {/* The frontier, joined: no marks of its own (its points are in the scatter below). */}
          <Scatter
            data={front}
            line={{ stroke: 'var(--accent)', strokeWidth: 1.5 }}
            lineType="joint"
            shape={() => <g />}
            isAnimationActive={false}
            legendType="none"
          />
          <Scatter
            data={data}
            isAnimationActive={false}
            shape={(props: unknown) => <PlotPoint {...(props as PointShape)} r={r} onPick={onPick} />}
          />
        </ScatterChart>
      </ResponsiveContainer>
    </figure>
  );
}

/** What recharts hands a custom scatter shape: the point's pixel place and its datum. */
interface PointShape {
  readonly cx?: number;
  readonly cy?: number;
  readonly payload?: PlotDatum;
}

function PlotPoint({ cx, cy, payload, r, onPick }: PointShape & { r: TuneResult; onPick: (i: number) => void }) {
  if (cx === undefined || cy === undefined || !payload) return <g />;
  const p = payload.p;
  return (
    <circle
      className={payload.cls}
      data-testid="tuner-point"
      data-index={p.index}
      cx={cx}
      cy={cy}
      r={payload.r}
      role="button"
      tabIndex={p.onFrontier ? 0 : -1}
      aria-label={`${settingsText(p)}: ${money(r, p)}, ${lost(p)} lost, ${ended(p)} ended early`}
      onClick={() => onPick(p.index)}
      onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ' ? onPick(p.index) : undefined)}
    >
      <title>{`${settingsText(p)}\n${money(r, p)} · ${p.lostFacts} lost fact(s) · ${p.lostNeedles} lost needle(s) · ${p.forcedFinals} forced final(s) · ${p.aborts} abort(s) · ${p.compressions} compression(s)`}</title>
    </circle>
  );
}

function Result({ r }: { r: TuneResult }) {
  const apply = useAppStore((s) => s.applyTunePoint);
  const applied = useAppStore((s) => s.tuneApplied);
  const pick = r.proposal ?? r.nearMiss;
  const failed = r.points.filter((p) => p.error);
  return (
    <div className="tuner-result">
      <div className={`tuner-proposal${r.proposal === null ? ' none' : ''}`} data-testid="tuner-proposal" data-index={pick ?? ''}>
        <strong>{r.proposal !== null ? 'Proposed' : 'No setting qualifies'}</strong>{' '}
        {pick !== null ? (
          <>
            {r.proposal === null ? 'best near-miss: ' : ''}
            <code data-testid="tuner-proposal-settings">
              <bdi>{settingsText(r.points[pick]!)}</bdi>
            </code>{' '}
            <button data-testid="tuner-apply" onClick={() => void apply(pick)}>
              {applied === pick ? 'Applied' : 'Apply'}
            </button>
          </>
        ) : null}
        <div className="muted" data-testid="tuner-verdict">
          <bdi>{r.verdict}</bdi>
        </div>
      </div>
      <Frontier r={r} applied={applied} onPick={(i) => void apply(i)} />
      <p className="legend muted">
        <span className="dot good" /> loses nothing <span className="dot lossy" /> loses references <span className="dot ended" /> forces a
        final turn or aborts — the line joins the frontier (nothing is cheaper with as few losses). Click a point to apply it.
      </p>
      <table className="tuner-table" data-testid="tuner-table">
        <thead>
          <tr>
            <th>setting (frontier)</th>
            <th>cost</th>
            <th>lost facts</th>
            <th>lost needles</th>
            <th>finals</th>
            <th>aborts</th>
            <th>compressions</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {r.frontier.map((i) => {
            const p = r.points[i]!;
            return (
              <tr key={i} className={`${i === r.proposal ? 'proposed' : ''}${i === applied ? ' applied' : ''}`} data-testid="tuner-row">
                <td>
                  <bdi>{settingsText(p)}</bdi>
                </td>
                <td>{money(r, p)}</td>
                <td>{p.lostFacts}</td>
                <td>{p.lostNeedles}</td>
                <td>{p.forcedFinals}</td>
                <td>{p.aborts}</td>
                <td>{p.compressions}</td>
                <td>
                  <button className="link" onClick={() => void apply(i)}>
                    {i === applied ? 'applied' : 'apply'}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {failed.length > 0 ? (
        <p className="warning">
          {failed.length} setting(s) failed to replay, e.g. <bdi>{settingsText(failed[0]!)}</bdi>: <bdi>{failed[0]!.error}</bdi>
        </p>
      ) : null}
      <p className="muted" data-testid="tuner-stats">
        {fmtInt(r.points.length)} settings × {fmtInt(r.calls)} calls in {(r.elapsedMs / 1000).toFixed(2)} s on {r.threads} thread(s);
        summaries extractive during a sweep.
      </p>
    </div>
  );
}

export function TunerPanel() {
  const policyId = useAppStore((s) => s.policyId);
  const sweeps = useAppStore((s) => s.tuneSweeps);
  const running = useAppStore((s) => s.tuneRunning);
  const error = useAppStore((s) => s.tuneError);
  const result = useAppStore((s) => s.tuneResult);
  const tuneFor = useAppStore((s) => s.tuneFor);
  const run = useAppStore((s) => s.runTune);
  const cancel = useAppStore((s) => s.cancelTune);
  const needles = useAppStore((s) => s.needles.length);
  const size = sweeps.reduce((n, s) => n * sweepCount(s), sweeps.length > 0 ? 1 : 0);
  const fields = useAppStore((s) => s.fields);
  const context = useAppStore((s) => s.tuneContext);
  const chart = useAppStore((s) => s.chart);
  const rememberWindow = useAppStore((s) => s.tuneRemember);
  useEffect(() => rememberWindow(), [chart, rememberWindow]);
  const problem = sweeps.length > 0 ? sweepsProblem(sweeps, fields, context()) : null;
  const stale = result && tuneFor && tuneFor.policy !== policyId;
  return (
    <section className="tuner" data-testid="tuner" aria-label="Tuner">
      <header>
        <p className="muted">
          Sweep settings of <strong>{policyId ?? '…'}</strong> on this session{needles > 0 ? `, keeping ${needles} needle(s)` : ''}; the
          other overrides stay as set.
        </p>
      </header>
      <Sweeps />
      <div className="tuner-run">
        <button data-testid="tuner-run" disabled={running || size === 0 || size > CAP || problem !== null} onClick={() => void run()}>
          {running ? 'Sweeping…' : 'Run sweep'}
        </button>{' '}
        <span className={size > CAP ? 'warning' : 'muted'} data-testid="tuner-size">
          {fmtInt(size)} setting(s){size > CAP ? ` — more than the cap of ${fmtInt(CAP)}: use larger steps` : ''}
        </span>
        {running ? (
          <>
            <span className="muted"> replaying every setting on worker threads… </span>
            <button data-testid="tuner-cancel" onClick={() => void cancel()}>
              Cancel
            </button>
          </>
        ) : null}
      </div>
      {problem ? (
        <p className="field-problem" role="alert" data-testid="tuner-problem">
          <bdi>{problem}</bdi>
        </p>
      ) : null}
      {error ? (
        <p className="field-problem" role="alert" data-testid="tuner-error">
          <bdi>{error}</bdi>
        </p>
      ) : null}
      {stale ? (
        <p className="warning">
          This result is for policy {tuneFor.policy}; run the sweep again to tune {policyId}.
        </p>
      ) : null}
      {result ? <Result r={result} /> : null}
    </section>
  );
}
