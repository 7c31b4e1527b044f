/**
 * Turns (S0): a turn is a user message and everything until the next user message; it is the
 * atomic unit of compression. A user-role message that only carries tool results (the
 * Anthropic shape) continues the turn, it does not start one. A cut must land on a turn
 * boundary, so no context ever holds a tool call without its result or the reverse.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import type { Message } from './model';

export function isTurnBoundary(m: Message): boolean {
  return m.role === 'user' && m.parts.some((p) => p.kind !== 'tool_result');
}

/** Message index of each turn's first message. Messages before the first user turn form turn 0 with them. */
export function turnStarts(messages: readonly Message[]): number[] {
  const starts: number[] = [];
  for (let i = 0; i < messages.length; i++) if (isTurnBoundary(messages[i]!)) starts.push(i);
  if (starts.length === 0 || starts[0] !== 0) starts.unshift(0);
  return messages.length === 0 ? [] : starts;
}

/** turnOf[i] = 0-based turn of message i. */
export function turnIndex(messages: readonly Message[]): Uint32Array {
  const out = new Uint32Array(messages.length);
  let turn = -1;
  for (let i = 0; i < messages.length; i++) {
    if (i === 0 || isTurnBoundary(messages[i]!)) turn++;
    out[i] = turn;
  }
  return out;
}

/**
 * The turn boundary nearest to `target` (a message index), so that [cut, end) starts a turn.
 * Ties go to the later boundary (drop more rather than split). Returns 0 when there is none.
 */
export function safeCut(messages: readonly Message[], target: number): number {
  const starts = turnStarts(messages);
  if (starts.length === 0) return 0;
  let best = starts[0]!;
  for (const s of starts) if (Math.abs(s - target) <= Math.abs(best - target)) best = s;
  return best;
}

/** The first turn boundary at or after `target` (the safe cut that drops at least what was asked). */
export function safeCutAtOrAfter(messages: readonly Message[], target: number): number {
  for (const s of turnStarts(messages)) if (s >= target) return s;
  return messages.length;
}

export interface ToolPairing {
  /** callId → [message index of the call, message index of the result]. */
  readonly pairs: ReadonlyMap<string, readonly [number, number]>;
  /** Calls without a result: `{callId, index}`. */
  readonly orphanCalls: readonly { readonly callId: string; readonly index: number }[];
  /** Results without a call. */
  readonly orphanResults: readonly { readonly callId: string; readonly index: number }[];
}

/** Pairs each tool call with its result. Orphans are reported, never fatal. */
export function pairToolCalls(messages: readonly Message[]): ToolPairing {
  const calls = new Map<string, number>();
  const pairs = new Map<string, readonly [number, number]>();
  const orphanResults: { callId: string; index: number }[] = [];
  messages.forEach((m, i) => {
    for (const p of m.parts) {
      if (p.kind === 'tool_call') calls.set(p.id, i);
      else if (p.kind === 'tool_result') {
        const at = calls.get(p.callId);
        if (at !== undefined && !pairs.has(p.callId)) pairs.set(p.callId, [at, i]);
        else orphanResults.push({ callId: p.callId, index: i });
      }
    }
  });
  const orphanCalls = [...calls].filter(([id]) => !pairs.has(id)).map(([callId, index]) => ({ callId, index }));
  return { pairs, orphanCalls, orphanResults };
}

/**
 * Exchange boundaries inside [from, end): assistant messages with no tool call open across them
 * (every call made before has its result before). Cutting there keeps each call with its result,
 * so the turn in progress can be compacted the way agents do inside one long turn.
 */
export function exchangeStarts(messages: readonly Message[], from: number, end: number): number[] {
  const out: number[] = [];
  const open = new Set<string>();
  for (let i = from; i < end; i++) {
    const m = messages[i]!;
    if (i > from && m.role === 'assistant' && open.size === 0) out.push(i);
    for (const p of m.parts) {
      if (p.kind === 'tool_call') open.add(p.id);
      else if (p.kind === 'tool_result') open.delete(p.callId);
    }
  }
  return out;
}

