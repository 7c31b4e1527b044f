/**
 * OpenTelemetry GenAI spans in OTLP JSON (docs/reference/formats.md, OpenTelemetry GenAI): one span per call; the content lives
 * in `gen_ai.input.messages` / `gen_ai.output.messages` (structured or JSON strings) or the older
 * `gen_ai.prompt.N.*` / `gen_ai.completion.N.*` attributes; usage in `gen_ai.usage.*`. Each trace
 * is one session, its chat spans in start order; the last call's input holds the history.
 */
import type { Message, Part, Session } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { argsText, arr, contentText, isRecord, num, rec, str, type Json } from './util';

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json') return isRecord(sniff.value) && Array.isArray(sniff.value['resourceSpans']);
  if (sniff.shape === 'jsonl') return sniff.lines.some((l) => isRecord(l) && Array.isArray(l['resourceSpans']));
  return false;
}

function attrValue(v: unknown): unknown {
  const r = rec(v);
  if ('stringValue' in r) return r['stringValue'];
  if ('intValue' in r) return Number(r['intValue']);
  if ('doubleValue' in r) return r['doubleValue'];
  if ('boolValue' in r) return r['boolValue'];
  if (isRecord(r['arrayValue'])) return arr(r['arrayValue']['values']).map(attrValue);
  return undefined;
}

function attrs(span: Json): Map<string, unknown> {
  return new Map(arr(span['attributes']).map((a) => [str(rec(a)['key']) ?? '', attrValue(rec(a)['value'])]));
}

function json(v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    return v;
  }
}

function toMessages(list: unknown, prefix: string): Message[] {
  return arr(json(list)).map((m, i) => {
    const r = rec(m);
    const role = str(r['role']);
    const parts: Part[] = arr(r['parts']).flatMap((p): Part[] => {
      const q = rec(p);
      switch (q['type']) {
        case 'text':
          return [{ kind: 'text', text: str(q['content']) ?? '' }];
        case 'reasoning':
          return [{ kind: 'reasoning', text: str(q['content']) ?? '' }];
        case 'tool_call':
          return [{ kind: 'tool_call', id: str(q['id']) ?? '', name: str(q['name']) ?? '', args: argsText(q['arguments']) }];
        case 'tool_call_response':
          return [{ kind: 'tool_result', callId: str(q['id']) ?? '', isError: false, text: contentText(q['response']) }];
        default:
          return [];
      }
    });
    if (parts.length === 0 && r['content'] !== undefined) parts.push({ kind: 'text', text: contentText(r['content']) });
    return {
      id: `${prefix}${i}`,
      role: role === 'assistant' ? 'assistant' : role === 'tool' ? 'tool' : role === 'system' ? 'system' : 'user',
      parts,
    };
  });
}

/** OpenLLMetry's flat `gen_ai.prompt.N.role/content` attributes. */
function flatMessages(a: Map<string, unknown>, kind: 'prompt' | 'completion', prefix: string): Message[] {
  const out: Message[] = [];
  for (let i = 0; a.has(`gen_ai.${kind}.${i}.content`) || a.has(`gen_ai.${kind}.${i}.role`); i++) {
    const role = String(a.get(`gen_ai.${kind}.${i}.role`) ?? (kind === 'completion' ? 'assistant' : 'user'));
    out.push({
      id: `${prefix}${kind}${i}`,
      role: role === 'assistant' ? 'assistant' : role === 'system' ? 'system' : role === 'tool' ? 'tool' : 'user',
      parts: [{ kind: 'text', text: String(a.get(`gen_ai.${kind}.${i}.content`) ?? '') }],
    });
  }
  return out;
}

/**
 * A span's start in nanoseconds: OTLP JSON writes the uint64 as a decimal string (some exporters as
 * a number). Anything else — missing, or not a whole number — is an unknown start (0), as a
 * missing one always was: a malformed timestamp must not stop the import.
 */
