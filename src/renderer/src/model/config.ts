/**
 * The config panel's rules, pure: is a value inside its field's range, which field a host error
 * names, and a policy's config with the user's dotted overrides applied (for "save as").
 */
import type { ConfigField } from '../../../shared/api';

export type Override = string | number | boolean;

/** Why `value` cannot go to the host for this field, or null when it can. */
export function fieldProblem(field: ConfigField | undefined, value: Override): string | null {
  if (!field) return null;
  if (field.kind === 'number' || field.kind === 'ratio' || field.kind === 'integer') {
    if (typeof value !== 'number' || !Number.isFinite(value)) return `${field.label}: expected a number`;
    if (field.kind === 'integer' && !Number.isInteger(value)) return `${field.label}: expected a whole number`;
    if (field.min !== null && value < field.min) return `${field.label}: at least ${field.min}${field.unit ? ` ${field.unit}` : ''}`;
    if (field.max !== null && value > field.max) return `${field.label}: at most ${field.max}${field.unit ? ` ${field.unit}` : ''}`;
  }
  if (field.kind === 'select' && field.options && !field.options.includes(String(value)))
    return `${field.label}: one of ${field.options.join(', ')}`;
  return null;
}

/** The override key a host error message names (the longest that occurs in it), else null. */
export function guessFieldKey(message: string, keys: readonly string[]): string | null {
  const named = keys.filter((k) => message.includes(k)).sort((a, b) => b.length - a.length);
  return named[0] ?? (keys.length === 1 ? (keys[0] as string) : null);
}

function applyOne(base: Readonly<Record<string, unknown>>, key: string, value: unknown): Record<string, unknown> {
  const dot = key.indexOf('.');
  if (dot < 0) return { ...base, [key]: value };
  const head = key.slice(0, dot);
  const inner = base[head];
  const innerObj = typeof inner === 'object' && inner !== null && !Array.isArray(inner) ? (inner as Record<string, unknown>) : {};
  return { ...base, [head]: applyOne(innerObj, key.slice(dot + 1), value) };
}

/** `config` with each dotted override (e.g. `budget.tokens`) written into place; the input is not changed. */
export function withOverrides(
  config: Readonly<Record<string, unknown>>,
  overrides: Readonly<Record<string, Override>>,
): Record<string, unknown> {
  let out: Record<string, unknown> = { ...config };
  for (const [k, v] of Object.entries(overrides)) out = applyOne(out, k, v);
  return out;
}
