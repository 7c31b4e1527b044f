/**
 * The host side of the probe (docs/probe.md): plans it (nothing sent), runs it once the user has
 * agreed to send transcripts to the endpoint (asked once per endpoint, remembered in
 * `probe_consents`), and stores each run with its session (`probe_runs`, migration 007) so the
 * app shows it again without sending. A key goes only to the endpoint it is bound to
 * (src/main/secrets.ts findApiKey), exactly as for summarizers.
 */
import type { Session } from '../../core/model';
import type { ReplayResult } from '../../core/replay/types';
import { planProbe, probeClient, runProbe, ProbeError, type ProbeApi, type ProbeResult, type ProbeSettings } from '../../core/probe/index';
import { endpointKey, summarizerUrlProblem } from '../../core/summarize/remote';
import { ApiError, type MethodArgs, type ProbePlanView, type StoredProbe } from '../../shared/api';
import type { Db } from '../store/db';
import { findApiKey, type FoundKey } from '../secrets';

export interface ProberDeps {
  readonly db: Db;
  readonly session: (id: string) => Session;
  readonly replayOf: (
    sessionId: string,
    policy: string,
    overrides: Readonly<Record<string, string | number | boolean>>,
  ) => Promise<ReplayResult>;
  /** The key bound to an endpoint (tests hand in their own). */
  readonly findKey?: (api: ProbeApi, endpoint: string) => Promise<FoundKey | undefined>;
  readonly fetch?: typeof fetch;
  readonly timeoutMs?: number;
}

type PlanArgs = MethodArgs<'planProbe'>;

function apiOf(endpoint: string, api: ProbeApi | undefined): ProbeApi {
  if (api) return api;
  try {
    return /(^|\.)anthropic\.com$/i.test(new URL(endpoint).hostname) ? 'anthropic' : 'openai';
  } catch {
    return 'openai';
  }
}

function settingsOf(args: PlanArgs): ProbeSettings {
  const problem = summarizerUrlProblem(args.endpoint);
  if (problem) throw new ApiError('bad_input', problem.replace(/^summarizerUrl/, 'endpoint'));
  if ((args.judgeEndpoint === undefined) !== (args.judgeModel === undefined))
    throw new ApiError('bad_input', 'judgeEndpoint and judgeModel go together: give both or neither');
  let judge: ProbeSettings['judge'];
  if (args.judgeEndpoint !== undefined && args.judgeModel !== undefined) {
    const judgeProblem = summarizerUrlProblem(args.judgeEndpoint);
    if (judgeProblem) throw new ApiError('bad_input', judgeProblem.replace(/^summarizerUrl/, 'judgeEndpoint'));
    judge = { api: apiOf(args.judgeEndpoint, args.judgeApi), endpoint: args.judgeEndpoint, model: args.judgeModel };
  }
  return {
    ...(judge ? { judge } : {}),
    api: apiOf(args.endpoint, args.api),
    endpoint: args.endpoint,
    model: args.model,
    replicates: args.replicates,
    temperature: args.temperature,
    maxAnswerTokens: args.maxAnswerTokens,
  };
}

interface Row {
  id: number;
  session_id: string;
  policy: string;
  overrides: string;
  step: number;
  created_at: number;
  result: string;
}

const toStored = (r: Row): StoredProbe => ({
  id: r.id,
  sessionId: r.session_id,
  policy: r.policy,
  overrides: JSON.parse(r.overrides) as StoredProbe['overrides'],
  step: r.step,
  createdAt: r.created_at,
  result: JSON.parse(r.result) as ProbeResult,
});

