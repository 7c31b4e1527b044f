/**
 * The guard at the selected call: its status and reason, the request against the limit the
 * policy enforces and the trigger, how that limit is derived (formula, each part and where it
 * comes from), every budget dimension in force, and for a compression its before / after.
 */
import { useAppStore } from '../context';
import { STATUS_COLOR } from '../colors';
import { fmtInt } from '../format';
import { agentCompactionNote } from '../model/agent-compaction';

const pct = (used: number, of: number): string => (of > 0 ? `${((used / of) * 100).toFixed(1)}%` : '—');

export function GuardStatus() {
  const d = useAppStore((s) => s.stepDetail);
  const error = useAppStore((s) => s.stepDetailError);
  const selected = useAppStore((s) => s.selectedStep);
  const chart = useAppStore((s) => s.chart);
  if (selected === null)
    return (
      <section className="guard-status empty" data-testid="guard-status">
        Select a call (click the chart, a message or an event, or press →).
      </section>
    );
  if (!d)
    return (
      <section className="guard-status empty" data-testid="guard-status">
        {error ? `Step detail unavailable: ${error}` : 'Loading…'}
      </section>
    );
  const overLimit = d.request > d.limit.value;
  const overWindow = d.request > d.window.value;
  const agent = agentCompactionNote(chart, d);
  return (
    <section className="guard-status" data-testid="guard-status" data-step={d.step} data-status={d.status}>
      <header>
        <span
          className={`status-badge status-${d.status}`}
          style={{ borderColor: STATUS_COLOR[d.status] }}
          data-testid="guard-status-badge"
        >
          {d.status}
        </span>
        <strong> call #{d.step}</strong>{' '}
        <span className="muted">
          of {fmtInt(d.stepCount)} · turn {d.turn} · message #{d.messageIndex}
        </span>
      </header>
      <p className="reason" data-testid="guard-reason">
        {d.reason ? <bdi>{d.reason}</bdi> : <span className="muted">no reason recorded (the request is within every limit)</span>}
      </p>
      <table className="numbers">
        <tbody>
          <tr className={overLimit ? 'over' : ''}>
            <td>request</td>
            <td data-testid="guard-request">{fmtInt(d.request)}</td>
            <td>
              {pct(d.request, d.limit.value)} of the limit{overLimit ? ' — ABOVE' : ''}
            </td>
          </tr>
          <tr>
            <td>limit</td>
            <td data-testid="guard-limit">{fmtInt(d.limit.value)}</td>
            <td className="formula">
              <bdi>{d.limit.formula}</bdi>
            </td>
          </tr>
          {d.limit.parts.map((p) => (
            <tr key={p.name} className="part">
              <td>· {p.name}</td>
              <td>{fmtInt(p.value)}</td>
              <td className="muted">from {p.source}</td>
            </tr>
          ))}
          <tr>
            <td>trigger</td>
            <td>{d.trigger ? fmtInt(d.trigger.value) : '—'}</td>
            <td className="muted">
              {d.trigger
                ? `${d.trigger.basis}${d.request > d.trigger.value ? ' — crossed' : ''}`
                : 'the policy triggers on message count only'}
            </td>
          </tr>
          <tr className={overWindow ? 'over' : ''}>
            <td>window</td>
            <td>{fmtInt(d.window.value)}</td>
            <td className="muted">
              from {d.window.source}
              {overWindow ? ' — request ABOVE the window' : ''}
            </td>
          </tr>
          <tr>
            <td>reported</td>
            <td>{d.reported === null ? '—' : fmtInt(d.reported)}</td>
            <td className="muted">
              {d.reported === null
                ? 'the transcript has no usage for this call'
                : "the provider's prompt tokens for the original agent's call (its own context, not this replay's)"}
            </td>
          </tr>
        </tbody>
      </table>
      {d.budgets.length > 0 ? (
        <table className="budgets" data-testid="guard-budgets">
          <thead>
            <tr>
              <th>budget (layer)</th>
              <th>used</th>
              <th>limit</th>
              <th>%</th>
            </tr>
          </thead>
          <tbody>
            {d.budgets.map((b) => (
              <tr key={`${b.layer}/${b.dimension}`} className={b.pct >= 100 ? 'over' : ''} data-testid={`guard-budget-${b.dimension}`}>
                <td>
                  {b.dimension} <span className="muted">({b.layer})</span>
                </td>
                <td>
                  {fmtInt(b.used)}
                  {/* S3's (docs/policies.md §S3) projected request: the layer counts the tokens this call would send, so the % is of both. */}
                  {b.pending !== undefined ? (
                    <span className="pending" data-testid="guard-budget-pending">
                      {' '}
                      + {fmtInt(b.pending)} this request
                    </span>
                  ) : null}
                </td>
                <td>{fmtInt(b.limit)}</td>
                <td>{b.pct.toFixed(1)}%</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">No budget dimension in force.</p>
      )}
      {d.compression ? (
        <div className="compression" data-testid="guard-compression">
          <strong>{d.compression.path} compression</strong> <span className="muted">({d.compression.strategy})</span>
          <div>
            {fmtInt(d.compression.tokensBefore)} → {fmtInt(d.compression.tokensAfter)} tokens (
            {fmtInt(d.compression.tokensBefore - d.compression.tokensAfter)} removed)
          </div>
          {d.compression.note ? (
            <div className="muted">
              <bdi>{d.compression.note}</bdi>
            </div>
          ) : null}
        </div>
      ) : null}
      {agent ? (
        <p className="agent-compaction" data-testid="guard-agent-compaction">
          <bdi>{agent}</bdi>
        </p>
      ) : null}
    </section>
  );
}
