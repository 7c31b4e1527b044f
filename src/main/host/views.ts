/**
 * Stored sessions → the contract's view models. The renderer only ever sees these shapes; long
 * texts are shortened for display (the full text stays in the store).
 */
import { agentOf } from '../../core/formats/index';
import type { Message, Part } from '../../core/model';
import type { MessageView, SessionSummary } from '../../shared/api';
import type { StoredSessionRow } from '../store/sessions';

/** Longest text a message part carries to the renderer; the rest is elided with a marker. */
export const DISPLAY_PART_CHARS = 20_000;

export function toSummary(r: StoredSessionRow): SessionSummary {
  return {
    id: r.id,
    title: r.title ?? r.sourcePath.split(/[\\/]/).pop() ?? r.id,
    format: r.format,
    model: r.model,
    sourcePath: r.sourcePath,
    messages: r.messageCount,
    steps: r.stepCount,
    turns: r.turnCount,
    startedAt: r.startedAt,
    importedAt: r.importedAt,
    reportedUsage: r.hasUsage,
    parentId: r.parentId,
    spawnedBy: r.spawnedBy,
    spawnedAt: r.spawnedAt,
    position: r.position,
    cwd: r.cwd,
    agent: agentOf(r.format),
    sourceCompactions: r.compactions,
    promptTokens: r.promptTokens,
    outputTokens: r.outputTokens,
    cost: r.cost,
    endedAt: r.endedAt,
    fileSize: r.size,
    cachedResults: r.cached,
  };
}

/**
 * The library's list: every session, with the sessions of one file told apart — when two
 * top-level sessions of one file carry the same title, each gets its place in the file (`#2 of 3`).
 */
export function toSummaries(rows: readonly StoredSessionRow[]): SessionSummary[] {
  const byTitle = new Map<string, number>();
  const perSource = new Map<number, number>();
  for (const r of rows) {
    if (r.parentId !== null) continue;
    perSource.set(r.sourceId, (perSource.get(r.sourceId) ?? 0) + 1);
    const k = `${r.sourceId}\u0000${r.title ?? ''}`;
    byTitle.set(k, (byTitle.get(k) ?? 0) + 1);
  }
  return rows.map((r) => {
    const s = toSummary(r);
    if (r.parentId !== null || (byTitle.get(`${r.sourceId}\u0000${r.title ?? ''}`) ?? 0) < 2) return s;
    return { ...s, title: `${s.title} #${r.position + 1} of ${perSource.get(r.sourceId) ?? 1}` };
  });
}

function clip(text: string): { text: string; clipped: boolean } {
  if (text.length <= DISPLAY_PART_CHARS) return { text, clipped: false };
  const omitted = text.length - DISPLAY_PART_CHARS;
  return { text: `${text.slice(0, DISPLAY_PART_CHARS)}\n… [${omitted.toLocaleString('en-US')} more characters]`, clipped: true };
}

function partForDisplay(p: Part): { part: Part; clipped: boolean } {
  switch (p.kind) {
    case 'text':
    case 'reasoning': {
      const c = clip(p.text);
      return { part: { ...p, text: c.text }, clipped: c.clipped };
    }
    case 'tool_call': {
      const c = clip(p.args);
      return { part: { ...p, args: c.text }, clipped: c.clipped };
    }
    case 'tool_result': {
      const c = clip(p.text);
      return { part: { ...p, text: c.text }, clipped: c.clipped };
    }
    case 'media':
      // Never ship media payloads to the renderer: the list shows the type and size only.
      return { part: { kind: 'media', mediaType: p.mediaType, ...(p.bytes !== undefined ? { bytes: p.bytes } : {}) }, clipped: false };
  }
}

export function toMessageView(m: Message, index: number, tokens: number, pinned: boolean): MessageView {
  let truncated = false;
  const parts = m.parts.map((p) => {
    const d = partForDisplay(p);
    truncated ||= d.clipped;
    return d.part;
  });
  return {
    index,
    id: m.id,
    role: m.role,
    parts,
    timestamp: m.timestamp ?? null,
    tokens,
    usage: m.usage ?? null,
    pinned: pinned || m.pinned === true,
    truncated,
  };
}