/**
 * The exchange starts inside turn t of `messages` (exchangeStarts over [starts[t], starts[t + 1])),
 * kept per message list and turn starts — a session's messages never change — and each turn worked
 * out when first asked: every replay of a slider move asked again for each turn it compressed in.
 */
export function exchangesOfTurn(messages: readonly Message[], starts: readonly number[], t: number): readonly number[] {
  let held = exchangeCache.get(messages);
  if (!held || held.starts !== starts)
    exchangeCache.set(messages, (held = { starts, byTurn: new Array<readonly number[] | undefined>(starts.length) }));
  let inner = held.byTurn[t];
  if (inner === undefined) {
    const found = exchangeStarts(messages, starts[t] ?? 0, starts[t + 1] ?? messages.length);
    inner = found.length === 0 ? NO_EXCHANGES : found;
    held.byTurn[t] = inner;
  }
  return inner;
}
/**
 * Works out the exchange starts of turns `from`, `from + 1`, … of `messages` until `enough()`
 * (asked after each turn), kept as `exchangesOfTurn` keeps them — the replay worker's idle time
 * (main/host/replay-prewarm.ts): a policy that cuts within turns otherwise works them out inside
 * its first replay, turn by turn as it reaches them. Returns the next turn to do (`starts.length`
 * when all are done). Nothing here changes an answer, only when it is made.
 */
export function prepareExchanges(messages: readonly Message[], starts: readonly number[], from: number, enough: () => boolean): number {
  let t = from;
  while (t < starts.length) {
    exchangesOfTurn(messages, starts, t++);
    if (enough()) break;
  }
  return t;
}
/** How many turns of `messages` (turn starts `starts`) have their exchange starts worked out and kept. */
export function exchangesKnown(messages: readonly Message[], starts: readonly number[]): number {
  const held = exchangeCache.get(messages);
  return held && held.starts === starts ? held.byTurn.filter((x) => x !== undefined).length : 0;
}
const exchangeCache = new WeakMap<
  readonly Message[],
  { readonly starts: readonly number[]; readonly byTurn: (readonly number[] | undefined)[] }
>();
const NO_EXCHANGES: readonly number[] = Object.freeze([]);

/**
 * The cut points of a request in turn t (docs/policies.md §Common, turns, cutWithinTurn): every
 * turn start, with the exchange starts of turn t in their place among them — what
 * `starts.slice(0, t + 1).concat(exchangesOfTurn(t), starts.slice(t + 1))` is. One per replay:
 * a policy compressing at every call moves to a new turn every few calls, and a new list per turn
 * (three copies of every turn start) was a share of its compressions. So the answer is one list,
 * the last turn's exchange starts taken out and the new one's put in: it holds only until the next
 * call with another turn (the turn starts themselves when turn t has no exchange starts).
 */
export class TurnCutPoints {
  private turn = -1;
  private points: readonly number[];
  /** The turn starts with `innerLen` exchange starts at `innerAt` (undefined until a turn has any). */
  private own: number[] | undefined;
  private innerAt = 0;
  private innerLen = 0;

  constructor(
    private readonly messages: readonly Message[],
    private readonly starts: readonly number[],
  ) {
    this.points = starts;
  }

  of(t: number): readonly number[] {
    if (t === this.turn) return this.points;
    this.turn = t;
    const inner = exchangesOfTurn(this.messages, this.starts, t);
    if (inner.length === 0) return (this.points = this.starts);
    let own = (this.own ??= this.starts.slice());
    if (this.innerLen > 0) own.splice(this.innerAt, this.innerLen);
    // Past what a spread may pass as arguments, joined by concat instead.
    if (inner.length <= SPREAD_LIMIT) own.splice(t + 1, 0, ...inner);
    else own = this.own = this.starts.slice(0, t + 1).concat(inner, this.starts.slice(t + 1));
    this.innerAt = t + 1;
    this.innerLen = inner.length;
    return (this.points = own);
  }
}
const SPREAD_LIMIT = 4096;
