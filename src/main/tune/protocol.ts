/**
 * What the tuner's worker threads are given and asked (tune-worker.ts). Workers are kept warm by
 * the host between sweeps (pool.ts): each holds ONE session, keyed by `sessionKey` (session id and
 * a version that changes whenever the host's copy does: a tail append, a reload after delete), and
 * the counts it was sent, keyed by `countsId`. A job names both keys; a worker that lacks either
 * answers `missing` and the job is sent again with the session and/or counts attached — so the
 * session crosses to each worker once per version, never per sweep or per setting.
 */
import type { Overrides, ReplayConfig, ReplayConfigInput } from '../../core/config';
import type { Session } from '../../core/model';
import { resolveTokenizer } from '../../core/replay/index';
import type { FactIndex } from '../../core/replay/retention';
import type { TuneOutcome } from '../../core/tune/index';
import { mediaTokensFor, type SessionCounts } from '../../core/tokens/index';

/** What a session's counts depend on under a config: they are made once per key. */
export function countsKey(session: Session, config: ReplayConfig): { key: string; tokenizer: string; mediaTokens: number } {
  const tokenizer = resolveTokenizer(session, config);
  const mediaTokens = config.mediaTokens ?? mediaTokensFor(session.provider);
  return { key: `${tokenizer}\u0000${mediaTokens}\u0000${config.schemaScale}`, tokenizer, mediaTokens };
}

/** Counts as they travel: typed arrays whose buffers are transferred, not cloned. */
export interface CountsPayload {
  /** Session key + countsKey + the counts' origin: a worker replaces its copy when this changes. */
  readonly id: string;
  /** countsKey(…).key: which settings these counts serve. */
  readonly key: string;
  readonly counts: SessionCounts;
}

/** A slice of the grid to replay: settings at `indices` (grid positions), in that order. */
export interface TuneReplayJob {
  readonly kind: 'replay';
  readonly sessionKey: string;
  /** Attached only when the worker said it lacks `sessionKey`. */
  readonly session?: Session;
  /** With the session: its facts as one worker extracted them (typed arrays transferred), so this worker extracts none. */
  readonly facts?: FactIndex;
  /** The counts to use for `counts.key` settings (id only until the worker asks for them). */
  readonly countsId?: string;
  readonly counts?: CountsPayload;
  /** The policy's own config; each setting is resolved from it (config.ts, S3's (docs/policies.md §S3) order). */
  readonly policyConfig: ReplayConfigInput;
  /** `CTXSCOPE_*` overrides, as the host and CLI read them. */
  readonly env: Overrides;
  readonly needles: readonly string[];
  /** Ids of messages the user pinned. */
  readonly pins: readonly string[];
  readonly indices: readonly number[];
  readonly settings: readonly Overrides[];
}

/**
 * Load the session (when sent), extract its facts and, when the host has no stored counts, count
 * it under one tokenizer: done by ONE worker per session version, which sends the facts and counts
 * (transferred) to the host for the others.
 */
export interface TunePrepareJob {
  readonly kind: 'prepare';
  readonly sessionKey: string;
  readonly session?: Session;
  /** Counts wanted: the payload id they will travel under (the worker keeps its own copy under it) and what to count. */
  readonly count?: {
    readonly countsId: string;
    readonly key: string;
    readonly tokenizer: string;
    readonly mediaTokens: number;
    readonly schemaScale: number;
  };
}

/** Drop the held session and counts (the session was deleted or the host is idle). */
export interface TuneForgetJob {
  readonly kind: 'forget';
}

export type TuneJob = TuneReplayJob | TunePrepareJob | TuneForgetJob;
/** What a tuner task is given (tinypool, src/main/worker-pool.ts). */
export type TuneRequest = TuneJob;
export type TuneReply =
  | { readonly outcomes: TuneOutcome[] }
  /** The worker lacks the session and/or counts the job names: send it again with them. */
  | { readonly missing: { readonly session: boolean; readonly counts: boolean } }
  | { readonly prepared: { readonly facts: FactIndex; readonly counts?: SessionCounts } }
  | { readonly forgotten: true };
