/**
 * The per-step output (docs/policies.md §Common, regions): typed arrays, one slot per call —
 * regions bottom to top (output and buffer reserved, free what is left), the request, the limit
 * the step's policy enforces and its trigger, status and reason. The regions of a compress step
 * show the request sent after the compression.
 */
import { REGIONS, STEP_STATUSES, type ReplaySteps, type StepStatus } from './types';
import type { DeferredReason, ReplayState, StepDecision } from './state';

const STATUS_CODE = Object.fromEntries(STEP_STATUSES.map((s, i) => [s, i])) as Record<StepStatus, number>;

export class StepArrays {
  readonly regions: Record<(typeof REGIONS)[number], Float64Array>;
  readonly total: Float64Array;
  readonly limit: Float64Array;
  readonly trigger: Float64Array;
  readonly reported: Float64Array;
  /** Per call as cost.ts billed it: cache reads, cache writes, cost (USD). */
  readonly cacheRead: Float64Array;
  readonly cacheWrite: Float64Array;
  readonly cost: Float64Array;
  readonly status: Uint8Array;
  readonly reasonIndex: Uint16Array;
  readonly keptFrom: Uint32Array;
  /** Reason texts by index; a deferred one is '' until it is worded (`textOf`). */
  private readonly reasons: string[] = [''];
  private readonly reasonIds = new Map<string, number>([['', 0]]);
  /** Per reason index: the words of a deferred reason (undefined: the text is in `reasons`). */
  private deferredWords: (DeferredReason['words'] | undefined)[] = [undefined];
  /** Per reason index: its numbers (DEFERRED_NUMBERS each) and name. */
  private deferredNumbers = new Float64Array(DEFERRED_NUMBERS * 64);
  private deferredNames: string[] = [''];
  /** Deferred reasons not worded yet (0: `reasons` is complete). */
  private unworded = 0;

  /**
   * `lean`: no reason is recorded (every reasonIndex 0), as ReplayOptions.detail 'totals' asks.
   * `fixed`: the run's system, unlogged and tools tokens, the same at every call (its counts'):
   * those regions are then columns of that one value shared with other runs (`constantColumn`),
   * never written, as the trigger's always is.
   */
  constructor(
    readonly count: number,
    private readonly triggerTokens: number,
    private readonly lean = false,
    private readonly fixed?: FixedRegions,
  ) {
    this.regions = Object.fromEntries(
      REGIONS.map((r) => [r, fixed && isFixed(r) ? constantColumn(count, fixed[r]) : new Float64Array(count)]),
    ) as Record<(typeof REGIONS)[number], Float64Array>;
    this.total = new Float64Array(count);
    this.limit = new Float64Array(count);
    this.trigger = constantColumn(count, triggerTokens);
    this.reported = new Float64Array(count).fill(NaN);
    this.cacheRead = new Float64Array(count);
    this.cacheWrite = new Float64Array(count);
    this.cost = new Float64Array(count);
    this.status = new Uint8Array(count);
    this.reasonIndex = new Uint16Array(count);
    this.keptFrom = new Uint32Array(count);
  }

  /** Reasons named so far ('' included). */
  get reasonCount(): number {
    return this.reasons.length;
  }

  /**
   * These steps and room for more, for a run continued over a grown session (resume.ts): the
   * first `filled` steps and the first `reasons` reasons (what the run recorded itself: a copy that
   * made its last call may have written more into these arrays) are copied; this object (a result
   * reads its arrays) stays as it is.
   */
  grownTo(count: number, filled = this.count, reasons = this.reasons.length): StepArrays {
    const g = new StepArrays(count, this.triggerTokens, this.lean, this.fixed);
    const n = Math.min(count, this.count, filled);
    // A fixed region and the trigger are shared columns of the same value: nothing to copy.
    for (const r of REGIONS) if (!(this.fixed && isFixed(r))) g.regions[r].set(this.regions[r].subarray(0, n));
    g.total.set(this.total.subarray(0, n));
    g.limit.set(this.limit.subarray(0, n));
    g.reported.set(this.reported.subarray(0, n));
    g.cacheRead.set(this.cacheRead.subarray(0, n));
    g.cacheWrite.set(this.cacheWrite.subarray(0, n));
    g.cost.set(this.cost.subarray(0, n));
    g.status.set(this.status.subarray(0, n));
    g.reasonIndex.set(this.reasonIndex.subarray(0, n));
    g.keptFrom.set(this.keptFrom.subarray(0, n));
    for (let q = 1; q < Math.min(reasons, this.reasons.length); q++) {
      const words = this.deferredWords[q];
      g.reasons.push(this.reasons[q]!);
      g.deferredWords.push(words);
      g.deferredNames.push(this.deferredNames[q]!);
      if (words === undefined) g.reasonIds.set(this.reasons[q]!, q);
      else {
        g.room(q);
        g.deferredNumbers.set(this.deferredNumbers.subarray(q * DEFERRED_NUMBERS, (q + 1) * DEFERRED_NUMBERS), q * DEFERRED_NUMBERS);
        // Worded here already or not: the copy words it again from the same numbers if it is not.
        if (this.reasons[q] === '') g.unworded++;
      }
    }
    return g;
  }

