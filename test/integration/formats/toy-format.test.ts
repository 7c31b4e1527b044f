/**
 * A format is one descriptor: registering the toy format of test/fixtures/formats/toy (one module)
 * makes its files detected and imported, `inspect`-able from the CLI, followed on the live tail's
 * fast path as lines are appended, opened on its own policy, and listed by the local-logs view —
 * with no other file of the program changed.
 */
import { appendFileSync, copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { formatOf, registerFormat, unregisterFormat } from '../../../src/core/formats/index';
import { detectFormat, IMPORTERS, importSource, stringSource } from '../../../src/core/import/index';
import { main } from '../../../src/cli/index';
import { defaultPolicyOf } from '../../../src/main/host/default-policy';
import { agentLogRoots } from '../../../src/main/host/import-allow';
import { listLocalLogs, localLogRoots } from '../../../src/main/host/local-logs';
import { toSummary } from '../../../src/main/host/views';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, updateTail } from '../../../src/main/store/tail';
import { toyFormat } from '../../fixtures/formats/toy/toy-format';
import { tempStoreEach } from '../../helpers/temp-store';
import { sameAsFreshImport } from '../store/fresh-import';

const fixture = join(__dirname, '..', '..', 'fixtures', 'formats', 'toy', 'session.toy');
const text = readFileSync(fixture, 'utf8');

beforeAll(() => registerFormat(toyFormat));
afterAll(() => unregisterFormat('toy'));

const t = tempStoreEach('ctxscope-toy-');

describe('a format registered as one descriptor', () => {
  it('is detected and imported, in the detection order before the generic formats', async () => {
    expect(IMPORTERS.map((i) => i.id).indexOf('toy')).toBeLessThan(IMPORTERS.map((i) => i.id).indexOf('jsonl'));
    expect(await detectFormat(stringSource('s.toy', text))).toBe('toy');
    const outcome = await importSource(stringSource('s.toy', text));
    expect(outcome.format).toBe('toy');
    // The fixture's four lines after the first: user, assistant, user, assistant.
    expect(outcome.sessions[0]!.messages.map((m) => [m.role, m.sourceLine])).toEqual([
      ['user', 2],
      ['assistant', 3],
      ['user', 4],
      ['assistant', 5],
    ]);
    // A line of no role is refused with its line number.
    await expect(importSource(stringSource('bad.toy', 'toy-log v1\n> hi\noops\n'))).rejects.toThrow(/bad\.toy:3: a line starting/);
  });

  it('is inspect-able from the CLI', async () => {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => (out.push(String(chunk)), true));
    let code: number;
    try {
      code = await main(['inspect', fixture, '--json']);
    } finally {
      write.mockRestore();
    }
    expect(code).toBe(0);
    const report = JSON.parse(out.join('')) as { format: string; sessions: { messages: Record<string, number>; steps: number }[] };
    expect(report.format).toBe('toy');
    expect(report.sessions[0]).toMatchObject({ messages: { user: 2, assistant: 2 }, steps: 2 });
  });

  it('is followed on the live tail: appended lines become new messages on the fast path', async () => {
    const file = join(t.dir, 'session.toy');
    copyFileSync(fixture, file);
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const summary = toSummary(t.store.listSessions().find((r) => r.id === id)!);
    expect(summary).toMatchObject({ format: 'toy', agent: 'Toy Agent' });
    expect(defaultPolicyOf({ format: 'toy' })).toBe('s1');
    const tail = await openTail(t.store, id);
    appendFileSync(file, '> And the smallest?\n< a, at 10 bytes.\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ id, messages: 6, changedFrom: 4 }] });
    expect(
      t.store
        .loadSession(id)!
        .messages.slice(4)
        .map((m) => [m.role, m.sourceLine]),
    ).toEqual([
      ['user', 6],
      ['assistant', 7],
    ]);
    await sameAsFreshImport(t.store, t.dir, file, id);
    // A line the format's tail does not read: the whole file decides (and refuses it, the stored session kept).
    appendFileSync(file, 'not a message\n');
    await expect(updateTail(t.store, tail)).rejects.toThrow(/session\.toy:8/);
    expect(t.store.loadSession(id)!.messages).toHaveLength(6);
  });

  it("is listed by the local-logs view, from its agent's folder", async () => {
    const root = join(t.dir, 'toy-home', 'sessions');
    mkdirSync(join(root, 'my-project'), { recursive: true });
    copyFileSync(fixture, join(root, 'my-project', 'a.toy'));
    const roots = agentLogRoots({ TOY_HOME: join(t.dir, 'toy-home') }, join(t.dir, 'home'));
    expect(roots).toContain(root);
    const view = await listLocalLogs(localLogRoots(roots, null), { imported: () => undefined });
    expect(view.roots.find((r) => r.agent === 'toy')).toMatchObject({ label: 'Toy Agent', exists: true, files: 1 });
    expect(view.groups.map((g) => [g.agent, g.label, g.project, g.files.map((f) => f.name)])).toEqual([
      ['toy', 'Toy Agent', 'my-project', ['a.toy']],
    ]);
  });

  it('is gone again once unregistered (the built-in formats stay)', () => {
    unregisterFormat('toy');
    expect(formatOf('toy')).toBeUndefined();
    unregisterFormat('jsonl');
    expect(formatOf('jsonl')).toBeDefined();
    registerFormat(toyFormat);
    expect(() => registerFormat(toyFormat)).toThrow(/registered already/);
  });
});
