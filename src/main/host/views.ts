/**
 * Session → the contract's view models. The renderer only ever sees these shapes; long texts
 * are shortened for display (the full text stays in the host).
 */
import type { Part, Session } from '../../core/model';
import { isTurnBoundary, turnStarts } from '../../core/turns';
import { stepIndices } from '../../core/model';
import type { MessageView, SessionSummary } from '../../shared/api';

/** Longest text a message part carries to the renderer; the rest is elided with a marker. */
export const DISPLAY_PART_CHARS = 20_000;

export interface StoredSession {
  readonly id: string;
  readonly session: Session;
  readonly sourcePath: string | null;
  readonly importedAt: number;
  readonly pinned: Set<string>;
}


export function toSummary(stored: StoredSession): SessionSummary {
  const s = stored.session;
  return {
    id: stored.id,
    title: s.title ?? firstUserText(s) ?? s.id,
    format: s.format,
    model: s.model ?? null,
    sourcePath: stored.sourcePath,
    messages: s.messages.length,
    steps: stepIndices(s.messages).length,
    turns: turnStarts(s.messages).length,
    startedAt: s.startedAt ?? null,
    importedAt: stored.importedAt,
    reportedUsage: s.messages.some((m) => m.usage !== undefined),
  };
}

function firstUserText(s: Session): string | undefined {
  for (const m of s.messages) {
    if (!isTurnBoundary(m)) continue;
    for (const p of m.parts) if (p.kind === 'text' && p.text.trim() !== '') return oneLine(p.text, 80);
  }
  return undefined;
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
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
      // Never ship media bytes to the renderer: the list shows the type and size only.
      return { part: { kind: 'media', mediaType: p.mediaType, ...(p.bytes !== undefined ? { bytes: p.bytes } : {}) }, clipped: p.source !== undefined };
  }
}

export function toMessageView(stored: StoredSession, index: number, tokens: number): MessageView {
  const m = stored.session.messages[index]!;
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
    pinned: stored.pinned.has(m.id) || m.pinned === true,
    truncated,
  };
}
