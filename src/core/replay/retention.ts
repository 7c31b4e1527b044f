/**
 * Retention (docs/policies.md §Common): which facts (identifiers, paths, numbers, names, and the user's own needles) a later
 * message refers to while their earlier mentions were no longer in the window — neither in the
 * history nor in the summary. Facts are extracted once per session and cached.
 */
import type { Message } from '../model';
import { factsOfMessage, type Fact } from '../summarize/facts';
import type { SummaryText } from '../summarize/summary-text';
import type { MessageRange, NeedleTrack, ReplayResult, RetentionLoss } from './types';
import { parseNeedle, type Needle } from '../pattern';

/**
 * Facts interned as small integers, flattened: message i mentions ids[offsets[i] .. offsets[i+1]).
 * The replay then tracks each fact in typed arrays instead of string-keyed maps (cached per
 * message list, so a sweep of many policies extracts and interns once).
 */
export interface FactIndex {
  readonly keys: readonly string[];
  readonly kinds: readonly Fact['kind'][];
  readonly offsets: Uint32Array;
  readonly ids: Uint32Array;
}

const indexCache = new WeakMap<readonly Message[], FactIndex>();
/** Each index's key → id map, kept for extending it (carryFacts). */
const idMaps = new WeakMap<FactIndex, Map<string, number>>();
/**
 * Per index, how many keys messages [0, i) first mentioned (`[i]`, i ≤ messages): ids are given in
 * order of first mention, so an index extended from message `from` keeps exactly the first
 * `[from]` keys. Without it that number was a pass over every mention before `from`, and the key
 * map was built again whole — at each live-tail append that wrote its last message again.
 */
const keysBeforeOf = new WeakMap<FactIndex, Uint32Array>();
/** Per mentions buffer, the index whose mentions end where what was written in it ends (internFacts writes past them). */
const lastIndexIn = new WeakMap<ArrayBufferLike, FactIndex>();

function keysBefore(fx: FactIndex): Uint32Array {
  let held = keysBeforeOf.get(fx);
  if (held) return held;
  held = new Uint32Array(fx.offsets.length);
  let known = 0;
  for (let i = 0; i + 1 < fx.offsets.length; i++) {
    for (let q = fx.offsets[i]!; q < fx.offsets[i + 1]!; q++) if (fx.ids[q]! >= known) known = fx.ids[q]! + 1;
    held[i + 1] = known;
  }
  keysBeforeOf.set(fx, held);
  return held;
}

export function factIndex(messages: readonly Message[]): FactIndex {
  let fx = indexCache.get(messages);
  if (fx) return fx;
  fx = internFacts(messages, { keys: [], kinds: [], offsets: new Uint32Array(1), ids: new Uint32Array(0) }, 0);
  indexCache.set(messages, fx);
  return fx;
}

/**
 * `base`'s first `from` messages, then the facts of messages `from`… interned on after them: ids
 * are given in order of first mention, so this is the index a build over all of them makes. Each
 * message's facts are read once, in turn (summarize/facts.ts keeps them per message, as numbers).
 */
function internFacts(messages: readonly Message[], base: FactIndex, from: number): FactIndex {
  const start = base.offsets[from]!;
  // Keys first mentioned before `from` (all of them when nothing of `base` is dropped).
  const baseBefore = keysBefore(base);
  const known = baseBefore[from]!;
  const keys = base.keys.slice(0, known);
  const kinds = base.kinds.slice(0, known);
  // The base's key map is taken over (a live tail drops the base), the keys first mentioned from
  // `from` on taken out of it; without one it is built again.
  let idOf = idMaps.get(base);
  if (idOf) {
    idMaps.delete(base);
    for (let k = known; k < base.keys.length; k++) idOf.delete(base.keys[k]!);
  } else {
    idOf = new Map<string, number>();
    for (let i = 0; i < keys.length; i++) idOf.set(keys[i]!, i);
  }
  const before = new Uint32Array(messages.length + 1);
  before.set(baseBefore.subarray(0, from + 1));
  // A plain append writes only past the base's mentions: into the base's own buffer when nothing
  // was written past them (the base is the buffer's last index) — no copy of every mention at each
  // live-tail append (tens of MB at 300,000 calls, each copy outside the heap bringing a full
  // collection nearer). Anything else starts a buffer of its own.
  const shared = from === base.offsets.length - 1 && base.ids.byteOffset === 0 && lastIndexIn.get(base.ids.buffer) === base;
  let ids = shared ? new Uint32Array(base.ids.buffer) : new Uint32Array(start + Math.max(1024, 8 * (messages.length - from)));
  if (!shared) ids.set(base.ids.subarray(0, start));
  const offsets = new Uint32Array(messages.length + 1);
  offsets.set(base.offsets.subarray(0, from + 1));
  let at = start;
  for (let i = from; i < messages.length; i++) {
    const facts = factsOfMessage(messages[i]!);
    if (at + facts.length > ids.length) {
      // A quarter more (a live tail grows one buffer for as long as it runs), or what is needed.
      const grown = new Uint32Array(Math.max(ids.length + (ids.length >> 2), at + facts.length + 1024));
      grown.set(ids.subarray(0, at));
      ids = grown;
    }
    for (const f of facts) {
      let id = idOf.get(f.key);
      if (id === undefined) {
        id = keys.length;
        idOf.set(f.key, id);
        keys.push(f.key);
        kinds.push(f.kind);
      }
      ids[at++] = id;
    }
    offsets[i + 1] = at;
    before[i + 1] = keys.length;
  }
  // A whole list's index is cut to size; an extended one keeps its buffer's room for the next append.
  const fx: FactIndex = { keys, kinds, offsets, ids: ids.length === at ? ids : from === 0 ? ids.slice(0, at) : ids.subarray(0, at) };
  idMaps.set(fx, idOf);
  keysBeforeOf.set(fx, before);
  lastIndexIn.set(fx.ids.buffer, fx);
  // Its ancestors: the base, and the base's own (the fewest messages kept along the way).
  const ancestors = [
    { index: new WeakRef(base), from },
    ...(derivedFrom.get(base) ?? []).map((a) => ({ index: a.index, from: Math.min(a.from, from) })),
  ];
  derivedFrom.set(fx, ancestors.slice(0, 16));
  return fx;
}

