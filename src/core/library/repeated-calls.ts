/**
 * Calls a folder of sessions holds more than once (docs/cost.md, "Folders of sessions"): Claude
 * Code's `--resume` and `--continue` start a new file that repeats the calls before it, each with
 * the key it had (`ReportedUsage.callKey`, message id + request id, as ccusage keys a call). The
 * library counts a key once: the first copy (by the session's start, then import) stays in its
 * session's totals, every other copy is what its session repeats — taken out of the library's
 * totals and counted as skipped. Pure: the host reads the rows, this sums them.
 */
import { lookupModel, usageCost } from '../catalog';
import { promptTokens, type ReportedUsage, type UsageConvention } from '../model';

/** One stored copy of a call whose key is stored more than once, in counting order. */
export interface RepeatedCallRow {
  readonly key: string;
  readonly sessionId: string;
  /** The session's model (the repeat is priced with it). */
  readonly model: string | null;
  readonly convention: string;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly cacheWrite1h: number | null;
  readonly output: number;
}

/** What a session's repeats of calls counted elsewhere add to its totals. */
export interface RepeatedCalls {
  readonly calls: number;
  readonly promptTokens: number;
  readonly outputTokens: number;
  /** USD at the catalog's prices for the session's model; 0 when the catalog does not know it. */
  readonly cost: number;
}

/**
 * Per session, the copies that repeat a call counted earlier. `rows` come grouped by key, each
 * group in counting order (its first row is the copy that is counted).
 */
export function repeatedCallsBySession(rows: readonly RepeatedCallRow[]): Map<string, RepeatedCalls> {
  const out = new Map<string, RepeatedCalls>();
  let key: string | undefined;
  for (const r of rows) {
    if (r.key !== key) {
      key = r.key;
      continue;
    }
    const u: ReportedUsage = {
      convention: (r.convention === 'anthropic' ? 'anthropic' : 'openai') satisfies UsageConvention,
      input: r.input,
      cacheRead: r.cacheRead,
      cacheWrite: r.cacheWrite,
      ...(r.cacheWrite1h !== null ? { cacheWrite1h: r.cacheWrite1h } : {}),
      output: r.output,
    };
    const model = lookupModel(r.model ?? undefined);
    const was = out.get(r.sessionId) ?? { calls: 0, promptTokens: 0, outputTokens: 0, cost: 0 };
    out.set(r.sessionId, {
      calls: was.calls + 1,
      promptTokens: was.promptTokens + promptTokens(u),
      outputTokens: was.outputTokens + u.output,
      cost: was.cost + (model ? usageCost(model, u) : 0),
    });
  }
  return out;
}
