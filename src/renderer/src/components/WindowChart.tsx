/**
 * How the window filled, call by call: the regions stacked per step (system, unlogged, summary,
 * history, tool definitions, output reserve, buffer, free), the guard's limit, the provider's
 * reported prompt size where the transcript has it, and markers where compression fired in the
 * replay and where the original agent really compacted. Clicking a step selects its message.
 */
import { useMemo } from 'react';
import { Area, ComposedChart, Legend, Line, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { useAppStore } from '../context';
import { chartRows, REGION_LABELS, REGION_ORDER, type RegionKey } from '../chart-data';
import { fmtTokens } from '../format';

const COLORS: Record<RegionKey, string> = {
  system: '#98c379',
  unlogged: '#5f7f4a',
  summary: '#e5c07b',
  history: '#4fa3ff',
  tools: '#c678dd',
  output: '#d19a66',
  buffer: '#7f848e',
  free: '#232936',
};

export function WindowChart() {
  const replay = useAppStore((s) => s.replay);
  const replayError = useAppStore((s) => s.replayError);
  const selectedStep = useAppStore((s) => s.selectedStep);
  const selectStep = useAppStore((s) => s.selectStep);
  const comparison = useAppStore((s) => s.comparison);
  const rows = useMemo(() => {
    const base = replay ? chartRows(replay) : [];
    // The second policy's request size per call, drawn over the first policy's regions.
    if (!comparison || comparison.b.steps.total.length !== base.length) return base;
    return base.map((r, i) => ({ ...r, compareTotal: comparison.b.steps.total[i] }));
  }, [replay, comparison]);
  const markers = useMemo(() => {
    if (!replay) return { compressions: [] as number[], source: [] as number[] };
    const compressions = replay.events.filter((e) => e.kind === 'compression').map((e) => e.step);
    const source = replay.events.filter((e) => e.kind === 'source-compaction').map((e) => e.step);
    return { compressions, source };
  }, [replay]);

  if (replayError) return <section className="window-chart empty" data-testid="window-chart">Replay unavailable: {replayError}</section>;
  if (!replay) return <section className="window-chart empty" data-testid="window-chart">Replaying…</section>;
  const hasReported = replay.steps.reported.some((r) => r !== null);

  return (
    <section className="window-chart" data-testid="window-chart" aria-label="Context window per LLM call">
      <ResponsiveContainer width="100%" height="100%">
        <ComposedChart
          data={rows}
          margin={{ top: 8, right: 16, bottom: 0, left: 8 }}
          onClick={(state) => {
            const idx = state?.activeIndex;
            const row = typeof idx === 'number' ? rows[idx] : typeof idx === 'string' ? rows[Number(idx)] : undefined;
            if (row) selectStep(row.step);
          }}
        >
          <XAxis dataKey="step" stroke="#8a94a6" fontSize={11} />
          <YAxis stroke="#8a94a6" fontSize={11} tickFormatter={(v: number) => fmtTokens(v)} width={56} />
          <Tooltip
            contentStyle={{ background: '#171b22', border: '1px solid #262c36', fontSize: 12 }}
            labelFormatter={(label) => `LLM call ${String(label)}`}
            formatter={(value, name) => [typeof value === 'number' ? fmtTokens(value) : String(value), String(name)]}
          />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {REGION_ORDER.map((key) => (
            <Area
              key={key}
              dataKey={key}
              name={REGION_LABELS[key]}
              stackId="window"
              type="stepAfter"
              stroke="none"
              fill={COLORS[key]}
              fillOpacity={key === 'free' ? 0.5 : 0.9}
              isAnimationActive={false}
              dot={false}
              activeDot={false}
            />
          ))}
          <Line dataKey="limit" name="limit" stroke="#e06c75" strokeDasharray="4 3" dot={false} isAnimationActive={false} type="stepAfter" />
          {comparison ? <Line dataKey="compareTotal" name={`total under ${comparison.policies[1]}`} stroke="#ff4fd8" strokeWidth={2} dot={false} isAnimationActive={false} type="stepAfter" /> : null}
          {hasReported ? <Line dataKey="reported" name="reported by provider" stroke="#ffffff" dot={false} isAnimationActive={false} connectNulls={false} type="stepAfter" /> : null}
          {markers.compressions.map((s, i) => (
            <ReferenceLine key={`c${i}`} x={s} stroke="#e5c07b" strokeWidth={2} />
          ))}
          {markers.source.map((s, i) => (
            <ReferenceLine key={`s${i}`} x={s} stroke="#ffffff" strokeDasharray="2 2" />
          ))}
          {selectedStep !== null ? <ReferenceLine x={selectedStep} stroke="#4fa3ff" /> : null}
        </ComposedChart>
      </ResponsiveContainer>
    </section>
  );
}
