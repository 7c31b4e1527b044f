/**
 * Helpers the replay and policy tests share: prose of a known length (so estimates can be worked
 * out by hand), a chat of N turns, a built-in policy with overrides, and readers of a result.
 */
import type { ReplayConfigInput } from '../../src/core/config';
import type { Message } from '../../src/core/model';
import { getPolicy } from '../../src/core/policies/index';
import { STEP_STATUSES, type ReplayEvent, type ReplayResult } from '../../src/core/replay/types';
import { assistant, user } from './session';

/** `chars` characters of one repeated word (chars4: chars / 4 tokens). */
export const prose = (chars: number, tag = 'w'): string => (tag + ' ').repeat(chars).slice(0, chars);

/** `turns` user/assistant pairs of `chars` characters each. */
export function chat(turns: number, chars = 400): Message[] {
  const out: Message[] = [];
  for (let t = 0; t < turns; t++) out.push(user(prose(chars, `u${t}`)), assistant(prose(chars, `a${t}`)));
  return out;
}

/** A built-in policy's config with `extra` on top. */
export const policy = (id: string, extra: ReplayConfigInput = {}): ReplayConfigInput => ({ ...getPolicy(id)!.config, ...extra });
export const compressions = (r: ReplayResult) =>
  r.events.filter((e): e is Extract<ReplayEvent, { kind: 'compression' }> => e.kind === 'compression');
export const statusAt = (r: ReplayResult, i: number) => STEP_STATUSES[r.steps.status[i]!]!;
export const reasonAt = (r: ReplayResult, i: number) => r.steps.reasons[r.steps.reasonIndex[i]!]!;
