/**
 * Claude Code session logs (`~/.claude/projects/<cwd>/<sessionId>.jsonl`), docs/reference/formats.md, Claude Code.
 *
 * - Only the main chain is the window: the chain is followed from the leaf (`last-prompt.leafUuid`,
 *   else the last line) back through `parentUuid`, crossing compactions via `logicalParentUuid`,
 *   so rewinds and forks are not double-counted. Sidechain lines become subagent sessions.
 * - One API response is split over several lines with the same `message.id`: merged into one
 *   message, usage taken once (the last copy).
 * - `compact_boundary` + the `isCompactSummary` user line that follows are recorded as a source
 *   compaction; the summary is a region, never a history message (S0).
 * - `isMeta` lines are hidden in Claude Code's UI. Those the model was sent are history: a slash
 *   command's expanded body (the meta line under the `<command-name>` line) and tool results;
 *   the rest (notes about local-command output for the user) are not. Unknown line types are
 *   skipped and counted.
 * - Subagents (docs/reference/formats.md, Claude Code): v1.x writes them inline (`isSidechain` lines); v2.x writes each to
 *   `<sessionId>/subagents/agent-<id>.jsonl` and puts its id on the spawning call's result line
 *   (`toolUseResult.agentId`), kept here as `Message.agentId` (the host reads the files:
 *   src/core/library/subagent-files.ts). Such a file read by itself holds only sidechain lines:
 *   they are its own main chain, and the session carries the `agentId`.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import type { Message, Part, ReportedUsage, Session, SourceCompaction } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { lineBlocks } from './read';
import { ImportError } from './types';
import { anthropicParts, anthropicUsage, isRecord, num, rec, str, time } from './util';

/** From this many lines, the host is told when the read is over (ParseContext.phaseEnd): below, the garbage is small. */
const PHASE_END_LINES = 100_000;

/** Line types that carry no context and are expected; anything else unknown is counted. */
const KNOWN_NON_CONTEXT = new Set([
  'summary',
  'file-history-snapshot',
  'queue-operation',
  'attachment',
  'progress',
  'last-prompt',
  'custom-title',
  'ai-title',
  'permission-mode',
  'system',
]);

/** What a line contributes to the window, decided once when it is read (the low bits of its flags). */
const NONE = 0; // carries nothing: an unknown or non-context type, a system line that is no boundary
const BOUNDARY = 1; // `system` + `compact_boundary`
const SUMMARY = 2; // the `isCompactSummary` line after a boundary: the summary region
const META = 3; // `isMeta` the model was not sent (see sentMeta)
const USER = 4;
const ASSISTANT = 5;
/**
 * An assistant line that goes on with the response of the line before (the same `message.id`,
 * that line its parent, neither a sidechain line) and carries nothing but content: no message of
 * its own is built, only its parts are kept (Lines.continuation). On the chain it always follows
 * that line, so it is merged into the response (only a cycle can put it first: then its message
 * is built there). A million minimal split-response lines built, held and dropped a message and a
 * parts array for each of these, ~110 bytes a line of old-generation garbage at the parse's peak.
 */
const CONTINUATION = 6;
const KIND = 7;
/** `isSidechain: true`. */
const SIDECHAIN = 8;
/** `subtype === 'compact_boundary'` (on any type: the chain crosses it via logicalParentUuid). */
const COMPACT_BOUNDARY = 16;
/** `type` is user or assistant (whatever the line turned out to carry). */
const MESSAGE_TYPE = 32;
/** Visited by the main chain walk (or, when uuids repeat, in the main chain by file order). */
const ON_CHAIN = 64;
/** Its message went into a session already (a second use gets a copy). */
const USED = 128;

/** A message under construction: built property by property, in the order the model lists them. */
type Draft = { -readonly [K in keyof Message]: Message[K] };

interface Compaction {
  readonly trigger: SourceCompaction['trigger'];
  readonly before: number | undefined;
  readonly after: number | undefined;
}

/** FNV-1a over UTF-16 code units: the hash of the two string tables below. */
function hash(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) h = Math.imul(h ^ key.charCodeAt(i), 0x01000193);
  return h;
}

const PAGE_BITS = 13;
const PAGE = 1 << PAGE_BITS;

