/** mini-swe-agent trajectories (importer: core/import/mini-swe-agent.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/mini-swe-agent';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    'mini-swe-agent': true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'mini-SWE-agent' };
