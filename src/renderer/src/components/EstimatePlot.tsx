/**
 * Estimate against reported, one dot per call (recharts: at most ACCURACY_PLOT_MAX marks, see
 * model/accuracy-points.ts). The diagonal is a perfect estimate. (The calibrated fit is not drawn:
 * it maps the base tokenizer's counts, which the active tokenizer's estimates may already be.)
 * A click on a dot selects its call.
 */
import { useMemo } from 'react';
import { CartesianGrid, ReferenceLine, ResponsiveContainer, Scatter, ScatterChart, Tooltip, XAxis, YAxis } from 'recharts';
import type { AccuracyView } from '../../../shared/api';
import { fmtInt, fmtTokens } from '../format';
import { accuracyPoints, type AccuracyCall } from '../model/accuracy-points';

interface Props {
  readonly view: AccuracyView;
  readonly selectedStep: number | null;
  readonly onSelect: (step: number) => void;
}

const axisTick = { fill: 'var(--muted)', fontSize: 11 };

export function EstimatePlot({ view, selectedStep, onSelect }: Props) {
  const pick = useMemo(() => accuracyPoints(view.calls, selectedStep), [view.calls, selectedStep]);
  const top = useMemo(() => pick.points.reduce((m, c) => Math.max(m, c.reported, c.estimate), 1), [pick.points]);
  const selected = pick.points.filter((c) => c.step === selectedStep);
  if (view.calls.length === 0) return null;
  return (
    <figure className="estimate-plot" data-testid="estimate-plot" data-points={pick.points.length} data-hidden={pick.hidden}>
      <ResponsiveContainer width="100%" height={220}>
        <ScatterChart margin={{ top: 12, right: 24, bottom: 18, left: 16 }}>
          <CartesianGrid stroke="var(--line)" />
          <XAxis
            type="number"
            dataKey="reported"
            name="reported"
            domain={[0, top]}
            tickFormatter={fmtTokens}
            tick={axisTick}
            stroke="var(--muted)"
            label={{ value: 'reported prompt (tokens)', position: 'insideBottom', offset: -10, fill: 'var(--muted)', fontSize: 11 }}
          />
          <YAxis
            type="number"
            dataKey="estimate"
            name="estimate"
            domain={[0, top]}
            tickFormatter={fmtTokens}
            tick={axisTick}
            stroke="var(--muted)"
            width={52}
            label={{ value: 'estimate', angle: -90, position: 'left', offset: 4, fill: 'var(--muted)', fontSize: 11 }}
          />
          <ReferenceLine
            segment={[
              { x: 0, y: 0 },
              { x: top, y: top },
            ]}
            stroke="var(--muted)"
            ifOverflow="hidden"
          />
          <Tooltip
            cursor={false}
            isAnimationActive={false}
            content={({ payload }) => <PointTip call={payload?.[0]?.payload as AccuracyCall | undefined} />}
          />
          <Scatter
            data={pick.points as AccuracyCall[]}
            fill="var(--assistant)"
            isAnimationActive={false}
            shape="circle"
            onClick={(p: { payload?: AccuracyCall }) => p.payload && onSelect(p.payload.step)}
          />
          {selected.length > 0 ? <Scatter data={selected} fill="var(--bad)" isAnimationActive={false} shape="diamond" /> : null}
        </ScatterChart>
      </ResponsiveContainer>
      <figcaption className="muted">
        Each dot is a call: on the diagonal the estimate equals what the provider reported. Click a dot to select its call.
        {pick.hidden > 0
          ? ` ${fmtInt(pick.points.length)} of ${fmtInt(view.calls.length)} calls drawn (the worst estimates and the axes' extremes always).`
          : ''}
      </figcaption>
    </figure>
  );
}

function PointTip({ call }: { call: AccuracyCall | undefined }) {
  if (!call) return null;
  return (
    <div className="plot-tip">
      call #{call.step}: estimate {fmtInt(call.estimate)}, reported {fmtInt(call.reported)} ({call.errorPct > 0 ? '+' : ''}
      {call.errorPct.toFixed(1)}%)
    </div>
  );
}
