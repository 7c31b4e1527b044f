/**
 * The probe through the host's handler table (what the app's Probe tab calls), against a fake
 * model on 127.0.0.1: the plan sends nothing; a run to an endpoint the user has not agreed to
 * sends nothing; once agreed, the run is stored with the session and listed again without any
 * request; the agreement is remembered per endpoint.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';
import { closeTestServers, startTestServer } from '../../helpers/http-server';
import { fakeModel } from '../../helpers/fake-model';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
let host: Host;
let id: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-host-probe-'));
  host = await createHost({ dbPath: join(dir, 'h.db'), hostKind: 'serve', version: 't', initialFiles: [sample], emit: () => undefined });
  id = host.initialSessionId!;
});
afterAll(async () => {
  await host.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(closeTestServers);

describe('probe through the host', () => {
  it('plans, asks once per endpoint, runs, stores and lists again without sending', async () => {
    const server = await startTestServer(fakeModel());
    const args = {
      sessionId: id,
      policy: 's2',
      overrides: { window: 60000 },
      step: 0,
      endpoint: server.url,
      model: 'fake-model',
      replicates: 2,
      temperature: 0,
      maxAnswerTokens: 32,
    };
    const view = await host.handlers.runReplay({ sessionId: id, policy: 's2', overrides: { window: 60000 }, needles: [] });
    const step = view.events.find((e) => e.kind === 'compression')!.step;
    const plan = await host.handlers.planProbe({ ...args, step });
    expect(plan).toMatchObject({ step, consented: false, withKey: false, api: 'openai' });
    expect(plan.estimate.requests).toBe(2 * 2 * (1 + plan.questions.length));
    expect(server.requests).toHaveLength(0);

    await expect(host.handlers.runProbe({ ...args, step, consent: false })).rejects.toThrow(/nothing was sent: agree first/);
    expect(server.requests).toHaveLength(0);

    const run = await host.handlers.runProbe({ ...args, step, consent: true });
    expect(server.requests).toHaveLength(plan.estimate.requests);
    expect(run.result.answers).toHaveLength(plan.estimate.requests);
    expect(run).toMatchObject({ sessionId: id, policy: 's2', step });

    const sent = server.requests.length;
    const listed = await host.handlers.listProbes({ sessionId: id });
    expect(listed).toEqual([run]);
    expect(server.requests).toHaveLength(sent);

    // Agreed once: the next run needs no new agreement.
    expect((await host.handlers.planProbe({ ...args, step })).consented).toBe(true);
    await host.handlers.runProbe({ ...args, step: 0, consent: false });
    expect(await host.handlers.listProbes({ sessionId: id, policy: 's2' })).toHaveLength(2);
  }, 60_000);

  it('with a judge: its endpoint is asked for too, grades every recall answer, and is stored with the run', async () => {
    const server = await startTestServer(fakeModel());
    const judge = await startTestServer(fakeModel());
    // Under s0 at a 60,000-token window, the last compression drops items a later message needs: there are questions.
    const view = await host.handlers.runReplay({ sessionId: id, policy: 's0', overrides: { window: 60000 }, needles: [] });
    const step = view.events.filter((e) => e.kind === 'compression').at(-1)!.step;
    const args = {
      sessionId: id,
      policy: 's0',
      overrides: { window: 60000 },
      step,
      endpoint: server.url,
      model: 'fake-model',
      replicates: 2,
      temperature: 0,
      maxAnswerTokens: 32,
      judgeEndpoint: judge.url,
      judgeModel: 'fake-judge',
    };
    await expect(host.handlers.planProbe({ ...args, judgeModel: undefined })).rejects.toThrow(/judgeEndpoint and judgeModel go together/);
    const plan = await host.handlers.planProbe(args);
    expect(plan.questions.length).toBeGreaterThan(0);
    expect(plan.judge).toEqual({ endpoint: judge.url, model: 'fake-judge', api: 'openai', consented: false, withKey: false });
    // 2 sides × 2 replicates × each question.
    expect(plan.estimate.judge!.requests).toBe(2 * 2 * plan.questions.length);
    await expect(host.handlers.runProbe({ ...args, consent: false })).rejects.toThrow(/nothing was sent: agree first to send to .* and /);
    expect(server.requests).toHaveLength(0);
    expect(judge.requests).toHaveLength(0);

    const run = await host.handlers.runProbe({ ...args, consent: true });
    expect(judge.requests).toHaveLength(plan.estimate.judge!.requests);
    expect(run.result.settings.judge).toEqual({ api: 'openai', endpoint: judge.url, model: 'fake-judge' });
    const graded = run.result.answers.filter((a) => a.task !== 'next');
    expect(graded.every((a) => a.judged !== undefined || a.judgeError !== undefined)).toBe(true);
    for (const t of run.result.tallies) expect(t.judge === undefined).toBe(t.task === 'next');
    const again = await host.handlers.planProbe(args);
    expect([again.consented, again.judge!.consented]).toEqual([true, true]);
    expect((await host.handlers.listProbes({ sessionId: id })).find((r) => r.id === run.id)).toEqual(run);
  }, 60_000);

  it('refuses a link-local endpoint before anything else', async () => {
    await expect(
      host.handlers.planProbe({
        sessionId: id,
        policy: 's2',
        overrides: {},
        step: 0,
        endpoint: 'http://169.254.169.254/v1',
        model: 'm',
        replicates: 1,
        temperature: 0,
        maxAnswerTokens: 8,
      }),
    ).rejects.toThrow(/link-local or cloud-metadata/);
  });
});
