/**
 * Claude Code's session files (importer: core/import/claude-code.ts): `~/.claude/projects/<cwd>/<session>.jsonl`.
 *
 * Live tail: an append that only continues the main chain is parsed on its own — the importer's
 * per-line path over the new lines, not the whole file again — and its messages are appended (or
 * the last response extended). Anything that could change what came before falls back to the
 * whole-file path, which is always right:
 * - a new line not chained to the previous one (the first to the last line before the append): a
 *   rewind or a fork, so maybe another main chain;
 * - a sidechain line (subagents), an `isMeta` line (whether it was sent depends on lines before
 *   it), a title, summary or `last-prompt` line (a leaf); a compaction boundary whose logical
 *   parent is not the last line (a compaction continuing the chain is appended with its record);
 * - a uuid of a stored message, another model than the session's;
 * - a file with a `last-prompt` line anywhere before (its leaf, not the last line, ends the chain).
 * Not seen here (Claude Code writes neither): a new line reusing the uuid of an earlier line that
 * is no message, or the response id of a stored message before the last one.
 */
import { importer } from '../import/claude-code';
import type { BlockedJsonLines } from '../import/read';
import type { JsonLine, ParseContext } from '../import/types';
import { isRecord } from '../import/util';
import type { Message, Session } from '../model';
import { ascii, concatBytes, indexOfBytes, LineBytes, lineTexts, textOf } from './bytes';
import { IdHashSet } from './id-set';
import { linesTail, type ByteScan, type FormatDescriptor, type ReadBytes } from './types';

declare module '../model' {
  interface FormatIds {
    'claude-code': true;
  }
}

/** What the fast path keeps between appends. */
interface ClaudeCodeTail {
  /** Lines in the imported bytes. */
  readonly lines: number;
  /** uuid of the last main-chain line imported (where an append must chain on). */
  readonly leaf: string | undefined;
  /** Message ids stored for the session (loaded on first use), as hashes: a set that grows with the session, kept compact. */
  readonly ids: IdHashSet | undefined;
}

/** Line types that can change the title or the leaf. */
const SLOW_TYPES = new Set(['last-prompt', 'custom-title', 'ai-title', 'summary']);

/** `"last-prompt"`: a line naming the leaf of the main chain. */
const LAST_PROMPT = ascii('"last-prompt"');
/** Message ids read per slice by the tail's `prepare`: one short read of the store between turns of the host's event loop (a slice of a 1 GB session is ~8 MB of its table's pages). */
const PREPARE_SLICE = 5_000;

/** Whether a `last-prompt` line is in the bytes as they stream by. */
class LastPromptScan implements ByteScan {
  private found = false;
  private carry = new Uint8Array(0);
  feed(chunk: Uint8Array): void {
    if (this.found) return;
    const joined = concatBytes([this.carry, chunk.subarray(0, LAST_PROMPT.length)]);
    this.found = indexOfBytes(chunk, LAST_PROMPT) >= 0 || indexOfBytes(joined, LAST_PROMPT) >= 0;
    this.carry = chunk.slice(Math.max(0, chunk.length - LAST_PROMPT.length + 1));
  }
  done(): boolean {
    return this.found;
  }
}

/** The uuid of the last line before `end` that has one and is not a sidechain line (read backwards). */
function lastMainUuid(read: ReadBytes, end: number): string | undefined {
  let tailText: Uint8Array = new Uint8Array(0);
  for (let to = end; to > 0;) {
    const at = Math.max(0, to - (1 << 20));
    tailText = concatBytes([read(at, to), tailText]);
    to = at;
    // Whole lines only: the first (partial unless at the start) waits for the next read.
    let stop = tailText.length;
    for (let nl = tailText.lastIndexOf(10, stop - 1); stop > 0; nl = tailText.lastIndexOf(10, stop - 1)) {
      if (nl < 0 && at > 0) break;
      const line = textOf(tailText, nl + 1, stop).trim();
      stop = Math.max(0, nl);
      if (line === '') continue;
      try {
        const r: unknown = JSON.parse(line);
        if (isRecord(r) && typeof r['uuid'] === 'string' && r['isSidechain'] !== true) return r['uuid'];
      } catch {
        return undefined;
      }
      if (nl < 0) break;
    }
    tailText = tailText.subarray(0, stop);
  }
  return undefined;
}

