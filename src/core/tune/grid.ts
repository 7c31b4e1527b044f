/**
 * The tuner's grid: sweep specs (`key=from:to:step`, or `key=a,b,c` for a list of values) parsed,
 * checked against the one config schema and expanded into the settings to replay — the product of
 * the sweeps, in order (the last sweep varies fastest). A sweep is a set of `--set` overrides, so
 * each setting resolves through the same config path as a replay (config.ts): nothing here knows a
 * policy's rules. Ranges and kinds come from the config panel's fields (config-fields.ts), which
 * read them from the schema itself.
 */
import type { ConfigField } from '../view/config-field';
import { SET_KEY_NAMES, type Overrides } from '../config';

/** Settings a sweep may expand to; past it the grid is refused (a sweep is meant to be looked at). */
export const GRID_CAP = 10_000;

export type SweepValue = string | number | boolean;

export interface Sweep {
  readonly key: string;
  readonly values: readonly SweepValue[];
  /** The spec as given, for messages. */
  readonly spec: string;
}

export class SweepError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SweepError';
  }
}

/** Decimals of a number as written ("0.05" → 2), so 0.1 + 0.2 steps print as 0.3, not 0.30000000000000004. */
const decimalsOf = (text: string): number => {
  const m = /\.(\d+)$/.exec(text.trim()) ?? /e-(\d+)$/i.exec(text.trim());
  return m ? (m[0].startsWith('.') ? m[1]!.length : Number(m[1])) : 0;
};

const numberOf = (spec: string, what: string, text: string): number => {
  const n = text.trim() === '' ? NaN : Number(text);
  if (!Number.isFinite(n)) throw new SweepError(`--sweep ${spec}: ${what} must be a number, got "${text}"`);
  return n;
};

/**
 * `key=from:to:step` (numbers, both ends included) or `key=a,b,c`. Syntax only: which keys and
 * values a policy accepts is `checkSweeps`' job.
 */
export function parseSweep(spec: string): Sweep {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new SweepError(`--sweep "${spec}": expected key=from:to:step or key=a,b,c`);
  const key = spec.slice(0, eq).trim();
  const body = spec.slice(eq + 1).trim();
  if (!SET_KEY_NAMES.includes(key))
    throw new SweepError(`--sweep ${spec}: unknown config key "${key}" (known: ${SET_KEY_NAMES.join(', ')})`);
  if (body === '') throw new SweepError(`--sweep ${spec}: expected values after "=" (from:to:step or a,b,c)`);
  if (body.includes(':')) {
    const parts = body.split(':');
    if (parts.length !== 3) throw new SweepError(`--sweep ${spec}: expected from:to:step (three numbers), got ${parts.length} part(s)`);
    const [fromText, toText, stepText] = parts as [string, string, string];
    const from = numberOf(spec, 'from', fromText);
    const to = numberOf(spec, 'to', toText);
    const step = numberOf(spec, 'step', stepText);
    if (step <= 0) throw new SweepError(`--sweep ${spec}: step must be greater than 0, got ${stepText}`);
    if (to < from) throw new SweepError(`--sweep ${spec}: "to" (${toText}) must be at least "from" (${fromText})`);
    // Counted before the values are made, so a step of 1e-9 is refused without allocating a billion numbers.
    const count = Math.floor((to - from) / step + 1e-9) + 1;
    if (count > GRID_CAP)
      throw new SweepError(
        `--sweep ${spec}: ${count.toLocaleString('en-US')} values, more than the grid cap of ${GRID_CAP.toLocaleString('en-US')}; use a larger step`,
      );
    const decimals = Math.min(12, Math.max(decimalsOf(fromText), decimalsOf(stepText)));
    const values: number[] = [];
    for (let i = 0; i < count; i++) values.push(Number((from + i * step).toFixed(decimals)));
    return { key, values, spec };
  }
  const values = body
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '')
    .map((v): SweepValue => (v === 'true' ? true : v === 'false' ? false : v !== '' && Number.isFinite(Number(v)) ? Number(v) : v));
  if (values.length === 0) throw new SweepError(`--sweep ${spec}: expected at least one value`);
  return { key, values: [...new Set(values)], spec };
}

