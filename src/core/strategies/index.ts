/** The strategy registry (registry.ts) as the replay reads it: one file per strategy, one signature. */
import { BUILTIN_STRATEGIES, type StrategyId } from './registry';
import type { Strategy } from './types';

/** The built-in strategies' functions by id (registered ones: `strategyById(id).run`). */
export const STRATEGIES = Object.fromEntries(BUILTIN_STRATEGIES.map((d) => [d.id, d.run as Strategy])) as Readonly<
  Record<StrategyId, Strategy>
>;

export { PLACEHOLDER_TEXT, PLACEHOLDER_TOKENS } from './tool-pruning';
export type { HistoryView, Strategy, StrategyContext, StrategyResult } from './types';
export { pipeline } from './pipeline';
export { keepPinned } from './pinned';
export { defineStrategy, type StrategyDescriptor, type StrategyPreset } from './define';
export {
  BUILTIN_STRATEGIES,
  pipelineMasksContinuously,
  pipelineSummarizes,
  registerStrategy,
  strategies,
  strategyById,
  unregisterStrategy,
  type StrategyId,
} from './registry';