/**
 * A column of values by line index, in pages of 8192 slots made as they are first written.
 * Growing copies nothing: a column pushed to a million lines left its outgrown backing stores
 * (together about twice its final size, ~16 MB a column) as garbage that no collection came for
 * before the parse ended, on top of the session at the parse's peak. A page
 * is a small heap object, not one of the large ones V8 frees only in a full collection. An
 * unwritten slot reads as undefined.
 */
class Column<T> {
  private readonly pages: (T | undefined)[][] = [];

  get(i: number): T | undefined {
    return this.pages[i >> PAGE_BITS]?.[i & (PAGE - 1)];
  }

  set(i: number, value: T): void {
    const p = i >> PAGE_BITS;
    let page = this.pages[p];
    if (page === undefined) this.pages[p] = page = new Array<T | undefined>(PAGE);
    page[i & (PAGE - 1)] = value;
  }
}

/** `Lines.parent` values that are not an index. */
const NO_PARENT = -1;
/** The parent was not read yet when the line was (or never is): its uuid is in `Lines.laterParent`. */
const LATER_PARENT = -2;

/**
 * The lines that have a uuid, in file order; a line is an index, its fields are columns. What
 * the window needs of a line is decided when it is read (a user or assistant line's message is
 * built right away), so the parsed JSON — envelope, content blocks, `toolUseResult` — is never
 * held to the end of the file.
 *
 * Every line is held until the chain has been walked from the leaf, so a line's bookkeeping is
 * what a file of tiny lines costs beyond its messages (a million minimal lines
 * were over the memory bound with ~75–100 bytes a line here). It is now ~25: one slot that is
 * the line's message or else its uuid (a message's id is its uuid), typed arrays for the parent
 * index, line number and flags, and a uuid table that holds no strings of its own. The rare
 * payloads (a summary's text, a compaction, a split response's id, a CONTINUATION line's parts)
 * sit beside, in maps or in paged columns that have no page before a line needs one.
 */
class Lines {
  count = 0;
  /** USER/ASSISTANT: the message (its id is the line's uuid); any other line: its uuid. */
  readonly key = new Column<Message | string>();
  /** The parent's index when it was read before this line; NO_PARENT; LATER_PARENT. */
  parent = new Int32Array(1024);
  /** The kind and the bits above. */
  flags = new Uint8Array(1024);
  /** 1-based line number in the file. */
  line = new Uint32Array(1024);
  /** LATER_PARENT lines: the parent's uuid. */
  readonly laterParent = new Map<number, string>();
  /** SUMMARY: the summary text; BOUNDARY: the compaction. */
  readonly payload = new Map<number, string | Compaction>();
  /** Assistant lines: `message.id`, shared by the lines of one split response (no page before the first one). */
  private readonly apiIds = new Column<string>();
  /** CONTINUATION lines: their parts (a single part as itself: concat appends it alike). */
  private readonly continued = new Column<Part | Part[]>();
  /** `logicalParentUuid` and `agentId`, on the few lines that have them. */
  readonly logicalParent = new Map<number, string>();
  readonly agentId = new Map<number, string>();

  // uuid → index of the last line with it: open addressing over typed arrays, keyed by the
  // lines' own uuids (a slot is a hash and an index, no string), so it hashes a key once and
  // rarely compares strings. A Map does the same job at about twice the cost per insert on
  // this hot path and holds a pointer to every key besides.
  private mask = 1023;
  private hashes = new Int32Array(1024);
  private slots = new Int32Array(1024).fill(-1);
  /** Distinct uuids. */
  private distinct = 0;

  add(key: Message | string, parent: number, flags: number, line: number, apiId: string | undefined): number {
    const i = this.count++;
    if (i === this.flags.length) {
      const f = new Uint8Array(i * 2);
      f.set(this.flags);
      this.flags = f;
      const l = new Uint32Array(i * 2);
      l.set(this.line);
      this.line = l;
      const p = new Int32Array(i * 2);
      p.set(this.parent);
      this.parent = p;
    }
    this.key.set(i, key);
    this.parent[i] = parent;
    this.flags[i] = flags;
    this.line[i] = line;
    if (apiId !== undefined) this.apiIds.set(i, apiId);
    return i;
  }

  uuid(i: number): string {
    const k = this.key.get(i)!;
    return typeof k === 'string' ? k : k.id;
  }

