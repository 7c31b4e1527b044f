/**
 * What the URL remembers (the hash, so the serve token in the query stays apart): session,
 * policy, overrides and the selected call. Pure parse / format, unit-tested.
 */
import type { Override } from './config';
export type { Override };

export interface UrlState {
  session: string | null;
  policy: string | null;
  overrides: Record<string, Override>;
  step: number | null;
}

const isOverride = (v: unknown): v is Override => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';

export function parseUrlState(hash: string): UrlState {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const overrides: Record<string, Override> = {};
  const raw = params.get('o');
  if (raw) {
    try {
      const parsed: unknown = JSON.parse(raw);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        for (const [k, v] of Object.entries(parsed)) if (isOverride(v)) overrides[k] = v;
      }
    } catch {
      // A hand-edited hash that is not JSON: start without overrides rather than fail.
    }
  }
  const stepText = params.get('step');
  const step = stepText !== null && /^\d+$/.test(stepText) ? Number(stepText) : null;
  return { session: params.get('s'), policy: params.get('p'), overrides, step };
}

export function formatUrlState(s: UrlState): string {
  const params = new URLSearchParams();
  if (s.session) params.set('s', s.session);
  if (s.policy) params.set('p', s.policy);
  if (Object.keys(s.overrides).length > 0) params.set('o', JSON.stringify(s.overrides));
  if (s.step !== null) params.set('step', String(s.step));
  return `#${params.toString()}`;
}
