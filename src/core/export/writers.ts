/**
 * Writers: a message list (the original session, or the compacted history at a replay step)
 * as OpenAI Chat Completions JSON (with tools), Anthropic Messages JSON (system top-level),
 * JSONL of messages, or Markdown for reading; and a replay report as JSON or CSV of per-step
 * regions. Each transcript format imports back into the same messages.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import type { Message, Part, Session, ToolDef } from '../model';
import { toCliJSON } from '../replay/serialize';
import { REGIONS, STEP_STATUSES, type ReplayResult } from '../replay/types';
import { mapJsonStrings, stringifyJson } from './json-text';
import { createRedactor, type BuiltinGroup, type SecretScanner } from './redact';

export const TRANSCRIPT_TARGETS = ['openai', 'anthropic', 'jsonl', 'markdown'] as const;
export const REPORT_TARGETS = ['report-json', 'report-csv'] as const;
export type TranscriptTarget = (typeof TRANSCRIPT_TARGETS)[number];
export type ReportTarget = (typeof REPORT_TARGETS)[number];

export interface ExportInput {
  readonly model?: string;
  readonly systemPrompt: string | null;
  /** The summary region, when exporting a compacted history. */
  readonly summary?: string | null;
  readonly tools: readonly ToolDef[];
  readonly messages: readonly Message[];
}

export interface Exported {
  readonly text: string;
  readonly mime: string;
  readonly extension: string;
  readonly redactions: number;
}

/** The system prompt as sent: the prompt, then the summary (S0 injects it there). */
function systemText(input: ExportInput): string | null {
  const parts = [input.systemPrompt, input.summary ? `Summary of the earlier conversation:\n${input.summary}` : null].filter(
    (x): x is string => !!x,
  );
  return parts.length ? parts.join('\n\n') : null;
}

const textOf = (parts: readonly Part[]): string =>
  parts
    .filter((p) => p.kind === 'text')
    .map((p) => (p.kind === 'text' ? p.text : ''))
    .join('\n');

function toOpenAI(input: ExportInput): unknown {
  const messages: unknown[] = [];
  const sys = systemText(input);
  if (sys) messages.push({ role: 'system', content: sys });
  for (const m of input.messages) {
    const results = m.parts.filter((p) => p.kind === 'tool_result');
    if (results.length > 0 && (m.role === 'tool' || m.role === 'user')) {
      for (const r of results) if (r.kind === 'tool_result') messages.push({ role: 'tool', tool_call_id: r.callId, content: r.text });
      const rest = textOf(m.parts);
      if (rest) messages.push({ role: 'user', content: rest });
      continue;
    }
    const calls = m.parts
      .filter((p) => p.kind === 'tool_call')
      .map((p) => (p.kind === 'tool_call' ? { id: p.id, type: 'function', function: { name: p.name, arguments: p.args } } : null));
    const reasoning = m.parts
      .filter((p) => p.kind === 'reasoning')
      .map((p) => (p.kind === 'reasoning' ? p.text : ''))
      .join('\n');
    messages.push({
      role: m.role === 'tool' ? 'user' : m.role,
      content: textOf(m.parts),
      ...(reasoning ? { reasoning_content: reasoning } : {}),
      ...(calls.length ? { tool_calls: calls } : {}),
    });
  }
  return {
    ...(input.model ? { model: input.model } : {}),
    messages,
    ...(input.tools.length
      ? {
          tools: input.tools.map((t) => ({
            type: 'function',
            function: { name: t.name, description: t.description, parameters: t.parameters },
          })),
        }
      : {}),
  };
}

function anthropicBlocks(parts: readonly Part[]): unknown[] {
  return parts.flatMap((p): unknown[] => {
    switch (p.kind) {
      case 'text':
        return [{ type: 'text', text: p.text }];
      case 'reasoning':
        return p.redacted ? [{ type: 'redacted_thinking', data: p.text }] : [{ type: 'thinking', thinking: p.text }];
      case 'tool_call': {
        let input: unknown = {};
        try {
          input = JSON.parse(p.args);
        } catch {
          input = { _raw: p.args };
        }
        return [{ type: 'tool_use', id: p.id, name: p.name, input }];
      }
      case 'tool_result':
        return [{ type: 'tool_result', tool_use_id: p.callId, content: p.text, ...(p.isError ? { is_error: true } : {}) }];
      case 'media':
        return [{ type: 'text', text: `[${p.mediaType}${p.source ? ` ${p.source}` : ''}]` }];
    }
  });
}

