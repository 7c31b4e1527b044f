/** Display helpers shared by the views. Pure; no DOM. */
import type { Part } from '../../core/model';

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');

export function fmtTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(2)}M`;
  if (n >= 10_000) return `${(n / 1000).toFixed(1)}k`;
  return fmtInt(n);
}

/** One line that says what a message is, for the list. */
export function preview(parts: readonly Part[]): string {
  const bits: string[] = [];
  for (const p of parts) {
    if (p.kind === 'text' && p.text.trim()) bits.push(p.text);
    else if (p.kind === 'reasoning') bits.push(p.redacted ? '[reasoning, redacted]' : `[reasoning] ${p.text}`);
    else if (p.kind === 'tool_call') bits.push(`→ ${p.name}(${p.args})`);
    else if (p.kind === 'tool_result') bits.push(`${p.isError ? '✗' : '←'} ${p.text}`);
    else if (p.kind === 'media') bits.push(`[${p.mediaType}]`);
  }
  const flat = bits.join('  ').replace(/\s+/g, ' ').trim();
  return flat.length > 240 ? flat.slice(0, 239) + '…' : flat;
}
