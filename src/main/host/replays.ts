/**
 * Replays for the host: resolves a policy (built-in or saved by the user) + overrides into a
 * config (S3's order: request > preset > environment > file defaults), reuses counts per
 * (session, tokenizer) — including the reference tokenizer S0's emergency path needs when the
 * transcript has no reported usage — builds the summarizer the config names (key from the
 * environment or the keychain, summaries cached in SQLite), keeps the last few results by their
 * inputs (session, policy and its config, overrides, needles, pins) and answers the debugger's
 * questions from them: the chart view, one call's detail, the full view, a comparison. Config
 * errors are the caller's: `bad_input`.
 *
 * The same engine runs in the replay worker (replay-worker.ts) and, without a built worker, in
 * the host's own thread (tests from source); replay-client.ts schedules requests to it.
 * S0..S4 name the source systems whose rules docs/policies.md states.
 */
import { createHash } from 'node:crypto';
import { ConfigError, envOverrides, resolveConfig, type Overrides, type ReplayConfig } from '../../core/config';
import type { Message, Session } from '../../core/model';
import { getPolicy, POLICIES, type Policy } from '../../core/policies/index';
import { chartView } from '../../core/replay/chart-view';
import { compare, comparisonToJSON } from '../../core/replay/compare';
import { ReplayCancelled, resolveTokenizer } from '../../core/replay/index';
import { extendReplay, replayLive, type LiveReplay } from '../../core/replay/resume';
import { toView, withoutSummary } from '../../core/replay/serialize';
import { stepDetail, StepDetailError } from '../../core/replay/step-detail';
import type { ReplayEvent, ReplayResult } from '../../core/replay/types';
import type { Summarizer, SummaryStore } from '../../core/summarize/index';
import { countWith, mediaTokensFor, type SessionCounts } from '../../core/tokens/index';
import { chartViewToWire, type ChartViewWire } from '../../shared/marker-columns';
import { ApiError, toJsonText, type CompareView, type JsonText, type PolicyInfo, type ReplayView, type StepDetail } from '../../shared/api';
import { summarizerFor, SummarizerSetupError } from '../summarizer';
import { traceSpan } from '../trace';
import { BoundedCache } from '../../core/bounded-cache';
import { countsCarried } from './counts-carry';
import { sessionDetailOf, shownCounts, type SessionDetailBody } from './session-detail';

export function policyInfo(p: Policy, saved: boolean): PolicyInfo {
  return { id: p.id, label: p.label, description: p.description, source: p.source, config: { ...p.config }, saved };
}

export function policyInfos(saved: readonly Policy[] = []): PolicyInfo[] {
  return [...POLICIES.map((p) => policyInfo(p, false)), ...saved.map((p) => policyInfo(p, true))];
}

/** Finds a policy by id: the user's saved ones, then the built-ins (and S3's scenario variants). */
export type PolicyLookup = (id: string) => Policy | undefined;
const builtInOnly: PolicyLookup = (id) => getPolicy(id);

export function policyOf(policyId: string, lookup: PolicyLookup = builtInOnly): Policy {
  const policy = lookup(policyId);
  if (!policy)
    throw new ApiError('bad_input', `unknown policy "${policyId}" (known: ${POLICIES.map((p) => p.id).join(', ')}, or a saved policy)`);
  return policy;
}

/** A rehearsal's chart view width: a chart's, as a window draws one. */
const REHEARSAL_BUCKETS = 1_000;

/** S0's emergency path measures the "true" size with a reference tokenizer when the transcript reports none. */
function needsReference(config: ReplayConfig, session: Session): boolean {
  return config.paths.emergency && !session.messages.some((m) => m.usage);
}

/** The key of a session's counts under `tokenizer` as `config` has them made (media tokens, tool schemas scaled or not). */
function countsKey(sessionId: string, tokenizer: string, config: ReplayConfig, scaled: boolean): string {
  return `${sessionId}\u0000${tokenizer}\u0000${config.mediaTokens ?? ''}\u0000${scaled ? config.schemaScale : 1}`;
}

export function configOf(policy: Pick<Policy, 'config'>, overrides: Overrides): ReplayConfig {
  try {
    return resolveConfig(policy.config, overrides, envOverrides(process.env));
  } catch (e) {
    if (e instanceof ConfigError) throw new ApiError('bad_input', e.message);
    throw e;
  }
}

