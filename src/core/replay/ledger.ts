/**
 * The loss ledger (docs/probe.md §Loss ledger): at each compression of a replay, and at each
 * compaction the original agent did itself, what left the model's view, item by item
 * (../ledger/extract.ts): the message it came from, how that message left (dropped, masked,
 * summarised), whether the summary after it still holds the item, and the first later message
 * that refers to it again ("needed later").
 *
 * Built on retention's fact index (./retention.ts): an item that is a fact is looked up in the
 * per-fact mention lists, never by searching the session's text again. Nothing is computed while
 * the replay runs: a ledger is made on request, per compression (the step detail asks for one
 * call's), or for all of them (`replay --json`, the report export). One ledger costs the items of
 * the messages it removed plus a binary search per reference.
 */
import type { Message, Session } from '../model';
import { itemsOfMessage, namesOfMessage, LEDGER_KINDS, commandOf, type LedgerKind } from '../ledger/extract';
import { summaryOf, sameSummary, SummaryText } from '../summarize/summary-text';
import { compressionsOf } from './compressions';
import { factIndex } from './retention';
import type { CompressionPath, MessageRange, ReplayEvent, ReplayResult } from './types';

export { LEDGER_KINDS, type LedgerKind };

/** How the item's message left the window. */
export type LedgerFate = 'dropped' | 'masked' | 'summarised';

export interface LedgerItem {
  readonly kind: LedgerKind;
  readonly value: string;
  /** Index in `Session.messages` of the message it was read from. */
  readonly messageIndex: number;
  readonly fate: LedgerFate;
  /** The summary in force after the removal still contains the item's text. */
  readonly inSummary: boolean;
  /** The first later message (user or agent; tool output only repeats) that refers to it again; null when none does. */
  readonly neededAt: number | null;
}

export interface LossLedger {
  /** The call the removal happened before. */
  readonly step: number;
  /** `replay`: a compression of the replayed policy; `agent`: a compaction the original agent did. */
  readonly source: 'replay' | 'agent';
  /** The compression's path and strategy (replay), or the agent's trigger. */
  readonly path: CompressionPath | null;
  readonly strategy: string;
  /** Messages that left (dropped, masked or summarised) at this removal. */
  readonly removed: readonly MessageRange[];
  readonly items: readonly LedgerItem[];
  /** Items no longer anywhere in the view: neither in the history nor in the summary. */
  readonly lost: number;
  /** Lost items a later message refers to again. */
  readonly neededLater: number;
  readonly byKind: Readonly<Record<LedgerKind, { readonly lost: number; readonly neededLater: number }>>;
}

/** One removal, as both kinds of source give it. */
interface Removal {
  readonly step: number;
  readonly source: 'replay' | 'agent';
  readonly path: CompressionPath | null;
  readonly strategy: string;
  /** Messages that left, and how. */
  readonly dropped: readonly MessageRange[];
  readonly masked: readonly MessageRange[];
  readonly summarised: boolean;
  readonly summary: SummaryText | null;
  /** Whether message i is in the history after the removal (its full content). */
  readonly stays: (i: number) => boolean;
  /** Messages from here on are "later". */
  readonly laterFrom: number;
}

/** Per session: every message mentioning each fact (ascending), and who speaks. */
interface Mentions {
  readonly idOf: Map<string, number>;
  /** The mentions of fact id are at[start[id] .. end[id]). */
  readonly start: Uint32Array;
  readonly end: Uint32Array;
  readonly at: Uint32Array;
  /** Commands the agent ran, URLs, and the paths and names the user or the agent wrote, as the extractor writes them: message indices, ascending. */
  readonly other: Map<string, number[]>;
  readonly speaking: Uint8Array;
}

const mentionsCache = new WeakMap<readonly Message[], Mentions>();

