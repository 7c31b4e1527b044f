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
  unlogged: '#3f6212',
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