export function configFor(policyId: string, overrides: Overrides, lookup: PolicyLookup = builtInOnly): ReplayConfig {
  return configOf(policyOf(policyId, lookup), overrides);
}

/**
 * One replay's inputs, as plain data (it crosses to the worker): the policy travels with its
 * config, so a saved policy edited since is a different replay.
 */
export interface ReplayInputs {
  readonly sessionId: string;
  readonly policy: Pick<Policy, 'id' | 'config'>;
  readonly overrides: Overrides;
  readonly needles: readonly string[];
  /** Ids of the messages the user pinned. */
  readonly pins: readonly string[];
}

/** The cache key of a replay: every input that changes its result, canonically ordered. */
export function replayKey(r: ReplayInputs): string {
  const overrides = Object.keys(r.overrides)
    .sort()
    .map((k) => [k, r.overrides[k]]);
  const text = JSON.stringify([r.sessionId, r.policy.id, r.policy.config, overrides, r.needles, [...r.pins].sort()]);
  return createHash('sha1').update(text).digest('hex').slice(0, 20);
}

/** A comparison at the debugger's resolution: which settings differ, and B's compressions to draw. */
export interface CompareOptions {
  /** A call counts as different when its status changed or its request moved by more than this. */
  readonly minDelta: number;
}

/** Dotted keys whose values differ between two resolved configs (the policy's name and resolution aside). */
export function configDifferences(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): { key: string; a: unknown; b: unknown }[] {
  const out: { key: string; a: unknown; b: unknown }[] = [];
  const walk = (x: Readonly<Record<string, unknown>>, y: Readonly<Record<string, unknown>>, prefix: string): void => {
    const keys = [...new Set([...Object.keys(x), ...Object.keys(y)])].sort();
    for (const k of keys) {
      if (!prefix && (k === 'policy' || k === 'resolved')) continue;
      const u = x[k];
      const v = y[k];
      const isObj = (o: unknown): o is Record<string, unknown> => typeof o === 'object' && o !== null && !Array.isArray(o);
      if (isObj(u) && isObj(v)) walk(u, v, `${prefix}${k}.`);
      else if (JSON.stringify(u) !== JSON.stringify(v)) out.push({ key: prefix + k, a: u ?? null, b: v ?? null });
    }
  };
  walk(a, b, '');
  return out;
}

export interface ReplayServiceDeps {
  /** The session to replay (the store, through a small cache); throws ApiError not_found. */
  readonly session: (id: string) => Session;
  /** The store's count cache, so a tokenizer is counted once per session, ever. */
  readonly load?: (sessionId: string, tokenizer: string) => SessionCounts | undefined;
  readonly save?: (sessionId: string, counts: SessionCounts) => void;
  /** Where summaries persist (SQLite in the app); a Map when absent. */
  readonly summaries?: SummaryStore;
  /** How many results to keep (each a few MB at 30,000 calls). */
  readonly cacheSize?: number;
  /** Calls the kept results may hold together, and the kept runs apart (default STEPS_KEPT). */
  readonly stepsKept?: number;
  /**
   * Set when the host counts exactly in the background (a count worker): BPE counts that are not
   * stored yet are asked for here, and the replay runs on the import's chars/4 estimates meanwhile
   * (shown as a warning); the host forgets the session when the counts are stored.
   */
  readonly requestCount?: (sessionId: string, tokenizer: string) => void;
}

/** Runs kept to be continued after an append (ReplayService.live): one per replay key, the most recent. */
const LIVE_RUNS = 4;
/**
 * Calls the kept results (and, apart, the kept runs) may hold together, a few hundred bytes of
 * typed arrays each: every result of a 30,000-call session (8 × 29,772 on the generated 100 MB
 * one), two of a 300,000-call one, whose eight would be half a GB.
 */
const STEPS_KEPT = 600_000;
/** Chart views kept as sent (`charts`): a few hundred KB each at thousands of markers. */
const CHARTS_KEPT = 8;

/** Tokenizers whose exact count of a long session takes seconds (BPE): counted in the background. */
const isBpe = (tokenizer: string): boolean =>
  tokenizer === 'calibrated' || tokenizer.startsWith('tiktoken:') || tokenizer.startsWith('max:');

interface Cached {
  readonly result: ReplayResult;
  readonly session: Session;
  readonly counts: SessionCounts;
  readonly inputs: ReplayInputs;
}

