/**
 * Gemini CLI sessions (docs/reference/formats.md, Gemini CLI): the JSON document `{sessionId, projectHash, messages[]}`,
 * the newer JSONL (a metadata line, one record per line, `{"$set": …}` patches, `{"$rewindTo": id}`
 * rewinds), and the bare
 * `[{role, parts}]` checkpoint. A `gemini` record holds the call and, in `toolCalls`, the
 * results: it becomes an assistant message followed by one tool message.
 */
import type { Message, Part, ReportedUsage, Session } from '../model';
import type { ImportInput, Importer, ParseContext, Sniff } from './types';
import { ImportError } from './types';
import { argsText, arr, contentText, isRecord, num, rec, str, time, type Json } from './util';

function isDoc(v: unknown): v is Json {
  return isRecord(v) && typeof v['sessionId'] === 'string' && 'projectHash' in v && Array.isArray(v['messages']);
}
function isCheckpoint(v: unknown): boolean {
  return (
    Array.isArray(v) &&
    v.length > 0 &&
    v.every((m) => isRecord(m) && (m['role'] === 'user' || m['role'] === 'model') && Array.isArray(m['parts']))
  );
}

function detect(sniff: Sniff): boolean {
  if (sniff.shape === 'json') return sniff.value !== undefined && (isDoc(sniff.value) || isCheckpoint(sniff.value));
  if (sniff.shape === 'jsonl') return sniff.lines.some((l) => isRecord(l) && typeof l['projectHash'] === 'string');
  return false;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return arr(content)
    .map((c) => str(rec(c)['text']) ?? '')
    .join('');
}

function geminiUsage(t: unknown): ReportedUsage | undefined {
  if (!isRecord(t)) return undefined;
  const input = num(t['input']);
  if (input === undefined) return undefined;
  const thoughts = num(t['thoughts']);
  // Gemini's input includes cached tokens: the OpenAI convention.
  return {
    convention: 'openai',
    input,
    cacheRead: num(t['cached']) ?? 0,
    cacheWrite: 0,
    output: (num(t['output']) ?? 0) + (thoughts ?? 0),
    ...(thoughts !== undefined ? { reasoning: thoughts } : {}),
  };
}

function partsOfModel(parts: unknown[]): { model: Part[]; results: Part[] } {
  const model: Part[] = [];
  const results: Part[] = [];
  for (const p of parts) {
    const r = rec(p);
    if (r['thought'] === true && typeof r['text'] === 'string') model.push({ kind: 'reasoning', text: r['text'] });
    else if (typeof r['text'] === 'string') model.push({ kind: 'text', text: r['text'] });
    else if (isRecord(r['functionCall']))
      model.push({
        kind: 'tool_call',
        id: str(r['functionCall']['id']) ?? str(r['functionCall']['name']) ?? '',
        name: str(r['functionCall']['name']) ?? '',
        args: argsText(r['functionCall']['args']),
      });
    else if (isRecord(r['functionResponse']))
      results.push({
        kind: 'tool_result',
        callId: str(r['functionResponse']['id']) ?? str(r['functionResponse']['name']) ?? '',
        isError: false,
        text: contentText(r['functionResponse']['response']),
        name: str(r['functionResponse']['name']) ?? '',
      });
  }
  return { model, results };
}

/** One recorded message → history messages (the live tail's fast path converts appended records with it too). */
export function convert(m: Json, line: number | undefined, keepRaw: boolean, raw: string | undefined): Message[] {
  const type = str(m['type']) ?? str(m['role']);
  const id = str(m['id']) ?? `${type}-${line ?? 0}`;
  const timestamp = time(m['timestamp']);
  const base = {
    ...(timestamp !== undefined ? { timestamp } : {}),
    ...(line !== undefined ? { sourceLine: line } : {}),
    ...(keepRaw && raw !== undefined ? { raw } : {}),
  };
  if (type === 'user') {
    if (Array.isArray(m['parts'])) {
      const { model, results } = partsOfModel(m['parts'] as unknown[]);
      return [{ id, role: results.length && !model.length ? 'tool' : 'user', parts: [...model, ...results], ...base }];
    }
    return [{ id, role: 'user', parts: [{ kind: 'text', text: textOf(m['content']) }], ...base }];
  }
  if (type === 'gemini' || type === 'model') {
    const parts: Part[] = [];
    for (const t of arr(m['thoughts']))
      parts.push({ kind: 'reasoning', text: [str(rec(t)['subject']), str(rec(t)['description'])].filter(Boolean).join(': ') });
    let results: Part[] = [];
    if (Array.isArray(m['parts'])) {
      const conv = partsOfModel(m['parts'] as unknown[]);
      parts.push(...conv.model);
      results = conv.results;
    } else {
      const text = textOf(m['content']);
      if (text) parts.push({ kind: 'text', text });
    }
    for (const c of arr(m['toolCalls'])) {
      const call = rec(c);
      const callId = str(call['id']) ?? str(call['name']) ?? '';
      parts.push({ kind: 'tool_call', id: callId, name: str(call['name']) ?? '', args: argsText(call['args']) });
      const resp = arr(call['result'])
        .map((r) => contentText(rec(rec(r)['functionResponse'])['response']))
        .join('\n');
      results.push({
        kind: 'tool_result',
        callId,
        isError: call['status'] === 'error',
        text: resp || contentText(call['resultDisplay']),
        name: str(call['name']) ?? '',
      });
    }
    const usage = geminiUsage(m['tokens']);
    const model = str(m['model']);
    const out: Message[] = [{ id, role: 'assistant', parts, ...(usage ? { usage } : {}), ...(model ? { model } : {}), ...base }];
    if (results.length) out.push({ id: `${id}/results`, role: 'tool', parts: results, ...base });
    return out;
  }
  return [];
}

