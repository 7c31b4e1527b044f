/**
 * OpenHands event lists and eval output (importer: core/import/openhands.ts).
 *
 * Live tail of an event list (`[{id, source, action|observation, …}]`; the walk: src/main/store/tail-document.ts). The list is written again with the new
 * events at its end. Its events depend on earlier ones, so the new ones are converted as a batch
 * by the importer's own `eventsToSession`, and taken only where that is provably what a first
 * import of the whole list makes:
 * - no `system` event (the prompt and tools), `condensation` (a compaction that names earlier
 *   events), `recall` observation (it leaves out microagents already recalled), or event without
 *   an id (the import numbers those by the messages before);
 * - no action of an LLM response seen before (the import merges it into that earlier message:
 *   response ids are read from the imported bytes, `"model_response": {"id": …}`);
 * - every call a new action makes is answered within the batch, and every result answers a call
 *   of the batch (the import keeps a call only once its result exists, wherever it is); no id is
 *   one the imported bytes name as a `tool_call_id`, none looks made up from text (`toolu_01`: the
 *   session might then be sent with text calling), none is a bare number (an event id);
 * - the session's model (the last response's) stays.
 * A call still waiting for its result therefore goes through the whole file, once. The imported
 * bytes are scanned as text for the keys as Python's json writes them (never spelled with escapes).
 *
 * An eval instance written as one document (`{instance_id, metadata, history[], metrics, …}`)
 * grows in its `history` the same way, converted with the instance's options (its LLM config,
 * and the usage `metrics.token_usages` gives responses logged without it). Those usages grow
 * beside the history: what was there must stay, and no new entry may name a response already
 * imported (the import takes an id's last entry: it would change a stored message); the rest of
 * `metrics` (running totals, costs, latencies) stores nothing. An instance run with text calling
 * (`native_tool_calling: false`: the first prompt and every result are rewritten around the tools)
 * takes the whole-file path; every other key must stay as it was.
 */
import { eventsToSession, importer, instanceOptions, isTextCallId, type OpenHandsOptions } from '../import/openhands';
import type { ParseContext } from '../import/types';
import { arr, isRecord, rec, str } from '../import/util';
import type { Message } from '../model';
import { ascii, bytesAt, indexOfBytes, textOf } from './bytes';
import { skipSpace, stringEnd } from './document';
import type { ConvertContext, DocumentShape, FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    openhands: true;
  }
}

/** Ids the imported events use, which new events must not meet. */
interface OpenHandsState {
  /** `model_response.id` of every event. */
  readonly responses: Set<string>;
  /** Every `tool_call_id` string. */
  readonly ids: Set<string>;
}

const TOOL_CALL_ID = ascii('"tool_call_id"');
const MODEL_RESPONSE = ascii('"model_response"');
const ID_KEY = ascii('"id"');
const COLON = 58;
const QUOTE = 34;
const BRACE = 123;

/** Where the value of the key ending before `at` starts (after its colon), or -1 when no colon follows (the text is not a key). */
function valueAfter(b: Uint8Array, at: number): number {
  const colon = skipSpace(b, at);
  return b[colon] === COLON ? skipSpace(b, colon + 1) : -1;
}

/** The JSON string opening at `at`, decoded. */
const stringAt = (b: Uint8Array, at: number): string => JSON.parse(textOf(b, at, stringEnd(b, at))) as string;

/**
 * The ids the events in `b` use, read byte by byte (the keys found natively, their values walked
 * as JSON strings: a watch's start reads the whole document, and decoding a window of text per
 * key cost more than the walk), or undefined when one is not where the import would read it.
 */
function scan(b: Uint8Array): OpenHandsState | undefined {
  const ids = new Set<string>();
  for (let at = indexOfBytes(b, TOOL_CALL_ID); at >= 0; at = indexOfBytes(b, TOOL_CALL_ID, at + TOOL_CALL_ID.length)) {
    const v = valueAfter(b, at + TOOL_CALL_ID.length);
    // Not a key with a string value: no call id the import reads there.
    if (v < 0 || b[v] !== QUOTE) continue;
    const id = stringAt(b, v);
    if (isTextCallId(id)) return undefined;
    ids.add(id);
  }
  const responses = new Set<string>();
  for (let at = indexOfBytes(b, MODEL_RESPONSE); at >= 0; at = indexOfBytes(b, MODEL_RESPONSE, at + MODEL_RESPONSE.length)) {
    const v = valueAfter(b, at + MODEL_RESPONSE.length);
    if (v < 0 || b[v] !== BRACE) continue;
    // A response whose id is not its first key (litellm writes it first) is not read here: no fast path.
    const key = skipSpace(b, v + 1);
    if (!bytesAt(b, key, ID_KEY)) return undefined;
    const id = valueAfter(b, key + ID_KEY.length);
    if (id < 0 || b[id] !== QUOTE) return undefined;
    responses.add(stringAt(b, id));
  }
  return { responses, ids };
}

