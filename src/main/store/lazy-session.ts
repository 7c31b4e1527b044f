/**
 * A stored session held by its numbers (docs/architecture.md "How a session is held in memory"):
 * every message's fields and the skeleton of its parts (kinds, tool call ids and names) are read
 * once, in one pass over its rows, and the text — a part's `text`, a tool call's `args` — is read
 * from `messages.body` when asked for, a page of messages at a time, through a cache bounded in
 * pages and characters. The resident cost of a message is then its numbers and ids, not its text:
 * a 1 GB transcript's text stays in SQLite.
 *
 * Core sees a plain `Session`: a part's text is a getter, so core code reads it as it always did
 * and never knows where it comes from. A message and its parts are the same objects for as long as
 * the session is held, so what a replay derives per message (cached by the message object) stays
 * valid while the text it came from is evicted.
 */
import type { Message, Part, ReasoningPart, Session, TextPart, ToolCallPart, ToolResultPart } from '../../core/model';
import type { SessionStore } from './sessions';

export interface PageCacheOptions {
  /** Messages per page (one SQLite read). */
  readonly pageSize?: number;
  /** Pages held at most. */
  readonly maxPages?: number;
  /**
   * Characters of message bodies held at most (the page just read is held whatever its size):
   * a page of big tool results is evicted sooner than a page of short turns.
   */
  readonly maxChars?: number;
}

/** What a session's page cache holds and has read (tests, the bench, the memory profile). */
export interface PageCacheStats {
  /** Pages read from SQLite so far. */
  readonly loads: number;
  readonly pages: number;
  /** Characters of the bodies of the pages held now. */
  readonly chars: number;
  /** The most pages and characters ever held at once. */
  readonly peakPages: number;
  readonly peakChars: number;
}

/** 256 messages per page, 64 pages, 8 M characters: a step's window of a long session in a few pages, a few tens of MB at most. */
export const DEFAULT_PAGES: Required<PageCacheOptions> = { pageSize: 256, maxPages: 64, maxChars: 8 * 1024 * 1024 };

interface Page {
  readonly parts: (readonly Part[])[];
  readonly chars: number;
}

/** Reads a page: the JSON body of each message of [from, to). */
export type PageReader = (from: number, to: number) => readonly string[];

/** The parts of a session's messages, read a page at a time and kept in a bounded LRU of pages. */
export class MessagePages {
  private readonly held = new Map<number, Page>();
  private readonly pageSize: number;
  private readonly maxPages: number;
  private readonly maxChars: number;
  /** The page of the last read: reads within one page skip the LRU's bookkeeping. */
  private lastKey = -1;
  private lastPage: Page | undefined;
  private chars = 0;
  private loads = 0;
  private peakPages = 0;
  private peakChars = 0;

  constructor(
    private readonly read: PageReader,
    options: PageCacheOptions = {},
  ) {
    this.pageSize = options.pageSize ?? DEFAULT_PAGES.pageSize;
    this.maxPages = Math.max(1, options.maxPages ?? DEFAULT_PAGES.maxPages);
    this.maxChars = options.maxChars ?? DEFAULT_PAGES.maxChars;
    if (!Number.isInteger(this.pageSize) || this.pageSize < 1) throw new RangeError(`a page holds at least one message (${this.pageSize})`);
  }

  partsOf(index: number): readonly Part[] {
    const key = Math.floor(index / this.pageSize);
    let page = key === this.lastKey ? this.lastPage : undefined;
    if (!page) {
      page = this.held.get(key);
      if (page) {
        // Most recently used last (a Map iterates in insertion order).
        this.held.delete(key);
        this.held.set(key, page);
      } else page = this.load(key);
      this.lastKey = key;
      this.lastPage = page;
    }
    const parts = page.parts[index - key * this.pageSize];
    if (!parts) throw new RangeError(`no stored message #${index} (the page read has ${page.parts.length} from #${key * this.pageSize})`);
    return parts;
  }

  /** Drops the pages holding messages `from`… (a live-tail append rewrote them). */
  invalidateFrom(from: number): void {
    const first = Math.floor(from / this.pageSize);
    for (const [key, page] of this.held) {
      if (key < first) continue;
      this.held.delete(key);
      this.chars -= page.chars;
    }
    this.lastKey = -1;
    this.lastPage = undefined;
  }

  stats(): PageCacheStats {
    return { loads: this.loads, pages: this.held.size, chars: this.chars, peakPages: this.peakPages, peakChars: this.peakChars };
  }

  private load(key: number): Page {
    const from = key * this.pageSize;
    const rows = this.read(from, from + this.pageSize);
    let chars = 0;
    const parts = rows.map((body) => {
      chars += body.length;
      return (JSON.parse(body) as Message).parts;
    });
    return this.hold(key, parts, chars);
  }

