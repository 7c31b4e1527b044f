/**
 * Budgets over a run, as S3 and S4 describe them (docs/policies.md §Common budgets, §S4).
 * - S4: hard limits per session — 200 turns, 1,000,000 tokens, 200 tool calls, $2.00, 30 minutes;
 *   the run aborts when any is exceeded (the compression check at 80% runs before the abort check).
 * - S3: three layers (session, task, agent), each with a mode — hard (reject), soft (warn and go
 *   on), approval (pause for a human) — a warning threshold, and backpressure delays that grow
 *   with usage: ≥80% → 50 ms, ≥85% → 300 ms, ≥90% → 750 ms, ≥95% → 1500 ms.
 * - S2: the status line `context window at 87% capacity (35,200/40,000 tokens), compaction applied`.
 */
export const BUDGET_DIMENSIONS = ['turns', 'tokens', 'toolCalls', 'cost', 'minutes'] as const;
export type BudgetDimensionName = (typeof BUDGET_DIMENSIONS)[number];
export type BudgetLimits = Readonly<Record<BudgetDimensionName, number>>;
export type BudgetUsage = Readonly<Record<BudgetDimensionName, number>>;

/** S4's session budget. */
export const S4_BUDGET: BudgetLimits = { turns: 200, tokens: 1_000_000, toolCalls: 200, cost: 2.0, minutes: 30 };
/** No limit on any dimension. */
export const UNLIMITED: BudgetLimits = { turns: Infinity, tokens: Infinity, toolCalls: Infinity, cost: Infinity, minutes: Infinity };
export const ZERO_USAGE: BudgetUsage = { turns: 0, tokens: 0, toolCalls: 0, cost: 0, minutes: 0 };

export type BudgetMode = 'hard' | 'soft' | 'approval';
export type BudgetLayerName = 'session' | 'task' | 'agent';

export interface BudgetLayer {
  readonly name: BudgetLayerName;
  readonly limits: BudgetLimits;
  readonly mode: BudgetMode;
  /** Warn when usage passes this fraction of a limit (S3: e.g. 0.8). */
  readonly warningThreshold: number;
  /**
   * How a limit is exceeded: `projected` (S3's CheckBudget, the default): used + pending > max;
   * `used` (S4's check at the start of a turn): used ≥ max, the pending call not counted.
   */
  readonly rule?: 'projected' | 'used';
}

export interface BudgetCheck {
  /** False only in hard mode when a limit would be exceeded. */
  readonly canProceed: boolean;
  /** Approval mode over budget: a human must confirm. */
  readonly requireApproval: boolean;
  /** The first dimension (in BUDGET_DIMENSIONS order) that would be exceeded, and where. */
  readonly exceeded?: {
    readonly layer: BudgetLayerName;
    readonly dimension: BudgetDimensionName;
    readonly used: number;
    readonly max: number;
  };
  readonly warnings: readonly string[];
  /** Highest fraction used over every layer and dimension (for backpressure). */
  readonly usage: number;
}

/**
 * S3's CheckBudget, over every layer: `used + pending > limit` rejects in hard mode, warns in
 * soft mode and asks for approval in approval mode; passing the warning threshold warns.
 */
/**
 * One dimension of one layer, the arithmetic every budget verdict shares: null when the layer sets
 * no limit there; else the usage after the pending work (`next`), and whether it exceeds the limit
 * ("used" layers: reached before the call; "projected": passed by it).
 */
export function dimensionCheck(
  layer: BudgetLayer,
  d: BudgetDimensionName,
  used: BudgetUsage,
  pending: Partial<BudgetUsage>,
): { readonly now: number; readonly next: number; readonly max: number; readonly over: boolean } | null {
  const max = layer.limits[d];
  if (!Number.isFinite(max) || max <= 0) return null;
  const now = used[d];
  const atStart = layer.rule === 'used';
  const next = atStart ? now : now + (pending[d] ?? 0);
  return { now, next, max, over: atStart ? next >= max : next > max };
}

