/**
 * Token counts shared by the policies of one fleet replay. Counting a session is most of a
 * replay's time (a BPE pass over every message), and the counts depend only on the tokenizer,
 * the media cost and the schema scale — not on the policy. The replay counts the session itself
 * when no counts are given (src/core/replay/run.ts `setupRun`), once per policy; the fleet counts
 * it once per distinct counting spec and hands the same counts to every policy that shares it.
 * The counts are exactly those the replay would have made: same function, same arguments.
 *
 * Specs that differ can still share their expensive part: S1's (docs/policies.md §S1) `max:tiktoken:o200k_base` and
 * `calibrated` (whose base is o200k) both run the o200k BPE over every text. The BPE's count of a
 * text is memoized for the session, so the second pass is a lookup per text.
 */
import type { ReplayConfig } from '../config';
import type { Session } from '../model';
import { resolveTokenizer } from '../replay/index';
import {
  CALIBRATION_BASE,
  countCalibrated,
  countSession,
  createCounter,
  getTokenizer,
  mediaTokensFor,
  type SessionCounts,
  type Tokenizer,
} from '../tokens/index';

/** What the counts of a session depend on under a config (the arguments `setupRun` counts with). */
export function countSpec(session: Session, config: ReplayConfig): { tokenizer: string; mediaTokens: number; schemaScale: number } {
  return {
    tokenizer: resolveTokenizer(session, config),
    mediaTokens: config.mediaTokens ?? mediaTokensFor(session.provider),
    schemaScale: config.schemaScale,
  };
}

/**
 * A per-session memo of counts by spec. Made for one session and dropped with it, so nothing
 * outlives the transcript (a memo kept across a fleet would grow with it).
 */
export class SharedCounts {
  private readonly bySpec = new Map<string, SessionCounts>();
  private readonly exact = new Map<string, Tokenizer>();
  /** Counting passes made (the rest were reused). */
  passes = 0;

  constructor(private readonly session: Session) {}

  /** An exact (BPE) tokenizer whose per-text counts are remembered for this session; heuristics as they are. */
  private memoized(id: string): Tokenizer {
    const inner = getTokenizer(id);
    if (inner.approximate) return inner;
    let t = this.exact.get(id);
    if (!t) {
      const seen = new Map<string, number>();
      const countText = (text: string): number => {
        let n = seen.get(text);
        if (n === undefined) seen.set(text, (n = inner.countText(text)));
        return n;
      };
      this.exact.set(id, (t = { ...inner, countText }));
    }
    return t;
  }

  /** The tokenizer `countWith` would use for `id`, its BPE part memoized (src/core/tokens/registry.ts). */
  private tokenizer(id: string): Tokenizer {
    if (id.startsWith('max:')) {
      const inner = this.memoized(id.slice(4));
      const chars4 = getTokenizer('chars4');
      return { ...getTokenizer(id), countText: (s) => Math.max(inner.countText(s), chars4.countText(s)) };
    }
    return this.memoized(id);
  }

  /** `countWith(session, spec.tokenizer, …)`, with the memoized tokenizers. */
  private count(spec: ReturnType<typeof countSpec>): SessionCounts {
    const options = { memo: false, mediaTokens: spec.mediaTokens, schemaScale: spec.schemaScale };
    if (spec.tokenizer === 'calibrated') return countCalibrated(this.session, createCounter(this.tokenizer(CALIBRATION_BASE), options));
    return countSession(this.session, createCounter(this.tokenizer(spec.tokenizer), options));
  }

  for(config: ReplayConfig): SessionCounts {
    const spec = countSpec(this.session, config);
    const key = `${spec.tokenizer}\u0000${spec.mediaTokens}\u0000${spec.schemaScale}`;
    let counts = this.bySpec.get(key);
    if (!counts) {
      this.passes++;
      counts = this.count(spec);
      this.bySpec.set(key, counts);
    }
    return counts;
  }
}
