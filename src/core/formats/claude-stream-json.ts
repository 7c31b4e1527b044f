/** The stream-json output of `claude -p` (importer: core/import/claude-stream-json.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/claude-stream-json';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    'claude-stream-json': true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'Claude Code (headless)', defaultPolicy: 'claude-code' };
