/** LangChain message lists (importer: core/import/langchain.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/langchain';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    langchain: true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'LangChain' };
