/**
 * The Fleet view's host side (docs/fleet.md §In the app): a run over library sessions, files or
 * folders into a dataset under the host's data folder, its progress as events, cancel, the list of
 * datasets there, their results through the same queries as `ctxscope fleet report`, and the
 * library session a row stands for. Paths from the window pass the host's import allow list
 * (`ctxscope serve` reads only what it may import); datasets are only ever read from and written
 * to the data folder's `fleet/`.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { glob } from 'tinyglobby';
import { partitionValue, settingsHash } from '../../core/fleet/manifest';
import type { Policy } from '../../core/policies/index';
import { ApiError, type EventSink, type FleetResults, type FleetRunInfo, type MethodArgs, type MethodOutputs } from '../../shared/api';
import { FleetDataError, readManifest, withDataset } from '../fleet/dataset';
import { FleetRefusal, runFleet } from '../fleet/run';
import type { SessionStore } from '../store/index';
import type { ImportAllowList } from './import-allow';
import { configOf } from './replays';

export interface FleetHostOptions {
  readonly dbPath: string;
  readonly version: string;
  readonly store: SessionStore;
  readonly emit: EventSink;
  readonly policy: (id: string) => Policy;
  readonly importAllow?: ImportAllowList;
  /** Imports a file into the library; answers the stored ids of its sessions. */
  readonly importFile: (path: string) => Promise<string[]>;
  /** A stored session's source-side id (the id the transcript gives it). */
  readonly sourceIdOf: (storedId: string) => string;
}

const TRANSCRIPT_GLOB = '**/*.{jsonl,json,traj,md,ndjson,log}';

