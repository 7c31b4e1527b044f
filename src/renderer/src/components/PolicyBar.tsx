/**
 * Which policy the session is replayed under, the few settings people tweak most, and the
 * replay's totals. Every change re-runs the replay on the host.
 */
import { useState } from 'react';
import { useAppStore } from '../context';
import { fmtInt, fmtTokens } from '../format';
import { PolicyEditor } from './PolicyEditor';

const TWEAKS: { key: string; label: string; placeholder: string }[] = [
  { key: 'window', label: 'window', placeholder: 'tokens' },
  { key: 'trigger', label: 'trigger', placeholder: '0–1' },
  { key: 'target', label: 'target', placeholder: '0–1' },
  { key: 'tokenizer', label: 'tokenizer', placeholder: 'id' },
];

function Tweak({ k, label, placeholder }: { k: string; label: string; placeholder: string }) {
  const value = useAppStore((s) => s.overrides[k]);
  const setOverride = useAppStore((s) => s.setOverride);
  const [draft, setDraft] = useState<string | null>(null);
  const commit = (text: string) => {
    setDraft(null);
    const n = Number(text);
    void setOverride(k, text.trim() === '' ? null : Number.isFinite(n) && text.trim() !== '' ? n : text.trim());
  };
  return (
    <label className="tweak">
      {label}
      <input
        data-testid={`override-${k}`}
        placeholder={placeholder}
        value={draft ?? (value === undefined ? '' : String(value))}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={(e) => commit(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commit((e.target as HTMLInputElement).value);
        }}
      />
    </label>
  );
}

export function PolicyBar() {
  const policies = useAppStore((s) => s.policies);
  const policyId = useAppStore((s) => s.policyId);
  const setPolicy = useAppStore((s) => s.setPolicy);
  const replay = useAppStore((s) => s.replay);
  const replaying = useAppStore((s) => s.replaying);
  const comparePolicyId = useAppStore((s) => s.comparePolicyId);
  const setComparePolicy = useAppStore((s) => s.setComparePolicy);
  const [editing, setEditing] = useState(false);
  const policy = policies.find((p) => p.id === policyId);
  const t = replay?.totals;
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
        Policy…
      </button>
      <label>
        compare with{' '}
        <select data-testid="compare-picker" value={comparePolicyId ?? ''} onChange={(e) => void setComparePolicy(e.target.value || null)}>
          <option value="">—</option>
          {policies.map((p) => (
            <option key={p.id} value={p.id}>
              {p.id}
            </option>
          ))}
        </select>
      </label>
      {TWEAKS.map((tw) => (
        <Tweak key={tw.key} k={tw.key} label={tw.label} placeholder={tw.placeholder} />
      ))}
      {replaying ? <span className="muted">replaying…</span> : null}
      {t ? (
        <span className="totals" data-testid="replay-totals">
          billed input {fmtTokens(t.billedInputTokens)} · ${t.cost.toFixed(4)} · {fmtInt(t.compressions)} compressions · peak {fmtTokens(t.peak)} · {fmtInt(t.forcedFinals)} forced finals ·{' '}
          {fmtInt(t.aborts)} aborts
        </span>
      ) : null}
      {policy ? <span className="muted policy-source" title={policy.description}>{policy.source}</span> : null}
    </div>
    {editing ? <PolicyEditor onClose={() => setEditing(false)} /> : null}
    </>
  );
}
