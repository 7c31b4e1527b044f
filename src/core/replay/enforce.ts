/**
 * The two numbers every step shows beside its request (docs/policies.md §Common, "limit and
 * trigger"): the limit the step's policy enforces, and the policy's compression trigger in tokens.
 * Also the target a compression aims at. Pure arithmetic on the config and the resolved window.
 */
import type { ResolvedLimits } from '../budget/limits';
import type { ReplayConfig } from '../config';

/** docs/policies.md §Presets: Claude Code's threshold is never set below half the window. */
export const AUTO_COMPACT_FLOOR = 0.5;

export interface Enforcement {
  /** The limit the policy enforces on a request (a fallback model's own limit replaces it on a skipped call). */
  readonly limit: number;
  /** How `limit` is derived, in words (e.g. "window − buffer − maxOutput"). */
  readonly limitBasis: string;
  /** The proactive trigger in tokens; NaN when the policy triggers on a message count or has no proactive check. */
  readonly trigger: number;
  /** What the trigger is a ratio of, named for reasons ("window", "limit", "token budget"). */
  readonly basisName: string;
  /** The tokens `trigger` and `target` are ratios of. */
  readonly basisTokens: number;
  /** The size a proactive compression aims at (whole request). */
  readonly target: number;
  /** Set when the config's trigger was degenerate and had to be clamped (a warning event). */
  readonly clampWarning?: string;
}

const int = (n: number): string => Math.round(n).toLocaleString('en-US');

export function enforcementOf(config: ReplayConfig, limits: ResolvedLimits): Enforcement {
  const window = limits.window;
  const budgetTokens = config.budget.tokens;
  // A budget basis with the token budget removed (budget: {}) falls back to the window, said in a warning.
  const noBudget = budgetTokens === undefined && (config.triggerBasis === 'budget' || config.limitRule === 'budget');
  const [basisTokens, basisName] =
    config.triggerBasis === 'limit'
      ? [limits.limit, 'limit']
      : config.triggerBasis === 'budget' && budgetTokens !== undefined
        ? [budgetTokens, 'token budget']
        : [window, 'window'];

  let trigger: number;
  let clampWarning: string | undefined;
  // No proactive check (S1), or a message-count trigger: no token trigger.
  if (config.triggerMessages !== undefined || !config.paths.proactive) trigger = NaN;
  else if (config.triggerTokens !== undefined) trigger = config.triggerTokens;
  else if (config.autoCompact) {
    const { reserve, pct, cap } = config.autoCompact;
    const raw = Math.min(Math.floor((window - reserve) * pct), window - cap);
    const floor = Math.floor(window * AUTO_COMPACT_FLOOR);
    trigger = Math.max(raw, floor);
    if (raw < floor)
      clampWarning = `auto-compact threshold min(floor((${int(window)} − ${int(reserve)}) × ${pct}), ${int(window)} − ${int(cap)}) = ${int(raw)} is below half the window: clamped to ${int(floor)} (docs/policies.md §Presets)`;
  } else trigger = config.trigger * basisTokens;

  // Without a guard or a proactive check, nothing but the window's own arithmetic is enforced.
  const rule = config.limitRule ?? (config.paths.guard || !config.paths.proactive ? 'guard' : 'trigger');
  let limit: number;
  let limitBasis: string;
  switch (rule) {
    case 'guard':
      [limit, limitBasis] = [limits.limit, 'window − buffer − maxOutput'];
      break;
    case 'basis':
      [limit, limitBasis] = [basisTokens, basisName];
      break;
    case 'budget':
      [limit, limitBasis] = budgetTokens !== undefined ? [budgetTokens, 'token budget'] : [basisTokens, basisName];
      break;
    default:
      // A message-count trigger has no token threshold: the window is what the policy must respect.
      [limit, limitBasis] = Number.isNaN(trigger) ? [window, 'window'] : [trigger, 'trigger'];
  }
  const target = config.autoCompact ? config.target * window : config.target * basisTokens;
  if (noBudget)
    clampWarning = 'the trigger is a share of the token budget, but budget.tokens is not set: it is taken of the window instead';
  return { limit, limitBasis, trigger, basisName, basisTokens, target, ...(clampWarning ? { clampWarning } : {}) };
}

/** The proactive comparison (docs/policies.md §Common): S3 fires at its trigger, the others past it. */
export function overTrigger(config: ReplayConfig, request: number, trigger: number): boolean {
  return config.triggerWhen === 'at-or-above' ? request >= trigger : request > trigger;
}
