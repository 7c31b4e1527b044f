/** The strategy registry: one file per strategy, one signature. */
import type { StrategyId } from '../config';
import { dropOldest } from './drop-oldest';
import { headTail } from './head-tail';
import { observationMasking } from './observation-masking';
import { primersRecents } from './primers-recents';
import { slidingWindow } from './sliding-window';
import { summarize } from './summarize';
import { toolPruning } from './tool-pruning';
import type { Strategy } from './types';

export const STRATEGIES: Readonly<Record<StrategyId, Strategy>> = {
  'sliding-window': slidingWindow,
  'drop-oldest': dropOldest,
  'primers-recents': primersRecents,
  summarize,
  'tool-pruning': toolPruning,
  'head-tail': headTail,
  'observation-masking': observationMasking,
};

export { PLACEHOLDER_TEXT, PLACEHOLDER_TOKENS } from './tool-pruning';
export type { HistoryView, Strategy, StrategyContext, StrategyResult } from './types';
export { pipeline } from './pipeline';
export { keepPinned } from './pinned';