/** A replay being run or kept: the tokenizers whose counts it read, and what it is known as. */
interface Run {
  /** The tokenizers whose counts it reads: its own and, on S0's emergency path, the reference. */
  readonly tokenizers: readonly string[];
  /** The session's generation and those tokenizers' counts generations when it started. */
  readonly stamp: string;
}

/**
 * Drops the least recently used entries of `cache` while together they hold more than `max` calls
 * (`calls` of each); the newest is always kept.
 */
function trimByCalls<K, V>(cache: BoundedCache<K, V>, calls: (v: V) => number, max: number): void {
  let held = 0;
  for (const v of cache.values()) held += calls(v);
  for (const [k, v] of cache) {
    if (held <= max || cache.size <= 1) break;
    cache.delete(k);
    held -= calls(v);
  }
}

export class ReplayService {
  private readonly counts = new Map<string, SessionCounts>();
  /** The messages each entry of `counts` counted here was made for (not those loaded from the store). */
  private readonly countedFor = new Map<string, readonly Message[]>();
  /** Counts made before an append, to count the grown session from (counts-carry.ts). */
  private readonly carried = new Map<string, { readonly counts: SessionCounts; readonly messages: readonly Message[] }>();
  /** The counts the window shows per session (session-detail.ts), until forgotten. */
  private readonly shown = new Map<string, SessionCounts>();
  private readonly results: BoundedCache<string, Cached & Run>;
  /** The last chart views answered, as sent, by result key and width. */
  private readonly charts = new BoundedCache<string, JsonText<ChartViewWire>>({ max: CHARTS_KEPT });
  /** Replays running now, by key: a second request for the same one waits for it instead of re-running. */
  private readonly running = new Map<string, Run & { readonly done: Promise<Cached>; readonly sessionId: string }>();
  /** Bumped when a session is forgotten: a replay that started before is answered but not cached. */
  private readonly generation = new Map<string, number>();
  /**
   * Bumped per (session, tokenizer) when that tokenizer's exact counts are stored: only replays
   * that read those counts (or the estimates standing in for them) are replays of the past — s0's
   * runes or s3's shannon replays are not, and the window asking again gets them from the cache.
   */
  private readonly countsGeneration = new Map<string, number>();
  /**
   * Summarizers by (kind, model, URL): a replay follows every slider move, and a remote one's
   * key lookup (environment, then the OS keychain) should happen once, not per replay.
   */
  private readonly summarizers = new Map<string, Promise<Summarizer | undefined>>();
  /**
   * Runs kept to be continued (core/replay/resume.ts), by replay key: after a live-tail append
   * the same inputs replay only the new calls. Kept across `forget` of an append (the session
   * held was patched, its earlier messages the same objects); resume.ts refuses whatever could
   * differ (counts of replayed messages, the session's shape...), and the replay is then run whole.
   */
  private readonly live = new BoundedCache<string, { readonly sessionId: string; readonly live: LiveReplay; readonly steps: number }>({
    max: LIVE_RUNS,
  });
  /** Replays actually run (not answered from the cache), for tests and the bench. */
  runs = 0;
  /** Of those, the ones continued from a kept run instead of replayed from call 0. */
  resumed = 0;

  constructor(private readonly deps: ReplayServiceDeps) {
    this.results = new BoundedCache({ max: deps.cacheSize ?? 8 });
  }

  private counted(sessionId: string, session: Session, tokenizer: string, config: ReplayConfig, scaled: boolean): SessionCounts {
    const cacheKey = countsKey(sessionId, tokenizer, config, scaled);
    let c = this.counts.get(cacheKey);
    const plain = config.mediaTokens === undefined && (!scaled || config.schemaScale === 1);
    if (!c && plain) {
      const stored = this.deps.load?.(sessionId, tokenizer);
      if (stored && stored.perMessage.length === session.messages.length) c = stored;
    }
    if (!c && plain && this.deps.requestCount && isBpe(tokenizer)) {
      const estimate = this.deps.load?.(sessionId, 'chars4');
      if (estimate && estimate.perMessage.length === session.messages.length) {
        this.deps.requestCount(sessionId, tokenizer);
        this.counts.set(cacheKey, estimate);
        return estimate;
      }
    }
    if (!c) {
      try {
        const options = {
          mediaTokens: config.mediaTokens ?? mediaTokensFor(session.provider),
          schemaScale: scaled ? config.schemaScale : 1,
        };
        // After an append, the counts made for the session before it count its kept messages.
        const before = this.carried.get(cacheKey);
        this.carried.delete(cacheKey);
        const span = traceSpan(`count ${tokenizer}${before ? ' (carried)' : ''}`);
        c = before ? countsCarried(before.counts, before.messages, session, options) : countWith(session, tokenizer, options);
        span(`${session.messages.length} messages`);
        this.countedFor.set(cacheKey, session.messages);
      } catch (e) {
        throw new ApiError('bad_input', e instanceof Error ? e.message : String(e));
      }
      if (plain) {
        try {
          this.deps.save?.(sessionId, c);
        } catch {
          // Another connection holds the write lock: the counts are kept here and counted again next start.
        }
      }
    }
    this.counts.set(cacheKey, c);
    return c;
  }