function toAnthropic(input: ExportInput): unknown {
  const messages: { role: string; content: unknown[] }[] = [];
  for (const m of input.messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks = anthropicBlocks(m.parts);
    // Anthropic alternates roles: consecutive user-side messages (tool results) share one message.
    const last = messages[messages.length - 1];
    if (last && last.role === role && role === 'user' && m.role === 'tool') last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  }
  const sys = systemText(input);
  return {
    ...(input.model ? { model: input.model } : {}),
    max_tokens: 8192,
    ...(sys ? { system: sys } : {}),
    messages,
    ...(input.tools.length
      ? { tools: input.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters })) }
      : {}),
  };
}

function toJsonl(input: ExportInput): string {
  const o = toOpenAI(input) as { messages: unknown[] };
  return o.messages.map((m) => JSON.stringify(m)).join('\n') + '\n';
}

function toMarkdown(input: ExportInput, title: string): string {
  const out: string[] = [`# ${title}`, ''];
  const sys = systemText(input);
  if (sys) out.push('## system', '', sys, '');
  input.messages.forEach((m, i) => {
    out.push(`## ${i}. ${m.role}`, '');
    for (const p of m.parts) {
      if (p.kind === 'text') out.push(p.text, '');
      else if (p.kind === 'reasoning') out.push('> ' + (p.redacted ? '[redacted reasoning]' : p.text).replace(/\n/g, '\n> '), '');
      else if (p.kind === 'tool_call') out.push(`**tool call** \`${p.name}\` (${p.id})`, '', '```json', p.args, '```', '');
      else if (p.kind === 'tool_result')
        out.push(`**${p.isError ? 'tool error' : 'tool result'}** (${p.callId})`, '', '```', p.text, '```', '');
      else out.push(`[${p.mediaType}]`, '');
    }
  });
  return out.join('\n');
}

export function exportMessages(input: ExportInput, target: TranscriptTarget, options: { title?: string } = {}): Exported {
  let text: string;
  switch (target) {
    case 'openai':
      text = stringifyJson(toOpenAI(input), 2);
      break;
    case 'anthropic':
      text = stringifyJson(toAnthropic(input), 2);
      break;
    case 'jsonl':
      text = toJsonl(input);
      break;
    case 'markdown':
      text = toMarkdown(input, options.title ?? 'Transcript');
      break;
  }
  const meta = {
    openai: ['application/json', 'json'],
    anthropic: ['application/json', 'json'],
    jsonl: ['application/x-ndjson', 'jsonl'],
    markdown: ['text/markdown', 'md'],
  }[target];
  return { text, mime: meta[0]!, extension: meta[1]!, redactions: 0 };
}

/** Sets `key` on a plain object as an own property, `__proto__` included (a JSON key like any other). */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/**
 * Every string of a value, in a fixed order, through `visit`, into a copy; tool-call arguments
 * through `mapArgs`. Raw source records are not exported and are skipped. The walk keeps its own
 * stack instead of recursing: values nested ten thousand levels deep (anyone can write such a
 * transcript) must not overflow the call stack.
 */
function mapStrings(root: unknown, visit: (s: string) => string): unknown {
  const box: Record<string, unknown> = {};
  const stack: { into: Record<string, unknown>; slot: string; value: unknown; key: string | undefined }[] = [
    { into: box, slot: 'v', value: root, key: undefined },
  ];
  while (stack.length > 0) {
    const { into, slot, value, key } = stack.pop()!;
    if (typeof value === 'string') setOwn(into, slot, key === 'args' ? mapArgs(value, visit) : visit(value));
    else if (Array.isArray(value)) {
      const out: unknown[] = new Array<unknown>(value.length);
      setOwn(into, slot, out);
      // Pushed last to first, so that they are visited first to last.
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ into: out as unknown as Record<string, unknown>, slot: String(i), value: value[i], key: undefined });
    } else if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      setOwn(into, slot, out);
      const entries = Object.entries(value);
      // The keys in their order first (children fill them in later).
      for (const [k, v] of entries) setOwn(out, k, k === 'raw' ? v : undefined);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, v] = entries[i]!;
        if (k !== 'raw') stack.push({ into: out, slot: k, value: v, key: k });
      }
    } else setOwn(into, slot, value);
  }
  return box.v;
}

