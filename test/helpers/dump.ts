/** A stable text dump of imported sessions, for snapshot tests. */
import type { Session } from '../../src/core/model';

const clip = (s: string, n = 60): string => {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > n ? flat.slice(0, n) + '…' : flat;
};

export function dumpSessions(format: string, sessions: readonly Session[]): string {
  const out: string[] = [`format ${format}, ${sessions.length} session(s)`];
  dumpInto(out, sessions, '');
  return out.join('\n');
}

/** Lines that only some sessions have (title, compaction details, subagents) are printed only when present. */
function dumpInto(out: string[], sessions: readonly Session[], indent: string): void {
  for (const s of sessions) {
    out.push(
      `${indent}session ${s.id.replace(/^.*[\\/]/, '')} model=${s.model ?? '-'} system=${s.systemPrompt === null ? 'none' : JSON.stringify(clip(s.systemPrompt))} tools=[${s.tools.map((t) => t.name).join(',')}] compactions=${s.sourceCompactions.length} subagents=${s.subagents.length} window=${s.reportedContextWindow ?? '-'}`,
    );
    if (s.title !== undefined) out.push(`${indent}  title ${JSON.stringify(clip(s.title))}`);
    s.messages.forEach((m, i) => {
      const parts = m.parts.map((p) => {
        switch (p.kind) {
          case 'text':
            return `text(${JSON.stringify(clip(p.text))})`;
          case 'reasoning':
            return `reasoning${p.redacted ? '[redacted]' : ''}(${JSON.stringify(clip(p.text, 30))})`;
          case 'tool_call':
            return `call(${p.id} ${p.name} ${clip(p.args, 40)})`;
          case 'tool_result':
            return `result(${p.callId}${p.isError ? ' error' : ''} ${JSON.stringify(clip(p.text, 30))})`;
          case 'media':
            return `media(${p.mediaType})`;
        }
      });
      const u = m.usage
        ? ` usage=${m.usage.convention}:${m.usage.input}/${m.usage.cacheRead}/${m.usage.cacheWrite}/${m.usage.output}${m.usage.coarse ? '~' : ''}`
        : '';
      out.push(`${indent}  ${i} ${m.role}${u} ${parts.join(' ')}`);
    });
    const at = (id: string): string => {
      const k = s.messages.findIndex((m) => m.id === id);
      return k >= 0 ? String(k) : `?${id}`;
    };
    for (const c of s.sourceCompactions) {
      const extra = [
        c.tokensAfter !== undefined ? ` after=${c.tokensAfter}` : '',
        c.droppedIds ? ` dropped=[${c.droppedIds.map(at).join(',')}]` : '',
        c.keptIds ? ` kept=[${c.keptIds.map(at).join(',')}]` : '',
      ].join('');
      out.push(
        `${indent}  compaction at ${c.atMessage} ${c.trigger} before=${c.tokensBefore ?? '-'}${extra} summary=${JSON.stringify(clip(c.summary ?? '', 40))}`,
      );
    }
    if (s.subagents.length > 0) {
      out.push(`${indent}  subagents:`);
      dumpInto(out, s.subagents, indent + '    ');
    }
  }
}
