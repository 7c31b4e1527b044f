/**
 * Stored sessions → the contract's view models. The renderer only ever sees these shapes; long
 * texts are shortened for display (the full text stays in the store).
 */
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
  };
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
  return { index, id: m.id, role: m.role, parts, timestamp: m.timestamp ?? null, tokens, usage: m.usage ?? null, pinned: pinned || m.pinned === true, truncated };
}
