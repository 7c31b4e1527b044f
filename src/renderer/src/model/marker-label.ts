/**
 * The one line a person reads for a chart marker (hover card, guard reason, event list). The host
 * sends markers as numbers (src/shared/api.ts, ChartMarker) and the line is written here, only for
 * the markers on screen: a replay with thousands of compressions no longer formats, ships and
 * parses a sentence for each. Pure.
 */
import type { ChartMarker } from '../../../shared/api';
import { fmtInt } from '../format';

export function markerLabel(m: ChartMarker): string {
  switch (m.kind) {
    case 'compression':
      return m.until === undefined
        ? `${m.path} compression (${m.strategy}): ${fmtInt(m.tokensBefore)} → ${fmtInt(m.tokensAfter)} tokens`
        : `${m.path} compression (${m.strategy}) at every call ${m.step}–${m.until}: ${fmtInt(m.tokensBefore)} → ${fmtInt(m.tokensAfter)} tokens first, ${fmtInt(m.lastTokensBefore ?? m.tokensBefore)} → ${fmtInt(m.lastTokensAfter ?? m.tokensAfter)} last`;
    case 'source-compaction': {
      // The transcript may record the size before without the size after, never the reverse worth showing.
      const numbers =
        m.tokensBefore !== undefined
          ? `: ${fmtInt(m.tokensBefore)}${m.tokensAfter !== undefined ? ` → ${fmtInt(m.tokensAfter)}` : ''} tokens`
          : '';
      return `the original agent compacted (${m.trigger})${numbers}`;
    }
    default: {
      const text = m.reason || m.kind;
      const later = m.until === undefined ? 0 : m.until - m.step;
      if (later <= 0) return text;
      // After a final / abort the run is the calls that would not have happened.
      return m.kind === 'final' || m.kind === 'abort'
        ? `${text} (the ${fmtInt(later)} later calls would not have happened)`
        : `${text} (calls ${m.step}–${m.until})`;
    }
  }
}
