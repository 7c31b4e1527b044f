/**
 * Live tail against a temp file (docs/user-guide.md "Live tail"): appended lines become new messages of the
 * same session, nothing is stored twice, a partial last line waits for its newline, a truncated
 * or rewritten file is re-imported as the same session, and an appended line that makes another
 * branch the Claude Code main chain rewrites the session from where the chains part.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { importFileToStore } from '../../../src/main/store/index';
import { openTail, prepareTail, TailError, updateTail } from '../../../src/main/store/tail';
import { sameAsFreshImport as sameAsFresh } from './fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tail-');

const SESSION = '7b1f3c2e-5a41-4c0e-9d7e-2f6a8b9c0d11';
const uuid = (n: number): string => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
/** A Claude Code line: user or assistant, with its uuid and parent (numbers stand for uuids). */
function cc(n: number, parent: number | null, role: 'user' | 'assistant', text: string, apiId?: string): string {
  const message =
    role === 'user'
      ? { role: 'user', content: text }
      : {
          model: 'claude-sonnet-4-5-20250929',
          id: apiId ?? `msg_${n}`,
          type: 'message',
          role: 'assistant',
          content: [{ type: 'text', text }],
          usage: { input_tokens: 100 + n, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        };
  return JSON.stringify({
    parentUuid: parent === null ? null : uuid(parent),
    isSidechain: false,
    type: role,
    sessionId: SESSION,
    cwd: '/w',
    uuid: uuid(n),
    timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
    message,
  });
}
/** A linear conversation of lines [from, to], alternating user / assistant. */
const chain = (from: number, to: number): string[] =>
  Array.from({ length: to - from + 1 }, (_, i) => from + i).map((n) =>
    cc(n, n === 1 ? null : n - 1, n % 2 ? 'user' : 'assistant', `turn ${n} text`),
  );

function messagesOf(id: string): { id: string; text: string }[] {
  return (t.store.loadSession(id)?.messages ?? []).map((m) => ({
    id: m.id,
    text: m.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''),
  }));
}
const rowCount = (id: string): number => t.store.db.prepare('SELECT COUNT(*) FROM messages WHERE session_id = ?').pluck().get(id) as number;

const sameAsFreshImport = (file: string, id: string): Promise<void> => sameAsFresh(t.store, t.dir, file, id);

async function imported(lines: string[]): Promise<{ file: string; id: string }> {
  const file = join(t.dir, 'session.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');
  const r = await importFileToStore(t.store, file, { pipeline: false });
  return { file, id: r.sessionIds[0]! };
}