function startNanos(span: Json): bigint {
  const v = span['startTimeUnixNano'];
  if (typeof v === 'string' && /^\d{1,30}$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  return 0n;
}

function sessionsFrom(doc: Json, ctx: ParseContext): Session[] {
  const spans: Json[] = [];
  for (const rs of arr(doc['resourceSpans']))
    for (const ss of arr(rec(rs)['scopeSpans'])) for (const sp of arr(rec(ss)['spans'])) if (isRecord(sp)) spans.push(sp);
  const traces = new Map<string, Json[]>();
  for (const sp of spans) {
    const a = attrs(sp);
    const op = str(a.get('gen_ai.operation.name'));
    if (op !== undefined && op !== 'chat' && op !== 'text_completion' && op !== 'generate_content') continue;
    if (![...a.keys()].some((k) => k.startsWith('gen_ai.'))) continue;
    const t = str(sp['traceId']) ?? 'trace';
    if (!traces.has(t)) traces.set(t, []);
    traces.get(t)!.push(sp);
  }
  const out: Session[] = [];
  for (const [traceId, list] of traces) {
    list.sort((x, y) => Number(startNanos(x) - startNanos(y)));
    const messages: Message[] = [];
    let system: string | null = null;
    let model: string | undefined;
    list.forEach((sp, k) => {
      const a = attrs(sp);
      model = str(a.get('gen_ai.response.model')) ?? str(a.get('gen_ai.request.model')) ?? model;
      const sys = a.get('gen_ai.system_instructions');
      if (sys !== undefined && system === null) system = contentText(json(sys));
      let input = a.has('gen_ai.input.messages')
        ? toMessages(a.get('gen_ai.input.messages'), `${traceId}/${k}/in`)
        : flatMessages(a, 'prompt', `${traceId}/${k}/`);
      const output = a.has('gen_ai.output.messages')
        ? toMessages(a.get('gen_ai.output.messages'), `${traceId}/${k}/out`)
        : flatMessages(a, 'completion', `${traceId}/${k}/`);
      if (system === null && input[0]?.role === 'system') {
        system = input[0].parts.map((p) => (p.kind === 'text' ? p.text : '')).join('\n');
      }
      input = input.filter((m) => m.role !== 'system');
      // Each call resends the history: only what is new since the previous call is appended.
      const known = messages.filter((m) => m.role !== 'assistant' || true).length;
      const fresh = input.slice(Math.min(input.length, known));
      messages.push(...fresh);
      const inTok = num(a.get('gen_ai.usage.input_tokens'));
      const outTok = num(a.get('gen_ai.usage.output_tokens'));
      const start = Number(startNanos(sp) / 1_000_000n);
      output.forEach((m, i) =>
        messages.push({
          ...m,
          ...(i === 0 && inTok !== undefined
            ? {
                usage: {
                  convention: 'openai' as const,
                  input: inTok,
                  cacheRead: num(a.get('gen_ai.usage.cache_read_input_tokens')) ?? 0,
                  cacheWrite: 0,
                  output: outTok ?? 0,
                },
              }
            : {}),
          ...(start ? { timestamp: start } : {}),
        }),
      );
    });
    out.push({
      id: traceId,
      format: 'otel',
      ...(model ? { model } : {}),
      systemPrompt: system,
      tools: [],
      messages,
      sourceCompactions: [],
      subagents: [],
      warnings: [],
    });
  }
  if (out.length === 0) ctx.warn('no GenAI chat spans found');
  return out;
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  const docs: Json[] = [];
  if (input.kind === 'json' && isRecord(input.value)) docs.push(input.value);
  else if (input.kind === 'jsonl') for await (const l of input.lines) if (isRecord(l.value)) docs.push(l.value);
  const out = docs.flatMap((d) => sessionsFrom(d, ctx));
  if (out.length === 0)
    throw new ImportError(ctx.name, 'OTLP JSON with GenAI chat spans (resourceSpans[].scopeSpans[].spans[] with gen_ai.* attributes)');
  return out;
}

export const importer: Importer = { id: 'otel', label: 'OpenTelemetry GenAI spans (OTLP JSON)', detect, parse };