/** `message.id` of a raw Claude Code record (its first line). */
function apiIdOf(raw: string): string | undefined {
  try {
    const r: unknown = JSON.parse(raw.split('\n', 1)[0]!);
    const m = isRecord(r) && isRecord(r['message']) ? r['message'] : undefined;
    return typeof m?.['id'] === 'string' ? m['id'] : undefined;
  } catch {
    return undefined;
  }
}

export const format: FormatDescriptor = {
  ...importer,
  agent: 'Claude Code',
  defaultPolicy: 'claude-code',
  localLogs: {
    env: 'CLAUDE_CONFIG_DIR',
    home: ['.claude'],
    below: ['projects'],
    // projects/<encoded cwd>/<session>.jsonl (subagent files nest deeper and belong to their parent).
    maxDepth: 1,
    accept: (name, dirs) => dirs.length === 1 && name.endsWith('.jsonl'),
    project: { by: 'folder', cwdInHead: true, decode: decodeClaudeProject },
  },
  tail: {
    lines: linesTail<ClaudeCodeTail>({
      scan: () => new LastPromptScan(),
      start: ({ lines, size, scanned, read }) =>
        // A file with a `last-prompt` line: its leaf, not the last line, ends the chain.
        scanned !== false || size === 0 ? undefined : { lines, leaf: lastMainUuid(read, size), ids: undefined },
      // The stored ids the append checks new lines against, read a slice at a time before the
      // first append: read at the append, they were the whole messages table's pages (1–2 s of
      // the host's thread on a 1 GB session the first time).
      prepare: function* (state, session) {
        if (state.ids !== undefined || state.leaf === undefined) return state;
        const ids = new IdHashSet();
        for (let from = 0; from < session.messageCount; from += PREPARE_SLICE) {
          for (const id of session.messageIdsBetween(from, Math.min(session.messageCount, from + PREPARE_SLICE))) ids.add(id);
          yield;
        }
        return { ...state, ids };
      },
      append: async ({ state, appended, session }) => {
        if (state.leaf === undefined || session.messageCount === 0) return { state };
        // Not prepared (an append came first): all of them now.
        const ids = state.ids ?? new IdHashSet(session.messageIdsBetween(0, session.messageCount));
        const looked = { ...state, ids };
        // One pass over the new lines (decoded at once, core/formats/bytes.ts `lineTexts`): each
        // is parsed, checked (a linear continuation of the main chain, nothing that reaches back)
        // and handed to the importer's own per-line path in turn, so no line's parsed value
        // outlives its turn (the importer keeps what the window needs of it). A line that needs
        // the whole file stops the pass.
        let slow = false;
        let parent = state.leaf;
        let total = state.lines;
        let news = 0;
        const apiIdOfLine = new Map<number, string>();
        // The records of the new messages: their lines' bytes, as the import stores them.
        const texts = new LineBytes(appended);
        const checked = function* (): Generator<JsonLine> {
          for (const span of lineTexts(appended, state.lines)) {
            total = span.line;
            const text = span.text;
            if (text.trim() === '') continue;
            let r: unknown;
            try {
              r = JSON.parse(text);
            } catch {
              r = undefined;
            }
            if (!isRecord(r)) return void (slow = true);
            const type = typeof r['type'] === 'string' ? r['type'] : '';
            if (SLOW_TYPES.has(type)) return void (slow = true);
            const uuid = r['uuid'];
            if (typeof uuid !== 'string' || uuid === '') continue;
            if (r['isSidechain'] === true || r['isMeta'] === true) return void (slow = true);
            // A compaction continues the chain through its boundary's logical parent (a new chain root
            // otherwise): its summary line and the calls after it chain on from the boundary.
            const boundary = r['subtype'] === 'compact_boundary';
            if (boundary ? r['logicalParentUuid'] !== parent : r['logicalParentUuid'] !== undefined) return void (slow = true);
            if ((boundary ? (r['parentUuid'] ?? null) !== null && r['parentUuid'] !== parent : r['parentUuid'] !== parent) || ids.has(uuid))
              return void (slow = true);
            parent = uuid;
            const msg = isRecord(r['message']) ? r['message'] : {};
            if (type === 'assistant') {
              const model = msg['model'];
              if (typeof model === 'string' && model !== '' && model !== '<synthetic>' && model !== session.model)
                return void (slow = true);
              if (typeof msg['id'] === 'string') apiIdOfLine.set(span.line, msg['id']);
            }
            texts.add(span);
            news++;
            yield { line: span.line, value: r, raw: text };
          }
        };
        // One block of all the lines, read line by line as the importer asks (lineBlocks in
        // core/import/read.ts): no promise per line.
        const input: BlockedJsonLines = {
          blocks: async function* () {
            yield checked();
          },
          async *[Symbol.asyncIterator]() {
            yield* checked();
          },
        };
        // The importer's own per-line path, on the new lines alone, numbered as in the file.
        const ctx: ParseContext = { name: 'appended lines', keepRaw: false, lineRecords: true, warn: () => {}, progress: () => {} };
        let parsedSessions: Session[] | undefined;
        try {
          parsedSessions = await importer.parse({ kind: 'jsonl', lines: input }, ctx);
        } catch {
          parsedSessions = undefined;
        }
        if (slow) return { state: looked };
        const moved = { lines: total, leaf: parent, ids };
        if (news === 0)
          return { state: looked, change: { from: session.messageCount, removed: [], changed: [], records: 'inline', next: () => moved } };
        const parsed = parsedSessions?.[0];
        if (!parsed || parsedSessions!.length !== 1 || parsed.subagents.length > 0) return { state: looked };
        let fresh: readonly Message[] = parsed.messages;

        // A response continued from the last stored message (same message.id) extends it, as the
        // importer merges the lines of one response; a response id of any other message is not known here.
        const lastIdx = session.messageCount - 1;
        const prev = session.messagesFrom(lastIdx)[0]!;
        const lastRaw = prev.role === 'assistant' ? session.rawOf(lastIdx) : null;
        const lastApiId = lastRaw ? apiIdOf(lastRaw) : undefined;
        const sameResponse = (m: Message): boolean =>
          lastApiId !== undefined && m.sourceLine !== undefined && apiIdOfLine.get(m.sourceLine) === lastApiId;
        if (fresh.slice(1).some(sameResponse)) return { state: looked };
        let merged: Message | undefined;
        if (fresh.length > 0 && fresh[0]!.role === 'assistant' && sameResponse(fresh[0]!)) {
          const m = fresh[0]!;
          merged = {
            ...prev,
            parts: [...prev.parts, ...m.parts],
            ...(m.usage ? { usage: m.usage } : {}),
            mergedLines: [...(prev.mergedLines ?? []), m.sourceLine!, ...(m.mergedLines ?? [])],
          };
          fresh = fresh.slice(1);
        }
        // Compactions among the new lines: their message indices as in the whole session (a merged last
        // response shifts nothing: the parse numbered the new messages from its first one).
        if (merged && parsed.sourceCompactions.some((c) => c.atMessage === 0)) return { state: looked };
        const offset = session.messageCount - (merged ? 1 : 0);
        const compactions = parsed.sourceCompactions.map((c) => ({ ...c, atMessage: c.atMessage + offset }));
        const next = (): ClaudeCodeTail => {
          for (const m of fresh) ids.add(m.id);
          return moved;
        };
        return {
          state: looked,
          change: {
            from: merged ? lastIdx : session.messageCount,
            removed: merged ? [prev] : [],
            changed: merged ? [merged, ...fresh] : fresh,
            // The extended last response keeps its record as the first import kept it, grown by its new lines.
            records: merged ? { lines: texts, extendsLast: merged.mergedLines!.slice((prev.mergedLines ?? []).length) } : { lines: texts },
            ...(compactions.length > 0 ? { compactions } : {}),
            next,
          },
        };
      },
    }),
  },
};

/**
 * Claude Code names a project folder after its cwd with every `/` (and other non-alphanumeric
 * character) turned into `-`: `-home-ana-web-app` → `/home/ana/web/app`. The mapping loses
 * information (a `-` in a folder name reads back as `/`), so the cwd written inside the newest
 * session is preferred when its head has one.
 */
export function decodeClaudeProject(folder: string): string {
  return folder.startsWith('-') ? folder.replace(/-/g, '/') : folder;
}