describe('live tail', () => {
  it('stores appended lines as new messages of the same session, nothing twice', async () => {
    const { file, id } = await imported(chain(1, 4));
    const tail = await openTail(t.store, id);
    expect(await updateTail(t.store, tail)).toBeUndefined();
    appendFileSync(file, chain(5, 8).join('\n') + '\n');
    const u = await updateTail(t.store, tail);
    expect(u?.rewritten).toBe(false);
    // Only the new lines were parsed: they continue the main chain.
    expect(u?.fast).toBe(true);
    expect(u?.sessions).toMatchObject([{ id, messages: 8, steps: 4, changedFrom: 4 }]);
    await sameAsFreshImport(file, id);
    expect(messagesOf(id).map((m) => m.id)).toEqual(Array.from({ length: 8 }, (_, i) => uuid(i + 1)));
    expect(rowCount(id)).toBe(8);
    expect(t.store.getRow(id)?.messageCount).toBe(8);
    expect(t.store.getRow(id)?.stepCount).toBe(4);
    // The new messages' raw records are their lines; the estimates cover every message.
    expect(JSON.parse(t.store.rawOf(id, 7)!)).toMatchObject({ uuid: uuid(8) });
    expect(t.store.loadCounts(id, 'chars4')?.perMessage.length).toBe(8);
    // Nothing new: no update, and a second append goes on from there.
    expect(await updateTail(t.store, tail)).toBeUndefined();
    appendFileSync(file, chain(9, 9).join('\n') + '\n');
    expect((await updateTail(t.store, tail))?.sessions[0]).toMatchObject({ messages: 9, changedFrom: 8 });
    expect(rowCount(id)).toBe(9);
    // The stored source is the whole file now: importing it again reuses the session.
    await sameAsFreshImport(file, id);
    const again = await importFileToStore(t.store, file, { pipeline: false });
    expect(again).toMatchObject({ reused: true, sessionIds: [id] });
  });

  it('leaves a partial last line until its newline arrives', async () => {
    const { file, id } = await imported(chain(1, 2));
    const tail = await openTail(t.store, id);
    const line = chain(3, 3)[0]!;
    appendFileSync(file, line.slice(0, 40));
    expect(await updateTail(t.store, tail)).toBeUndefined();
    expect(rowCount(id)).toBe(2);
    appendFileSync(file, line.slice(40));
    expect(await updateTail(t.store, tail)).toBeUndefined();
    appendFileSync(file, '\n' + chain(4, 4)[0]!.slice(0, 10));
    expect((await updateTail(t.store, tail))?.sessions[0]).toMatchObject({ messages: 3, changedFrom: 2 });
    expect(messagesOf(id).map((m) => m.text)).toEqual(['turn 1 text', 'turn 2 text', 'turn 3 text']);
  });

  it('re-imports a truncated or rewritten file as the same session, with the right count', async () => {
    const { file, id } = await imported(chain(1, 6));
    const tail = await openTail(t.store, id);
    // Truncated: shorter than what was imported.
    writeFileSync(file, chain(1, 3).join('\n') + '\n');
    const cut = await updateTail(t.store, tail);
    expect(cut).toMatchObject({ rewritten: true, sessions: [{ id, messages: 3, changedFrom: 0 }] });
    expect(rowCount(id)).toBe(3);
    // Rewritten: longer than before, but what was imported changed (not an append).
    const other = chain(1, 8).map((l) => l.replace(/turn (\d+) text/, 'edited $1'));
    writeFileSync(file, other.join('\n') + '\n');
    const re = await updateTail(t.store, tail);
    expect(re).toMatchObject({ rewritten: true, sessions: [{ id, messages: 8, changedFrom: 0 }] });
    expect(messagesOf(id).map((m) => m.text)).toEqual(Array.from({ length: 8 }, (_, i) => `edited ${i + 1}`));
    expect(rowCount(id)).toBe(8);
    expect(t.store.listSessions().filter((s) => s.sourcePath === file)).toHaveLength(1);
    await sameAsFreshImport(file, id);
    // The source's hash is the new file's: importing it again finds the session.
    expect(await importFileToStore(t.store, file, { pipeline: false })).toMatchObject({ reused: true, sessionIds: [id] });
  });

  it('notices a file rewritten while nobody watched', async () => {
    const { file, id } = await imported(chain(1, 4));
    writeFileSync(
      file,
      chain(1, 4)
        .map((l) => l.replace('text', 'TEXT'))
        .join('\n') + '\n',
    );
    const tail = await openTail(t.store, id);
    expect(await updateTail(t.store, tail)).toMatchObject({ rewritten: true, sessions: [{ id, messages: 4 }] });
    expect(messagesOf(id)[0]!.text).toBe('turn 1 TEXT');
  });

  it('rewrites from where the chains part when an appended line makes another branch the main chain', async () => {
    // 1 → 2 → 3 → 4: the main chain. A rewind to 2 then continues 2 → 5 → 6: the new main chain.
    const { file, id } = await imported(chain(1, 4));
    const tail = await openTail(t.store, id);
    appendFileSync(file, [cc(5, 2, 'user', 'rewound prompt'), cc(6, 5, 'assistant', 'new answer')].join('\n') + '\n');
    const u = await updateTail(t.store, tail);
    // The new lines do not continue the stored chain: the whole file decides.
    expect(u?.fast).toBe(false);
    expect(u?.sessions[0]).toMatchObject({ id, messages: 4, changedFrom: 2 });
    expect(messagesOf(id).map((m) => m.id)).toEqual([uuid(1), uuid(2), uuid(5), uuid(6)]);
    expect(rowCount(id)).toBe(4);
    expect(JSON.parse(t.store.rawOf(id, 2)!)).toMatchObject({ uuid: uuid(5) });
    await sameAsFreshImport(file, id);
    // And the new branch grows on the fast path again.
    appendFileSync(file, cc(7, 6, 'user', 'after the rewind') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ messages: 5, changedFrom: 4 }] });
    await sameAsFreshImport(file, id);
  });

  it('extends the last response when its next part arrives on a new line (same message id)', async () => {
    const { file, id } = await imported([cc(1, null, 'user', 'go'), cc(2, 1, 'assistant', 'part one', 'msg_A')]);
    const tail = await openTail(t.store, id);
    appendFileSync(file, cc(3, 2, 'assistant', ' part two', 'msg_A') + '\n');
    const u = await updateTail(t.store, tail);
    expect(u?.sessions[0]).toMatchObject({ messages: 2, changedFrom: 1 });
    expect(u?.fast).toBe(true);
    expect(messagesOf(id)[1]!.text).toBe('part one part two');
    await sameAsFreshImport(file, id);
    // Its raw record is both lines, as a first import keeps it.
    expect(
      t.store
        .rawOf(id, 1)!
        .split('\n')
        .map((l) => (JSON.parse(l) as { uuid: string }).uuid),
    ).toEqual([uuid(2), uuid(3)]);
  });

  it('gives the session its title when the first typed prompt arrives on the fast path', async () => {
    const { file, id } = await imported([
      cc(1, null, 'user', '<system-reminder>context</system-reminder>'),
      cc(2, 1, 'assistant', 'ready'),
    ]);
    const tail = await openTail(t.store, id);
    appendFileSync(file, [cc(3, 2, 'user', 'Rename the module'), cc(4, 3, 'assistant', 'done')].join('\n') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    expect(t.store.getRow(id)?.title).toBe('Rename the module');
    await sameAsFreshImport(file, id);
  });

  it('extends stored exact counts with scaled estimates on the fast path (the host recounts them)', async () => {
    const { file, id } = await imported(chain(1, 4));
    const est = t.store.loadCounts(id, 'chars4')!;
    // "Exact" counts at twice the estimate.
    const twice = Uint32Array.from(est.perMessage, (n) => 2 * n);
    const prefix = new Float64Array(twice.length + 1);
    twice.forEach((n, i) => (prefix[i + 1] = prefix[i]! + n));
    t.store.saveCounts(id, { ...est, tokenizer: 'calibrated', perMessage: twice, prefix, approximate: true });
    const tail = await openTail(t.store, id);
    appendFileSync(file, chain(5, 6).join('\n') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    const after = t.store.loadCounts(id, 'chars4')!;
    const exact = t.store.loadCounts(id, 'calibrated')!;
    expect(Array.from(exact.perMessage)).toEqual([...Array.from(twice), 2 * after.perMessage[4]!, 2 * after.perMessage[5]!]);
    expect(exact.prefix[6]).toBe(Array.from(exact.perMessage).reduce((a, b) => a + b, 0));
  });

  it('takes the whole-file path for lines that could change what came before', async () => {
    const { file, id } = await imported(chain(1, 4));
    const tail = await openTail(t.store, id);
    // A sidechain line (a subagent) and a leaf named by last-prompt: the whole file decides.
    appendFileSync(file, JSON.stringify({ ...JSON.parse(cc(5, 4, 'user', 'sub task')), isSidechain: true }) + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(file, id);
    appendFileSync(
      file,
      [cc(15, 4, 'user', 'more'), cc(16, 15, 'assistant', 'answer'), JSON.stringify({ type: 'last-prompt', leafUuid: uuid(3) })].join(
        '\n',
      ) + '\n',
    );
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(file, id);
    // The leaf stays named: later appends go through the whole file too.
    appendFileSync(file, cc(20, 3, 'user', 'late') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: false });
    await sameAsFreshImport(file, id);
  });

  it('stores a big append on the fast path exactly as a first import would (a file imported through the writer thread)', async () => {
    const file = join(t.dir, 'big.jsonl');
    writeFileSync(file, chain(1, 400).join('\n') + '\n');
    const id = (await importFileToStore(t.store, file, { pipeline: true })).sessionIds[0]!;
    const tail = await openTail(t.store, id);
    appendFileSync(file, [...chain(401, 402), cc(403, 402, 'assistant', 'split a', 'msg_S')].join('\n') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true });
    appendFileSync(file, cc(404, 403, 'assistant', ' split b', 'msg_S') + '\n' + cc(405, 404, 'user', 'next') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ fast: true, sessions: [{ changedFrom: 402, messages: 404 }] });
    await sameAsFreshImport(file, id);
  });

  it('asks to be opened again when the grown file was imported again meanwhile, then goes on', async () => {
    const { file, id } = await imported(chain(1, 4));
    const tail = await openTail(t.store, id);
    appendFileSync(file, chain(5, 6).join('\n') + '\n');
    // Open… on the grown file: its sessions move to a new source row with the new messages.
    expect((await importFileToStore(t.store, file, { pipeline: false })).sessionIds).toEqual([id]);
    const stale = updateTail(t.store, tail);
    await expect(stale).rejects.toBeInstanceOf(TailError);
    await expect(stale).rejects.toMatchObject({ reopen: true });
    const again = await openTail(t.store, id);
    appendFileSync(file, chain(7, 7).join('\n') + '\n');
    expect(await updateTail(t.store, again)).toMatchObject({ fast: true, sessions: [{ id, messages: 7, changedFrom: 6 }] });
    expect(rowCount(id)).toBe(7);
    await sameAsFreshImport(file, id);
  });

  it('reads a JSON document again on change, and writes from the first message that differs', async () => {
    const file = join(t.dir, 'chat.json');
    const doc = (n: number, edited = -1): string =>
      JSON.stringify({
        messages: Array.from({ length: n }, (_, i) => ({
          role: i % 2 ? 'assistant' : 'user',
          content: i === edited ? `m${i} edited` : `m${i}`,
        })),
      });
    writeFileSync(file, doc(2));
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const tail = await openTail(t.store, id);
    // Written again whole with three more messages: the two stored ones are kept, and the host
    // gets the new ones to patch the session it holds.
    writeFileSync(file, doc(5));
    // The document fast path (store/tail-document.ts, its own tests) dropped: this is the whole-file path.
    tail.doc = undefined;
    const grown = await updateTail(t.store, tail);
    expect(grown).toMatchObject({ rewritten: false, fast: false, sessions: [{ id, messages: 5, changedFrom: 2 }] });
    expect(grown?.sessions[0]?.written?.messages.map((m) => m.parts)).toEqual(
      t.store
        .loadSession(id)!
        .messages.slice(2)
        .map((m) => m.parts),
    );
    expect(rowCount(id)).toBe(5);
    await sameAsFreshImport(file, id);
    // An earlier message edited: written from it on.
    writeFileSync(file, doc(5, 1));
    expect(await updateTail(t.store, tail)).toMatchObject({ rewritten: false, sessions: [{ id, messages: 5, changedFrom: 1 }] });
    expect(messagesOf(id).map((m) => m.text)).toEqual(['m0', 'm1 edited', 'm2', 'm3', 'm4']);
    await sameAsFreshImport(file, id);
    // Shorter: a rewrite, read whole as the same session.
    writeFileSync(file, doc(3));
    expect(await updateTail(t.store, tail)).toMatchObject({ rewritten: true, sessions: [{ id, messages: 3, changedFrom: 0 }] });
    expect(rowCount(id)).toBe(3);
    await sameAsFreshImport(file, id);
  });
});

