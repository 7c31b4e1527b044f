/**
 * Live tail's fast path for Claude Code (README "Live tail"): an append that only continues the
 * main chain is parsed on its own — the importer's per-line path over the new lines, not the
 * whole file again — and its messages are appended (or the last response extended). Anything
 * that could change what came before falls back to the whole-file path (store/tail.ts), which is
 * always right:
 * - a new line not chained to the previous one (the first to the last line before the append): a
 *   rewind or a fork, so maybe another main chain;
 * - a sidechain line (subagents), a compaction boundary or summary, an `isMeta` line (whether it
 *   was sent depends on lines before it), a title, summary or `last-prompt` line (a leaf);
 * - a uuid of a stored message, another model than the session's;
 * - a file with a `last-prompt` line anywhere before (its leaf, not the last line, ends the chain).
 * Not seen here (Claude Code writes neither): a new line reusing the uuid of an earlier line that
 * is no message, or the response id of a stored message before the last one.
 */
import { countsKey } from '../../core/tokens/version';
import { appendUsageStats, type UsageStats } from '../../core/library/stats';
import { importerFor } from '../../core/import/index';
import type { JsonLine, ParseContext } from '../../core/import/types';
import { isRecord } from '../../core/import/util';
import type { Message, Session } from '../../core/model';
import { countSession } from '../../core/tokens/count';
import { createCounter } from '../../core/tokens/cost';
import { chars4 } from '../../core/tokens/heuristics';
import { isTurnBoundary } from '../../core/turns';
import { messageRows, sourceLineId, type SessionStore } from './sessions';

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

export interface FastAppend {
  readonly sessionId: string;
  readonly messages: number;
  readonly steps: number;
  readonly changedFrom: number;
  /** Messages [changedFrom, messages) as the store now holds them (what `loadSession` would read). */
  readonly written: readonly Message[];
  /** The message count before. */
  readonly previous: number;
}

interface NewLine {
  readonly line: number;
  readonly text: string;
  readonly value: Record<string, unknown>;
}

/** The session's one stored row (a Claude Code file is one session), or undefined. */
type OnlySession = { id: string; messageCount: number; steps: number; turns: number; hasUsage: number; model: string | null } & UsageStats;
function onlySession(store: SessionStore, sourceId: number): OnlySession | undefined {
  const rows = store.db
    .prepare('SELECT id, message_count AS messageCount, step_count AS steps, turn_count AS turns, has_usage AS hasUsage, model, prompt_tokens AS promptTokens, output_tokens AS outputTokens, cost, ended_at AS endedAt FROM sessions WHERE source_id = ?')
    .all(sourceId) as OnlySession[];
  return rows.length === 1 ? rows[0] : undefined;
}

/** An append the fast path can take: `apply` writes it (in the caller's transaction), `advance` then moves the tail on. */
export interface FastPlan {
  /** Undefined when the new lines hold no message (progress lines, snapshots…). */
  readonly update: FastAppend | undefined;
  readonly apply: () => void;
  readonly advance: () => void;
}

/**
 * The plan for the complete lines in `appended` (the bytes after the imported ones) when they
 * only continue the main chain; undefined when the whole-file path must decide.
 */
