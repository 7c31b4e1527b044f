/**
 * The window arithmetic of S0 and S1, in one place:
 * - S1: `limit = window - buffer - maxOutput`; maxOutput defaults to `floor(window / 4)`;
 *   window resolution order request > transcript > model > provider > default 131,072; buffer
 *   default 8,192 (docs/policies.md §S1, §Common).
 * - S0: `history_budget = window - system - summary - tools - maxOutput`; when only maxOutput is
 *   known, `window = maxOutput × 4` — under policy s0 before a provider's default window too
 *   (`maxOutputWindowFirst`, docs/policies.md §S0).
 */
import { lookupModel, PROVIDER_DEFAULTS, type ModelInfo } from '../catalog';

export const DEFAULT_WINDOW = 131_072;
export const DEFAULT_BUFFER = 8_192;

export interface LimitsInput {
  /** The window the request (config) asks for. */
  readonly window?: number;
  /** The window the transcript itself reports (some Codex and Gemini logs); below the request, above the model. */
  readonly transcriptWindow?: number;
  readonly maxOutput?: number;
  readonly buffer?: number;
  readonly model?: string;
  readonly provider?: string;
  /**
   * S0's rule before the provider default: with maxOutput set and no window from the request, the
   * transcript or the model catalog, `window = maxOutput × 4` (docs/policies.md §S0, window). Off,
   * a provider's default window comes first (S1's order).
   */
  readonly maxOutputWindowFirst?: boolean;
}

export type WindowSource = 'request' | 'transcript' | 'model' | 'provider' | 'maxOutput×4' | 'default';
/** Where maxOutput came from: the request, or S1's default floor(window / 4). */
export type MaxOutputSource = 'request' | 'window/4';
/** Where the buffer came from: the request (config, whose default is S1's 8,192), or S1's default. */
export type BufferSource = 'request' | 'default';

export interface ResolvedLimits {
  readonly window: number;
  readonly maxOutput: number;
  readonly buffer: number;
  /** S1: the guard's limit on the request (window - buffer - maxOutput). */
  readonly limit: number;
  readonly windowSource: WindowSource;
  readonly maxOutputSource: MaxOutputSource;
  readonly bufferSource: BufferSource;
  readonly model: ModelInfo | undefined;
  readonly warnings: readonly string[];
  /** S0: tokens left for history once the other regions are placed. */
  historyBudget(system: number, summary: number, tools: number): number;
}

/** S1: maxOutput = floor(window / 4) when not set. */
export const defaultMaxOutput = (window: number): number => Math.floor(window / 4);
/** S0: window = maxOutput × 4 when only maxOutput is known. */
export const windowFromMaxOutput = (maxOutput: number): number => maxOutput * 4;
/** S1's limit. */
export const guardLimit = (window: number, buffer: number, maxOutput: number): number => window - buffer - maxOutput;
/** S0's history budget. */
export const historyBudget = (window: number, system: number, summary: number, tools: number, maxOutput: number): number =>
  window - system - summary - tools - maxOutput;

/** How a warning names where the window came from. */
const WINDOW_SOURCE_WORDS: Readonly<Record<WindowSource, string>> = {
  request: 'the request',
  transcript: 'the transcript',
  model: 'the model catalog',
  provider: 'the provider default',
  'maxOutput×4': 'maxOutput × 4',
  default: 'the default',
};

export function resolveLimits(input: LimitsInput): ResolvedLimits {
  const warnings: string[] = [];
  const model = lookupModel(input.model);
  const providerWindow = input.provider ? PROVIDER_DEFAULTS[input.provider]?.window : undefined;
  let window: number;
  let windowSource: WindowSource;
  if (input.window !== undefined) [window, windowSource] = [input.window, 'request'];
  else if (input.transcriptWindow !== undefined) [window, windowSource] = [input.transcriptWindow, 'transcript'];
  else if (model) [window, windowSource] = [model.window, 'model'];
  else if (input.maxOutputWindowFirst && input.maxOutput !== undefined)
    [window, windowSource] = [windowFromMaxOutput(input.maxOutput), 'maxOutput×4'];
  else if (providerWindow !== undefined) [window, windowSource] = [providerWindow, 'provider'];
  else if (input.maxOutput !== undefined) [window, windowSource] = [windowFromMaxOutput(input.maxOutput), 'maxOutput×4'];
  else [window, windowSource] = [DEFAULT_WINDOW, 'default'];
  const maxOutput = input.maxOutput ?? defaultMaxOutput(window);
  // The warning names the limits actually in force, and where each came from.
  if (input.model && !model) {
    const output =
      input.maxOutput !== undefined
        ? `maxOutput ${maxOutput.toLocaleString('en-US')} from the request`
        : `maxOutput floor(window / 4) = ${maxOutput.toLocaleString('en-US')}`;
    warnings.push(
      `unknown model "${input.model}": using window ${window.toLocaleString('en-US')} from ${WINDOW_SOURCE_WORDS[windowSource]}, ${output}`,
    );
  }
  const buffer = input.buffer ?? DEFAULT_BUFFER;
  const limit = guardLimit(window, buffer, maxOutput);
  if (limit <= 0) warnings.push(`window ${window} leaves no room: buffer ${buffer} + maxOutput ${maxOutput} ≥ window`);
  return {
    window,
    maxOutput,
    buffer,
    limit,
    windowSource,
    maxOutputSource: input.maxOutput !== undefined ? 'request' : 'window/4',
    bufferSource: input.buffer !== undefined ? 'request' : 'default',
    model,
    warnings,
    historyBudget: (system, summary, tools) => historyBudget(window, system, summary, tools, maxOutput),
  };
}
