/**
 * Stopping a fleet run: SIGINT or SIGTERM to `ctxscope fleet run`, and `cancelFleet` from the app's
 * API. Either way the run stops early, leaves only whole part files (no temporary file, no steps or
 * compressions part without its sessions part), a manifest whose shard record says unfinished, and
 * a folder that the same run, started again, finishes — into the rows a run never stopped writes.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplayConfig } from '../../../src/core/config';
import type { EventPayload } from '../../../src/shared/api';
import { createHost } from '../../../src/main/host/handlers';
import { runFleet } from '../../../src/main/fleet/run';
import { claudeCodeText, codexLines } from '../../bench/corpus';
import { readTable, run, start } from './helpers';

let dir: string;
let inputs: string;
let clean: string;
const FILES = 24;
const POLICIES = ['--policy', 's1', '--policy', 'claude-code', '--set', 'window=48000'];
const tables = ['sessions', 'steps', 'compressions'] as const;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-fleet-cancel-'));
  inputs = join(dir, 'in');
  mkdirSync(inputs, { recursive: true });
  for (let i = 0; i < FILES / 2; i++) {
    writeFileSync(join(inputs, `s${i}.jsonl`), claudeCodeText({ calls: 60 + i * 15 }));
    writeFileSync(join(inputs, `r${i}.jsonl`), [...codexLines({ calls: 50 + i * 12 })].join(''));
  }
  clean = join(dir, 'clean');
  expect(run(['fleet', 'run', inputs, ...POLICIES, '--out', clean, '--threads', '2']).status).toBe(0);
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every part file of the folder, by table, and any temporary file left. */
function parts(out: string): { byTable: Record<string, string[]>; tmp: string[] } {
  const byTable: Record<string, string[]> = {};
  const tmp: string[] = [];
  for (const t of tables) {
    byTable[t] = [];
    const root = join(out, t);
    if (!existsSync(root)) continue;
    for (const p of readdirSync(root))
      for (const f of readdirSync(join(root, p))) {
        if (f.endsWith('.tmp')) tmp.push(join(t, p, f));
        else byTable[t]!.push(`${p}/${f}`);
      }
  }
  return { byTable, tmp };
}

/** Only whole files: nothing temporary, and each steps or compressions part beside its sessions part. */
function expectWholeParts(out: string): void {
  const { byTable, tmp } = parts(out);
  expect(tmp).toEqual([]);
  const sessions = new Set(byTable['sessions']);
  for (const t of ['steps', 'compressions'])
    for (const f of byTable[t]!) expect(sessions.has(f), `${t}/${f} has no sessions part`).toBe(true);
}

/** The shard records of the folder's manifest. */
const shardRecords = (out: string): { finishedAt: string | null }[] =>
  (JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as { shards: { finishedAt: string | null }[] }).shards;

async function waitFor(check: () => boolean, what: string, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('fleet run stopped by a signal', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s: stops early, leaves whole part files and an unfinished manifest; the same command finishes it',
    async (signal) => {
      const out = join(dir, `stopped-${signal}`);
      // Small writes: part files appear early, so the signal lands after some rows are written.
      const child = start(['fleet', 'run', inputs, ...POLICIES, '--out', out, '--threads', '1'], { CTXSCOPE_FLEET_FLUSH_SESSIONS: '4' });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      await waitFor(() => parts(out).byTable['sessions']!.length > 0, 'the first sessions part');
      child.kill(signal);
      const code = await exited;

      expect(code).toBe(1);
      expect(stderr).toContain(`stopped by ${signal}`);
      expectWholeParts(out);
      expect(shardRecords(out).map((s) => s.finishedAt)).toEqual([null]);
      const partial = await readTable(out, 'sessions');
      const expected = await readTable(clean, 'sessions');
      expect(partial.length).toBeGreaterThan(0);
      expect(partial.length).toBeLessThan(expected.length);

      const again = run(['fleet', 'run', inputs, ...POLICIES, '--out', out, '--threads', '2']);
      expect(again.status).toBe(0);
      for (const t of tables) expect(await readTable(out, t)).toEqual(await readTable(clean, t));
      expect(shardRecords(out)[0]!.finishedAt).not.toBeNull();
    },
    300_000,
  );
});

describe('fleet run cancelled from the app', () => {
  it('cancelFleet stops the run: whole part files, an unfinished manifest, and a folder the same run finishes', async () => {
    const progress: EventPayload<'fleetProgress'>[] = [];
    let done: ((d: EventPayload<'fleetDone'>) => void) | undefined;
    const finished = new Promise<EventPayload<'fleetDone'>>((resolve) => (done = resolve));
    const host = await createHost({
      dbPath: join(dir, 'app', 'library.db'),
      hostKind: 'serve',
      version: 't',
      initialFiles: [],
      emit: (event, payload) => {
        if (event === 'fleetProgress') progress.push(payload as EventPayload<'fleetProgress'>);
        if (event === 'fleetDone') done!(payload as EventPayload<'fleetDone'>);
      },
    });
    try {
      const { runId, out, total } = await host.handlers.startFleet({
        sessionIds: [],
        paths: [inputs],
        policies: ['s1', 'claude-code'],
        overrides: { window: 48000 },
        needles: [],
        threads: 1,
      });
      expect(total).toBe(FILES);
      await waitFor(() => progress.some((p) => p.runId === runId && p.done >= 2), 'two transcripts done');
      expect(await host.handlers.cancelFleet({ runId })).toEqual({ cancelled: true });
      const end = await finished;
      expect(end).toMatchObject({ runId, out, cancelled: true, error: null });
      expect(Math.max(...progress.map((p) => p.done))).toBeLessThan(FILES);

      expectWholeParts(out);
      expect(shardRecords(out).map((s) => s.finishedAt)).toEqual([null]);
      const partial = await readTable(out, 'sessions');
      expect(partial.length).toBeGreaterThan(0);

      // The same run again (the manifest's own policies and settings) finishes the folder.
      const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8')) as {
        policies: { id: string; settings: Record<string, unknown>; settingsHash: string }[];
        inputs: string[];
      };
      const files = readdirSync(inputs)
        .map((f) => join(inputs, f))
        .sort();
      const rest = await runFleet({
        files,
        inputs: manifest.inputs,
        // The manifest's settings are the fully resolved config the first run replayed with.
        policies: manifest.policies.map((p) => ({ ...p, config: p.settings as unknown as ReplayConfig })),
        needles: [],
        out,
        version: 't',
        threads: 2,
      });
      expect(rest.cancelled).toBe(false);
      expect(rest.skipped).toBeGreaterThan(0);
      const whole = await readTable(out, 'sessions');
      const expected = await readTable(clean, 'sessions');
      expect(whole.length).toBe(expected.length);
      // No session written twice: one row per (file, session, policy).
      const keys = whole.map((r) => {
        const o = JSON.parse(r) as Record<string, unknown>;
        return `${String(o['source_path'])}|${String(o['session_id'])}|${String(o['policy'])}`;
      });
      expect(new Set(keys).size).toBe(keys.length);
      expect(shardRecords(out)[0]!.finishedAt).not.toBeNull();
    } finally {
      await host.close();
    }
  }, 300_000);
});