export function createProber(deps: ProberDeps) {
  const findKey = deps.findKey ?? ((api: ProbeApi, endpoint: string) => findApiKey(api, endpoint));
  const consented = (endpoint: string): boolean =>
    deps.db.prepare('SELECT 1 FROM probe_consents WHERE endpoint = ?').get(endpointKey(endpoint) ?? endpoint) !== undefined;

  async function plan(args: PlanArgs) {
    const settings = settingsOf(args);
    const session = deps.session(args.sessionId);
    const result = await deps.replayOf(args.sessionId, args.policy, args.overrides);
    if (args.step >= result.steps.count)
      throw new ApiError('bad_input', `step ${args.step} does not exist: this replay has ${result.steps.count} calls`);
    try {
      return { settings, session, result, plan: planProbe(session, result, args.step, settings, 'auto') };
    } catch (e) {
      if (e instanceof ProbeError) throw new ApiError('bad_input', e.message);
      throw e;
    }
  }

  return {
    async planProbe(args: PlanArgs): Promise<ProbePlanView> {
      const { settings, plan: p } = await plan(args);
      const key = await findKey(settings.api, settings.endpoint);
      const j = settings.judge;
      const judgeKey = j ? await findKey(j.api, j.endpoint) : undefined;
      return {
        ...(j
          ? {
              judge: {
                endpoint: j.endpoint,
                model: j.model,
                api: j.api,
                consented: consented(j.endpoint),
                withKey: judgeKey !== undefined,
              },
            }
          : {}),
        step: p.step,
        endpoint: settings.endpoint,
        model: settings.model,
        api: settings.api,
        estimate: p.estimate,
        questions: p.questions,
        recorded: p.recorded,
        consented: consented(settings.endpoint),
        withKey: key !== undefined,
      };
    },

    async runProbe(args: MethodArgs<'runProbe'>): Promise<StoredProbe> {
      const { settings, plan: p } = await plan(args);
      // Nothing leaves the machine for an endpoint the user has not agreed to: the judge's is asked for too.
      const endpoints = [
        settings.endpoint,
        ...(settings.judge && settings.judge.endpoint !== settings.endpoint ? [settings.judge.endpoint] : []),
      ];
      const pending = endpoints.filter((e) => !consented(e));
      if (pending.length > 0) {
        if (!args.consent) throw new ApiError('bad_input', `nothing was sent: agree first to send to ${pending.join(' and ')}`);
        for (const e of pending)
          deps.db
            .prepare('INSERT OR REPLACE INTO probe_consents (endpoint, consented_at) VALUES (?, ?)')
            .run(endpointKey(e) ?? e, Date.now());
      }
      const key = await findKey(settings.api, settings.endpoint);
      const client = probeClient({
        api: settings.api,
        endpoint: settings.endpoint,
        ...(key ? { apiKey: key.key } : {}),
        ...(deps.fetch ? { fetch: deps.fetch } : {}),
        timeoutMs: deps.timeoutMs ?? 60_000,
      });
      // The judge's own key: the one bound to the judge endpoint, never the probe endpoint's.
      const j = settings.judge;
      const judgeKey = j ? await findKey(j.api, j.endpoint) : undefined;
      const judge = j
        ? probeClient({
            api: j.api,
            endpoint: j.endpoint,
            ...(judgeKey ? { apiKey: judgeKey.key } : {}),
            ...(deps.fetch ? { fetch: deps.fetch } : {}),
            timeoutMs: deps.timeoutMs ?? 60_000,
          })
        : undefined;
      const result = await runProbe(p, args.policy, settings, client, judge ? { judge } : {});
      const createdAt = Date.now();
      const info = deps.db
        .prepare(
          'INSERT INTO probe_runs (session_id, policy, overrides, step, endpoint, model, settings, result, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(
          args.sessionId,
          args.policy,
          JSON.stringify(args.overrides),
          args.step,
          settings.endpoint,
          settings.model,
          JSON.stringify(settings),
          JSON.stringify(result),
          createdAt,
        );
      return {
        id: Number(info.lastInsertRowid),
        sessionId: args.sessionId,
        policy: args.policy,
        overrides: args.overrides,
        step: args.step,
        createdAt,
        result,
      };
    },

    async listProbes(args: MethodArgs<'listProbes'>): Promise<StoredProbe[]> {
      const rows = (
        args.policy === undefined
          ? deps.db
              .prepare(
                'SELECT id, session_id, policy, overrides, step, created_at, result FROM probe_runs WHERE session_id = ? ORDER BY step, id',
              )
              .all(args.sessionId)
          : deps.db
              .prepare(
                'SELECT id, session_id, policy, overrides, step, created_at, result FROM probe_runs WHERE session_id = ? AND policy = ? ORDER BY step, id',
              )
              .all(args.sessionId, args.policy)
      ) as Row[];
      return rows.map(toStored);
    },
  };
}
