/** OpenTelemetry GenAI spans (OTLP JSON) (importer: core/import/otel.ts). No live-tail fast path: a grown file is imported again whole. */
import { importer } from '../import/otel';
import type { FormatDescriptor } from './types';

declare module '../model' {
  interface FormatIds {
    otel: true;
  }
}

export const format: FormatDescriptor = { ...importer, agent: 'OpenTelemetry trace' };