  /** Messages per page. */
  get size(): number {
    return this.pageSize;
  }

  /**
   * Holds page `key` as read elsewhere (`loadLazySession` parses each page once, for the messages'
   * fields and for `prime`): the parts of its messages and its bodies' characters.
   */
  hold(key: number, parts: (readonly Part[])[], chars: number): Page {
    const before = this.held.get(key);
    if (before) {
      this.held.delete(key);
      this.chars -= before.chars;
    }
    const page: Page = { parts, chars };
    this.lastKey = key;
    this.lastPage = page;
    this.loads++;
    // Room first, so that what is held never passes the bounds by more than the page being added.
    while (this.held.size > 0 && (this.held.size + 1 > this.maxPages || this.chars + chars > this.maxChars)) {
      const [oldest, gone] = this.held.entries().next().value as [number, Page];
      this.held.delete(oldest);
      this.chars -= gone.chars;
    }
    this.held.set(key, page);
    this.chars += chars;
    this.peakPages = Math.max(this.peakPages, this.held.size);
    this.peakChars = Math.max(this.peakChars, this.chars);
    return page;
  }
}

/** A message's fields but its parts, as stored. */
type MessageHead = Omit<Message, 'parts' | 'raw'>;

/**
 * Where a stored part's text is: its message's index and its own among the message's parts. Every
 * part of a session shares the session's pages; a part holds no text itself.
 */
abstract class StoredPart {
  readonly #pages: MessagePages;
  readonly #message: number;
  readonly #part: number;

  constructor(pages: MessagePages, message: number, part: number) {
    this.#pages = pages;
    this.#message = message;
    this.#part = part;
  }

  /** The part as stored, read through the pages (its text fields are its own). */
  protected stored<P extends Part>(): P {
    return this.#pages.partsOf(this.#message)[this.#part] as P;
  }
}

class StoredTextPart extends StoredPart implements TextPart {
  readonly kind = 'text';
  get text(): string {
    return this.stored<TextPart>().text;
  }
  toJSON(): TextPart {
    return { kind: this.kind, text: this.text };
  }
}

class StoredReasoningPart extends StoredPart implements ReasoningPart {
  readonly kind = 'reasoning';
  declare readonly redacted?: boolean;
  constructor(pages: MessagePages, message: number, part: number, stored: ReasoningPart) {
    super(pages, message, part);
    if (stored.redacted !== undefined) (this as { redacted?: boolean }).redacted = stored.redacted;
  }
  get text(): string {
    return this.stored<ReasoningPart>().text;
  }
  toJSON(): ReasoningPart {
    return { kind: this.kind, text: this.text, ...(this.redacted !== undefined ? { redacted: this.redacted } : {}) };
  }
}

class StoredToolCallPart extends StoredPart implements ToolCallPart {
  readonly kind = 'tool_call';
  readonly id: string;
  readonly name: string;
  constructor(pages: MessagePages, message: number, part: number, stored: ToolCallPart, intern: (s: string) => string) {
    super(pages, message, part);
    this.id = intern(stored.id);
    this.name = intern(stored.name);
  }
  get args(): string {
    return this.stored<ToolCallPart>().args;
  }
  toJSON(): ToolCallPart {
    return { kind: this.kind, id: this.id, name: this.name, args: this.args };
  }
}

class StoredToolResultPart extends StoredPart implements ToolResultPart {
  readonly kind = 'tool_result';
  readonly callId: string;
  readonly isError: boolean;
  declare readonly name?: string;
  constructor(pages: MessagePages, message: number, part: number, stored: ToolResultPart, intern: (s: string) => string) {
    super(pages, message, part);
    this.callId = intern(stored.callId);
    this.isError = stored.isError;
    if (stored.name !== undefined) (this as { name?: string }).name = intern(stored.name);
  }
  get text(): string {
    return this.stored<ToolResultPart>().text;
  }
  toJSON(): ToolResultPart {
    return {
      kind: this.kind,
      callId: this.callId,
      isError: this.isError,
      text: this.text,
      ...(this.name !== undefined ? { name: this.name } : {}),
    };
  }
}

/** A part held without its text: what a replay reads of every message (kinds, call ids, names) stays resident. */
function skeletonOf(p: Part, pages: MessagePages, message: number, part: number, intern: (s: string) => string): Part {
  switch (p.kind) {
    case 'text':
      return new StoredTextPart(pages, message, part);
    case 'reasoning':
      return new StoredReasoningPart(pages, message, part, p);
    case 'tool_call':
      return new StoredToolCallPart(pages, message, part, p, intern);
    case 'tool_result':
      return new StoredToolResultPart(pages, message, part, p, intern);
    case 'media':
      // No payload in the model (model.ts MediaPart): kept as it is.
      return p;
  }
}

