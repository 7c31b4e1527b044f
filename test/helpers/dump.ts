/** A stable text dump of imported sessions, for snapshot tests. */
import type { Session } from '../../src/core/model';

const clip = (s: string, n = 60): string => {
  const flat = s.replace(/\s+/g, ' ');
  return flat.length > n ? flat.slice(0, n) + '…' : flat;
};

export function dumpSessions(format: string, sessions: readonly Session[]): string {
  const out: string[] = [`format ${format}, ${sessions.length} session(s)`];
  for (const s of sessions) {
    out.push(`session ${s.id.replace(/^.*[\\/]/, '')} model=${s.model ?? '-'} system=${s.systemPrompt === null ? 'none' : JSON.stringify(clip(s.systemPrompt))} tools=[${s.tools.map((t) => t.name).join(',')}] compactions=${s.sourceCompactions.length} subagents=${s.subagents.length} window=${s.reportedContextWindow ?? '-'}`);
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
      const u = m.usage ? ` usage=${m.usage.convention}:${m.usage.input}/${m.usage.cacheRead}/${m.usage.cacheWrite}/${m.usage.output}${m.usage.coarse ? '~' : ''}` : '';
      out.push(`  ${i} ${m.role}${u} ${parts.join(' ')}`);
    });
    for (const c of s.sourceCompactions) out.push(`  compaction at ${c.atMessage} ${c.trigger} before=${c.tokensBefore ?? '-'} summary=${JSON.stringify(clip(c.summary ?? '', 40))}`);
  }
  return out.join('\n');
}