export async function appendClaudeCode(store: SessionStore, sourceId: number, tail: ClaudeCodeTail, appended: Buffer): Promise<FastPlan | undefined> {
  if (tail.leaf === undefined) return undefined;
  const session = onlySession(store, sourceId);
  if (!session || session.messageCount === 0) return undefined;
  const text = appended.toString('utf8');
  const lines: NewLine[] = [];
  let n = tail.lines;
  for (const raw of text.split('\n')) {
    n++;
    const t = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (t.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(t);
    } catch {
      return undefined;
    }
    if (!isRecord(value)) return undefined;
    lines.push({ line: n, text: t, value });
  }
  // The split counts one line past the final newline.
  const total = n - 1;
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
    if (r['isSidechain'] === true || r['isMeta'] === true || r['isCompactSummary'] === true || r['subtype'] === 'compact_boundary' || r['logicalParentUuid'] !== undefined) return undefined;
    if (r['parentUuid'] !== parent || ids.has(uuid)) return undefined;
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
  if (!parsed || parsedSessions.length !== 1 || parsed.subagents.length > 0 || parsed.sourceCompactions.length > 0) return undefined;
  let fresh: readonly Message[] = parsed.messages;

  // A response continued from the last stored message (same message.id) extends it, as the
  // importer merges the lines of one response; a response id of any other message is not known here.
  const lastIdx = session.messageCount - 1;
  const last = store.db.prepare('SELECT body, raw, raw_line AS rawLine FROM messages WHERE session_id = ? AND idx = ?').get(session.id, lastIdx) as { body: string; raw: string | null; rawLine: number | null };
  const prev = JSON.parse(last.body) as Message;
  const lastRaw = prev.role === 'assistant' ? store.rawOf(session.id, lastIdx) : null;
  const lastApiId = lastRaw ? apiIdOf(lastRaw) : undefined;
  const sameResponse = (m: Message): boolean => lastApiId !== undefined && m.sourceLine !== undefined && apiIdOfLine.get(m.sourceLine) === lastApiId;
  if (fresh.slice(1).some(sameResponse)) return undefined;
  let merged: Message | undefined;
  if (fresh.length > 0 && fresh[0]!.role === 'assistant' && sameResponse(fresh[0]!)) {
    const m = fresh[0]!;
    merged = { ...prev, parts: [...prev.parts, ...m.parts], ...(m.usage ? { usage: m.usage } : {}), mergedLines: [...(prev.mergedLines ?? []), m.sourceLine!, ...(m.mergedLines ?? [])] };
    fresh = fresh.slice(1);
  }

  // Estimates: the stored ones plus the new messages' (chars/4 counts each message on its own).
  const counter = createCounter(chars4, { memo: false });
  const stored = store.loadCounts(session.id, 'chars4');
  if (counter.scale !== 1 || !stored || stored.perMessage.length !== session.messageCount) return undefined;
  const from = merged ? lastIdx : session.messageCount;
  const changed = merged ? [merged, ...fresh] : fresh;
  const added = countSession({ ...parsed, systemPrompt: null, tools: [], messages: changed } satisfies Session, counter);
  const perMessage = new Uint32Array(from + changed.length);
  perMessage.set(stored.perMessage.subarray(0, from));
  perMessage.set(added.perMessage, from);
  const prefix = new Float64Array(perMessage.length + 1);
  for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;

  const count = from + changed.length;
  const steps = session.steps + fresh.filter((m) => m.role === 'assistant').length;
  const turns = session.turns + fresh.filter(isTurnBoundary).length;
  const hasUsage = session.hasUsage === 1 || changed.some((m) => m.usage) ? 1 : 0;
  const textOf = new Map(lines.map((l) => [l.line, l.text]));
  const db = store.db;
  const insertLine = db.prepare('INSERT OR IGNORE INTO source_lines (id, text) VALUES (?, ?)');
  const insertMessage = db.prepare('INSERT INTO messages (session_id, idx, message_id, role, body, raw, raw_line) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const insertUsage = db.prepare('INSERT INTO usage (session_id, idx, convention, input, cache_read, cache_write, output, reasoning) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const written: Message[] = [];
  const apply = (): void => {
    written.length = 0;
    if (merged) {
      db.prepare('DELETE FROM messages WHERE session_id = ? AND idx >= ?').run(session.id, lastIdx);
      db.prepare('DELETE FROM usage WHERE session_id = ? AND idx >= ?').run(session.id, lastIdx);
      // Kept as the first import kept it: inline, or by line under the same source lines.
      const newLines = merged.mergedLines!.slice((prev.mergedLines ?? []).length);
      const body = messageRows([merged], 0, 1, true).bodies[0]!;
      written.push(JSON.parse(body) as Message);
      if (last.raw !== null) {
        insertMessage.run(session.id, lastIdx, merged.id, merged.role, body, [last.raw, ...newLines.map((l) => textOf.get(l) ?? '')].join('\n'), null);
      } else {
        const base = (last.rawLine ?? sourceLineId(sourceId, 0)) - (prev.sourceLine ?? 0);
        for (const l of newLines) insertLine.run(base + l, textOf.get(l) ?? '');
        insertMessage.run(session.id, lastIdx, merged.id, merged.role, body, null, last.rawLine);
      }
      const u = merged.usage;
      if (u) insertUsage.run(session.id, lastIdx, u.convention, u.input, u.cacheRead, u.cacheWrite, u.output, u.reasoning ?? null);
    }
    const rows = messageRows(fresh, 0, fresh.length, true);
    for (const b of rows.bodies) written.push(JSON.parse(b) as Message);
    for (let j = 0; j < fresh.length; j++) {
      const m = fresh[j]!;
      const i = (merged ? lastIdx + 1 : session.messageCount) + j;
      for (const l of [m.sourceLine!, ...(m.mergedLines ?? [])]) insertLine.run(sourceLineId(sourceId, l), textOf.get(l) ?? '');
      insertMessage.run(session.id, i, m.id, m.role, rows.bodies[j], null, sourceLineId(sourceId, m.sourceLine!));
      const u = m.usage;
      if (u) insertUsage.run(session.id, i, u.convention, u.input, u.cacheRead, u.cacheWrite, u.output, u.reasoning ?? null);
    }
    // The library's usage columns move with the append, as a first import of the grown file would store them.
    const usage = appendUsageStats(session, session.model ?? undefined, merged ? [prev] : [], changed);
    db.prepare('UPDATE sessions SET message_count = ?, step_count = ?, turn_count = ?, has_usage = ?, prompt_tokens = ?, output_tokens = ?, cost = ?, ended_at = ? WHERE id = ?').run(
      count, steps, turns, hasUsage, usage.promptTokens, usage.outputTokens, usage.cost, usage.endedAt, session.id,
    );
    extendCounts(store, session.id, session.messageCount, stored.perMessage, from, added.perMessage);
    store.saveCounts(session.id, { ...stored, perMessage, prefix });
  };
  return {
    update: { sessionId: session.id, messages: count, steps, changedFrom: from, written, previous: session.messageCount },
    apply,
    advance: () => {
      advance();
      for (const m of fresh) ids.add(m.id);
    },
  };
}

/**
 * Exact counts (a BPE tokenizer, calibrated) stay for the messages they counted; the new ones get
 * their chars/4 estimate scaled by the session's own ratio of exact to estimate, so a chart does
 * not fall back to estimates at every append. Marked approximate; the host recounts them exactly
 * in the background (`recount` in host/tail.ts). Counts of another length are dropped.
 */
function extendCounts(store: SessionStore, sessionId: string, count: number, estimates: Uint32Array, from: number, added: Uint32Array): void {
  // Stored keys carry the estimator's version (`calibrated@v1`): counts of another version are
  // never read again (loadCounts ignores them), so only the current ones are extended.
  const suffix = countsKey('');
  const keys = store.db.prepare('SELECT tokenizer FROM token_counts WHERE session_id = ? AND tokenizer <> ?').pluck().all(sessionId, countsKey('chars4')) as string[];
  for (const key of keys) {
    if (!key.endsWith(suffix)) continue;
    const tokenizer = key.slice(0, -suffix.length);
    const c = store.loadCounts(sessionId, tokenizer);
    // A background count finished on an earlier length: its messages are kept, the rest estimated.
    const have = c ? Math.min(c.perMessage.length, from) : 0;
    if (!c || c.perMessage.length > count || have === 0) {
      store.db.prepare('DELETE FROM token_counts WHERE session_id = ? AND tokenizer = ?').run(sessionId, key);
      continue;
    }
    let estimated = 0;
    for (let i = 0; i < have; i++) estimated += estimates[i]!;
    const ratio = estimated > 0 ? c.prefix[have]! / estimated : 1;
    const perMessage = new Uint32Array(from + added.length);
    perMessage.set(c.perMessage.subarray(0, have));
    for (let i = have; i < from; i++) perMessage[i] = Math.round(estimates[i]! * ratio);
    for (let j = 0; j < added.length; j++) perMessage[from + j] = Math.round(added[j]! * ratio);
    const prefix = new Float64Array(perMessage.length + 1);
    for (let i = 0; i < perMessage.length; i++) prefix[i + 1] = prefix[i]! + perMessage[i]!;
    store.saveCounts(sessionId, { ...c, perMessage, prefix, approximate: true });
  }
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
