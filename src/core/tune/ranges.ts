/**
 * The tuner's first ranges and the values it refuses before running, from the session and the
 * setting rather than from a slider's ends: a window is swept from the session's largest request
 * to the model's window (a smaller window than the first call's request makes every replay fail
 * on that call; a larger one than the model's is not one the provider offers), a trigger-like
 * share from 0.5 to 0.95, and the setting swept first is the one the policy's trigger acts on
 * (claude-code: its auto-compact share; docs/user-guide.md, tuner).
 */
import type { ConfigField } from '../view/config-field';

/** What the session says about the values that can work. */
export interface SweepContext {
  /** The largest request of the session (the provider's count where reported, else the replay's). */
  readonly largestRequest: number | null;
  /** The smallest request of the replay: the first call's, which no compression can shrink. */
  readonly smallestRequest: number | null;
  /** The model's own window (the catalog's, the transcript's or the provider's), not an override. */
  readonly modelWindow: number | null;
}

export interface SweepRange {
  readonly key: string;
  readonly from: number;
  readonly to: number;
  readonly step: number;
}

/** Shares that decide when compression fires: swept from 0.5 to 0.95 (under 0.5 it compresses all the time). */
const TRIGGER_SHARES = new Set(['trigger', 'warnAt', 'asyncRatio']);
/** Token settings that are a window-sized size. */
const WINDOW_SIZED = new Set(['window', 'triggerTokens']);

const round = (n: number, decimals: number): number => Number(n.toFixed(decimals));
/** A step that makes about ten values, rounded to a plain number (1, 2, 5 × a power of ten). */
function niceStep(span: number, integer: boolean): number {
  if (!(span > 0)) return 1;
  const raw = span / 10;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  const step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
  return integer ? Math.max(1, Math.round(step)) : round(step, 6);
}

const usable = (f: ConfigField): boolean => (f.kind === 'number' || f.kind === 'ratio' || f.kind === 'integer') && f.applies;

/**
 * The setting a first sweep varies: the one the policy's trigger acts on — the auto-compact share
 * when the policy compacts by that formula, a message-count or absolute trigger when one is set,
 * else the trigger share, else the first number the policy uses.
 */
export function preferredSweepKey(fields: readonly ConfigField[]): string | null {
  const ok = fields.filter(usable);
  const byKey = (k: string): ConfigField | undefined => ok.find((f) => f.key === k);
  const set = (k: string): boolean => byKey(k)?.value !== null && byKey(k)?.value !== undefined;
  for (const k of [
    'autoCompact.pct',
    ...(set('triggerMessages') ? ['triggerMessages'] : []),
    ...(set('triggerTokens') ? ['triggerTokens'] : []),
    'trigger',
    'slidingWindow',
    'recents',
  ])
    if (byKey(k)) return k;
  return ok[0]?.key ?? null;
}

/** The first range of a sweep of `f` on this session. */
export function defaultRange(f: ConfigField, ctx: SweepContext): SweepRange {
  const v = typeof f.value === 'number' ? f.value : typeof f.policyValue === 'number' ? f.policyValue : null;
  if (f.kind === 'ratio') {
    if (TRIGGER_SHARES.has(f.key)) return { key: f.key, from: 0.5, to: 0.95, step: 0.05 };
    if (f.key === 'autoCompact.pct') return { key: f.key, from: 0.5, to: 1, step: 0.05 };
    const c = v ?? 0.5;
    return { key: f.key, from: round(Math.max(0.05, c - 0.3), 2), to: round(Math.min(1, c + 0.1), 2), step: 0.05 };
  }
  if (WINDOW_SIZED.has(f.key) && ctx.modelWindow !== null) {
    const top = f.key === 'window' ? ctx.modelWindow : Math.min(ctx.modelWindow, v ?? ctx.modelWindow);
    // From the largest request (every call fits) — or, when the session outgrew this model, from the first call's.
    const low = ctx.largestRequest !== null && ctx.largestRequest < top ? ctx.largestRequest : (ctx.smallestRequest ?? top / 2);
    const step = niceStep(top - low, true);
    const from = Math.min(top, Math.ceil(low / step) * step);
    return { key: f.key, from, to: top, step };
  }
  const c = v ?? f.min ?? 1;
  const lo = Math.max(f.min ?? 0, f.kind === 'integer' ? Math.max(1, Math.round(c / 4)) : c / 4);
  const hi = Math.max(lo, f.max !== null ? Math.min(f.max, c * 2) : c * 2);
  return { key: f.key, from: lo, to: hi, step: hi > lo ? niceStep(hi - lo, f.kind === 'integer') : 1 };
}

/**
 * Why a sweep of `f` from `from` to `to` cannot run on this session; null when it can. Checked
 * before the sweep is sent, so the person sees it beside the numbers, not after a run of failures.
 */
export function rangeProblem(f: ConfigField, from: number, to: number, ctx: SweepContext): string | null {
  if (!Number.isFinite(from) || !Number.isFinite(to)) return `${f.key}: give both ends as numbers`;
  if (to < from) return `${f.key}: "to" (${to}) must be at least "from" (${from})`;
  if (f.kind === 'ratio' && from <= 0) return `${f.key} is a share above 0 and at most 1, got ${from}`;
  if (f.min !== null && from < f.min) return `${f.key}: expected at least ${f.min}${f.unit ? ` ${f.unit}` : ''}, got ${from}`;
  if (f.max !== null && to > f.max) return `${f.key}: expected at most ${f.max}${f.unit ? ` ${f.unit}` : ''}, got ${to}`;
  if (f.key === 'window') {
    if (ctx.smallestRequest !== null && from < ctx.smallestRequest)
      return `window ${fmt(from)} is below the first call's request (${fmt(ctx.smallestRequest)} tokens), which no compression can shrink: every setting would overflow`;
    if (ctx.modelWindow !== null && to > ctx.modelWindow)
      return `window ${fmt(to)} is above the model's window (${fmt(ctx.modelWindow)} tokens): the provider would not take such a request`;
  }
  if (f.key === 'triggerTokens' && ctx.smallestRequest !== null && from < ctx.smallestRequest)
    return `triggerTokens ${fmt(from)} is below the first call's request (${fmt(ctx.smallestRequest)} tokens): it would compress at every call`;
  return null;
}

const fmt = (n: number): string => Math.round(n).toLocaleString('en-US');