  /**
   * The replay of `inputs`, from the cache when it ran before. `shouldStop` (the scheduler's: this
   * request was superseded) ends a replay that runs for it with ApiError `cancelled`, uncached.
   */
  async cached(inputs: ReplayInputs, shouldStop?: () => boolean): Promise<{ key: string } & Cached> {
    const key = replayKey(inputs);
    // The key the window sees names the session's generation and its counts' too: the same inputs
    // replayed after exact counts arrived or the file grew (live tail) are another replay, and the
    // window's cache of step details (keyed by it) must not serve the old one's.
    const hit = this.results.get(key);
    if (hit) {
      return { ...hit, key: `${key}.${hit.stamp}` };
    }
    let run = this.running.get(key);
    if (!run) {
      const tokenizers = this.tokenizersOf(inputs);
      run = {
        done: this.execute(key, inputs, shouldStop),
        sessionId: inputs.sessionId,
        tokenizers,
        stamp: this.stampOf(inputs.sessionId, tokenizers),
      };
      this.running.set(key, run);
    }
    try {
      const done = await run.done;
      // Counts (or the session) changed while it ran: answer it, but never serve it again.
      if (this.stampOf(inputs.sessionId, run.tokenizers) === run.stamp) {
        this.results.set(key, { ...done, tokenizers: run.tokenizers, stamp: run.stamp });
        this.trimResults();
      }
      return { ...done, key: `${key}.${run.stamp}` };
    } finally {
      if (this.running.get(key) === run) this.running.delete(key);
    }
  }

  /** The tokenizers whose counts a replay of `inputs` reads (as execute picks them). */
  private tokenizersOf(inputs: ReplayInputs): string[] {
    const config = configOf(inputs.policy, inputs.overrides);
    const session = this.deps.session(inputs.sessionId);
    const own = resolveTokenizer(session, config);
    return needsReference(config, session) ? [own, config.referenceTokenizer] : [own];
  }

  private stampOf(sessionId: string, tokenizers: readonly string[]): string {
    const counts = tokenizers.map((t) => this.countsGeneration.get(`${sessionId}\u0000${t}`) ?? 0);
    return [this.generation.get(sessionId) ?? 0, ...counts].join('.');
  }

  private async execute(key: string, inputs: ReplayInputs, shouldStop?: () => boolean): Promise<Cached> {
    const config = configOf(inputs.policy, inputs.overrides);
    const session = this.deps.session(inputs.sessionId);
    const counts = this.counted(inputs.sessionId, session, resolveTokenizer(session, config), config, true);
    const referenceCounts = needsReference(config, session)
      ? this.counted(inputs.sessionId, session, config.referenceTokenizer, config, false)
      : undefined;
    const summarizer = await this.summarizerOf(config);
    this.runs++;
    try {
      const span = traceSpan(`replay ${inputs.policy.id}`);
      const kept = this.live.peek(key);
      let refused = '';
      const resumed =
        kept && kept.sessionId === inputs.sessionId
          ? await extendReplay(
              kept.live,
              session,
              {
                counts,
                ...(referenceCounts ? { referenceCounts } : {}),
                ...(shouldStop ? { shouldStop } : {}),
              },
              (why) => (refused = ` (not continued: ${why})`),
            )
          : undefined;
      if (resumed) this.resumed++;
      const done =
        resumed ??
        (await replayLive(session, config, {
          counts,
          needles: inputs.needles,
          pinned: new Set(inputs.pins),
          ...(referenceCounts ? { referenceCounts } : {}),
          ...(summarizer ? { summarizer } : {}),
          ...(shouldStop ? { shouldStop } : {}),
        }));
      this.keep(key, inputs.sessionId, done.live, done.result.steps.count);
      span(resumed ? '(continued)' : refused);
      return { result: done.result, session, counts, inputs };
    } catch (e) {
      if (e instanceof ReplayCancelled) throw new ApiError('cancelled', `superseded by a newer request: ${e.message}`);
      if (e instanceof Error && /^needle /.test(e.message)) throw new ApiError('bad_input', e.message);
      throw e;
    }
  }