const metaOf = (e: Record<string, unknown>): Record<string, unknown> | undefined =>
  isRecord(e['tool_call_metadata']) ? e['tool_call_metadata'] : undefined;
const responseId = (meta: Record<string, unknown> | undefined): string | undefined =>
  meta && isRecord(meta['model_response']) ? str(meta['model_response']['id']) : undefined;

/** New events converted as a batch by the importer, or undefined where that may differ from a first import of the whole list (see above). */
function convertEvents(elements: readonly unknown[], c: ConvertContext, options: OpenHandsOptions): (readonly Message[])[] | undefined {
  const state = c.state as OpenHandsState;
  const made: string[] = [];
  for (const e of elements) {
    if (!isRecord(e)) continue;
    if (typeof e['id'] !== 'number' && typeof e['id'] !== 'string') return undefined;
    if (e['action'] === 'system' || e['action'] === 'condensation' || e['observation'] === 'recall') return undefined;
    const meta = metaOf(e);
    const resp = responseId(meta);
    if (resp !== undefined && state.responses.has(resp)) return undefined;
    if (meta && typeof e['action'] === 'string') {
      const call = meta['tool_call_id'];
      if (typeof call !== 'string') return undefined;
      made.push(call);
    }
  }
  const quiet: ParseContext = { name: c.path, keepRaw: true, lineRecords: false, warn: () => {}, progress: () => {} };
  const s = eventsToSession(c.path, elements, quiet, undefined, options);
  const calls = new Set(s.messages.flatMap((m) => m.parts.flatMap((p) => (p.kind === 'tool_call' ? [p.id] : []))));
  const results = s.messages.flatMap((m) => m.parts.flatMap((p) => (p.kind === 'tool_result' ? [p.callId] : [])));
  if (made.some((id) => !calls.has(id)) || results.some((id) => !calls.has(id))) return undefined;
  if ([...calls].some((id) => isTextCallId(id) || /^\d+$/.test(id) || state.ids.has(id))) return undefined;
  return [s.messages];
}

const eventsDocument: DocumentShape = {
  arrays: [''],
  conversation: '',
  skeleton: (doc) => (Array.isArray(doc) ? doc : undefined),
  reopen: false,
  // Events are converted by their content, never by their place in the list.
  indexFree: true,
  scan,
  convert: (elements, _first, c) => convertEvents(elements, c, {}),
  extend: (state, elements) => {
    const st = state as OpenHandsState;
    for (const e of elements) {
      if (!isRecord(e)) continue;
      const meta = metaOf(e);
      const call = meta ? str(meta['tool_call_id']) : undefined;
      if (call !== undefined) st.ids.add(call);
      const resp = responseId(meta);
      if (resp !== undefined) st.responses.add(resp);
    }
  },
  keepsSession: (session, _skeleton, _removed, changed) => {
    const model = changed
      .map((m) => m.model)
      .filter((x): x is string => !!x)
      .at(-1);
    return model === undefined || model === session.model;
  },
};

/** `metrics.token_usages` of an instance's comparable skeleton. */
const usagesOf = (skeleton: Record<string, unknown>): unknown[] => arr(rec(skeleton['metrics'])['token_usages']);

const instanceDocument: DocumentShape = {
  arrays: ['history'],
  conversation: 'history',
  skeleton: (doc) => {
    if (!isRecord(doc) || typeof doc['instance_id'] !== 'string' || instanceOptions(doc).nativeToolCalling === false) return undefined;
    // Of `metrics`, only the usages are read by the import.
    const { metrics, ...rest } = doc;
    return { ...rest, metrics: { token_usages: arr(rec(metrics)['token_usages']) } };
  },
  follows: (old, now, state) => {
    const { metrics: _old, ...oldRest } = old;
    const { metrics: _now, ...nowRest } = now;
    if (JSON.stringify(oldRest) !== JSON.stringify(nowRest)) return false;
    const before = usagesOf(old);
    const after = usagesOf(now);
    if (after.length < before.length || JSON.stringify(after.slice(0, before.length)) !== JSON.stringify(before)) return false;
    const { responses } = state as OpenHandsState;
    return after.slice(before.length).every((t) => {
      const id = str(rec(t)['response_id']);
      return id === undefined || !responses.has(id);
    });
  },
  reopen: false,
  scan,
  convert: (elements, _first, c) => convertEvents(elements, c, instanceOptions(c.skeleton)),
  extend: eventsDocument.extend!,
  keepsSession: eventsDocument.keepsSession,
};

export const format: FormatDescriptor = {
  ...importer,
  agent: 'OpenHands',
  // The importer keeps no record of which condenser the run used; its default configuration
  // summarizes (LLMSummarizingCondenser), so that preset stands in.
  defaultPolicy: 'openhands-summary',
  tail: { document: { shapes: [eventsDocument, instanceDocument] } },
};
