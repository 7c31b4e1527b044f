/**
 * Live tail's fast path for Claude Code (docs/user-guide.md "Live tail"): an append that only continues the
 * main chain is parsed on its own — the importer's per-line path over the new lines, not the
 * whole file again — and its messages are appended (or the last response extended). Anything
 * that could change what came before falls back to the whole-file path (store/tail.ts), which is
 * always right:
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
import { importerFor } from '../../core/import/index';
import type { JsonLine, ParseContext } from '../../core/import/types';
import { isRecord } from '../../core/import/util';
import type { Message, Session } from '../../core/model';
import { sourceLineId, type SessionStore } from './sessions';
import { byLine, onlySession, parseAppended, planAppend, type FastPlan, type RecordOf } from './tail-append';

/** What the fast path keeps between appends (see TailState.claudeCode). */
export interface ClaudeCodeTail {
  /** Lines in the imported bytes. */
  lines: number;
  /** uuid of the last main-chain line imported (where an append must chain on). */
  leaf: string | undefined;
  /** Message ids stored for the session (loaded on first use). */
  ids: Set<string> | undefined;
}

/** Line types that can change the title or the leaf. */
const SLOW_TYPES = new Set(['last-prompt', 'custom-title', 'ai-title', 'summary']);

/**
 * The plan for the complete lines in `appended` (the bytes after the imported ones) when they
 * only continue the main chain; undefined when the whole-file path must decide.
 */
export async function appendClaudeCode(
  store: SessionStore,
  sourceId: number,
  tail: ClaudeCodeTail,
  appended: Buffer,
): Promise<FastPlan | undefined> {
  if (tail.leaf === undefined) return undefined;
  const session = onlySession(store, sourceId);
  if (!session || session.messageCount === 0) return undefined;
  const parsedLines = parseAppended(appended, tail.lines);
  if (!parsedLines) return undefined;
  const { lines, total } = parsedLines;
  tail.ids ??= new Set(store.db.prepare('SELECT message_id FROM messages WHERE session_id = ?').pluck().all(session.id) as string[]);
  const ids = tail.ids;
  // Linear continuation of the main chain, nothing that reaches back.
  let parent = tail.leaf;
  const apiIdOfLine = new Map<number, string>();
  for (const { value: r, line } of lines) {
    const type = typeof r['type'] === 'string' ? r['type'] : '';
    if (SLOW_TYPES.has(type)) return undefined;
    const uuid = r['uuid'];
    if (typeof uuid !== 'string' || uuid === '') continue;
    if (r['isSidechain'] === true || r['isMeta'] === true) return undefined;
    // A compaction continues the chain through its boundary's logical parent (a new chain root
    // otherwise): its summary line and the calls after it chain on from the boundary.
    const boundary = r['subtype'] === 'compact_boundary';
    if (boundary ? r['logicalParentUuid'] !== parent : r['logicalParentUuid'] !== undefined) return undefined;
    if ((boundary ? (r['parentUuid'] ?? null) !== null && r['parentUuid'] !== parent : r['parentUuid'] !== parent) || ids.has(uuid))
      return undefined;
    parent = uuid;
    const msg = isRecord(r['message']) ? r['message'] : {};
    if (type === 'assistant') {
      const model = msg['model'];
      if (typeof model === 'string' && model !== '' && model !== '<synthetic>' && model !== session.model) return undefined;
      if (typeof msg['id'] === 'string') apiIdOfLine.set(line, msg['id']);
    }
  }
  const leaf = parent;
  const advance = (): void => {
    tail.lines = total;
    tail.leaf = leaf;
  };
  const news = lines.filter((l) => typeof l.value['uuid'] === 'string' && l.value['uuid'] !== '');
  if (news.length === 0) return { update: undefined, apply: () => {}, advance };

  // The importer's own per-line path, on the new lines alone, numbered as in the file.
  const importer = importerFor('claude-code');
  if (!importer) return undefined;
  const ctx: ParseContext = { name: 'appended lines', keepRaw: false, lineRecords: true, warn: () => {}, progress: () => {} };
  const input = (async function* (): AsyncGenerator<JsonLine> {
    for (const l of news) yield { line: l.line, value: l.value, raw: l.text };
  })();
  let parsedSessions: Session[];
  try {
    parsedSessions = await importer.parse({ kind: 'jsonl', lines: input }, ctx);
  } catch {
    return undefined;
  }
  const parsed = parsedSessions[0];
  if (!parsed || parsedSessions.length !== 1 || parsed.subagents.length > 0) return undefined;
  let fresh: readonly Message[] = parsed.messages;

  // A response continued from the last stored message (same message.id) extends it, as the
  // importer merges the lines of one response; a response id of any other message is not known here.
  const lastIdx = session.messageCount - 1;
  const last = store.db
    .prepare('SELECT body, raw, raw_line AS rawLine FROM messages WHERE session_id = ? AND idx = ?')
    .get(session.id, lastIdx) as { body: string; raw: string | null; rawLine: number | null };
  const prev = JSON.parse(last.body) as Message;
  const lastRaw = prev.role === 'assistant' ? store.rawOf(session.id, lastIdx) : null;
  const lastApiId = lastRaw ? apiIdOf(lastRaw) : undefined;
  const sameResponse = (m: Message): boolean =>
    lastApiId !== undefined && m.sourceLine !== undefined && apiIdOfLine.get(m.sourceLine) === lastApiId;
  if (fresh.slice(1).some(sameResponse)) return undefined;
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

  const from = merged ? lastIdx : session.messageCount;
  const textOf = new Map(lines.map((l) => [l.line, l.text]));
  const lineRecord = byLine(store, sourceId, textOf);
  // The extended last response is kept as the first import kept it: inline (raw joined by
  // newlines), or by line under the same source lines.
  const record: RecordOf = (m, i) => {
    if (i !== lastIdx || !merged) return lineRecord(m, i);
    const newLines = merged.mergedLines!.slice((prev.mergedLines ?? []).length);
    if (last.raw !== null) return { raw: [last.raw, ...newLines.map((l) => textOf.get(l) ?? '')].join('\n'), rawLine: null };
    const base = (last.rawLine ?? sourceLineId(sourceId, 0)) - (prev.sourceLine ?? 0);
    const insertLine = store.db.prepare('INSERT OR IGNORE INTO source_lines (id, text) VALUES (?, ?)');
    for (const l of newLines) insertLine.run(base + l, textOf.get(l) ?? '');
    return { raw: null, rawLine: last.rawLine };
  };
  // Compactions among the new lines: their message indices as in the whole session (a merged last
  // response shifts nothing: the parse numbered the new messages from its first one).
  if (merged && parsed.sourceCompactions.some((c) => c.atMessage === 0)) return undefined;
  const offset = session.messageCount - (merged ? 1 : 0);
  const compactions = parsed.sourceCompactions.map((c) => ({ ...c, atMessage: c.atMessage + offset }));
  const plan = planAppend(store, {
    session,
    from,
    removed: merged ? [prev] : [],
    changed: merged ? [merged, ...fresh] : fresh,
    record,
    ...(compactions.length > 0 ? { compactions } : {}),
  });
  if (!plan) return undefined;
  return {
    ...plan,
    advance: () => {
      advance();
      for (const m of fresh) ids.add(m.id);
    },
  };
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