describe('a tail prepared before its first append', () => {
  // The one read of stored ids (a slice, or all of them at once: [0, count)).
  const IDS = 'SELECT message_id FROM messages WHERE session_id = ? AND idx >= ? AND idx < ?';
  const reads = (calls: unknown[][]): number => calls.filter((c) => c[0] === IDS).length;

  it('reads the stored ids beforehand, so the append reads none, and stores what an unprepared tail stores', async () => {
    const { file, id } = await imported(chain(1, 6));
    const tail = await openTail(t.store, id);
    const prepared = vi.spyOn(t.store.db, 'prepare');
    expect(await prepareTail(t.store, tail)).toBe(true);
    // The slices, not the whole list at once.
    expect(reads(prepared.mock.calls)).toBeGreaterThan(0);
    prepared.mockClear();
    appendFileSync(file, chain(7, 8).join('\n') + '\n');
    const u = await updateTail(t.store, tail);
    expect(u?.fast).toBe(true);
    expect(reads(prepared.mock.calls)).toBe(0);
    prepared.mockRestore();
    await sameAsFreshImport(file, id);
    // A line that reaches back (its uuid is a stored message's) still leaves the fast path: the
    // prepared ids are the stored ones.
    appendFileSync(file, cc(3, 8, 'user', 'again') + '\n');
    expect((await updateTail(t.store, tail))?.fast).not.toBe(true);
    await sameAsFreshImport(file, id);
  });

  it('stops when asked, leaving the state for the append to read the ids itself', async () => {
    const { file, id } = await imported(chain(1, 4));
    const tail = await openTail(t.store, id);
    expect(await prepareTail(t.store, tail, () => true)).toBe(false);
    const prepared = vi.spyOn(t.store.db, 'prepare');
    appendFileSync(file, chain(5, 6).join('\n') + '\n');
    expect((await updateTail(t.store, tail))?.fast).toBe(true);
    expect(reads(prepared.mock.calls)).toBe(1);
    prepared.mockRestore();
    await sameAsFreshImport(file, id);
  });
});
