/**
 * Policies as data in the app: saved, listed, replayed, exported, refused when broken, kept
 * across a restart of the host (SQLite), deleted; compare through core's comparison; needles
 * tracked in the replay view; S0's emergency path fed by stored reference counts.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHost, type Host } from '../../../src/main/host/handlers';

const sample = join(__dirname, '../../../resources/sample/sample-session.jsonl');
let dir: string;
const open = (initialFiles: string[] = [sample]): Promise<Host> =>
  createHost({ dbPath: join(dir, 'p.db'), hostKind: 'serve', version: 't', initialFiles, emit: () => {} });

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-policies-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('saved policies', () => {
  it('saves an edited copy, replays under it, keeps it across a restart, exports and deletes it', async () => {
    let host = await open();
    const id = host.initialSessionId!;
    const exported = await host.handlers.exportPolicy({ id: 's3' });
    expect(exported.fileName).toBe('s3.policy.json');
    const doc = JSON.parse(exported.text) as { id: string; config: Record<string, unknown> };
    const mine = JSON.stringify({ ...doc, id: 'team-s3', label: 'S3, earlier', config: { ...doc.config, trigger: 0.05 } });
    const info = await host.handlers.savePolicy({ json: mine });
    expect(info).toMatchObject({ id: 'team-s3', saved: true });
    const stock = await host.handlers.runReplay({ sessionId: id, policy: 's3', overrides: {}, needles: [] });
    const early = await host.handlers.runReplay({ sessionId: id, policy: 'team-s3', overrides: {}, needles: [] });
    expect(early.policy).toBe('team-s3');
    expect(early.events.find((e) => e.kind === 'compression')!.step).toBeLessThanOrEqual(
      stock.events.find((e) => e.kind === 'compression')?.step ?? Infinity,
    );
    await host.close();

    host = await open([]);
    expect((await host.handlers.listPolicies({})).filter((p) => p.saved).map((p) => p.id)).toEqual(['team-s3']);
    expect(JSON.parse((await host.handlers.exportPolicy({ id: 'team-s3' })).text).config.trigger).toBe(0.05);
    expect(await host.handlers.deletePolicy({ id: 'team-s3' })).toEqual({ deleted: true });
    await expect(host.handlers.runReplay({ sessionId: id, policy: 'team-s3', overrides: {}, needles: [] })).rejects.toThrow(
      /unknown policy "team-s3"/,
    );
    await host.close();
  });

  it('refuses a broken document, naming the field, and a copy that takes a built-in id', async () => {
    const host = await open([]);
    await expect(host.handlers.savePolicy({ json: '{"id":"x","label":"x","config":{"trigger":"soon"}}' })).rejects.toThrow(
      /config\.trigger/,
    );
    await expect(host.handlers.savePolicy({ json: '{"id":"x"' })).rejects.toThrow(/not valid JSON/);
    await expect(host.handlers.savePolicy({ json: '{"id":"s3","label":"mine","config":{}}' })).rejects.toThrow(/built-in policy/);
    // A shared policy cannot point the summarizer at a file or at the cloud metadata service.
    await expect(
      host.handlers.savePolicy({
        json: '{"id":"x","label":"x","config":{"summarizer":"openai","summarizerUrl":"http://169.254.169.254/v1"}}',
      }),
    ).rejects.toThrow(/link-local or cloud-metadata/);
    await expect(
      host.handlers.savePolicy({ json: '{"id":"x","label":"x","config":{"summarizer":"openai","summarizerUrl":"file:///etc/passwd"}}' }),
    ).rejects.toThrow(/only http and https/);
    expect((await host.handlers.listPolicies({})).some((p) => p.saved)).toBe(false);
    await host.close();
  });

  it('a stored policy edited by hand into something invalid is left out of the list and named when asked for', async () => {
    const host = await open();
    await host.handlers.savePolicy({ json: '{"id":"hand-edited","label":"x","config":{"trigger":0.5}}' });
    host.store.db
      .prepare('UPDATE policies SET config = ? WHERE id = ?')
      .run('{"id":"hand-edited","label":"x","config":{"trigger":"half"}}', 'hand-edited');
    expect((await host.handlers.listPolicies({})).map((p) => p.id)).not.toContain('hand-edited');
    await expect(
      host.handlers.runReplay({ sessionId: host.initialSessionId!, policy: 'hand-edited', overrides: {}, needles: [] }),
    ).rejects.toThrow(/saved policy "hand-edited": config\.trigger/);
    // The row itself is untouched: nothing the user wrote is lost.
    expect((host.store.db.prepare('SELECT config FROM policies WHERE id = ?').get('hand-edited') as { config: string }).config).toContain(
      '"half"',
    );
    await host.handlers.deletePolicy({ id: 'hand-edited' });
    await host.close();
  });
});

describe('replay views', () => {
  it('compares through core: totals side by side, steps that differ, compression steps', async () => {
    const host = await open();
    const id = host.initialSessionId!;
    const c = await host.handlers.compare({
      sessionId: id,
      a: { policy: 's2', overrides: {} },
      b: { policy: 'claude-code', overrides: {} },
      minDelta: 0,
    });
    expect(c.policies).toEqual(['s2', 'claude-code']);
    expect(c.totals.compressions).toMatchObject({ a: 0, b: 1, delta: 1 });
    expect(c.compressions.b).toHaveLength(1);
    expect(c.totalDelta).toHaveLength(c.steps);
    expect(c.firstDifference).toBe(c.differences[0]!.step);
    expect(c.b.totals.compressions).toBe(1);
    await host.close();
  });

  it('tracks needles: where each is first mentioned and when it leaves the window', async () => {
    const host = await open();
    const r = await host.handlers.runReplay({
      sessionId: host.initialSessionId!,
      policy: 'claude-code',
      overrides: {},
      needles: ['ORD-1187', 'not-in-this-session'],
    });
    const [order, absent] = r.retention.needles!;
    expect(order).toMatchObject({ key: 'ORD-1187' });
    expect(order!.firstMessage).not.toBeNull();
    expect(absent).toMatchObject({ key: 'not-in-this-session', firstMessage: null, leftAt: [] });
    await host.close();
  });

  it("feeds S0's emergency path the reference tokenizer's counts when the transcript reports no usage", async () => {
    const file = join(dir, 'plain.jsonl');
    const words = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `${tag}${i}`).join(' ');
    writeFileSync(
      file,
      Array.from({ length: 12 }, (_, t) =>
        [
          JSON.stringify({ role: 'user', content: words(400, `u${t}w`) }),
          JSON.stringify({ role: 'assistant', content: words(400, `a${t}w`) }),
        ].join('\n'),
      ).join('\n') + '\n',
    );
    const host = await open([file]);
    // runes×2/5 under-counts these word lists against o200k, so S0's estimate fits while the true size overflows.
    const r = await host.handlers.runReplay({
      sessionId: host.initialSessionId!,
      policy: 's0',
      overrides: { window: 12_000, maxOutput: 1_000 },
      needles: [],
    });
    const emergency = r.events.filter((e) => e.kind === 'compression' && e.path === 'emergency');
    expect(emergency.length).toBeGreaterThan(0);
    await host.close();
  });
});
