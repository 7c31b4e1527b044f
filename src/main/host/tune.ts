/**
 * The host's `runTune`: a sweep of a policy's settings on the session (src/main/tune/run.ts, on
 * worker threads), cancellable as the debugger's replays are (replay-client.ts): a newer sweep on
 * the same channel supersedes the older, whose workers end at once and which answers `cancelled`.
 * A bad sweep is `bad_input` naming the key and what was expected. The tuner's worker threads stay
 * up between sweeps (TunePool), holding the last session swept.
 */
import type { Policy } from '../../core/policies/index';
import type { Session } from '../../core/model';
import type { SessionCounts } from '../../core/tokens/index';
import { SweepError, type TuneResult } from '../../core/tune/index';
import { ApiError, type MethodArgs } from '../../shared/api';
import { TuneCancelled, TunePool } from '../tune/run';

export interface TuneDeps {
  readonly session: (id: string) => Session;
  readonly policy: (id: string) => Policy;
  readonly pins: (sessionId: string) => ReadonlySet<string>;
  readonly storedCounts: (sessionId: string, tokenizer: string) => SessionCounts | undefined;
}

/**
 * Where a sweep waits its turn (the host's work budget, work-budget.ts): runs `work` when there is
 * room; `signal` aborts a sweep still waiting (superseded or cancelled) with `cancelled`.
 */
export type TuneGate = <T>(work: () => Promise<T>, signal: AbortSignal) => Promise<T>;
const ungated: TuneGate = (work) => work();

export function createTuner(deps: TuneDeps): {
  run(args: MethodArgs<'runTune'>, gate?: TuneGate): Promise<TuneResult>;
  cancel(channel: string): boolean;
  forget(sessionId: string): void;
  close(): void;
} {
  const running = new Map<string, AbortController>();
  // Kept warm between sweeps: the second sweep on a session sends the workers only its settings.
  const pool = new TunePool();
  return {
    async run({ sessionId, policy, overrides, needles, sweeps, channel }, gate = ungated) {
      const session = deps.session(sessionId);
      const p = deps.policy(policy);
      running.get(channel)?.abort(`superseded by a newer sweep on channel "${channel}"`);
      const abort = new AbortController();
      running.set(channel, abort);
      try {
        const pins = [...deps.pins(sessionId)];
        return await gate(
          () =>
            pool.sweep({
              session,
              policy: { id: p.id, config: p.config },
              sweeps,
              baseOverrides: overrides,
              needles,
              pins,
              storedCounts: (tok) => deps.storedCounts(sessionId, tok),
              signal: abort.signal,
            }),
          abort.signal,
        );
      } catch (e) {
        if (e instanceof SweepError) throw new ApiError('bad_input', e.message);
        if (e instanceof TuneCancelled) throw new ApiError('cancelled', e.message);
        throw e;
      } finally {
        if (running.get(channel) === abort) running.delete(channel);
      }
    },
    cancel(channel) {
      const a = running.get(channel);
      a?.abort('cancelled by the user');
      return a !== undefined;
    },
    /** The session changed (tail append) or was deleted: what the workers hold for it goes. */
    forget(sessionId) {
      pool.forget(sessionId);
    },
    close() {
      for (const a of running.values()) a.abort('the host closed');
      running.clear();
      void pool.close();
    },
  };
}