/**
 * The indexes internFacts extended each index from, nearest first, with how many first messages
 * kept their facts and ids all the way. Weakly held: a live tail makes an index per append, and
 * a chain of them held strongly would keep every earlier version's mentions.
 */
const derivedFrom = new WeakMap<FactIndex, readonly { readonly index: WeakRef<FactIndex>; readonly from: number }[]>();

/** Whether `fx` gives the first `count` messages of `base` the same facts under the same ids, by how it was made (not by reading them). */
function keepsPrefix(fx: FactIndex, base: FactIndex, count: number): boolean {
  if (fx === base) return true;
  for (const a of derivedFrom.get(fx) ?? []) if (a.index.deref() === base) return a.from >= count;
  return false;
}

/**
 * Hands in a fact index made elsewhere for this message list (the tuner extracts a session's facts
 * once, on one thread, and ships them to the others). Checked against the list's shape, so an index
 * of another session or version is refused rather than silently misread.
 */
export function provideFactIndex(messages: readonly Message[], fx: FactIndex): void {
  if (fx.offsets.length !== messages.length + 1 || fx.offsets[messages.length] !== fx.ids.length || fx.kinds.length !== fx.keys.length) {
    throw new Error(
      `fact index for ${fx.offsets.length - 1} messages and ${fx.ids.length} mentions does not fit a list of ${messages.length} messages`,
    );
  }
  for (let q = 0; q < fx.ids.length; q++)
    if (fx.ids[q]! >= fx.keys.length) throw new Error(`fact index: mention ${q} names fact ${fx.ids[q]}, of ${fx.keys.length}`);
  indexCache.set(messages, fx);
}

/**
 * A live-tail append (docs/user-guide.md "Live tail"): `next` keeps `old`'s first `from` messages (the same
 * objects), so their facts and interned ids carry over and only the new messages are read.
 */
export function carryFacts(old: readonly Message[], next: readonly Message[], from: number): void {
  if (from > old.length || from > next.length) return;
  const fx = indexCache.get(old);
  if (fx && !indexCache.has(next)) indexCache.set(next, internFacts(next, fx, from));
  const speaking = speakingCache.get(old);
  if (speaking && !speakingCache.has(next)) {
    const out = new Uint8Array(next.length);
    out.set(speaking.subarray(0, from));
    for (let i = from; i < next.length; i++) out[i] = speaks(next[i]!) ? 1 : 0;
    speakingCache.set(next, out);
  }
}

// Needles run on RE2 (linear time on any input): a user's regex can never freeze the replay.
export { parseNeedle, type Needle };

/** Only what the user or the agent says counts as needing a fact (tool output refreshes it). */
const speaks = (m: Message): boolean => m.role !== 'tool' && !m.parts.every((p) => p.kind === 'tool_result');

/**
 * `speaks` of every message, once per message list: each replay asked it of every message, and
 * reading the parts at every replay of a sweep was a tenth of a Letta sweep.
 */
