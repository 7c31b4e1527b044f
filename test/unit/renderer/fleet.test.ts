/** The renderer's fleet slice: settings lines parsed as overrides, a run followed by its events, results opened when it ends, a row opened under its policy. */
import { describe, expect, it } from 'vitest';
import type { ApiClient, FleetResults, MethodInput } from '../../../src/shared/api';
import { createAppStore } from '../../../src/renderer/src/store';
import { parseFleetSettings } from '../../../src/renderer/src/slices/fleet';
import { fakeApi, flush } from './fake-client';

const table = { columns: [], rows: [] };
const results = (out: string): FleetResults => ({
  out,
  policies: ['p1'],
  baseline: null,
  perPolicy: table,
  stopped: table,
  differ: table,
  errors: table,
  sessions: table,
  compressions: table,
  lostFacts: table,
});

function store() {
  const fake = fakeApi();
  const started: MethodInput<'startFleet'>[] = [];
  const opened: string[] = [];
  const api = new Proxy(fake.api, {
    get(target, prop: string) {
      if (prop === 'startFleet')
        return (input: MethodInput<'startFleet'>) => (
          started.push(input),
          Promise.resolve({ runId: 'r1', out: '/data/fleet/a', total: 3 })
        );
      if (prop === 'listFleetRuns') return () => Promise.resolve([]);
      if (prop === 'getFleetResults')
        return (input: MethodInput<'getFleetResults'>) => (opened.push(input.out), Promise.resolve(results(input.out)));
      if (prop === 'openFleetSession') return () => Promise.resolve({ sessionId: 's1' });
      return target[prop as keyof ApiClient];
    },
  });
  return { s: createAppStore(api), emit: fake.emit, started, opened };
}

describe('fleet slice', () => {
  it('reads key=value lines: numbers and booleans as such, comments skipped, a bad line named', () => {
    expect(parseFleetSettings('window=64000\n# note\n\nsummarizer=extractive\nflag=true')).toEqual({
      window: 64000,
      summarizer: 'extractive',
      flag: true,
    });
    expect(() => parseFleetSettings('window')).toThrow(/settings line 1: expected key=value/);
  });

  it('starts a run with the chosen source, policies and settings, follows its progress, and opens its results when it ends', async () => {
    const { s, emit, started, opened } = store();
    s.getState().setFleet({ fleetSource: 'folder', fleetFolder: ' /logs ', fleetPolicies: ['p1', 'p2'], fleetSettings: 'window=1000' });
    await s.getState().startFleet();
    expect(started).toEqual([{ paths: ['/logs'], policies: ['p1', 'p2'], overrides: { window: 1000 } }]);
    emit('fleetProgress', { runId: 'other', done: 9, total: 9, skipped: 0, errors: 0, rate: 1, etaMs: 0 });
    expect(s.getState().fleetProgress?.done).toBe(0);
    emit('fleetProgress', { runId: 'r1', done: 2, total: 3, skipped: 0, errors: 1, rate: 2, etaMs: 500 });
    expect(s.getState().fleetProgress).toMatchObject({ done: 2, errors: 1 });
    emit('fleetDone', { runId: 'r1', out: '/data/fleet/a', cancelled: false, error: null });
    await flush();
    expect(s.getState().fleetRun).toBeNull();
    expect(opened).toEqual(['/data/fleet/a']);
    expect(s.getState().fleetResults?.out).toBe('/data/fleet/a');
  });

  it('shows a run that failed, and a settings line that does not parse, as the view’s error', async () => {
    const { s, emit, started } = store();
    s.getState().setFleet({ fleetPolicies: ['p1'], fleetSettings: 'nonsense' });
    await s.getState().startFleet();
    expect(started).toHaveLength(0);
    expect(s.getState().fleetError).toMatch(/expected key=value/);
    s.getState().setFleet({ fleetSettings: '' });
    await s.getState().startFleet();
    emit('fleetDone', { runId: 'r1', out: '/x', cancelled: false, error: '/x was written with other settings' });
    expect(s.getState().fleetError).toMatch(/other settings/);
  });

  it('opens a row’s session in the debugger under the row’s policy and closes the view', async () => {
    const { s } = store();
    void s.getState().init();
    await flush();
    await s.getState().openFleet();
    expect(s.getState().fleetOpen).toBe(true);
    // The chart the debugger then asks for stays pending in the fake: the session and policy are set before it.
    void s.getState().openFleetRow('/a.jsonl', 'src-id', 'p2');
    await flush();
    expect(s.getState().fleetOpen).toBe(false);
    expect(s.getState().currentId).toBe('s1');
    expect(s.getState().policyId).toBe('p2');
  });
});
