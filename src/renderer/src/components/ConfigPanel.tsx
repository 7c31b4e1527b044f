/**
 * The config panel, rendered from the host's getConfigFields (derived from the config schema,
 * never a hand-kept list): a slider and a number for a ranged number, a select, a toggle, or a
 * text field, each with its unit and valid range. Dragging a slider replays live (debounced in
 * the store); an invalid value marks its field and leaves the last good replay on screen; a
 * setting the policy ignores is disabled and says why. Reset, and save as a named policy.
 */
import { useState } from 'react';
import type { ConfigField } from '../../../shared/api';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../context';
import type { Override } from '../model/config';

const isNumeric = (f: ConfigField): boolean => f.kind === 'number' || f.kind === 'ratio' || f.kind === 'integer';

function show(v: ConfigField['value'] | Override | undefined): string {
  if (v === null || v === undefined) return '';
  return Array.isArray(v) ? v.join(', ') : String(v);
}

function Field({ f }: { f: ConfigField }) {
  const override = useAppStore((s) => s.overrides[f.key]);
  const invalid = useAppStore((s) => (s.invalid?.key === f.key ? s.invalid : null));
  const setOverride = useAppStore((s) => s.setOverride);
  const flushLive = useAppStore((s) => s.flushLive);
  const [draft, setDraft] = useState<string | null>(null);
  const current = override ?? f.value;
  const disabled = !f.applies;
  const range = f.min !== null && f.max !== null ? `${f.min}–${f.max}${f.unit ? ` ${f.unit}` : ''}` : (f.unit ?? '');
  const commitText = (text: string): void => {
    setDraft(null);
    const t = text.trim();
    if (t === '') return void setOverride(f.key, null);
    if (isNumeric(f)) {
      const n = Number(t);
      return void setOverride(f.key, Number.isFinite(n) ? n : t);
    }
    void setOverride(f.key, t);
  };
  let control: React.ReactNode;
  if (f.kind === 'toggle') {
    control = (
      <input
        type="checkbox"
        data-testid={`field-${f.key}`}
        disabled={disabled}
        checked={current === true}
        onChange={(e) => void setOverride(f.key, e.target.checked)}
      />
    );
  } else if (f.kind === 'select' && f.options) {
    control = (
      <select
        data-testid={`field-${f.key}`}
        disabled={disabled}
        value={show(current)}
        onChange={(e) => void setOverride(f.key, e.target.value)}
      >
        {f.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    );
  } else if (isNumeric(f)) {
    const shown = draft ?? (invalid ? show(invalid.value) : show(current));
    control = (
      <>
        {f.min !== null && f.max !== null ? (
          <input
            type="range"
            data-testid={`slider-${f.key}`}
            disabled={disabled}
            min={f.min}
            max={f.max}
            step={f.step ?? (f.kind === 'integer' ? 1 : (f.max - f.min) / 100)}
            value={typeof current === 'number' ? current : f.min}
            onChange={(e) => {
              void setOverride(f.key, Number(e.target.value), true);
              flushLive();
            }}
          />
        ) : null}
        <input
          type="text"
          inputMode="decimal"
          className="num"
          data-testid={`field-${f.key}`}
          placeholder={current === null ? 'unset' : undefined}
          disabled={disabled}
          value={shown}
          onChange={(e) => setDraft(e.target.value)}
          onBlur={(e) => (draft !== null ? commitText(e.target.value) : undefined)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') commitText((e.target as HTMLInputElement).value);
          }}
        />
      </>
    );
  } else {
    control = (
      <input
        type="text"
        data-testid={`field-${f.key}`}
        placeholder={current === null ? 'unset' : undefined}
        disabled={disabled}
        value={draft ?? show(current)}
        onChange={(e) => setDraft(e.target.value)}
        onBlur={(e) => (draft !== null ? commitText(e.target.value) : undefined)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') commitText((e.target as HTMLInputElement).value);
        }}
      />
    );
  }
  return (
    <div
      className={`config-field${invalid ? ' invalid' : ''}${disabled ? ' disabled' : ''}${override !== undefined ? ' overridden' : ''}`}
      data-testid={`config-field-${f.key}`}
      data-invalid={invalid ? 'true' : 'false'}
    >
      <label title={f.description}>
        <span className="field-label">{f.label}</span>
        {control}
        <span className="field-range muted">{range}</span>
      </label>
      {override !== undefined ? (
        <button className="link" title={`back to the policy's ${show(f.policyValue)}`} onClick={() => void setOverride(f.key, null)}>
          ↺
        </button>
      ) : null}
      {invalid ? (
        <div className="field-problem" role="alert" data-testid="field-problem">
          {invalid.message}
        </div>
      ) : null}
      {disabled && f.why ? <div className="field-why muted">{f.why}</div> : null}
    </div>
  );
}

