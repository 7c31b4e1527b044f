/**
 * Live tail's fast path for Gemini CLI's JSON session (`{sessionId, projectHash, startTime,
 * lastUpdated, messages[]}`, core/import/gemini-cli.ts; the walk: tail-document.ts). Gemini CLI
 * writes the whole document again at each change: a turn adds records at the end of `messages`,
 * and the running call is written again in place with its results and tokens (the last element
 * written again). Each record converts on its own with the importer's `convert`; `lastUpdated`
 * changes at every write and nothing stored comes from it. The session's model is its last
 * message's: another one (or none where the replaced record had one) takes the whole-file path,
 * as do the other keys (the id, start time and summary are the session's).
 *
 * A checkpoint (`/chat save <tag>`: `checkpoint-<tag>.json`, a bare `[{role: user|model,
 * parts[]}]`) is saved again whole with more turns: each new element converts alone as the
 * import converts it (its role as its type). An element that is not such a record (the import then
 * refuses the file) takes the whole-file path, to say so.
 */
import { convert } from '../../core/import/gemini-cli';
import { isRecord, type Json } from '../../core/import/util';
import { eachAlone, type DocumentFormat } from './tail-document';

export const geminiDocument: DocumentFormat = {
  arrays: ['messages'],
  conversation: 'messages',
  skeleton: (doc) => {
    if (!isRecord(doc) || typeof doc['sessionId'] !== 'string' || !('projectHash' in doc)) return undefined;
    const { lastUpdated: _volatile, ...kept } = doc;
    return kept;
  },
  // The import keeps the records that are objects, without line numbers or raw records (a document).
  convert: eachAlone((element) => (isRecord(element) ? convert(element, undefined, true, undefined) : [])),
  reopen: true,
  keepsSession: (session, _skeleton, removed, changed) => {
    const model = changed
      .map((m) => m.model)
      .filter((x): x is string => !!x)
      .at(-1);
    return model !== undefined ? model === session.model : !removed.some((m) => m.model !== undefined);
  },
};

/** An element of a checkpoint as the import requires every one to be (else it refuses the file). */
const isCheckpointRecord = (m: unknown): m is Json =>
  isRecord(m) && (m['role'] === 'user' || m['role'] === 'model') && Array.isArray(m['parts']);

export const geminiCheckpointDocument: DocumentFormat = {
  arrays: [''],
  conversation: '',
  skeleton: (doc) => (Array.isArray(doc) ? doc : undefined),
  convert: (elements) =>
    elements.every(isCheckpointRecord) ? elements.map((m) => convert({ ...m, type: m['role'] }, undefined, true, undefined)) : undefined,
  reopen: true,
  keepsSession: geminiDocument.keepsSession,
};