export function createFleetHost(o: FleetHostOptions) {
  const root = o.dbPath === ':memory:' ? join(process.cwd(), '.ctxscope-fleet') : join(dirname(resolve(o.dbPath)), 'fleet');
  const running = new Map<string, { out: string; abort: AbortController }>();

  /** A dataset folder the window names: only one inside the data folder's fleet/. */
  const datasetDir = (out: string): string => {
    const dir = resolve(out);
    if (!dir.startsWith(root + sep) || !existsSync(join(dir, 'manifest.json')))
      throw new ApiError('bad_input', `${out}: expected a fleet dataset listed by listFleetRuns`);
    return dir;
  };

  async function filesOf(args: MethodArgs<'startFleet'>): Promise<string[]> {
    const out = new Set<string>();
    for (const id of args.sessionIds) {
      const row = o.store.getRow(id);
      if (!row) throw new ApiError('not_found', `no session with id "${id}"`);
      if (existsSync(row.sourcePath)) out.add(resolve(row.sourcePath));
    }
    for (const p of args.paths) {
      const isDir = existsSync(p) && statSync(p).isDirectory();
      const found = isDir ? (await glob(TRANSCRIPT_GLOB, { cwd: p, absolute: true })).filter((f) => statSync(f).isFile()) : [p];
      const allowed = o.importAllow ? o.importAllow.check(found) : found.filter((f) => existsSync(f));
      if (!o.importAllow && found.length !== allowed.length) throw new ApiError('bad_input', `${p}: no such file or folder`);
      for (const f of allowed) out.add(resolve(f));
    }
    return [...out].sort();
  }

  const handlers = {
    startFleet: async (args: MethodArgs<'startFleet'>): Promise<MethodOutputs['startFleet']> => {
      const files = await filesOf(args);
      if (files.length === 0) throw new ApiError('bad_input', 'choose at least one session, file or folder');
      const policies = args.policies.map((id) => {
        const policy = o.policy(id);
        const config = configOf(policy, args.overrides);
        return {
          id: partitionValue(policy.id),
          config,
          settings: config as unknown as Record<string, unknown>,
          settingsHash: settingsHash(config),
        };
      });
      if (new Set(policies.map((p) => p.id)).size !== policies.length) throw new ApiError('bad_input', 'a policy is chosen twice');
      const runId = randomUUID();
      const out = join(root, `${new Date().toISOString().replace(/[:.]/g, '-')}-${runId.slice(0, 6)}`);
      mkdirSync(out, { recursive: true });
      const abort = new AbortController();
      running.set(runId, { out, abort });
      void runFleet({
        files,
        inputs: [...args.sessionIds.map((id) => `library:${id}`), ...args.paths],
        policies,
        needles: args.needles,
        out,
        version: o.version,
        signal: abort.signal,
        ...(args.threads ? { threads: args.threads } : {}),
        onProgress: (p) =>
          o.emit('fleetProgress', {
            runId,
            done: p.done,
            total: p.total,
            skipped: p.skipped,
            errors: p.errors,
            rate: p.rate,
            etaMs: p.etaMs,
          }),
      })
        .then(
          (r) => o.emit('fleetDone', { runId, out, cancelled: r.cancelled, error: null }),
          (e: unknown) =>
            o.emit('fleetDone', {
              runId,
              out,
              cancelled: false,
              error: e instanceof FleetRefusal || e instanceof Error ? e.message : String(e),
            }),
        )
        .finally(() => running.delete(runId));
      return { runId, out, total: files.length };
    },

    cancelFleet: async ({ runId }: MethodArgs<'cancelFleet'>): Promise<MethodOutputs['cancelFleet']> => {
      const r = running.get(runId);
      r?.abort.abort();
      return { cancelled: r !== undefined };
    },

    listFleetRuns: async (): Promise<FleetRunInfo[]> => {
      if (!existsSync(root)) return [];
      const busy = new Set([...running.values()].map((r) => r.out));
      const out: FleetRunInfo[] = [];
      for (const name of readdirSync(root).sort().reverse()) {
        const dir = join(root, name);
        let m;
        try {
          m = readManifest(dir);
        } catch {
          continue;
        }
        if (!m) continue;
        const finished = m.shards
          .map((s) => s.finishedAt)
          .filter((f): f is string => f !== null)
          .sort();
        out.push({
          out: dir,
          name,
          policies: m.policies.map((p) => p.id),
          sessions: m.rows.sessions,
          running: busy.has(dir),
          finishedAt: finished.at(-1) ?? null,
        });
      }
      return out;
    },

    getFleetResults: async ({ out, baseline }: MethodArgs<'getFleetResults'>): Promise<FleetResults> => {
      const dir = datasetDir(out);
      try {
        return await withDataset(dir, async (d) => {
          const report = await d.report(baseline);
          const view = await d.view();
          return {
            out: dir,
            policies: report.policies,
            baseline: report.baseline,
            perPolicy: report.perPolicy,
            stopped: report.stopped,
            differ: report.differ,
            errors: report.errors,
            ...view,
          };
        });
      } catch (e) {
        if (e instanceof FleetDataError) throw new ApiError('bad_input', e.message);
        throw e;
      }
    },

    openFleetSession: async ({ sourcePath, sessionId }: MethodArgs<'openFleetSession'>): Promise<MethodOutputs['openFleetSession']> => {
      const stored = (): string[] =>
        o.store
          .listSessions()
          .filter((r) => resolve(r.sourcePath) === resolve(sourcePath))
          .map((r) => r.id);
      let ids = stored();
      if (ids.length === 0) {
        if (o.importAllow) o.importAllow.check([sourcePath]);
        ids = await o.importFile(sourcePath);
      }
      // The row's session by the id the transcript gives it; a subagent opens on its parent's file.
      const hit = ids.find((id) => o.sourceIdOf(id) === sessionId) ?? ids.find((id) => sessionId.startsWith(o.sourceIdOf(id))) ?? ids[0];
      if (!hit) throw new ApiError('not_found', `${sourcePath}: no session to open`);
      return { sessionId: hit };
    },
  };
  return {
    handlers,
    close: () => {
      for (const r of running.values()) r.abort.abort();
    },
  };
}