function build(id: string, meta: Json, records: { m: Json; line?: number; raw?: string }[], ctx: ParseContext): Session {
  const messages: Message[] = [];
  let skipped = 0;
  for (const r of records) {
    const conv = convert(r.m, r.line, ctx.keepRaw, r.raw);
    if (conv.length === 0) skipped++;
    messages.push(...conv);
  }
  if (skipped) ctx.warn(`skipped ${skipped} record(s) that are not part of the context (info, warning, error)`);
  const models = messages.map((m) => m.model).filter((x): x is string => !!x);
  const startedAt = time(meta['startTime']);
  const title = str(meta['summary']);
  return {
    id,
    format: 'gemini-cli',
    ...(title ? { title } : {}),
    ...(models.length ? { model: models[models.length - 1]! } : {}),
    provider: 'google',
    systemPrompt: null,
    tools: [],
    messages,
    sourceCompactions: [],
    subagents: [],
    ...(startedAt !== undefined ? { startedAt } : {}),
    warnings: [],
  };
}

/**
 * What one JSONL line is, in the order the import tests it: a rewind, a `$set` patch, the
 * metadata line, or a record (keyed by its id). Shared with the live tail's fast path.
 */
export function lineKind(v: Json): 'rewind' | 'set' | 'meta' | 'record' {
  if (typeof v['$rewindTo'] === 'string') return 'rewind';
  if (isRecord(v['$set'])) return 'set';
  if (typeof v['projectHash'] === 'string' && typeof v['sessionId'] === 'string' && !('type' in v)) return 'meta';
  return 'record';
}

async function parse(input: ImportInput, ctx: ParseContext): Promise<Session[]> {
  if (input.kind === 'json') {
    const v = input.value;
    if (isDoc(v))
      return [
        build(
          str(v['sessionId'])!,
          v,
          arr(v['messages'])
            .filter(isRecord)
            .map((m) => ({ m })),
          ctx,
        ),
      ];
    if (isCheckpoint(v))
      return [
        build(
          ctx.name,
          {},
          (v as Json[]).map((m) => ({ m: { ...m, type: m['role'] } })),
          ctx,
        ),
      ];
    throw new ImportError(ctx.name, 'a Gemini CLI session ({sessionId, projectHash, messages[]}) or checkpoint ([{role, parts}])');
  }
  if (input.kind !== 'jsonl') throw new ImportError(ctx.name, 'Gemini CLI session JSON or JSONL');
  let meta: Json = {};
  // Records by id, in first-written order (a record written again replaces its copy in place),
  // replayed the way Gemini CLI loads the file: `$rewindTo` drops that record and all after it;
  // `$set.messages` (history rewritten after compression or masking) replaces the list.
  let records = new Map<string, { m: Json; line?: number; raw?: string }>();
  let anonymous = 0;
  let rewound = 0;
  let rewritten = 0;
  for await (const l of input.lines) {
    const v = l.value;
    if (!isRecord(v)) continue;
    const kind = lineKind(v);
    if (kind === 'rewind' && typeof v['$rewindTo'] === 'string') {
      const ids = [...records.keys()];
      const at = ids.indexOf(v['$rewindTo']);
      const drop = at >= 0 ? ids.slice(at) : ids;
      for (const id of drop) records.delete(id);
      rewound += drop.length;
      continue;
    }
    if (kind === 'set' && isRecord(v['$set'])) {
      const set = v['$set'];
      if (Array.isArray(set['messages'])) {
        rewritten++;
        records = new Map(
          set['messages'].filter(isRecord).map((m, i) => [str(m['id']) ?? `$set-${l.line}-${i}`, { m, line: l.line, raw: l.raw }]),
        );
      }
      const { messages: _ignored, ...rest } = set;
      meta = { ...meta, ...rest };
      continue;
    }
    if (kind === 'meta') {
      meta = { ...meta, ...v };
      continue;
    }
    records.set(str(v['id']) ?? `#${++anonymous}`, { m: v, line: l.line, raw: l.raw });
  }
  if (rewound) ctx.warn(`${rewound} record(s) were rewound ($rewindTo) and left out`);
  if (rewritten)
    ctx.warn(`the history was rewritten ${rewritten} time(s) by a $set of messages (compression or masking); the last version is kept`);
  if (records.size === 0 && Object.keys(meta).length === 0) throw new ImportError(ctx.name, 'Gemini CLI records; found none');
  return [build(str(meta['sessionId']) ?? ctx.name, meta, [...records.values()], ctx)];
}

export const importer: Importer = { id: 'gemini-cli', label: 'Gemini CLI session (JSON or JSONL)', detect, parse };
