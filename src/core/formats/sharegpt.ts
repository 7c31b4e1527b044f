/** ShareGPT conversations (importer: core/import/sharegpt.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/sharegpt';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    sharegpt: true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'chat log' };
