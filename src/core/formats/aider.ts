/** aider's chat history (Markdown) (importer: core/import/aider.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/aider';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    aider: true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'aider' };