  apiId(i: number): string | undefined {
    return this.apiIds.get(i);
  }

  /** Whether an assistant line with this `message.id` whose parent is line `i` goes on with line `i`'s response. */
  continues(i: number, apiId: string): boolean {
    const f = this.flags[i]! & (KIND | SIDECHAIN);
    return (f === ASSISTANT || f === CONTINUATION) && this.apiIds.get(i) === apiId;
  }

  setContinuation(i: number, parts: Part[]): void {
    this.continued.set(i, parts.length === 1 ? parts[0]! : parts);
  }

  continuation(i: number): Part | Part[] {
    return this.continued.get(i)!;
  }

  /** The uuid line `i` names as its parent. */
  parentUuid(i: number): string | null {
    const p = this.parent[i]!;
    return p >= 0 ? this.uuid(p) : p === NO_PARENT ? null : this.laterParent.get(i)!;
  }

  /** The slot holding `uuid`, or the empty slot where it would go. */
  private slot(uuid: string, h: number): number {
    const { mask, hashes, slots } = this;
    let s = h & mask;
    for (let i = slots[s]!; i !== -1 && (hashes[s] !== h || this.uuid(i) !== uuid); i = slots[s]!) s = (s + 1) & mask;
    return s;
  }

  /** The index of the last line with this uuid, or -1. */
  find(uuid: string): number {
    return this.slots[this.slot(uuid, hash(uuid))]!;
  }

  /** Makes line `i` (the last added) the one its uuid finds; returns the line it replaced, or -1. */
  index(i: number, uuid: string): number {
    if (this.distinct * 2 >= this.mask) this.grow();
    const h = hash(uuid);
    const s = this.slot(uuid, h);
    const had = this.slots[s]!;
    if (had === -1) {
      this.hashes[s] = h;
      this.distinct++;
    }
    this.slots[s] = i;
    return had;
  }

  private grow(): void {
    const { hashes, slots } = this;
    const capacity = slots.length * 2;
    this.mask = capacity - 1;
    this.hashes = new Int32Array(capacity);
    this.slots = new Int32Array(capacity).fill(-1);
    for (let j = 0; j < slots.length; j++) {
      if (slots[j] === -1) continue;
      let s = hashes[j]! & this.mask;
      while (this.slots[s] !== -1) s = (s + 1) & this.mask;
      this.hashes[s] = hashes[j]!;
      this.slots[s] = slots[j]!;
    }
  }
}

/**
 * `message.id` → the index of the message that took it (≥ 0), for the merge of a split response
 * (one lookup per assistant line on a chain; the uuid table is Lines' own): an open-addressing
 * table over typed arrays that hashes a key once and rarely compares strings. A Map does the same
 * job at about twice the cost per insert on this hot path (measured on the import bench's 80k
 * lines). A slot names the line the id was read on instead of holding the string: an array of
 * keys beside the typed arrays was ~16 MB more heap (with its outgrown copies) at the parse's
 * peak on a million split-response lines.
 */
class ApiIdIndex {
  private mask = 63;
  private hashes = new Int32Array(64);
  private values = new Int32Array(64).fill(-1);
  /** The line whose `message.id` is the slot's key. */
  private keyLines = new Int32Array(64);
  /** Distinct keys. */
  private size = 0;

  constructor(private readonly lines: Lines) {}

  /** The slot holding `key`, or the empty slot where it would go. */
  private slot(key: string, h: number): number {
    const { mask, hashes, values, keyLines, lines } = this;
    let i = h & mask;
    while (values[i] !== -1 && (hashes[i] !== h || lines.apiId(keyLines[i]!) !== key)) i = (i + 1) & mask;
    return i;
  }

  private grow(): void {
    const { hashes, values, keyLines } = this;
    const capacity = values.length * 2;
    this.mask = capacity - 1;
    this.hashes = new Int32Array(capacity);
    this.values = new Int32Array(capacity).fill(-1);
    this.keyLines = new Int32Array(capacity);
    for (let j = 0; j < values.length; j++) {
      if (values[j] === -1) continue;
      let i = hashes[j]! & this.mask;
      while (this.values[i] !== -1) i = (i + 1) & this.mask;
      this.hashes[i] = hashes[j]!;
      this.values[i] = values[j]!;
      this.keyLines[i] = keyLines[j]!;
    }
  }