/**
 * Each sweep's key and values checked against the policy's fields (kind, range, options): the
 * error names the key and what was expected. A key swept twice is refused (the grid would repeat).
 */
export function checkSweeps(sweeps: readonly Sweep[], fields: readonly ConfigField[]): void {
  if (sweeps.length === 0) throw new SweepError('--sweep: give at least one sweep (key=from:to:step)');
  const seen = new Set<string>();
  // A toggle or choice swept beside it may switch a setting on (paths.async beside asyncRatio): only
  // without one is a setting the policy ignores certain to give the same replay at every value.
  const switches = sweeps.some((s) => s.values.some((v) => typeof v !== 'number'));
  for (const s of sweeps) {
    if (seen.has(s.key)) throw new SweepError(`--sweep ${s.spec}: "${s.key}" is swept twice; give its values in one sweep`);
    seen.add(s.key);
    const f = fields.find((x) => x.key === s.key);
    if (!f) throw new SweepError(`--sweep ${s.spec}: "${s.key}" is not a setting of this policy's config`);
    if (!f.applies && !switches)
      throw new SweepError(
        `--sweep ${s.spec}: ${s.key} does nothing under this policy (${f.why ?? 'it is not used'}); every value would replay the same`,
      );
    for (const v of s.values) {
      const problem = valueProblem(f, v);
      if (problem) throw new SweepError(`--sweep ${s.spec}: ${s.key}: ${problem}`);
    }
  }
}

function valueProblem(f: ConfigField, v: SweepValue): string | null {
  switch (f.kind) {
    case 'integer':
    case 'number':
    case 'ratio': {
      if (typeof v !== 'number') return `expected a number, got "${String(v)}"`;
      if (f.kind === 'integer' && !Number.isInteger(v)) return `expected a whole number, got ${v}`;
      // A ratio is above 0 (config.ts: gt(0)); the field's min is 0 only as a slider's end.
      if (f.kind === 'ratio' && v <= 0) return `expected a ratio above 0 and at most 1, got ${v}`;
      if (f.min !== null && v < f.min) return `expected at least ${f.min}${f.unit ? ` ${f.unit}` : ''}, got ${v}`;
      if (f.max !== null && v > f.max) return `expected at most ${f.max}${f.unit ? ` ${f.unit}` : ''}, got ${v}`;
      return null;
    }
    case 'toggle':
      return typeof v === 'boolean' ? null : `expected true or false, got "${String(v)}"`;
    case 'select':
      return f.options && !f.options.includes(String(v)) ? `expected one of ${f.options.join(', ')}, got "${String(v)}"` : null;
    default:
      return `cannot be swept (a ${f.kind} setting); sweep numbers, ratios, toggles or choices`;
  }
}

/** The number of settings the sweeps make (their product). */
export function gridSize(sweeps: readonly Sweep[]): number {
  return sweeps.reduce((n, s) => n * s.values.length, 1);
}

/**
 * Every setting of the grid as overrides on top of `base` (the user's own overrides), the last
 * sweep varying fastest. Refused past `cap`, naming the product.
 */
export function expandGrid(sweeps: readonly Sweep[], base: Overrides = {}, cap = GRID_CAP): Overrides[] {
  const size = gridSize(sweeps);
  if (size > cap)
    throw new SweepError(
      `--sweep: the grid has ${size.toLocaleString('en-US')} settings (${sweeps.map((s) => `${s.values.length.toLocaleString('en-US')} ${s.key}`).join(' × ')}), more than the grid cap of ${cap.toLocaleString('en-US')}; use larger steps or fewer sweeps`,
    );
  const out: Overrides[] = [];
  const at = new Array<number>(sweeps.length).fill(0);
  for (let n = 0; n < size; n++) {
    const o: Record<string, SweepValue> = { ...base };
    sweeps.forEach((s, i) => (o[s.key] = s.values[at[i]!]!));
    out.push(o);
    for (let i = sweeps.length - 1; i >= 0; i--) {
      if (++at[i]! < sweeps[i]!.values.length) break;
      at[i] = 0;
    }
  }
  return out;
}
