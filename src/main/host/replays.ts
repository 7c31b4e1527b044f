/**
 * Replays for the host: resolves a policy + overrides into a config (S3's order: request >
 * preset > environment > file defaults), reuses counts per (session, tokenizer), and turns
 * results into the contract's views. Config errors are the caller's: `bad_input`.
 */
import { ConfigError, envOverrides, resolveConfig, type Overrides, type ReplayConfig } from '../../core/config';
import { getPolicy, POLICIES } from '../../core/policies/index';
import { replay, resolveTokenizer } from '../../core/replay/index';
import { toView } from '../../core/replay/serialize';
import type { ReplayResult } from '../../core/replay/types';
import type { Session } from '../../core/model';
import { countWith, mediaTokensFor, type SessionCounts } from '../../core/tokens/index';
import { ApiError, type CompareView, type PolicyInfo, type ReplayView } from '../../shared/api';

export function policyInfos(): PolicyInfo[] {
  return POLICIES.map((p) => ({ id: p.id, label: p.label, description: p.description, source: p.source, config: { ...p.config } }));
}

export function configFor(policyId: string, overrides: Overrides): ReplayConfig {
  const policy = getPolicy(policyId);
  if (!policy) throw new ApiError('bad_input', `unknown policy "${policyId}" (known: ${POLICIES.map((p) => p.id).join(', ')})`);
  try {
    return resolveConfig(policy.config, overrides, envOverrides(process.env));
  } catch (e) {
    if (e instanceof ConfigError) throw new ApiError('bad_input', e.message);
    throw e;
  }
}

export class ReplayService {
  private readonly counts = new Map<string, SessionCounts>();

  /** `load`/`save` reach the store's count cache, so a tokenizer is counted once per session, ever. */
  constructor(
    private readonly load: (key: string, tokenizer: string) => SessionCounts | undefined = () => undefined,
    private readonly save: (key: string, counts: SessionCounts) => void = () => {},
  ) {}

  private countsFor(key: string, session: Session, config: ReplayConfig): SessionCounts {
    const tokenizer = resolveTokenizer(session, config);
    const cacheKey = `${key}\u0000${tokenizer}\u0000${config.mediaTokens ?? ''}\u0000${config.schemaScale}`;
    let c = this.counts.get(cacheKey);
    const plain = config.mediaTokens === undefined && config.schemaScale === 1;
    if (!c && plain) {
      const stored = this.load(key, tokenizer);
      if (stored && stored.perMessage.length === session.messages.length) c = stored;
    }
    if (!c) {
      try {
        c = countWith(session, tokenizer, { mediaTokens: config.mediaTokens ?? mediaTokensFor(session.provider), schemaScale: config.schemaScale });
      } catch (e) {
        throw new ApiError('bad_input', e instanceof Error ? e.message : String(e));
      }
      if (plain) this.save(key, c);
    }
    this.counts.set(cacheKey, c);
    return c;
  }

  async run(key: string, session: Session, policyId: string, overrides: Overrides, needles: readonly string[], pinned: ReadonlySet<string>): Promise<ReplayResult> {
    const config = configFor(policyId, overrides);
    try {
      return await replay(session, config, { counts: this.countsFor(key, session, config), needles, pinned });
    } catch (e) {
      if (e instanceof Error && /^needle /.test(e.message)) throw new ApiError('bad_input', e.message);
      throw e;
    }
  }

  async view(key: string, session: Session, policyId: string, overrides: Overrides, needles: readonly string[], pinned: ReadonlySet<string>): Promise<ReplayView> {
    return toView(await this.run(key, session, policyId, overrides, needles, pinned));
  }

  async compare(key: string, session: Session, a: { policy: string; overrides: Overrides }, b: { policy: string; overrides: Overrides }, pinned: ReadonlySet<string>): Promise<CompareView> {
    const [ra, rb] = [await this.view(key, session, a.policy, a.overrides, [], pinned), await this.view(key, session, b.policy, b.overrides, [], pinned)];
    return compareViews(ra, rb);
  }

  forget(key: string): void {
    for (const k of this.counts.keys()) if (k.startsWith(key + '\u0000')) this.counts.delete(k);
  }
}

export function compareViews(a: ReplayView, b: ReplayView): CompareView {
  const n = Math.min(a.steps.total.length, b.steps.total.length);
  const totalDelta: number[] = [];
  const statusDiffs: CompareView['statusDiffs'][number][] = [];
  for (let i = 0; i < n; i++) {
    totalDelta.push(b.steps.total[i]! - a.steps.total[i]!);
    if (a.steps.status[i] !== b.steps.status[i]) statusDiffs.push({ step: i, a: a.steps.status[i]!, b: b.steps.status[i]! });
  }
  return { a, b, totalDelta, statusDiffs };
}