export function ConfigPanel() {
  const fields = useAppStore((s) => s.fields);
  const error = useAppStore((s) => s.fieldsError);
  const invalid = useAppStore((s) => s.invalid);
  const dropped = useAppStore((s) => s.droppedOverrides);
  const overrideKeys = useAppStore(useShallow((s) => Object.keys(s.overrides)));
  // A setting the policy ignores changes nothing: it is not counted as a change (it stays listed, greyed, with why).
  const count = overrideKeys.filter((k) => fields.find((f) => f.key === k)?.applies !== false).length;
  const ignoredCount = overrideKeys.length - count;
  const reset = useAppStore((s) => s.resetOverrides);
  const saveAs = useAppStore((s) => s.savePolicyAs);
  const [name, setName] = useState('');
  const [saveProblem, setSaveProblem] = useState<string | null>(null);
  // The settings this policy uses, by group; the ones it ignores folded away below, each saying why.
  const groups = new Map<string, ConfigField[]>();
  for (const f of fields) if (f.applies) groups.set(f.group, [...(groups.get(f.group) ?? []), f]);
  const ignored = fields.filter((f) => !f.applies);
  return (
    <section className="config-panel" data-testid="config-panel" aria-label="Settings">
      <div className="config-bar">
        <strong>Settings</strong>
        <span className="muted" data-testid="config-changed">
          {count} changed{ignoredCount > 0 ? ` (${ignoredCount} more set but ignored by this policy)` : ''}
        </span>
        <button data-testid="config-reset" disabled={overrideKeys.length === 0} onClick={() => void reset()}>
          Reset
        </button>
      </div>
      {dropped.length > 0 ? (
        <p className="note" data-testid="dropped-overrides">
          Not carried over (the policy has no such setting): {dropped.join(', ')}
        </p>
      ) : null}
      {invalid && !fields.some((f) => f.key === invalid.key) ? (
        <p className="field-problem" role="alert" data-testid="field-problem">
          {invalid.message}
        </p>
      ) : null}
      {error ? <p className="note">Settings unavailable: {error}</p> : null}
      {[...groups].map(([group, fs]) => (
        <fieldset key={group}>
          <legend>{group}</legend>
          {fs.map((f) => (
            <Field key={f.key} f={f} />
          ))}
        </fieldset>
      ))}
      {ignored.length > 0 ? (
        <details className="ignored-fields" data-testid="ignored-fields">
          <summary>Settings this policy ignores ({ignored.length})</summary>
          {ignored.map((f) => (
            <Field key={f.key} f={f} />
          ))}
        </details>
      ) : null}
      <div className="save-as">
        <input data-testid="save-as-name" placeholder="save as… (name)" value={name} onChange={(e) => setName(e.target.value)} />
        <button
          data-testid="save-as"
          disabled={name.trim() === ''}
          onClick={() =>
            void saveAs(name).then((p) => {
              setSaveProblem(p);
              if (!p) setName('');
            })
          }
        >
          Save policy
        </button>
        {saveProblem ? (
          <p className="field-problem" role="alert">
            {saveProblem}
          </p>
        ) : null}
      </div>
    </section>
  );
}
