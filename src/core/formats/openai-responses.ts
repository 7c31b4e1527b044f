/** OpenAI Responses API logs (importer: core/import/openai-responses.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/openai-responses';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    'openai-responses': true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'chat log' };