const speaks = (m: Message): boolean => m.role !== 'tool' && !m.parts.every((p) => p.kind === 'tool_result');
const URL = /\bhttps?:\/\/[^\s"'`<>()[\]{}]{3,300}/g;

/** Inverts retention's fact index (message → facts) to fact → messages, once per message list. */
function mentionsOf(messages: readonly Message[]): Mentions {
  let m = mentionsCache.get(messages);
  if (m) return m;
  const fx = factIndex(messages);
  const count = new Uint32Array(fx.keys.length + 1);
  for (let q = 0; q < fx.ids.length; q++) count[fx.ids[q]! + 1]!++;
  for (let id = 0; id < fx.keys.length; id++) count[id + 1]! += count[id]!;
  const start = count.slice();
  const fill = count.slice(0, fx.keys.length);
  const at = new Uint32Array(fx.ids.length);
  for (let i = 0; i < messages.length; i++) {
    for (let q = fx.offsets[i]!, end = fx.offsets[i + 1]!; q < end; q++) {
      const id = fx.ids[q]!;
      // A message repeating a fact is one mention.
      const slot = fill[id]!;
      if (slot > start[id]! && at[slot - 1] === i) continue;
      at[slot] = i;
      fill[id] = slot + 1;
    }
  }
  const idOf = new Map<string, number>();
  for (let id = 0; id < fx.keys.length; id++) idOf.set(fx.keys[id]!, id);
  const other = new Map<string, number[]>();
  const speaking = new Uint8Array(messages.length);
  const note = (key: string, i: number): void => {
    const list = other.get(key);
    if (!list) other.set(key, [i]);
    else if (list[list.length - 1] !== i) list.push(i);
  };
  for (let i = 0; i < messages.length; i++) {
    const msg = messages[i]!;
    speaking[i] = speaks(msg) ? 1 : 0;
    // What the user or the agent writes is read whole (the extractor's names beyond retention's facts: calls, URLs, directories).
    if (speaking[i] === 1) for (const name of namesOfMessage(msg)) note(name, i);
    for (const p of msg.parts) {
      if (p.kind === 'tool_call') {
        const cmd = commandOf(p.args);
        if (cmd !== null) note(cmd.trim().replace(/\s+/g, ' '), i);
      }
      const text = p.kind === 'text' || p.kind === 'reasoning' || p.kind === 'tool_result' ? p.text : p.kind === 'tool_call' ? p.args : '';
      if (text.includes('://')) for (const u of text.matchAll(URL)) note(u[0].replace(/[.,;:]+$/, ''), i);
    }
  }
  // A list ends where filling stopped (a repeat left its slot unused).
  m = { idOf, start, end: fill, at, other, speaking };
  mentionsCache.set(messages, m);
  return m;
}

/** The messages mentioning `key` (ascending), as a list view: the fact's, else the command's / URL's. */
function mentionList(mx: Mentions, key: string): { readonly length: number; readonly get: (q: number) => number } | null {
  const id = mx.idOf.get(key);
  if (id !== undefined) {
    const from = mx.start[id]!;
    return { length: mx.end[id]! - from, get: (q) => mx.at[from + q]! };
  }
  const list = mx.other.get(key);
  return list ? { length: list.length, get: (q) => list[q]! } : null;
}

/** First position in `list` whose message is ≥ i. */
function lowerBound(list: { readonly length: number; readonly get: (q: number) => number }, i: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list.get(mid) < i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function inRanges(ranges: readonly MessageRange[], i: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const r = ranges[mid]!;
    if (i < r[0]) hi = mid - 1;
    else if (i > r[1]) lo = mid + 1;
    else return true;
  }
  return false;
}

function emptyByKind(): Record<LedgerKind, { lost: number; neededLater: number }> {
  const out = {} as Record<LedgerKind, { lost: number; neededLater: number }>;
  for (const k of LEDGER_KINDS) out[k] = { lost: 0, neededLater: 0 };
  return out;
}

/** The ledger of one removal. */
function ledgerOf(messages: readonly Message[], r: Removal): LossLedger {
  const mx = mentionsOf(messages);
  const items: LedgerItem[] = [];
  const seen = new Set<string>();
  const byKind = emptyByKind();
  let lost = 0;
  let neededLater = 0;
  /** Whether `key` is still read somewhere in the history after the removal (before the later messages). */
  const stillInView = (key: string): boolean => {
    const list = mentionList(mx, key);
    if (!list) return false;
    for (let q = lowerBound(list, r.laterFrom) - 1; q >= 0; q--) if (r.stays(list.get(q))) return true;
    return false;
  };
  const neededAfter = (refs: readonly string[]): number | null => {
    let best: number | null = null;
    for (const key of refs) {
      const list = mentionList(mx, key);
      if (!list) continue;
      for (let q = lowerBound(list, r.laterFrom); q < list.length; q++) {
        const j = list.get(q);
        if (best !== null && j >= best) break;
        if (mx.speaking[j] === 1) {
          best = j;
          break;
        }
      }
    }
    return best;
  };
  const visit = (ranges: readonly MessageRange[], fate: LedgerFate): void => {
    for (const [a, z] of ranges) {
      for (let i = a; i <= z && i < messages.length; i++) {
        for (const it of itemsOfMessage(messages[i]!)) {
          // A masked message keeps its tool call and loses its result.
          if (fate === 'masked' && it.origin !== 'result') continue;
          const key = it.kind + '\0' + it.value;
          if (seen.has(key)) continue;
          seen.add(key);
          // Still read elsewhere in the history: it did not leave the view.
          if (
            (it.kind === 'path' || it.kind === 'identifier' || it.kind === 'command') &&
            stillInView(it.kind === 'command' ? it.value.replace(/…$/, '') : it.value)
          )
            continue;
          const inSummary = r.summary !== null && r.summary.includes(it.value);
          const neededAt = neededAfter(it.refs);
          items.push({ kind: it.kind, value: it.value, messageIndex: i, fate, inSummary, neededAt });
          if (inSummary) continue;
          lost++;
          byKind[it.kind].lost++;
          if (neededAt !== null) {
            neededLater++;
            byKind[it.kind].neededLater++;
          }
        }
      }
    }
  };
  visit(r.dropped, r.summarised ? 'summarised' : 'dropped');
  visit(r.masked, 'masked');
  const removed = [...r.dropped, ...r.masked].sort((x, y) => x[0] - y[0]);
  return { step: r.step, source: r.source, path: r.path, strategy: r.strategy, removed, items, lost, neededLater, byKind };
}

/**
 * The replay's compressions as removals, in order: every one (`only` undefined) or those before
 * call `only`. The summary before a compression is the one the compression before it left.
 */
function* replayRemovals(result: ReplayResult, only?: number): Generator<Removal> {
  const make = (
    step: number,
    path: CompressionPath,
    strategy: string,
    dropped: readonly MessageRange[],
    masked: readonly MessageRange[],
    kept: readonly MessageRange[],
    after: SummaryText | null,
    before: SummaryText | null,
  ): Removal => ({
    step,
    source: 'replay',
    path,
    strategy,
    dropped,
    masked,
    // S0's (docs/policies.md §S0) emergency path only appends a note: what it dropped was not folded (step-detail.ts foldedBy).
    summarised: path !== 'emergency' && after !== null && !sameSummary(after, before) && dropped.length > 0,
    summary: after,
    stays: (i) => inRanges(kept, i) && !inRanges(masked, i),
    laterFrom: result.steps.messageIndex[step]!,
  });
  const cols = compressionsOf(result);
  if (cols) {
    const { log } = cols;
    // Integer compares only: a call's detail asks for its own compression among tens of thousands.
    for (let c = 0; c < cols.count; c++) {
      const step = log.step[c]!;
      if (only !== undefined && step !== only) continue;
      yield make(
        step,
        log.pathOf(c),
        log.strategyOf(c),
        log.dropped(c),
        log.masked(c) ?? [],
        log.kept(c),
        log.summaries[c]!,
        c > 0 ? log.summaries[c - 1]! : null,
      );
    }
    return;
  }
  let before: SummaryText | null = null;
  for (const e of result.events) {
    if (e.kind !== 'compression') continue;
    const after = summaryOf(e) ?? null;
    if (only === undefined || e.step === only) yield make(e.step, e.path, e.strategy, e.dropped, e.masked ?? [], e.kept, after, before);
    before = after;
  }
}

type SourceEvent = Extract<ReplayEvent, { kind: 'source-compaction' }>;

/** The compactions the original agent did, as removals: what its window held since the one before, minus what it kept. */
function agentRemovals(session: Session, events: readonly SourceEvent[]): Removal[] {
  const messages = session.messages;
  const sorted = [...session.sourceCompactions].sort((a, b) => a.atMessage - b.atMessage);
  const idIndex = new Map<string, number>();
  const indexOfId = (id: string): number | undefined => {
    if (idIndex.size === 0) for (let i = 0; i < messages.length; i++) idIndex.set(messages[i]!.id, i);
    return idIndex.get(id);
  };
  const out: Removal[] = [];
  let from = 0;
  for (const c of sorted) {
    const at = Math.min(c.atMessage, messages.length);
    const e = events.find((x) => x.messageIndex === c.atMessage);
    const kept = new Set<number>();
    for (const id of c.keptIds ?? []) {
      const i = indexOfId(id);
      if (i !== undefined) kept.add(i);
    }
    let left: number[] = [];
    if (c.droppedIds && c.droppedIds.length > 0) {
      for (const id of c.droppedIds) {
        const i = indexOfId(id);
        if (i !== undefined && i < at) left.push(i);
      }
      left.sort((x, y) => x - y);
    } else for (let i = from; i < at; i++) if (!kept.has(i) && messages[i]!.sidechain !== true) left.push(i);
    left = [...new Set(left)];
    const ranges: MessageRange[] = [];
    for (const i of left) {
      const last = ranges[ranges.length - 1];
      if (last && last[1] + 1 === i) ranges[ranges.length - 1] = [last[0], i];
      else ranges.push([i, i]);
    }
    const leftSet = new Set(left);
    out.push({
      step: e?.step ?? 0,
      source: 'agent',
      path: null,
      strategy: `agent compaction (${c.trigger})`,
      dropped: ranges,
      masked: [],
      summarised: c.summary !== undefined && c.summary.length > 0,
      summary: c.summary ? SummaryText.of(c.summary) : null,
      stays: (i) => i < at && !leftSet.has(i) && i >= from,
      laterFrom: at,
    });
    from = at;
  }
  return out;
}

function sourceEvents(result: ReplayResult): SourceEvent[] {
  const cols = compressionsOf(result);
  const others = cols ? cols.others.slice(0, cols.otherCount) : result.events;
  return others.filter((e): e is SourceEvent => e.kind === 'source-compaction');
}

/** The ledgers of every removal before call `step` happens at it: the replay's compression and the agent's own compaction, if any. */
export function ledgersAtStep(result: ReplayResult, session: Session, step: number): LossLedger[] {
  const out: LossLedger[] = [];
  for (const r of replayRemovals(result, step)) out.push(ledgerOf(session.messages, r));
  if (session.sourceCompactions.length > 0)
    for (const r of agentRemovals(session, sourceEvents(result))) if (r.step === step) out.push(ledgerOf(session.messages, r));
  return out;
}

/** Every ledger of a replay, in call order (the replay's before the agent's at the same call). */
export function lossLedgers(result: ReplayResult, session: Session): LossLedger[] {
  const out: LossLedger[] = [];
  for (const r of replayRemovals(result)) out.push(ledgerOf(session.messages, r));
  if (session.sourceCompactions.length > 0)
    for (const r of agentRemovals(session, sourceEvents(result))) out.push(ledgerOf(session.messages, r));
  return out.sort((a, b) => a.step - b.step || (a.source === b.source ? 0 : a.source === 'replay' ? -1 : 1));
}