  /** Maps line `line`'s `message.id` to `value` unless the id is mapped already; returns the value it had, or -1. */
  add(line: number, value: number): number {
    if (this.size * 2 >= this.mask) this.grow();
    const key = this.lines.apiId(line)!;
    const h = hash(key);
    const i = this.slot(key, h);
    const had = this.values[i]!;
    if (had === -1) {
      this.hashes[i] = h;
      this.keyLines[i] = line;
      this.values[i] = value;
      this.size++;
    }
    return had;
  }
}

export function looksLikeClaudeCode(v: unknown): boolean {
  if (!isRecord(v)) return false;
  const t = v['type'];
  return (
    typeof v['sessionId'] === 'string' &&
    typeof v['uuid'] === 'string' &&
    'parentUuid' in v &&
    (t === 'user' || t === 'assistant' || t === 'system')
  );
}

/** A user line that runs a slash command: Claude Code logs `<command-name>/x</command-name>`, then the command's body as an `isMeta` line under it. */
function invokesSlashCommand(content: unknown): boolean {
  const text = typeof content === 'string' ? content : Array.isArray(content) ? content.map((b) => str(rec(b)['text']) ?? '').join('') : '';
  return text.includes('<command-name>');
}

/** An `isMeta` line the model was sent: the body of the slash command it hangs under, or a tool result. */
function sentMeta(line: Record<string, unknown>, msg: Record<string, unknown>, slashCommand: string | undefined): boolean {
  if (slashCommand !== undefined && line['parentUuid'] === slashCommand) return true;
  return Array.isArray(msg['content']) && msg['content'].some((b) => rec(b)['type'] === 'tool_result');
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape !== 'jsonl') return false;
  return sniff.lines.some(looksLikeClaudeCode);
}

/**
 * Messages as object literals with all their properties at once, in the order the model lists
 * them: added one by one, the properties past the first few would need a second allocation.
 */
function userMessage(id: string, parts: Part[], timestamp: number | undefined, sourceLine: number, raw: string | undefined): Message {
  if (raw === undefined)
    return timestamp !== undefined ? { id, role: 'user', parts, timestamp, sourceLine } : { id, role: 'user', parts, sourceLine };
  return timestamp !== undefined ? { id, role: 'user', parts, timestamp, sourceLine, raw } : { id, role: 'user', parts, sourceLine, raw };
}

function assistantMessage(
  id: string,
  parts: Part[],
  timestamp: number | undefined,
  usage: ReportedUsage | undefined,
  model: string | undefined,
  sourceLine: number,
  raw: string | undefined,
): Message {
  if (raw === undefined && timestamp !== undefined && usage !== undefined && model !== undefined)
    return { id, role: 'assistant', parts, timestamp, usage, model, sourceLine };
  // A short line (no usage or model): a property added after the literal costs a property array.
  if (raw === undefined && usage === undefined && model === undefined)
    return timestamp !== undefined ? { id, role: 'assistant', parts, timestamp, sourceLine } : { id, role: 'assistant', parts, sourceLine };
  const m: Draft = { id, role: 'assistant', parts };
  if (timestamp !== undefined) m.timestamp = timestamp;
  if (usage !== undefined) m.usage = usage;
  if (model !== undefined) m.model = model;
  m.sourceLine = sourceLine;
  if (raw !== undefined) m.raw = raw;
  return m;
}

/**
 * Builds messages from an ordered list of lines: the main chain (the pass that gets
 * `compactions`, run first), or one sidechain (the groups share no line).
 */