export function checkBudget(layers: readonly BudgetLayer[], used: BudgetUsage, pending: Partial<BudgetUsage> = {}): BudgetCheck {
  let canProceed = true;
  let requireApproval = false;
  let exceeded: BudgetCheck['exceeded'];
  const warnings: string[] = [];
  let usage = 0;
  for (const layer of layers) {
    const atStart = layer.rule === 'used';
    for (const d of BUDGET_DIMENSIONS) {
      const c = dimensionCheck(layer, d, used, pending);
      if (!c) continue;
      const { now, next, max } = c;
      usage = Math.max(usage, now / max);
      if (c.over) {
        exceeded ??= { layer: layer.name, dimension: d, used: next, max };
        if (layer.mode === 'hard') canProceed = false;
        else if (layer.mode === 'approval') requireApproval = true;
        warnings.push(`${layer.name} ${d} budget ${atStart ? 'used up' : 'will be exceeded'} (${fmt(next, d)} of ${fmtMax(max, d)})`);
      } else if (now / max > layer.warningThreshold) {
        warnings.push(`${layer.name} ${d} budget at ${Math.round((now / max) * 100)}% (${fmt(now, d)} of ${fmtMax(max, d)})`);
      }
    }
  }
  return { canProceed, requireApproval, ...(exceeded ? { exceeded } : {}), warnings, usage };
}

/** S4: the first dimension already at or over its limit (the run aborts), else undefined. */
export function exceededDimension(limits: BudgetLimits, used: BudgetUsage): BudgetDimensionName | undefined {
  return BUDGET_DIMENSIONS.find((d) => used[d] >= limits[d]);
}

/** S3's calculateBackpressureDelay. */
export function backpressureDelayMs(usage: number): number {
  if (usage >= 0.95) return 1500;
  if (usage >= 0.9) return 750;
  if (usage >= 0.85) return 300;
  if (usage >= 0.8) return 50;
  return 0;
}

/**
 * Digits grouped by thousands, as `toLocaleString('en-US')` writes a non-negative safe integer —
 * by hand, because ICU's formatting costs microseconds and a soft budget words a reason on every
 * call (S3 over 10,000 calls, replayed once per setting by the tuner). Anything else goes to ICU.
 */
function grouped(r: number): string {
  if (r < 0 || Object.is(r, -0) || !Number.isSafeInteger(r)) return r.toLocaleString('en-US');
  const s = String(r);
  if (s.length <= 3) return s;
  let out = s.slice(0, ((s.length - 1) % 3) + 1);
  for (let i = out.length; i < s.length; i += 3) out += ',' + s.slice(i, i + 3);
  return out;
}
const int = (n: number): string => grouped(Math.round(n));
/**
 * A used amount: money to a hundredth of a cent, so the figure that tripped a budget can be told
 * from the budget itself ($0.0220 of $0.02, never 0.02/0.02); minutes to a tenth.
 */
export function fmt(n: number, d: BudgetDimensionName): string {
  if (d === 'cost') return `$${n.toFixed(4)}`;
  if (d === 'minutes') {
    // Tenths: the whole part grouped, one decimal unless it is 0 (as toLocaleString writes m / 10).
    const m = Math.round(n * 10);
    if (m < 0 || Object.is(m, -0) || !Number.isSafeInteger(m)) return `${(m / 10).toLocaleString('en-US')} min`;
    const tenth = m % 10;
    return `${grouped((m - tenth) / 10)}${tenth ? `.${tenth}` : ''} min`;
  }
  return int(n);
}
/** A budget's own figure, as configured ($2.00, $0.02, 30 min, 1,000,000). */
export function fmtMax(n: number, d: BudgetDimensionName): string {
  if (d === 'cost') return Math.round(n * 100) === n * 100 ? `$${n.toFixed(2)}` : `$${n}`;
  return fmt(n, d);
}

/**
 * S2's status event text. The percentage is truncated like Go's int() conversion; it is the
 * fraction that triggered the action when given (S2's example prints 87% beside 35,200/40,000,
 * i.e. the trigger's measure, not a recomputation of the two numbers shown).
 */
export function capacityStatus(used: number, window: number, action?: string, fraction?: number): string {
  const f = fraction ?? (window > 0 ? used / window : 0);
  const pct = Math.floor(f * 100 + 1e-9);
  return `context window at ${pct}% capacity (${int(used)}/${int(window)} tokens)${action ? `, ${action}` : ''}`;
}

/** S3's cost arithmetic: tokens × price per million. */
export function tokenCost(tokens: number, usdPerMillion: number): number {
  return (tokens * usdPerMillion) / 1_000_000;
}