  /** deferredNumbers holds index `id`. */
  private room(id: number): void {
    if ((id + 1) * DEFERRED_NUMBERS <= this.deferredNumbers.length) return;
    // Four times larger: a policy with a deferred reason at every call grows it a few times, not a dozen (each a new array zeroed and copied).
    const grown = new Float64Array(Math.max((id + 1) * DEFERRED_NUMBERS, this.deferredNumbers.length * 4));
    grown.set(this.deferredNumbers);
    this.deferredNumbers = grown;
  }

  /**
   * An index of its own for a deferred reason (its numbers kept, no text yet). Deferred reasons
   * are not interned: readers compare texts, never indices (two equal texts may have two indices).
   */
  private deferredOf(r: DeferredReason): number {
    // The same reason as the call before (a run of calls saying the same) shares its index: the
    // 65,535 indices go as far as interned texts went for the reasons now deferred.
    const last = this.reasons.length - 1;
    if (
      last > 0 &&
      this.deferredWords[last] === r.words &&
      this.deferredNames[last] === r.name &&
      this.sameNumbers(last * DEFERRED_NUMBERS, r)
    )
      return last;
    const id = this.reasons.length;
    if (id >= 65535) return 0;
    this.room(id);
    const n = this.deferredNumbers;
    const at = id * DEFERRED_NUMBERS;
    n[at] = r.n0;
    n[at + 1] = r.n1;
    n[at + 2] = r.n2;
    n[at + 3] = r.n3;
    n[at + 4] = r.n4;
    n[at + 5] = r.n5;
    this.reasons.push('');
    this.deferredWords.push(r.words);
    this.deferredNames.push(r.name);
    this.unworded++;
    return id;
  }

  /** Whether the numbers kept at `at` are r's. */
  private sameNumbers(at: number, r: DeferredReason): boolean {
    const n = this.deferredNumbers;
    return (
      same(n[at]!, r.n0) &&
      same(n[at + 1]!, r.n1) &&
      same(n[at + 2]!, r.n2) &&
      same(n[at + 3]!, r.n3) &&
      same(n[at + 4]!, r.n4) &&
      same(n[at + 5]!, r.n5)
    );
  }

  /** The text of reason `id`, worded now if it was deferred. */
  textOf(id: number): string {
    const words = this.deferredWords[id];
    if (words === undefined || this.reasons[id] !== '') return this.reasons[id] ?? '';
    const text = words(this.deferredNumbers, id * DEFERRED_NUMBERS, this.deferredNames[id]!);
    this.reasons[id] = text;
    this.unworded--;
    return text;
  }

  /**
   * `ofText` of reason `id`'s text. A deferred reason not worded yet whose words have a
   * TemplateHint, with numbers the hint calls plain, is not worded: its template is the one of the
   * same words on stand-in numbers, made once per hint key (the chart view reads a template per
   * call, and wording every warning of a policy over its trigger at every call cost what deferring
   * them saved).
   */
  templateOf(id: number, ofText: (text: string) => string, worded?: Map<number, string>): string {
    const words = this.deferredWords[id];
    const hint = words === undefined || this.reasons[id] !== '' ? undefined : templateHints.get(words);
    if (hint === undefined) return this.wordedTemplate(id, ofText, worded);
    const at = id * DEFERRED_NUMBERS;
    const name = this.deferredNames[id]!;
    const code = hint.key(this.deferredNumbers, at);
    if (code < 0) return this.wordedTemplate(id, ofText, worded);
    // The call before mostly had the same: one comparison, no look-up.
    const last = this.lastTemplate;
    if (last && last.words === words && last.code === code && last.name === name && last.ofText === ofText) return last.template;
    let byFn = hintTemplates.get(ofText);
    if (!byFn) hintTemplates.set(ofText, (byFn = new Map()));
    let byKey = byFn.get(words!);
    if (!byKey) byFn.set(words!, (byKey = new Map()));
    const key = `${code}\u0000${name}`;
    let template = byKey.get(key);
    if (template === undefined) {
      if (byKey.size >= 1024) byKey.clear();
      byKey.set(key, (template = ofText(words!(hint.standIn(this.deferredNumbers, at), 0, name))));
    }
    this.lastTemplate = { words: words!, code, name, ofText, template };
    return template;
  }
  /** `ofText` of reason `id` worded, kept in `worded` by id when given (a reader asking for many). */
  private wordedTemplate(id: number, ofText: (text: string) => string, worded: Map<number, string> | undefined): string {
    let t = worded?.get(id);
    if (t === undefined) {
      t = ofText(this.textOf(id));
      worded?.set(id, t);
    }
    return t;
  }
  private lastTemplate:
    | {
        readonly words: DeferredReason['words'];
        readonly code: number;
        readonly name: string;
        readonly ofText: (text: string) => string;
        readonly template: string;
      }
    | undefined;

