/**
 * The Fleet view's charts, drawn with recharts (at most a few thousand marks): cost per policy,
 * the distribution of compressions and of lost facts per session, and cost against lost facts per
 * session. Animation off; data keys stable.
 */
import {
  Bar,
  BarChart,
  CartesianGrid,
  Cell,
  Legend,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
  ZAxis,
} from 'recharts';
import type { FleetResults, FleetTable } from '../../../shared/api';

const PALETTE = [
  '#4e9af1',
  '#f5a524',
  '#3ccf91',
  '#e5484d',
  '#a47cf3',
  '#39c5cf',
  '#f76b15',
  '#8e9196',
  '#d6409f',
  '#b5e61d',
  '#ffc53d',
  '#70b8ff',
];
export const policyColor = (policies: readonly string[], p: string): string => PALETTE[Math.max(0, policies.indexOf(p)) % PALETTE.length]!;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0));

/** A histogram table (policy, value, sessions) as one row per value with a column per policy. */
function histogram(t: FleetTable, policies: readonly string[]): Record<string, number>[] {
  const byValue = new Map<number, Record<string, number>>();
  for (const r of t.rows) {
    const v = num(r['value']);
    const row = byValue.get(v) ?? { value: v };
    row[String(r['policy'])] = num(r['sessions']);
    byValue.set(v, row);
  }
  return [...byValue.values()]
    .sort((a, b) => a['value']! - b['value']!)
    .map((r) => Object.fromEntries([['value', r['value']!], ...policies.map((p) => [p, r[p] ?? 0])]));
}

function Panel({ title, testId, children }: { title: string; testId: string; children: React.ReactElement }) {
  return (
    <figure className="fleet-chart" data-testid={testId}>
      <figcaption>{title}</figcaption>
      <ResponsiveContainer width="100%" height={190}>
        {children}
      </ResponsiveContainer>
    </figure>
  );
}

export function FleetCharts({ results }: { results: FleetResults }) {
  const policies = results.policies;
  const cost = results.perPolicy.rows.map((r) => ({
    policy: String(r['policy']),
    total: num(r['total_cost']),
    median: num(r['median_cost']),
  }));
  const compressions = histogram(results.compressions, policies);
  const lost = histogram(results.lostFacts, policies);
  const points = (p: string) =>
    results.sessions.rows
      .filter((r) => r['policy'] === p && r['status'] === 'ok')
      .map((r) => ({ cost: num(r['cost_usd']), lost: num(r['lost_facts']), title: String(r['title'] ?? r['session_id'] ?? '') }));
  const axis = { stroke: '#8e9196', fontSize: 11 };
  return (
    <div className="fleet-charts">
      <Panel title="Cost per policy (USD, total)" testId="fleet-chart-cost">
        <BarChart data={cost} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" stroke="#333" />
          <XAxis dataKey="policy" tick={axis} />
          <YAxis tick={axis} width={56} />
          <Tooltip formatter={(v) => `$${Number(v).toFixed(4)}`} />
          <Bar dataKey="total" name="total cost" isAnimationActive={false}>
            {cost.map((c) => (
              <Cell key={c.policy} fill={policyColor(policies, c.policy)} />
            ))}
          </Bar>
        </BarChart>
      </Panel>
      <Panel title="Compressions per session (sessions)" testId="fleet-chart-compressions">
        <BarChart data={compressions} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" stroke="#333" />
          <XAxis dataKey="value" tick={axis} />
          <YAxis tick={axis} width={40} allowDecimals={false} />
          <Tooltip />
          <Legend wrapperStyle={{ fontSize: 11 }} />
          {policies.map((p) => (
            <Bar key={p} dataKey={p} isAnimationActive={false} fill={policyColor(policies, p)} />
          ))}
        </BarChart>
      </Panel>
      <Panel title="Lost facts per session (sessions)" testId="fleet-chart-lost">
        <BarChart data={lost} margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" stroke="#333" />
          <XAxis dataKey="value" tick={axis} />
          <YAxis tick={axis} width={40} allowDecimals={false} />
          <Tooltip />
          {policies.map((p) => (
            <Bar key={p} dataKey={p} isAnimationActive={false} fill={policyColor(policies, p)} />
          ))}
        </BarChart>
      </Panel>
      <Panel title="Cost (USD) against lost facts, per session" testId="fleet-chart-scatter">
        <ScatterChart margin={{ top: 6, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid strokeDasharray="2 4" stroke="#333" />
          <XAxis type="number" dataKey="cost" name="cost" tick={axis} />
          <YAxis type="number" dataKey="lost" name="lost facts" tick={axis} width={40} allowDecimals={false} />
          <ZAxis range={[24, 24]} />
          <Tooltip cursor={{ strokeDasharray: '3 3' }} />
          {policies.map((p) => (
            <Scatter key={p} name={p} data={points(p)} fill={policyColor(policies, p)} isAnimationActive={false} />
          ))}
        </ScatterChart>
      </Panel>
    </div>
  );
}
