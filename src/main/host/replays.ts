/**
 * Replays for the host: resolves a policy (built-in or saved by the user) + overrides into a
 * config (S3's order: request > preset > environment > file defaults), reuses counts per
 * (session, tokenizer) — including the reference tokenizer S0's emergency path needs when the
 * transcript has no reported usage — builds the summarizer the config names (key from the
 * environment or the keychain, summaries cached in SQLite), and turns results into the
 * contract's views. Config errors are the caller's: `bad_input`.
 */
import { ConfigError, envOverrides, resolveConfig, type Overrides, type ReplayConfig } from '../../core/config';
import { getPolicy, POLICIES, type Policy } from '../../core/policies/index';
import { compare, comparisonToJSON } from '../../core/replay/compare';
import { replay, resolveTokenizer } from '../../core/replay/index';
import { toView } from '../../core/replay/serialize';
import type { ReplayResult } from '../../core/replay/types';
import type { Session } from '../../core/model';
import type { Summarizer, SummaryStore } from '../../core/summarize/index';
import { countWith, mediaTokensFor, type SessionCounts } from '../../core/tokens/index';
import { ApiError, type CompareView, type PolicyInfo, type ReplayView } from '../../shared/api';
import { summarizerFor, SummarizerSetupError } from '../summarizer';

export function policyInfo(p: Policy, saved: boolean): PolicyInfo {
  return { id: p.id, label: p.label, description: p.description, source: p.source, config: { ...p.config }, saved };
}

export function policyInfos(saved: readonly Policy[] = []): PolicyInfo[] {
  return [...POLICIES.map((p) => policyInfo(p, false)), ...saved.map((p) => policyInfo(p, true))];
}

/** Finds a policy by id: the user's saved ones, then the built-ins (and S3's scenario variants). */
export type PolicyLookup = (id: string) => Policy | undefined;
const builtInOnly: PolicyLookup = (id) => getPolicy(id);

export function configFor(policyId: string, overrides: Overrides, lookup: PolicyLookup = builtInOnly): ReplayConfig {
  const policy = lookup(policyId);
  if (!policy) throw new ApiError('bad_input', `unknown policy "${policyId}" (known: ${POLICIES.map((p) => p.id).join(', ')}, or a saved policy)`);
  try {
    return resolveConfig(policy.config, overrides, envOverrides(process.env));
  } catch (e) {
    if (e instanceof ConfigError) throw new ApiError('bad_input', e.message);
    throw e;
  }
}

export interface ReplayServiceDeps {
  /** The store's count cache, so a tokenizer is counted once per session, ever. */
  readonly load?: (key: string, tokenizer: string) => SessionCounts | undefined;
  readonly save?: (key: string, counts: SessionCounts) => void;
  readonly lookup?: PolicyLookup;
  /** Where summaries persist (SQLite in the app); a Map when absent. */
  readonly summaries?: SummaryStore;
}

export class ReplayService {
  private readonly counts = new Map<string, SessionCounts>();
  /**
   * Summarizers by (kind, model, URL): a replay follows every slider move, and a remote one's
   * key lookup (environment, then the OS keychain) should happen once, not per replay.
   */
  private readonly summarizers = new Map<string, Promise<Summarizer | undefined>>();

  constructor(private readonly deps: ReplayServiceDeps = {}) {}

  private counted(key: string, session: Session, tokenizer: string, config: ReplayConfig, scaled: boolean): SessionCounts {
    const cacheKey = `${key}\u0000${tokenizer}\u0000${config.mediaTokens ?? ''}\u0000${scaled ? config.schemaScale : 1}`;
    let c = this.counts.get(cacheKey);
    const plain = config.mediaTokens === undefined && (!scaled || config.schemaScale === 1);
    if (!c && plain) {
      const stored = this.deps.load?.(key, tokenizer);
      if (stored && stored.perMessage.length === session.messages.length) c = stored;
    }
    if (!c) {
      try {
        c = countWith(session, tokenizer, { mediaTokens: config.mediaTokens ?? mediaTokensFor(session.provider), schemaScale: scaled ? config.schemaScale : 1 });
      } catch (e) {
        throw new ApiError('bad_input', e instanceof Error ? e.message : String(e));
      }
      if (plain) this.deps.save?.(key, c);
    }
    this.counts.set(cacheKey, c);
    return c;
  }

  async run(key: string, session: Session, policyId: string, overrides: Overrides, needles: readonly string[], pinned: ReadonlySet<string>): Promise<ReplayResult> {
    const config = configFor(policyId, overrides, this.deps.lookup);
    const counts = this.counted(key, session, resolveTokenizer(session, config), config, true);
    // S0's emergency path measures the "true" size with a reference tokenizer when the transcript reports none.
    const needsReference = config.paths.emergency && !session.messages.some((m) => m.usage);
    const referenceCounts = needsReference ? this.counted(key, session, config.referenceTokenizer, config, false) : undefined;
    const summarizer = await this.summarizerOf(config);
    try {
      return await replay(session, config, { counts, needles, pinned, ...(referenceCounts ? { referenceCounts } : {}), ...(summarizer ? { summarizer } : {}) });
    } catch (e) {
      if (e instanceof Error && /^needle /.test(e.message)) throw new ApiError('bad_input', e.message);
      throw e;
    }
  }

  private async summarizerOf(config: ReplayConfig): Promise<Summarizer | undefined> {
    const key = `${config.summarizer}\u0000${config.summarizerModel ?? ''}\u0000${config.summarizerUrl ?? ''}`;
    let made = this.summarizers.get(key);
    if (!made) {
      made = summarizerFor(config, this.deps.summaries);
      this.summarizers.set(key, made);
      // A refusal (no key yet) is not remembered: the user may set one and try again.
      made.catch(() => this.summarizers.delete(key));
    }
    try {
      return await made;
    } catch (e) {
      if (e instanceof SummarizerSetupError) throw new ApiError('bad_input', e.message);
      throw e;
    }
  }

  async view(key: string, session: Session, policyId: string, overrides: Overrides, needles: readonly string[], pinned: ReadonlySet<string>): Promise<ReplayView> {
    return toView(await this.run(key, session, policyId, overrides, needles, pinned));
  }

  async compare(key: string, session: Session, a: { policy: string; overrides: Overrides }, b: { policy: string; overrides: Overrides }, pinned: ReadonlySet<string>): Promise<CompareView> {
    const ra = await this.run(key, session, a.policy, a.overrides, [], pinned);
    const rb = await this.run(key, session, b.policy, b.overrides, [], pinned);
    return { ...comparisonToJSON(compare(ra, rb)), a: toView(ra), b: toView(rb) };
  }

  forget(key: string): void {
    for (const k of this.counts.keys()) if (k.startsWith(key + '\u0000')) this.counts.delete(k);
  }
}