const speakingCache = new WeakMap<readonly Message[], Uint8Array>();
function speakingOf(messages: readonly Message[]): Uint8Array {
  let out = speakingCache.get(messages);
  if (!out) {
    out = new Uint8Array(messages.length);
    for (let i = 0; i < messages.length; i++) out[i] = speaks(messages[i]!) ? 1 : 0;
    speakingCache.set(messages, out);
  }
  return out;
}

const textCache = new WeakMap<Message, string>();
/** The text a needle is matched against (cached per message). */
function needleText(m: Message): string {
  let t = textCache.get(m);
  if (t === undefined) {
    t = m.parts
      .map((p) => (p.kind === 'text' || p.kind === 'reasoning' || p.kind === 'tool_result' ? p.text : p.kind === 'tool_call' ? p.args : ''))
      .join('\n');
    textCache.set(m, t);
  }
  return t;
}

/**
 * The replay's retention handler. The simulator tells it when a message enters the request
 * (`enter`), when messages leave (`markDropped`, `markLeft`) and when a compression is done
 * (`afterCompression`); it answers with the facts and needles that were needed after they left.
 * Facts are interned ids in typed arrays, so a step costs a few array reads per fact.
 */
export class RetentionTracker {
  private readonly fx: FactIndex;
  /** speakingOf(messages). */
  private readonly speaking: Uint8Array;
  /** Per fact id: the message of its last mention (−1 = none yet). */
  private readonly lastMention: Int32Array;
  /** Per fact id: its loss is already reported. */
  private readonly reported: Uint8Array;
  /** Per message: the step at which it left the window (dropped or masked), −1 while in. */
  private readonly leftAt: Int32Array;
  private readonly lost: RetentionLoss[];
  private readonly needles: Needle[];
  private readonly needleMentions: number[][];
  /** Per needle: the step it is currently lost since, −1 while in the window. */
  private readonly needleLostAt: number[];
  private readonly needleLeft: number[][];
  /** The summary last looked in, its version, and per fact the version it was found in (−1: none). */
  private seenSummary: SummaryText | null = null;
  private summaryVersion = 0;
  private readonly foundIn: Int32Array;

  /** `carried`: the state of a tracker over an earlier list to go on from (grownTo). */
  constructor(
    private readonly messages: readonly Message[],
    needleSpecs: readonly string[],
    private readonly inWindow: (i: number, end: number) => boolean,
    private readonly summary: () => SummaryText | null,
    carried?: { readonly tracker: RetentionTracker; readonly facts: number },
  ) {
    this.fx = factIndex(messages);
    this.speaking = speakingOf(messages);
    this.lastMention = new Int32Array(this.fx.keys.length).fill(-1);
    this.reported = new Uint8Array(this.fx.keys.length);
    this.foundIn = new Int32Array(this.fx.keys.length).fill(-1);
    this.leftAt = new Int32Array(messages.length).fill(-1);
    if (!carried) {
      this.lost = [];
      this.needles = needleSpecs.map(parseNeedle);
      this.needleMentions = this.needles.map(() => []);
      this.needleLostAt = this.needles.map(() => -1);
      this.needleLeft = this.needles.map(() => []);
      return;
    }
    const t = carried.tracker;
    this.lastMention.set(t.lastMention.subarray(0, carried.facts));
    this.reported.set(t.reported.subarray(0, carried.facts));
    this.foundIn.set(t.foundIn.subarray(0, carried.facts));
    this.leftAt.set(t.leftAt.subarray(0, Math.min(t.leftAt.length, messages.length)));
    this.lost = [...t.lost];
    this.needles = t.needles;
    this.needleMentions = t.needleMentions.map((m) => [...m]);
    this.needleLostAt = [...t.needleLostAt];
    this.needleLeft = t.needleLeft.map((l) => [...l]);
    this.seenSummary = t.seenSummary;
    this.summaryVersion = t.summaryVersion;
  }