  /** Every reason as text (the deferred ones worded now, once). */
  private allReasons(): readonly string[] {
    for (let id = 1; this.unworded > 0 && id < this.reasons.length; id++) this.textOf(id);
    return this.reasons;
  }

  private reasonOf(text: string): number {
    // Most calls have no reason: no hashing for them.
    if (text === '') return 0;
    let id = this.reasonIds.get(text);
    if (id === undefined) {
      id = this.reasons.length;
      if (id >= 65535) return 0;
      this.reasons.push(text);
      this.deferredWords.push(undefined);
      this.deferredNames.push('');
      this.reasonIds.set(text, id);
    }
    return id;
  }

  /** The call of step j, as the handlers decided it, with the window as it is now. */
  record(s: ReplayState, j: number, k: number, request: number, d: StepDecision): void {
    const c = s.counts;
    const history = s.win.historyTokens(k);
    const r = this.regions;
    if (!this.fixed) {
      r.system[j] = c.system;
      r.unlogged[j] = c.unlogged;
      r.tools[j] = c.tools;
    }
    r.summary[j] = s.summaryTokens;
    r.history[j] = history;
    const room = Math.max(0, s.limits.window - request);
    r.output[j] = Math.min(s.limits.maxOutput, room);
    r.buffer[j] = Math.min(s.limits.buffer, room - r.output[j]!);
    r.free[j] = room - r.output[j]! - r.buffer[j]!;
    this.total[j] = request;
    this.limit[j] = d.limit;
    this.status[j] = STATUS_CODE[d.status];
    if (!this.lean)
      this.reasonIndex[j] = d.reason === '' && d.deferred !== undefined ? this.deferredOf(d.deferred) : this.reasonOf(d.reason);
    this.keptFrom[j] = s.win.keepBefore[0] ?? s.win.from;
  }

  /** A call after the run ended (abort, or the forced final turn taken): it would not have happened. */
  recordEnded(s: ReplayState, j: number, ended: 'abort' | 'final'): void {
    for (const r of REGIONS) if (!(this.fixed && isFixed(r))) this.regions[r][j] = this.regions[r][j - 1] ?? 0;
    this.total[j] = this.total[j - 1] ?? 0;
    this.limit[j] = this.limit[j - 1] ?? s.enforcement.limit;
    this.status[j] = STATUS_CODE[ended];
    if (!this.lean)
      this.reasonIndex[j] = this.reasonOf(
        ended === 'abort'
          ? 'after the abort: this call would not have happened'
          : 'after the forced final turn: this call would not have happened',
      );
    this.keptFrom[j] = s.win.keepBefore[0] ?? s.win.from;
  }

  /**
   * The steps as a result holds them. `reasons` keeps its contract (text by index) as a getter that
   * words every deferred reason the first time it is read; `stepReason` words only the one asked for.
   */
  result(messageIndex: Uint32Array, turn: Uint32Array): ReplaySteps {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- the getter below is the object's, the arrays are this one's
    const arrays = this;
    const steps: ReplaySteps = {
      count: this.count,
      messageIndex,
      turn,
      regions: this.regions,
      total: this.total,
      limit: this.limit,
      trigger: this.trigger,
      reported: this.reported,
      cacheRead: this.cacheRead,
      cacheWrite: this.cacheWrite,
      cost: this.cost,
      status: this.status,
      reasonIndex: this.reasonIndex,
      get reasons(): readonly string[] {
        // Worded once; then a plain property (a reader going step by step read it per step). A
        // result's arrays are complete: a continued run records into a grown copy (grownTo).
        const all = arrays.allReasons();
        Object.defineProperty(steps, 'reasons', { value: all, enumerable: true, configurable: true, writable: false });
        return all;
      },
      keptFrom: this.keptFrom,
    };
    owners.set(steps, this);
    return steps;
  }
}