function toMessages(
  lines: Lines,
  indices: ArrayLike<number>,
  ctx: ParseContext,
  compactions?: SourceCompaction[],
): { messages: Message[]; models: Map<string, number> } {
  const messages: Message[] = [];
  // 1 where messages[k] is a line's own message that a later pass takes too: a sidechain line on
  // the main chain, whose subagent is built after it. Only such a message is copied to be merged
  // into; any other is this session's alone and is merged into in place.
  const shared = new Uint8Array(indices.length);
  const byApiId = new ApiIdIndex(lines);
  const models = new Map<string, number>();
  let pendingBoundary = false;

  const { flags, key, payload } = lines;
  for (let n = 0; n < indices.length; n++) {
    const i = indices[n]!;
    const kind = flags[i]! & KIND;
    if (kind === BOUNDARY) {
      const { trigger, before, after } = payload.get(i) as Compaction;
      pendingBoundary = true;
      const c: { -readonly [K in keyof SourceCompaction]: SourceCompaction[K] } = { atMessage: messages.length, trigger };
      if (before !== undefined) c.tokensBefore = before;
      if (after !== undefined) c.tokensAfter = after;
      c.sourceLine = lines.line[i]!;
      compactions?.push(c);
      continue;
    }
    if (kind === SUMMARY) {
      // The summary the agent continued from: a region, attached to the compaction.
      const text = payload.get(i) as string;
      const last = compactions?.[compactions.length - 1];
      if (compactions && last && pendingBoundary) compactions[compactions.length - 1] = { ...last, summary: text };
      else compactions?.push({ atMessage: messages.length, trigger: 'unknown', summary: text, sourceLine: lines.line[i]! });
      pendingBoundary = false;
      continue;
    }
    if (kind !== USER && kind !== ASSISTANT && kind !== CONTINUATION) continue;
    let m: Message;
    if (kind === USER) {
      m = key.get(i) as Message;
      if (m.parts.length === 0) continue;
    } else {
      // A CONTINUATION line has no message (nor model, usage or raw): its parts stand for it.
      const own = kind === ASSISTANT ? (key.get(i) as Message) : undefined;
      const model = own?.model;
      if (model && model !== '<synthetic>') models.set(model, (models.get(model) ?? 0) + 1);
      const existing = lines.apiId(i) !== undefined ? byApiId.add(i, messages.length) : -1;
      if (existing !== -1) {
        const prev = messages[existing]!;
        // In place: a copy per merge left the first line's message held by the line table until
        // the end of the parse, beside its copy, and the copy itself was one more object (a
        // million split-response lines peaked at ~2 % under the memory bound).
        // A shared message is copied, with the properties in the order a spread gives (so the
        // same order as in place). Object.assign and concat, not a spread of conditional literals:
        // that made a dictionary-mode object and over-sized arrays (~800 bytes a merged message
        // instead of ~330); concat keeps the parts array exact-size (a push would reserve ~17 slots).
        const merged: Draft = shared[existing] === 1 ? Object.assign({}, prev) : (prev as Draft);
        shared[existing] = 0;
        merged.parts = prev.parts.concat(own ? own.parts : lines.continuation(i));
        if (own?.usage) merged.usage = own.usage;
        if (ctx.keepRaw) merged.raw = `${prev.raw ?? ''}\n${own?.raw}`;
        const sourceLine = own ? own.sourceLine : lines.line[i]!;
        if (sourceLine !== undefined) merged.mergedLines = prev.mergedLines ? prev.mergedLines.concat(sourceLine) : [sourceLine];
        messages[existing] = merged;
        // The line's message lives on only in the merged one: a main-chain line is in no other session,
        // so it keeps just its uuid (a sidechain line may still name it as its parent).
        if (own && (flags[i]! & SIDECHAIN) === 0) key.set(i, own.id);
        continue;
      }
      if (own) m = own;
      else {
        // The line it goes on with came after it on the chain (a cycle): a response of its own, as read.
        const parts = lines.continuation(i);
        m = assistantMessage(
          lines.uuid(i),
          Array.isArray(parts) ? parts : [parts],
          undefined,
          undefined,
          undefined,
          lines.line[i]!,
          undefined,
        );
      }
    }
    // A line in two sessions (a main-chain line whose parent is a sidechain line): no shared objects.
    if ((flags[i]! & USED) !== 0) m = { ...m };
    else if (compactions !== undefined && (flags[i]! & SIDECHAIN) !== 0) shared[messages.length] = 1;
    flags[i] = flags[i]! | USED;
    messages.push(m);
    if (messages.length % 5000 === 0) ctx.progress(messages.length, 0);
  }
  return { messages, models };
}

/** The text of a compact summary's content. */
function summaryText(content: unknown): string {
  return anthropicParts(content)
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('\n');
}

/**
 * The session id of a subagent's own file: its parent's session id (which every line of it
 * carries) and its agent id, stable across imports so that a grown file updates the same row.
 */
