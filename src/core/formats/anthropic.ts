/** Anthropic Messages API logs (importer: core/import/anthropic.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/anthropic';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    anthropic: true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'chat log' };