/** Worded the same (Object.is: NaN is NaN, and -0 is not 0, which int() writes as "-0"). */
const same = Object.is;

/** The regions that hold one value at every call of a run: its counts' system prompt, unlogged overhead and tools. */
export interface FixedRegions {
  readonly system: number;
  readonly unlogged: number;
  readonly tools: number;
}
const isFixed = (r: (typeof REGIONS)[number]): r is keyof FixedRegions => r === 'system' || r === 'unlogged' || r === 'tools';

/**
 * A column of `count` copies of `value`, shared by every run that asks for the same: read-only
 * (no writer of a step array writes a fixed region or the trigger, and a grown run gets a column
 * of its own length). Four such columns were ~10 MB per replay at 300,000 calls, made anew at
 * every slider move, all outside the heap. The last few are kept.
 */
function constantColumn(count: number, value: number): Float64Array {
  const key = `${count}\u0000${Object.is(value, -0) ? '-0' : value}`;
  let column = constantColumns.get(key);
  if (!column) {
    if (constantColumns.size >= 16) constantColumns.clear();
    constantColumns.set(key, (column = new Float64Array(count).fill(value)));
  }
  return column;
}
const constantColumns = new Map<string, Float64Array>();

/** The numbers a deferred reason keeps (DeferredReason n0..n5). */
const DEFERRED_NUMBERS = 6;

/** The arrays behind each result's steps (for `stepReason`). */
const owners = new WeakMap<ReplaySteps, StepArrays>();

/**
 * The reason of step `i` as text: what `steps.reasons[steps.reasonIndex[i]]` reads, but a deferred
 * reason is worded alone instead of all of them (a view shows one call's reason).
 */
export function stepReason(steps: ReplaySteps, i: number): string {
  return reasonText(steps, steps.reasonIndex[i]!);
}

/**
 * `index => ofText(reasonText(steps, index))`, without wording a deferred reason whose words know
 * their template from a few of its numbers (StepArrays.templateOf). `ofText` must give the same
 * template to texts that differ only in how a plain number is written (a run of digits, commas and
 * periods): the chart view's, which writes each such run as '#'. For a reader asking at many
 * indices (the chart view, at every call of a status run): the steps' owner found once, a worded
 * reason's template made once per index, and a deferred one's read from its numbers with no
 * look-up by index — a map set per call of letta's ~9,000 warning calls was most of a cold chart
 * view's time.
 */
export function reasonTemplates(steps: ReplaySteps, ofText: (text: string) => string): (index: number) => string {
  const owner = owners.get(steps);
  const worded = new Map<number, string>();
  if (owner) return (index) => owner.templateOf(index, ofText, worded);
  return (index) => {
    let t = worded.get(index);
    if (t === undefined) worded.set(index, (t = ofText(steps.reasons[index] ?? '')));
    return t;
  };
}

/**
 * What a deferred reason's words need to know their template without the numbers: `key` names
 * the template with the reason's name (a code ≥ 0 for the numbers that change its words), −1
 * unless every number it writes is plain (a whole number ≥ 0 written as digits and commas: NaN,
 * negative, huge or -0 numbers are written otherwise); `standIn` the numbers to word it with —
 * the same code, plain numbers replaced by 1.
 */
export interface TemplateHint {
  key(n: ArrayLike<number>, at: number): number;
  standIn(n: ArrayLike<number>, at: number): readonly number[];
}
const templateHints = new Map<DeferredReason['words'], TemplateHint>();

/**
 * For TemplateHint keys: whether a number is written plain — a run of digits and commas, which a
 * template writes as '#' whatever the number — as String() or a grouped int() writes a whole
 * number ≥ 0 (not -0, not past the safe integers); `plainRounded` after rounding, as int() does.
 */
export const plainWhole = (x: number): boolean => Number.isSafeInteger(x) && x >= 0 && !Object.is(x, -0);
export const plainRounded = (x: number): boolean => plainWhole(Math.round(x));
/** Templates by template function, words and hint key. */
const hintTemplates = new WeakMap<(text: string) => string, Map<DeferredReason['words'], Map<string, string>>>();

/** Registers the hint of a module's words (proactive.ts). */
export function templateHint(words: DeferredReason['words'], hint: TemplateHint): void {
  templateHints.set(words, hint);
}

/** `steps.reasons[index]` (or ''), wording that one reason only: for a reader that goes by index (one template per distinct reason). */
export function reasonText(steps: ReplaySteps, index: number): string {
  const owner = owners.get(steps);
  return owner ? owner.textOf(index) : (steps.reasons[index] ?? '');
}
