/**
 * What the tuner's worker threads are given and asked (tune-worker.ts). The session and its counts
 * travel once, in `workerData`, when a worker starts: every setting of the sweep is then replayed
 * on that copy, never re-loaded or re-counted. Jobs are slices of the grid.
 */
import type { Overrides, ReplayConfig, ReplayConfigInput } from '../../core/config';
import type { Session } from '../../core/model';
import { resolveTokenizer } from '../../core/replay/index';
import type { TuneOutcome } from '../../core/tune/index';
import { mediaTokensFor, type SessionCounts } from '../../core/tokens/index';

/** What a session's counts depend on under a config: they are made once per key. */
export function countsKey(session: Session, config: ReplayConfig): { key: string; tokenizer: string; mediaTokens: number } {
  const tokenizer = resolveTokenizer(session, config);
  const mediaTokens = config.mediaTokens ?? mediaTokensFor(session.provider);
  return { key: `${tokenizer}\u0000${mediaTokens}\u0000${config.schemaScale}`, tokenizer, mediaTokens };
}

export interface TuneWorkerData {
  readonly session: Session;
  /**
   * Counts under the base config's tokenizer (media tokens and schema scale included), when the
   * caller has them; a worker counts once per (tokenizer, media tokens, schema scale) otherwise.
   */
  readonly counts?: { readonly key: string; readonly counts: SessionCounts };
  /** The policy's own config; each setting is resolved from it (config.ts, S3's order). */
  readonly policyConfig: ReplayConfigInput;
  /** `CTXSCOPE_*` overrides, as the host and CLI read them. */
  readonly env: Overrides;
  readonly needles: readonly string[];
  /** Ids of messages the user pinned. */
  readonly pins: readonly string[];
}

/** One slice of the grid: settings `first`, `first + 1`, … */
export interface TuneJob {
  readonly first: number;
  readonly settings: readonly Overrides[];
}
export type TuneRequest = TuneJob & { readonly id: number };
export interface TuneReply {
  readonly id: number;
  readonly outcomes: TuneOutcome[];
}