/** A message as stored, its parts' text read through the session's pages. */
function storedMessage(m: Message, pages: MessagePages, index: number, intern: (s: string) => string): Message {
  const { parts, raw: _raw, ...head } = m;
  const out: MessageHead & { parts?: readonly Part[] } = head;
  if (head.model !== undefined) (out as { model?: string }).model = intern(head.model);
  out.parts = parts.map((p, k) => skeletonOf(p, pages, index, k, intern));
  return out as Message;
}

/** One string object per distinct value (models, tool names, call ids repeat across a session). */
function interner(): (s: string) => string {
  const seen = new Map<string, string>();
  return (s) => {
    const hit = seen.get(s);
    if (hit !== undefined) return hit;
    seen.set(s, s);
    return s;
  };
}

/** The pages behind each lazily held message list (tests, the bench, appends). */
const pagesOf = new WeakMap<readonly Message[], MessagePages>();

/** The page cache of a session loaded by `loadLazySession`, or undefined for one held whole. */
export function lazyPages(s: Session): MessagePages | undefined {
  return pagesOf.get(s.messages);
}

/**
 * The session `id` held by its numbers, its text read on demand (see the file's comment); undefined
 * for an unknown id. Reading it costs one pass over its rows with the text left in SQLite.
 */
export function loadLazySession(
  store: SessionStore,
  id: string,
  options: PageCacheOptions & {
    /**
     * Called with each message while its page is the one just read (its text at hand): what a
     * replay derives per message from text (facts, summary items) is made here, in the one pass
     * that reads the session, instead of by passes of the first replay that read it all again.
     */
    readonly prime?: (m: Message) => void;
  } = {},
): Session | undefined {
  // One read transaction: the metadata and every page from the same state of the store (an import
  // that commits a chunk meanwhile is not half seen; the counts stored with it match).
  return store.db.transaction(() => readLazySession(store, id, options))();
}

function readLazySession(
  store: SessionStore,
  id: string,
  options: PageCacheOptions & { readonly prime?: (m: Message) => void },
): Session | undefined {
  const meta = store.sessionMeta(id);
  if (!meta) return undefined;
  const pages = new MessagePages((from, to) => store.messageBodies(id, from, to), options);
  const intern = interner();
  const messages: Message[] = [];
  for (let key = 0; ; key++) {
    const from = key * pages.size;
    const bodies = store.messageBodies(id, from, from + pages.size);
    let chars = 0;
    const parsed = bodies.map((body) => {
      chars += body.length;
      return JSON.parse(body) as Message;
    });
    pages.hold(
      key,
      parsed.map((m) => m.parts),
      chars,
    );
    for (const m of parsed) {
      const held = storedMessage(m, pages, messages.length, intern);
      messages.push(held);
      options.prime?.(held);
    }
    if (bodies.length < pages.size) break;
  }
  pagesOf.set(messages, pages);
  return { ...meta, messages };
}

/**
 * `messages` (a live-tail update of messages `from`…, as stored) as messages of the lazily held
 * `held`: the same pages, read again from `from` on, and new message objects whose text stays in
 * SQLite. Undefined when `held` is not held lazily.
 */
export function storedTail(held: Session, from: number, messages: readonly Message[]): Message[] | undefined {
  const pages = pagesOf.get(held.messages);
  if (!pages) return undefined;
  pages.invalidateFrom(from);
  const intern = interner();
  return messages.map((m, k) => storedMessage(m, pages, from + k, intern));
}

/** Records `messages` (a list made of `held`'s messages and `storedTail`'s) as read through `held`'s pages. */
export function keepPages(held: Session, messages: readonly Message[]): void {
  const pages = pagesOf.get(held.messages);
  if (pages) pagesOf.set(messages, pages);
}

/**
 * Messages [from, to) of session `id` as stored now, held by their numbers with their text read
 * through `pages` (one page cache per session, kept by the caller): how the replay worker reads a
 * session still being imported (host/growing.ts), a step at a time, without holding its text.
 * The pages from `from`'s on are dropped first: they were read when fewer messages were stored, or
 * a chunk wrote those messages again.
 */
export function lazyMessages(store: SessionStore, id: string, from: number, to: number, pages: MessagePages): Message[] {
  if (to <= from) return [];
  pages.invalidateFrom(from);
  const intern = interner();
  return store.messageBodies(id, from, to).map((body, k) => storedMessage(JSON.parse(body) as Message, pages, from + k, intern));
}

/** A page cache reading session `id`'s bodies (the pages `lazyMessages` reads a growing session through). */
export function sessionPages(store: SessionStore, id: string, options: PageCacheOptions = {}): MessagePages {
  return new MessagePages((from, to) => store.messageBodies(id, from, to), options);
}
