/**
 * Which policy the session is replayed under (sessions open on the agent's own), its source, the
 * replay's totals, and the fallbacks the host reports (unknown model, calibration rejected…).
 * Settings live in the config panel.
 */
import { useState } from 'react';
import { useAppStore } from '../context';
import { fmtTokens, plural } from '../format';
import { tokensOf } from '../model/library-rows';
import { fmtCost } from './Library';
import { PolicyEditor } from './PolicyEditor';

export function PolicyBar() {
  const policies = useAppStore((s) => s.policies);
  const policyId = useAppStore((s) => s.policyId);
  const setPolicy = useAppStore((s) => s.setPolicy);
  const t = useAppStore((s) => s.chart?.totals);
  const warnings = useAppStore((s) => s.chart?.warnings);
  const cache = cacheOf(useAppStore((s) => s.chart?.config));
  const loading = useAppStore((s) => s.chartLoading);
  const summary = useAppStore((s) => s.sessions.find((x) => x.id === s.currentId));
  // A replay on a model without a price bills nothing: its cost is unknown, not $0.
  const priced = useAppStore((s) => (s.chart?.config as { resolved?: { model?: string | null } } | undefined)?.resolved?.model != null);
  const [editing, setEditing] = useState(false);
  const policy = policies.find((p) => p.id === policyId);
  return (
    <>
      <div className="policy-bar">
        <label>
          policy{' '}
          <select data-testid="policy-picker" value={policyId ?? ''} onChange={(e) => void setPolicy(e.target.value)}>
            {policies.map((p) => (
              <option key={p.id} value={p.id}>
                {p.id} — {p.label}
                {p.saved ? ' (saved)' : ''}
              </option>
            ))}
          </select>
        </label>
        <button data-testid="policy-edit" aria-pressed={editing} onClick={() => setEditing(!editing)}>
          Policy JSON…
        </button>
        {policy ? (
          <span className="muted policy-source" title={policy.description}>
            {policy.source}
          </span>
        ) : null}
        {t ? (
          <span className="totals" data-testid="replay-totals">
            <span title="this replay's estimate under the policy: what the calls it makes would bill">
              replayed: billed input {fmtTokens(t.billedInputTokens)} (cache reads {fmtTokens(t.cachedInputTokens)}, writes{' '}
              {fmtTokens(t.cacheWriteTokens ?? 0)}) · {priced ? `$${t.cost.toFixed(4)}` : '— (no price for the model)'}
            </span>{' '}
            · {plural(t.compressions, 'compression')} · peak {fmtTokens(t.peak)} · {plural(t.forcedFinals, 'forced final')} ·{' '}
            {plural(t.aborts, 'abort')} ·{' '}
            <span
              className={t.overflows > 0 ? 'overflow-count' : undefined}
              data-testid="replay-overflows"
              title="calls whose request is above the model's window: a provider rejects them"
            >
              {plural(t.overflows, 'overflow')}
            </span>
          </span>
        ) : null}
        {summary?.reportedUsage ? (
          <span
            className="muted"
            data-testid="reported-totals"
            title="the provider's usage in the transcript, as the library's Tokens and Cost columns count it (prompt with cache, and output)"
          >
            transcript reported {fmtTokens(tokensOf(summary))} tokens (with cache) · {fmtCost(summary.cost)}
          </span>
        ) : null}
        {cache && cache.assumed.length > 0 ? (
          <span className="muted" data-testid="cache-assumed" title={cache.assumed.join('\n')}>
            cost assumes: {cache.assumed.join('; ')}
          </span>
        ) : null}
        {loading ? <span className="muted">replaying…</span> : null}
        {warnings && warnings.length > 0 ? (
          <span className="warning" data-testid="chart-warnings" title={warnings.join('\n')}>
            ⚠ {warnings[0]}
            {warnings.length > 1 ? ` (+${warnings.length - 1})` : ''}
          </span>
        ) : null}
      </div>
      {editing ? <PolicyEditor onClose={() => setEditing(false)} /> : null}
    </>
  );
}

/** What the replay's cost model assumed where the log could not tell (`config.resolved.cache`, docs/cost.md). */
function cacheOf(config: Readonly<Record<string, unknown>> | undefined): { assumed: readonly string[] } | undefined {
  const resolved = config?.['resolved'];
  if (typeof resolved !== 'object' || resolved === null) return undefined;
  const cache = (resolved as Record<string, unknown>)['cache'];
  if (typeof cache !== 'object' || cache === null) return undefined;
  const assumed = (cache as Record<string, unknown>)['assumed'];
  return { assumed: Array.isArray(assumed) ? assumed.filter((a): a is string => typeof a === 'string') : [] };
}