export function agentSessionId(parentSessionId: string, agentId: string): string {
  return `${parentSessionId}/agent-${agentId}`;
}

function mostUsed(models: Map<string, number>): string | undefined {
  let best: string | undefined;
  let n = 0;
  for (const [m, c] of models) if (c > n) [best, n] = [m, c];
  return best;
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'Claude Code JSON lines (one record per line)');
  const all = new Lines();
  const unknownTypes = new Map<string, number>();
  let leaf: string | undefined;
  let lastMain: string | undefined;
  let sessionId: string | undefined;
  let cwd: string | undefined;
  let startedAt: number | undefined;
  let title: string | undefined;
  let lines = 0;
  let duplicateUuids = 0;
  const keepRaw = ctx.keepRaw;
  // Every line repeats the model name: one string for all its messages, not one per line.
  let lastModel: string | undefined;
  /** The uuid of the last user line that ran a slash command (its body follows as an isMeta line). */
  let slashCommand: string | undefined;
  let previous = -1;

  // A block of lines at a time: no promise per line.
  for await (const block of lineBlocks(input.lines)) {
    for (const l of block) {
      lines++;
      const r = l.value;
      if (!isRecord(r)) {
        ctx.warn('skipped a line that is not a JSON object', l.line);
        continue;
      }
      const t = r['type'];
      const type = typeof t === 'string' ? t : '';
      if (type === 'last-prompt' && typeof r['leafUuid'] === 'string') leaf = r['leafUuid'];
      if ((type === 'custom-title' || type === 'ai-title') && typeof r['title'] === 'string') title = r['title'];
      if (type === 'summary' && typeof r['summary'] === 'string') title ??= r['summary'];
      const messageType = type === 'user' || type === 'assistant';
      if (!messageType && !KNOWN_NON_CONTEXT.has(type)) unknownTypes.set(type, (unknownTypes.get(type) ?? 0) + 1);
      const uuid = r['uuid'];
      if (typeof uuid !== 'string' || uuid === '') continue;
      sessionId ??= str(r['sessionId']);
      cwd ??= str(r['cwd']);
      startedAt ??= time(r['timestamp']);
      // Keep only what the window needs, built now: the envelope, the content blocks and
      // `toolUseResult` (structured output the model never saw, often the biggest part of a line)
      // go with the parsed line instead of being held to the end of the file.
      const p = r['parentUuid'];
      // The parent is usually read already, most often just before: its index (its uuid is the
      // same text, so nothing is lost) and the parentUuid string can go.
      let parent = NO_PARENT;
      if (typeof p === 'string') {
        if (previous !== -1 && p === all.uuid(previous)) parent = previous;
        else {
          const at = all.find(p);
          parent = at !== -1 ? at : LATER_PARENT;
        }
      }
      let flags = NONE;
      let data: Message | undefined;
      let continued: Part[] | undefined;
      let payload: string | Compaction | undefined;
      let apiId: string | undefined;
      if (type === 'system') {
        if (r['subtype'] === 'compact_boundary') {
          flags = BOUNDARY;
          const meta = rec(r['compactMetadata']);
          const trigger = meta['trigger'] === 'auto' || meta['trigger'] === 'manual' ? meta['trigger'] : 'unknown';
          payload = { trigger, before: num(meta['preTokens']), after: num(meta['postTokens']) } satisfies Compaction;
        }
      } else if (messageType) {
        flags = MESSAGE_TYPE;
        const msg = rec(r['message']);
        if (r['isCompactSummary'] === true) {
          flags |= SUMMARY;
          payload = summaryText(msg['content']);
        } else if (r['isMeta'] === true && !sentMeta(r, msg, slashCommand)) {
          flags |= META;
        } else {
          const parts = anthropicParts(msg['content']);
          if (type === 'user' && invokesSlashCommand(msg['content'])) slashCommand = uuid;
          const timestamp = time(r['timestamp']);
          if (type === 'assistant') {
            apiId = str(msg['id']);
            const usage = anthropicUsage(msg['usage'], callKey(apiId, str(r['requestId'])));
            let model = msg['model'];
            if (typeof model === 'string' && model !== '') {
              if (model !== lastModel) lastModel = model;
              model = lastModel;
            } else {
              model = undefined;
            }
            // Only a line with nothing but content: a timestamp, usage or model makes a line big
            // enough for its message, and with `raw` the whole line is kept anyway.
            const bare = timestamp === undefined && usage === undefined && model === undefined && !keepRaw;
            if (
              bare &&
              apiId !== undefined &&
              parent >= 0 &&
              parent === previous &&
              r['isSidechain'] !== true &&
              all.continues(parent, apiId)
            ) {
              flags |= CONTINUATION;
              continued = parts;
            } else {
              flags |= ASSISTANT;
              data = assistantMessage(uuid, parts, timestamp, usage, model as string | undefined, l.line, keepRaw ? l.raw : undefined);
            }
          } else {
            flags |= USER;
            data = userMessage(uuid, parts, timestamp, l.line, keepRaw ? l.raw : undefined);
            // The result of a call that ran a subagent names it (v2.x): the exact link to its file.
            const spawned = r['toolUseResult'] !== undefined ? str(rec(r['toolUseResult'])['agentId']) : undefined;
            if (spawned) data = { ...data, agentId: spawned };
          }
        }
      }
      if (r['isSidechain'] === true) flags |= SIDECHAIN;
      if (r['subtype'] === 'compact_boundary') flags |= COMPACT_BOUNDARY;
      const i = all.add(data ?? uuid, parent, flags, l.line, apiId);
      if (parent === LATER_PARENT) all.laterParent.set(i, p as string);
      if (payload !== undefined) all.payload.set(i, payload);
      if (continued !== undefined) all.setContinuation(i, continued);
      const lp = r['logicalParentUuid'];
      if (typeof lp === 'string') all.logicalParent.set(i, lp);
      const agentId = r['agentId'];
      if (typeof agentId === 'string') all.agentId.set(i, agentId);
      if (all.index(i, uuid) !== -1) duplicateUuids++;
      previous = i;
      if ((flags & SIDECHAIN) === 0) lastMain = uuid;
      if (all.count % 5000 === 0) ctx.progress(all.count, 0);
    }
  }
  if (lines === 0 || all.count === 0)
    throw new ImportError(ctx.name, 'Claude Code records with a uuid (user or assistant lines); found none');
  for (const [t, n] of unknownTypes) ctx.warn(`skipped ${n} line(s) of unknown type "${t}"`);

  // Only sidechain lines: a subagent's own file (v2.x `agent-<id>.jsonl`), read by itself or as
  // a subagent of its parent. Its sidechain is its main chain.
  const { flags, parent } = all;
  let ownAgentId: string | undefined;
  if (lastMain === undefined) {
    for (let i = 0; i < all.count; i++) flags[i] = flags[i]! & ~SIDECHAIN;
    lastMain = all.uuid(all.count - 1);
    for (const id of all.agentId.values()) {
      ownAgentId = id;
      break;
    }
  }

  // Walk the main chain from the leaf back to the root — unless uuids repeat (trimmed or
  // hand-edited files), where the tree cannot be trusted and file order is the best guess.
  const leafAt = leaf !== undefined ? all.find(leaf) : -1;
  const start = leafAt !== -1 && (flags[leafAt]! & SIDECHAIN) === 0 ? leaf : lastMain;
  // Line indices, leaf first (a line is on it once: ON_CHAIN stops a cycle).
  let chain = new Int32Array(all.count);
  let length = 0;
  for (let cur = start !== undefined ? all.find(start) : -1; cur !== -1 && (flags[cur]! & ON_CHAIN) === 0;) {
    flags[cur] = flags[cur]! | ON_CHAIN;
    chain[length++] = cur;
    const p = parent[cur]!;
    // The index is the line its uuid names, unless a uuid repeats: then the last line with that
    // uuid wins, as a lookup by uuid gives.
    if (p >= 0 && duplicateUuids === 0) {
      cur = p;
      continue;
    }
    const next = all.parentUuid(cur) ?? ((flags[cur]! & COMPACT_BOUNDARY) !== 0 ? (all.logicalParent.get(cur) ?? null) : null);
    if (next === null) break;
    cur = all.find(next);
    if (cur === -1) ctx.warn(`chain broken: parent ${next} is not in the file`, all.line[chain[length - 1]!]);
  }
  chain = chain.subarray(0, length).reverse();
  if (duplicateUuids > 0) {
    ctx.warn(`${duplicateUuids} line(s) reuse a uuid: the parentUuid chain is ambiguous, so the main chain follows file order`);
    length = 0;
    chain = new Int32Array(all.count);
    for (let i = 0; i < all.count; i++) {
      if ((flags[i]! & SIDECHAIN) !== 0) continue;
      chain[length++] = i;
      flags[i] = flags[i]! | ON_CHAIN;
    }
    chain = chain.subarray(0, length);
  }
  // (Marks stand for uuids: without repeats a uuid is one line; with them every main line is on.)
  let offChain = 0;
  for (let i = 0; i < all.count; i++) if ((flags[i]! & (SIDECHAIN | MESSAGE_TYPE | ON_CHAIN)) === MESSAGE_TYPE) offChain++;
  if (offChain > 0) ctx.warn(`${offChain} message line(s) are off the main chain (rewinds or forks) and were left out`);

  // The read is done: a big one leaves tens of MB of dead heap (parsed records promoted with the
  // messages, outgrown arrays) that V8, growing the heap, would not collect before the merges
  // below allocate on top of it (~25 MB of the peak on a million split-response lines).
  if (all.count >= PHASE_END_LINES) ctx.phaseEnd?.();
  const compactions: SourceCompaction[] = [];
  const main = toMessages(all, chain, ctx, compactions);

  // Sidechains: every sidechain root starts one subagent session.
  const subagents: Session[] = [];
  const side: number[] = [];
  for (let i = 0; i < all.count; i++) if ((flags[i]! & SIDECHAIN) !== 0) side.push(i);
  if (side.length > 0) {
    const groups = new Map<string, number[]>();
    const rootOf = new Map<string, string>();
    for (const i of side) {
      const parentUuid = all.parentUuid(i);
      const parentRoot = parentUuid !== null ? rootOf.get(parentUuid) : undefined;
      const uuid = all.uuid(i);
      const root = parentRoot ?? all.agentId.get(i) ?? uuid;
      rootOf.set(uuid, root);
      let g = groups.get(root);
      if (!g) groups.set(root, (g = []));
      g.push(i);
    }
    let k = 0;
    for (const [root, group] of groups) {
      const sub = toMessages(all, group, ctx);
      if (sub.messages.length === 0) continue;
      const model = mostUsed(sub.models);
      const agentId = all.agentId.get(group[0]!);
      subagents.push({
        id: `${sessionId ?? ctx.name}/subagent-${++k}-${root.slice(0, 8)}`,
        format: 'claude-code',
        // No title of its own: the call that spawned it names it (src/core/library/subagents.ts), else its first prompt.
        ...(model ? { model } : {}),
        ...(agentId !== undefined ? { agentId } : {}),
        provider: 'anthropic',
        systemPrompt: null,
        tools: [],
        messages: sub.messages,
        sourceCompactions: [],
        subagents: [],
        warnings: [],
      });
    }
  }

  const model = mostUsed(main.models);
  ctx.progress(main.messages.length, 1);
  return [
    {
      id: ownAgentId !== undefined ? agentSessionId(sessionId ?? ctx.name, ownAgentId) : (sessionId ?? ctx.name),
      format: 'claude-code',
      ...(title ? { title } : {}),
      ...(model ? { model } : {}),
      provider: 'anthropic',
      // Claude Code does not log its system prompt or tool definitions.
      systemPrompt: null,
      tools: [],
      messages: main.messages,
      sourceCompactions: compactions,
      subagents,
      ...(ownAgentId !== undefined ? { agentId: ownAgentId } : {}),
      ...(startedAt !== undefined ? { startedAt } : {}),
      ...(cwd ? { cwd } : {}),
      warnings: [],
    },
  ];
}

export const importer: Importer = { id: 'claude-code', label: 'Claude Code session (JSONL)', detect, parse, lineRecords: true };

/**
 * The call's identity for its usage (`message.id` + `requestId`, as ccusage keys a call) when the
 * line has both and neither is a redaction placeholder (redacted logs write one for every call).
 * Joined flat: a concatenation is a rope that the store's JSON.stringify flattens again per message.
 */
function callKey(messageId: string | undefined, requestId: string | undefined): string | undefined {
  if (!messageId || !requestId || messageId.startsWith('[') || requestId.startsWith('[')) return undefined;
  return [messageId, requestId].join(':');
}
