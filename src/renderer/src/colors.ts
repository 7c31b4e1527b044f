/**
 * The debugger's colours, one place: regions in stack order, lines, markers and guard statuses.
 * Picked so neighbours stay apart: tool definitions (violet) vs the compare line (teal), the
 * summary region (amber) vs compression markers (magenta).
 */
import type { StepStatus } from '../../core/replay/types';

export const PROMPT_REGIONS = ['system', 'unlogged', 'summary', 'history', 'tools'] as const;
export type PromptRegion = (typeof PROMPT_REGIONS)[number];

export const REGION_COLOR: Record<PromptRegion | 'reserve', string> = {
  system: '#74b816',
  unlogged: '#4c7a0b',
  summary: '#f59f00',
  history: '#339af0',
  tools: '#9775fa',
  reserve: '#868e96',
};

export const REGION_LABEL: Record<PromptRegion | 'output' | 'buffer', string> = {
  system: 'system prompt',
  unlogged: 'unlogged system & tools (inferred)',
  summary: 'summary',
  history: 'history',
  tools: 'tool definitions',
  output: 'output reserve',
  buffer: 'buffer',
};

export const LINE_COLOR = {
  window: '#ced4da',
  limit: '#ff6b6b',
  trigger: '#ff922b',
  reported: '#f8f9fa',
  compare: '#20c997',
  cursor: '#4dabf7',
} as const;

export const MARKER_COLOR = {
  compression: '#f783ac',
  'source-compaction': '#e9ecef',
  compareCompression: '#20c997',
} as const;

export const STATUS_COLOR: Record<StepStatus, string> = {
  ok: 'transparent',
  warn: '#ffd43b',
  compress: '#f783ac',
  skip: '#ff922b',
  final: '#ff4d4f',
  abort: '#d6336c',
  overflow: '#c92a2a',
};

/**
 * The two colour schemes of styles.css (prefers-color-scheme) and the background the chart is
 * drawn on in each (`--bg`). Every mark and line of the chart keeps a contrast of at least 3:1
 * against it (WCAG 2.x non-text contrast; test/unit/renderer/chart-contrast.test.ts): the colours
 * above are the dark scheme's, and the light scheme has its own, darker, set of the same hues.
 */
export type Theme = 'dark' | 'light';
export const THEME_BACKGROUND: Record<Theme, string> = { dark: '#101318', light: '#f8f9fb' };

export interface Palette {
  readonly region: Readonly<Record<PromptRegion | 'reserve', string>>;
  readonly line: Readonly<Record<keyof typeof LINE_COLOR, string>>;
  readonly marker: Readonly<Record<keyof typeof MARKER_COLOR, string>>;
  readonly status: Readonly<Record<StepStatus, string>>;
}

export const PALETTE: Readonly<Record<Theme, Palette>> = {
  dark: { region: REGION_COLOR, line: LINE_COLOR, marker: MARKER_COLOR, status: STATUS_COLOR },
  light: {
    region: { system: '#5c940d', unlogged: '#3f6212', summary: '#c25e00', history: '#1c7ed6', tools: '#7048e8', reserve: '#6c757d' },
    // The reported prompt and the agent's compactions are the transcript's own evidence: near-black here, as they are near-white on dark.
    line: { window: '#495057', limit: '#e03131', trigger: '#e8590c', reported: '#212529', compare: '#099268', cursor: '#1971c2' },
    marker: { compression: '#c2255c', 'source-compaction': '#343a40', compareCompression: '#099268' },
    status: {
      ok: 'transparent',
      warn: '#b35c00',
      compress: '#c2255c',
      skip: '#e8590c',
      final: '#c92a2a',
      abort: '#a61e4d',
      overflow: '#862e9c',
    },
  },
};