  /**
   * A replay of `inputs` run for its compiled code only (the worker's idle time,
   * replay-prewarm.ts): its result is not kept, and it never counts, loads counts or reaches a
   * summarizer for itself — 'skipped' when it would have to (counts of another tokenizer not held
   * yet, a remote summarizer, which would send the session and cost money). `shouldStop` ends it:
   * 'stopped'.
   */
  async rehearse(inputs: ReplayInputs, shouldStop: () => boolean): Promise<'done' | 'stopped' | 'skipped'> {
    const config = configOf(inputs.policy, inputs.overrides);
    if (config.summarizer !== 'extractive' && config.summarizer !== 'none') return 'skipped';
    const session = this.deps.session(inputs.sessionId);
    const held = (tokenizer: string, scaled: boolean): SessionCounts | undefined =>
      this.counts.get(countsKey(inputs.sessionId, tokenizer, config, scaled));
    const counts = held(resolveTokenizer(session, config), true);
    const reference = needsReference(config, session);
    const referenceCounts = reference ? held(config.referenceTokenizer, false) : undefined;
    if (!counts || (reference && !referenceCounts)) return 'skipped';
    try {
      const { result } = await replayLive(session, config, {
        counts,
        needles: inputs.needles,
        pinned: new Set(inputs.pins),
        ...(referenceCounts ? { referenceCounts } : {}),
        shouldStop,
      });
      // Its chart view too, thrown away: the markers' code (a status run's template per call)
      // was a cold 13–26 ms of the first drag's chart on letta's 1,406 markers, 3–4 ms warm.
      if (!shouldStop()) chartView(result, { key: '', buckets: REHEARSAL_BUCKETS });
      return 'done';
    } catch (e) {
      if (e instanceof ReplayCancelled) return 'stopped';
      throw e;
    }
  }

  /**
   * Drops the least recently used results while those kept hold more than STEPS_KEPT calls (the
   * newest is always kept): `cacheSize` results of a long session would hold ten times the typed
   * arrays of a short one's.
   */
  private trimResults(): void {
    trimByCalls(this.results, (v) => v.result.steps.count, this.deps.stepsKept ?? STEPS_KEPT);
  }

