/**
 * S1's tool handling as each tool result arrives (docs/policies.md §S1, tool_preflight):
 * 1. an output over `toolOutputMaxBytes` is handled by the configured mode — `truncate`,
 *    `head-tail`, `offload` (a handle), or S1's ToolOutputExtractor modes `full-chunked`,
 *    `read-grep` and `auto` — and enters the window at the size the mode leaves; full-chunked's
 *    chunk calls are LLM calls of their own and are billed;
 * 2. with `paths.toolPreflight`, its tokens are previewed against what is left under the limit
 *    (S1's reserveToolOutput / previewToolOutput): an output that does not fit is replaced by a
 *    failure message, the tool budget is exceeded, later results of the call are skipped, and the
 *    next call is the forced final turn;
 * 3. with `toolBudget`, a count of tool calls does the same once it is passed.
 */
import type { ToolOutputMode } from '../config';
import { billSideCalls } from './cost';
import type { ReplayState } from './state';
import { int } from './state';

/** What S1 puts in place of an output it cannot take. */
export const BUDGET_FAILURE_TEXT =
  '(tool failed: the tool budget is exceeded; the output was not added. Final turn: only final_report is available.)';
/** A handle to an output stored aside (offload): path and size, about this many bytes. */
export const HANDLE_BYTES = 64;

/**
 * The handle the window holds for an output stored aside: its size and where it went, in exactly
 * HANDLE_BYTES bytes of ASCII — the size the replay counted for it — so an exported window holds
 * what the replay measured (export/window-at.ts).
 */
export function handleText(callId: string, bytes: number): string {
  const head = `[stored aside: ${bytes} bytes, tool-output/`;
  const id = callId.replace(/[^\w.-]/g, '_').slice(0, Math.max(0, HANDLE_BYTES - head.length - 1));
  return `${head}${id}`.padEnd(HANDLE_BYTES - 1, ' ') + ']';
}

export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    n += c < 0x80 ? 1 : c < 0x800 ? 2 : c >= 0xd800 && c <= 0xdbff ? (i++, 4) : 3;
  }
  return n;
}

/**
 * The bytes of an oversized output that stay in the window, per mode (docs/policies.md §S1):
 * truncate / head-tail keep `max` bytes; offload keeps a handle; read-grep a handle and the lines
 * a grep returns (a quarter of `max`); full-chunked a handle and the extraction its chunk calls
 * return (half of `max`); auto takes full-chunked up to 4 chunks, read-grep beyond.
 */
export function keptBytes(
  mode: ToolOutputMode,
  bytes: number,
  max: number,
): { mode: Exclude<ToolOutputMode, 'auto'>; kept: number; chunks?: number } {
  const m = mode === 'auto' ? (bytes <= 4 * max ? 'full-chunked' : 'read-grep') : mode;
  switch (m) {
    case 'offload':
      return { mode: m, kept: HANDLE_BYTES };
    case 'read-grep':
      return { mode: m, kept: HANDLE_BYTES + Math.floor(max / 4) };
    case 'full-chunked':
      return { mode: m, kept: HANDLE_BYTES + Math.floor(max / 2), chunks: Math.ceil(bytes / max) };
    default:
      return { mode: m, kept: max };
  }
}

/** Tool result part `p` of message `i` arrives before the call of `step`. */
export function toolResultArrives(s: ReplayState, i: number, callId: string, text: string, step: number): void {
  const c = s.config;
  const win = s.win;
  if (s.toolBudgetHitAt === step) {
    // The budget is exceeded for this call: the orchestrator skips the remaining tools (canExecuteTool is false).
    win.reduceTo(i, s.countText(BUDGET_FAILURE_TEXT));
    return;
  }
  const bytes = c.toolOutputMaxBytes > 0 || c.paths.toolPreflight ? utf8Length(text) : 0;
  if (c.toolOutputMaxBytes > 0 && bytes > c.toolOutputMaxBytes) {
    const h = keptBytes(c.toolOutputMode, bytes, c.toolOutputMaxBytes);
    const tokens = win.tokensOf(i);
    // full-chunked: the chunk calls read the whole output and write the extraction that stays
    // (docs/policies.md §S1): the output's tokens are their input, the extraction their output.
    const chunkCalls =
      h.chunks !== undefined
        ? { chunks: h.chunks, chunkInput: tokens, chunkOutput: Math.ceil((tokens * (h.kept - HANDLE_BYTES)) / bytes) }
        : undefined;
    if (chunkCalls) billSideCalls(s, chunkCalls.chunkInput, chunkCalls.chunkOutput);
    win.reduceTo(i, Math.ceil((tokens * h.kept) / bytes));
    s.events.push({
      kind: 'tool-preflight',
      step,
      messageIndex: i,
      callId,
      action: h.mode,
      bytesBefore: bytes,
      bytesAfter: h.kept,
      ...chunkCalls,
    });
  }
  if (c.toolBudget !== undefined && s.toolCalls > c.toolBudget && s.toolBudgetHitAt < 0) {
    s.toolBudgetHitAt = step;
    s.events.push({
      kind: 'tool-preflight',
      step,
      messageIndex: i,
      callId,
      action: 'budget-exceeded',
      bytesBefore: bytes,
      bytesAfter: 0,
      reason: `tool calls ${s.toolCalls} > tool budget ${c.toolBudget}`,
    });
    return;
  }
  if (c.paths.toolPreflight && s.toolBudgetHitAt < 0) {
    // The request before this output, and the output as it would enter (after the size handling).
    const before = s.fixed + s.summaryTokens + win.historyTokens(i);
    const tokens = win.tokensOf(i);
    const remaining = s.enforcement.limit - before;
    if (tokens > remaining) {
      s.toolBudgetHitAt = step;
      win.reduceTo(i, s.countText(BUDGET_FAILURE_TEXT));
      s.events.push({
        kind: 'tool-preflight',
        step,
        messageIndex: i,
        callId,
        action: 'budget-exceeded',
        bytesBefore: bytes,
        bytesAfter: utf8Length(BUDGET_FAILURE_TEXT),
        tokens,
        remaining,
        reason: `tool output ${int(tokens)} tokens > ${int(Math.max(0, remaining))} left under the limit ${int(s.enforcement.limit)}`,
      });
    }
  }
}