/**
 * A tool call's arguments: when they are JSON, each string in them (keys too) on its own, written
 * back in place (json-text.ts), so a secret is found whole and a replacement never breaks an
 * escape sequence; else the arguments as one string.
 */
function mapArgs(value: string, visit: (s: string) => string): string {
  try {
    JSON.parse(value);
  } catch {
    return visit(value);
  }
  return mapJsonStrings(value, visit);
}

/**
 * The same export with credentials, e-mail addresses and the user's patterns replaced
 * (src/core/export/redact.ts) in every string it holds — messages, reasoning, tool names and
 * arguments, results, tool definitions, system prompt, summary — and in the title, before it is
 * written, so every format gets the same redactions.
 */
export async function exportRedacted(
  input: ExportInput,
  target: TranscriptTarget,
  options: { patterns?: readonly string[]; title?: string; scanner?: SecretScanner; builtins?: readonly BuiltinGroup[] } = {},
): Promise<Exported & { title: string; byKind: Readonly<Record<string, number>> }> {
  const redactor = createRedactor(options.patterns ?? [], options.scanner, options.builtins ? { builtins: options.builtins } : {});
  const texts: string[] = [];
  mapStrings(input, (s) => {
    texts.push(s);
    return s;
  });
  const title = options.title ?? 'Transcript';
  texts.push(title);
  const redacted = await redactor.redact(texts);
  let i = 0;
  const clean = mapStrings(input, () => redacted[i++]!) as ExportInput;
  const cleanTitle = redacted[i]!;
  return {
    ...exportMessages(clean, target, { title: cleanTitle }),
    redactions: redactor.count,
    byKind: redactor.byKind,
    title: cleanTitle,
  };
}

/** `session`: the replayed session, so the JSON report carries the loss ledger (replay/ledger.ts). */
export function exportReport(result: ReplayResult, target: ReportTarget, session?: Session): Exported {
  if (target === 'report-json')
    return { text: JSON.stringify(toCliJSON(result, session), null, 2), mime: 'application/json', extension: 'json', redactions: 0 };
  const s = result.steps;
  const header = ['step', 'message', 'turn', ...REGIONS, 'total', 'limit', 'reported', 'status', 'reason'];
  const rows = [header.join(',')];
  const csv = (v: string): string => (/[",\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  for (let i = 0; i < s.count; i++) {
    rows.push(
      [
        i,
        s.messageIndex[i],
        s.turn[i],
        ...REGIONS.map((r) => s.regions[r][i]),
        s.total[i],
        s.limit[i],
        Number.isNaN(s.reported[i]!) ? '' : s.reported[i],
        STEP_STATUSES[s.status[i]!],
        csv(s.reasons[s.reasonIndex[i]!] ?? ''),
      ].join(','),
    );
  }
  return { text: rows.join('\n') + '\n', mime: 'text/csv', extension: 'csv', redactions: 0 };
}

export function sessionInput(
  session: Session,
  messages: readonly Message[] = session.messages,
  summary: string | null = null,
): ExportInput {
  return {
    ...(session.model ? { model: session.model } : {}),
    systemPrompt: session.systemPrompt,
    summary,
    tools: session.tools,
    messages,
  };
}

/**
 * The request body a provider receives for this input (the `openai` / `anthropic` export, as an
 * object): the probe sends exactly what the export writes.
 */
export function requestBodyOf(input: ExportInput, api: 'openai' | 'anthropic'): Record<string, unknown> {
  return (api === 'openai' ? toOpenAI(input) : toAnthropic(input)) as Record<string, unknown>;
}