  /** Keeps `live` as the run to continue for `key` (the few most recent; each holds arrays the size of the session). */
  private keep(key: string, sessionId: string, live: LiveReplay, steps: number): void {
    this.live.delete(key);
    if (live.closed !== undefined) return;
    this.live.set(key, { sessionId, live, steps });
    // Bounded by the calls they hold too: a 300,000-call session's runs are ten times a 30,000-call one's.
    trimByCalls(this.live, (v) => v.steps, this.deps.stepsKept ?? STEPS_KEPT);
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

  async result(inputs: ReplayInputs, shouldStop?: () => boolean): Promise<ReplayResult> {
    return (await this.cached(inputs, shouldStop)).result;
  }

  async view(inputs: ReplayInputs, shouldStop?: () => boolean): Promise<ReplayView> {
    return toView(await this.result(inputs, shouldStop));
  }

  async chart(inputs: ReplayInputs, buckets: number, shouldStop?: () => boolean): Promise<JsonText<ChartViewWire>> {
    const c = await this.cached(inputs, shouldStop);
    // A slider dragged back to a value it passed answers from here: the result is cached, and so
    // is what was made of it. The key names the session's and counts' generation (`cached`).
    const viewKey = `${c.key}\u0000${buckets}`;
    const made = this.charts.get(viewKey);
    if (made) return made;
    const resolved = c.result.config['resolved'];
    const wanted = resolved && typeof resolved === 'object' && 'tokenizer' in resolved ? resolved.tokenizer : undefined;
    const warnings =
      c.counts.tokenizer === 'chars4' && wanted !== 'chars4'
        ? [`token counts are the import's chars/4 estimates until exact ${String(wanted)} counts are ready`]
        : [];
    const span = traceSpan('chart view');
    const view = chartView(c.result, { key: c.key, buckets, warnings });
    span(`${view.markers.length} markers`);
    // Its markers as columns (shared/marker-columns.ts), written as JSON here: what the worker
    // posts (one string) and the host sends as it is.
    const text = toJsonText(chartViewToWire(view));
    this.charts.set(viewKey, text);
    return text;
  }

  async detail(inputs: ReplayInputs, step: number, shouldStop?: () => boolean): Promise<StepDetail> {
    const c = await this.cached(inputs, shouldStop);
    try {
      return stepDetail(c.result, c.session, step, {
        key: c.key,
        perMessage: c.counts.perMessage,
        overridden: new Set(Object.keys(inputs.overrides)),
        policyConfig: inputs.policy.config as Readonly<Record<string, unknown>>,
      });
    } catch (e) {
      if (e instanceof StepDetailError) throw new ApiError('not_found', e.message);
      throw e;
    }
  }

  async compare(a: ReplayInputs, b: ReplayInputs, options: CompareOptions, shouldStop?: () => boolean): Promise<CompareView> {
    const ra = await this.result(a, shouldStop);
    const rb = await this.result(b, shouldStop);
    const c = comparisonToJSON(compare(ra, rb));
    // A call differs when its status changed or its request moved by more than minDelta tokens.
    const differences = c.differences.filter((d) => d.a.status !== d.b.status || Math.abs(d.b.total - d.a.total) > options.minDelta);
    // B's compressions are drawn as markers: their summaries stay with B's step details.
    const bCompressions = rb.events
      .filter((e): e is Extract<ReplayEvent, { kind: 'compression' }> => e.kind === 'compression')
      .map(withoutSummary);
    return {
      ...c,
      differences,
      firstDifference: differences[0]?.step ?? -1,
      configDifferences: configDifferences(ra.config, rb.config),
      bCompressions,
      a: toView(ra),
      b: toView(rb),
    };
  }

  /** The session's detail for the window (its stored row aside), from this engine's parsed copy. */
  session(sessionId: string): SessionDetailBody {
    const session = this.deps.session(sessionId);
    let c = this.shown.get(sessionId);
    if (!c) this.shown.set(sessionId, (c = shownCounts(sessionId, session, this.deps)));
    return sessionDetailOf(session, c);
  }

  /**
   * Drops what is known about a session: everything (re-imported, grown), or with `tokenizer`
   * (its exact counts were stored since) only its counts under that tokenizer and the replays
   * that read them. `appended`: the session held was patched by a live-tail append
   * (session-append.ts), so the runs kept for it stay, to be continued.
   */
  forget(sessionId: string, tokenizer?: string, appended = false): void {
    this.shown.delete(sessionId);
    if (tokenizer !== undefined) {
      const k = `${sessionId}\u0000${tokenizer}`;
      this.countsGeneration.set(k, (this.countsGeneration.get(k) ?? 0) + 1);
      for (const c of this.counts.keys()) {
        if (!c.startsWith(k + '\u0000')) continue;
        this.counts.delete(c);
        this.countedFor.delete(c);
        this.carried.delete(c);
      }
      for (const [key, v] of this.results)
        if (v.inputs.sessionId === sessionId && v.tokenizers.includes(tokenizer)) this.results.delete(key);
      for (const [key, v] of this.running) if (v.sessionId === sessionId && v.tokenizers.includes(tokenizer)) this.running.delete(key);
      return;
    }
    this.generation.set(sessionId, (this.generation.get(sessionId) ?? 0) + 1);
    if (!appended) for (const [k, v] of this.live) if (v.sessionId === sessionId) this.live.delete(k);
    for (const k of this.carried.keys()) if (k.startsWith(sessionId + '\u0000')) this.carried.delete(k);
    for (const [k, c] of this.counts) {
      if (!k.startsWith(sessionId + '\u0000')) continue;
      const messages = this.countedFor.get(k);
      if (appended && messages) this.carried.set(k, { counts: c, messages });
      this.counts.delete(k);
      this.countedFor.delete(k);
    }
    for (const [k, v] of this.results) if (v.inputs.sessionId === sessionId) this.results.delete(k);
    for (const [k, v] of this.running) if (v.sessionId === sessionId) this.running.delete(k);
  }
}