  /**
   * This tracker over a grown list (resume.ts) whose messages before `entered` — all that entered
   * the request so far — are this list's. The state is copied (this tracker stays as it is), on
   * the new list's fact index: undefined unless that index gives those messages the same facts
   * under the same ids (ids are handed out in order of first mention, so a list that differs
   * only after them does), and unless nothing past the new list's end has left the window.
   */
  grownTo(
    messages: readonly Message[],
    entered: number,
    inWindow: (i: number, end: number) => boolean,
    summary: () => SummaryText | null,
  ): RetentionTracker | undefined {
    const fx = factIndex(messages);
    const was = this.fx;
    if (entered > messages.length || entered >= was.offsets.length) return undefined;
    // Facts of entered messages only were ever touched: with the same ids for them, the state of
    // every id both indexes have carries over (an untouched id is as a fresh tracker has it).
    let facts = Math.min(was.keys.length, fx.keys.length);
    if (!keepsPrefix(fx, was, entered)) {
      // Not made from this index (a list read again): compared.
      for (let i = 0; i <= entered; i++) if (fx.offsets[i] !== was.offsets[i]) return undefined;
      facts = 0;
      for (let q = 0, end = was.offsets[entered]!; q < end; q++) {
        const id = was.ids[q]!;
        if (fx.ids[q] !== id) return undefined;
        if (id >= facts) facts = id + 1;
      }
      for (let id = 0; id < facts; id++) if (fx.keys[id] !== was.keys[id] || fx.kinds[id] !== was.kinds[id]) return undefined;
      for (let id = facts; id < this.lastMention.length; id++)
        if (this.lastMention[id] !== -1 || this.reported[id] !== 0 || this.foundIn[id] !== -1) return undefined;
    }
    // A message past the new end must not have left the window.
    for (let i = messages.length; i < this.leftAt.length; i++) if (this.leftAt[i] !== -1) return undefined;
    return new RetentionTracker(messages, [], inWindow, summary, { tracker: this, facts });
  }

  markLeft(i: number, step: number): void {
    if (this.leftAt[i] === -1) this.leftAt[i] = step;
  }

  markDropped(ranges: readonly MessageRange[], step: number): void {
    // Indexed: destructuring each range made an iterator per compression.
    for (let q = 0; q < ranges.length; q++) for (let i = ranges[q]![0], z = ranges[q]![1]; i <= z; i++) this.markLeft(i, step);
  }

  /** Message i enters the request before the call of `step`. */
  enter(i: number, step: number): void {
    const m = this.messages[i]!;
    const fx = this.fx;
    const speaksNow = this.speaking[i] === 1;
    for (let q = fx.offsets[i]!, qEnd = fx.offsets[i + 1]!; q < qEnd; q++) {
      const id = fx.ids[q]!;
      const prev = this.lastMention[id]!;
      if (prev >= 0 && speaksNow && this.reported[id] === 0 && !this.inWindow(prev, i) && !this.inSummary(id)) {
        this.lost.push({ key: fx.keys[id]!, kind: fx.kinds[id]!, lostAt: Math.max(0, this.leftAt[prev]!), neededAt: step });
        this.reported[id] = 1;
      }
      this.lastMention[id] = i;
    }
    for (let q = 0; q < this.needles.length; q++) {
      const nd = this.needles[q]!;
      if (!nd.test(needleText(m))) continue;
      this.needleMentions[q]!.push(i);
      if (this.needleLostAt[q] !== -1) {
        this.lost.push({ key: nd.key, kind: 'needle', lostAt: this.needleLostAt[q]!, neededAt: step });
        this.needleLostAt[q] = -1;
      }
    }
  }

  /** Whether fact `id` is in the summary; a summary is searched once per fact (it changes only at compressions). */
  private inSummary(id: number): boolean {
    const summary = this.summary();
    if (summary === null) return false;
    if (summary !== this.seenSummary) {
      this.seenSummary = summary;
      this.summaryVersion++;
    }
    if (this.foundIn[id] === this.summaryVersion) return true;
    if (!summary.includes(this.fx.keys[id]!)) return false;
    this.foundIn[id] = this.summaryVersion;
    return true;
  }

  /** After a compression: which needles have no mention left in the window (history or summary). */
  afterCompression(end: number, step: number): void {
    // No needle (the usual replay): nothing to look for, and the summary is not asked for.
    if (this.needles.length === 0) return;
    const summary = this.summary();
    for (let q = 0; q < this.needles.length; q++) {
      if (this.needleLostAt[q] !== -1) continue;
      const ms = this.needleMentions[q]!;
      if (ms.length === 0 || this.anyInWindow(ms, end)) continue;
      if (summary !== null && this.needles[q]!.test(summary.text)) continue;
      this.needleLostAt[q] = step;
      this.needleLeft[q]!.push(step);
    }
  }

  /**
   * Whether a mention is still in the window, newest first: the newest are the ones a compression
   * leaves, so a needle mentioned all along is answered in a look or two, not by walking every
   * mention from the oldest at every compression.
   */
  private anyInWindow(mentions: readonly number[], end: number): boolean {
    for (let q = mentions.length - 1; q >= 0; q--) if (this.inWindow(mentions[q]!, end)) return true;
    return false;
  }

  result(): ReplayResult['retention'] {
    if (this.needles.length === 0) return { lost: this.lost };
    const needles: NeedleTrack[] = this.needles.map((nd, q) => ({
      key: nd.key,
      firstMessage: this.needleMentions[q]![0] ?? null,
      leftAt: this.needleLeft[q]!,
    }));
    return { lost: this.lost, needles };
  }
}
