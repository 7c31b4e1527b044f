/**
 * OpenAI Chat Completions logs (importer: core/import/openai-chat.ts).
 *
 * Live tail of a logged request (`{model, tools, messages[]}`; the walk: src/main/store/tail-document.ts). The log is written again
 * with the next call's request: the same messages and more at the end. Each new message converts
 * with the importer's `chatMessages`, numbered where it stands in the list (a message without an
 * id is named by its position), after the stored ones (the system prompt is behind them).
 * A request that carries its `response` (its message comes after the list), other keys changed,
 * or the session's model moved (the request names none: the first message's) take the whole-file
 * path. The other shapes (a response, a bare list, several requests) are not walked.
 */
import { chatMessages } from '../import/chat-messages';
import { importer } from '../import/openai-chat';
import { isRecord } from '../import/util';
import { eachAlone } from './document';
import type { DocumentShape, FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    'openai-chat': true;
  }
}

const requestDocument: DocumentShape = {
  arrays: ['messages'],
  conversation: 'messages',
  skeleton: (doc) => (isRecord(doc) && !('response' in doc) ? doc : undefined),
  // As the import converts a request's list: ids `<file>#<index>` unless a message has its own.
  convert: eachAlone(
    (element, index, path) => chatMessages([element], `${path}#`, undefined, undefined, { index, systemOpen: false }).messages,
  ),
  reopen: true,
  keepsSession: (session, skeleton, removed, changed) =>
    typeof skeleton['model'] === 'string' || (!removed.some((m) => m.model) && (session.model !== null || !changed.some((m) => m.model))),
};

export const format: FormatDescriptor = { ...importer, agent: 'chat log', tail: { document: { shapes: [requestDocument] } } };
