/**
 * Live tail robustness for every line format it follows (docs/user-guide.md "Live tail"): an agent's write
 * cut inside a line — even a line that is already a whole JSON value, its newline not written
 * yet — stores nothing until the newline arrives, and never a broken record; a file replaced by a
 * shorter one is read again whole as the same session. Claude Code's cases are in tail.test.ts;
 * here the Codex, JSONL-of-messages and Gemini CLI JSONL fast paths.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importFileToStore, openStore } from '../../../src/main/store/index';
import { openTail, updateTail } from '../../../src/main/store/tail';
import { codexLines } from '../../bench/corpus';
import { geminiJsonl } from '../../bench/tail-corpus';
import { sameAsFreshImport } from './fresh-import';
import { tempStoreEach } from '../../helpers/temp-store';

const t = tempStoreEach('ctxscope-tail-robust-', 's.db');

const chat = (n: number): string[] =>
  Array.from({ length: n }, (_, i) =>
    JSON.stringify(
      i % 2
        ? { role: 'assistant', content: `answer ${i}`, model: 'gpt-4o', usage: { prompt_tokens: 100 + i, completion_tokens: 5 } }
        : { role: 'user', content: `prompt ${i}` },
    ),
  );

/** Each format's lines: `n` of them (whole turns where the format needs them), as its agent writes them. */
const FORMATS: [string, string, (n: number) => string[], boolean][] = [
  ['Codex rollout (fast path)', 'rollout.jsonl', (n) => [...codexLines({ calls: 40 })].map((l) => l.trimEnd()).slice(0, n), true],
  ['JSONL of messages (fast path)', 'chat.jsonl', chat, true],
  [
    'Gemini CLI JSONL (fast path)',
    'gemini.jsonl',
    (n) => {
      const file = join(t.dir, 'gen.jsonl');
      // (The generator writes synchronously: its promise is already settled.)
      void geminiJsonl.write(file, 0.001);
      for (let k = 0; k < 12; k++) geminiJsonl.append(file, k);
      return readFileSync(file, 'utf8').trimEnd().split('\n').slice(0, n);
    },
    true,
  ],
];

describe.each(FORMATS)('%s', (_name, fileName, lines, fast) => {
  it('waits for the newline of a line cut mid-write, then stores it whole', async () => {
    const all = lines(60);
    const file = join(t.dir, fileName);
    writeFileSync(file, all.slice(0, 30).join('\n') + '\n');
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const before = t.store.getRow(id)!.messageCount;
    const tail = await openTail(t.store, id);
    const next = all[30]!;
    // Cut inside a line: nothing new is stored.
    appendFileSync(file, next.slice(0, next.length - 25));
    expect(await updateTail(t.store, tail)).toBeUndefined();
    expect(t.store.getRow(id)!.messageCount).toBe(before);
    // The line written to its end, a whole JSON value, but no newline yet: still nothing.
    appendFileSync(file, next.slice(next.length - 25));
    expect(await updateTail(t.store, tail)).toBeUndefined();
    expect(t.store.getRow(id)!.messageCount).toBe(before);
    // Its newline, more lines, and half of the next one: the complete lines are stored.
    appendFileSync(file, '\n' + all.slice(31, 45).join('\n') + '\n' + all[45]!.slice(0, 30));
    const u = await updateTail(t.store, tail);
    expect(u).toMatchObject({ fast, rewritten: false });
    // As many messages as the complete lines make (a copy elsewhere: JSONL ids name their file),
    // and every stored raw record a whole line of the file.
    const other = openStore(join(t.dir, 'other.db'));
    writeFileSync(join(t.dir, 'complete.jsonl'), all.slice(0, 45).join('\n') + '\n');
    const want = other.getRow(
      (await importFileToStore(other, join(t.dir, 'complete.jsonl'), { pipeline: false })).sessionIds[0]!,
    )!.messageCount;
    other.close();
    expect(t.store.getRow(id)!.messageCount).toBe(want);
    const written = new Set(all.slice(0, 45));
    for (let i = 0; i < want; i++)
      for (const r of (t.store.rawOf(id, i) ?? '').split('\n').filter(Boolean)) expect(written.has(r)).toBe(true);
    appendFileSync(file, all[45]!.slice(30) + '\n' + all.slice(46).join('\n') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ rewritten: false });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });

  it('reads a file replaced by a shorter one again whole, as the same session', async () => {
    const all = lines(60);
    const file = join(t.dir, fileName);
    writeFileSync(file, all.join('\n') + '\n');
    const id = (await importFileToStore(t.store, file, { pipeline: false })).sessionIds[0]!;
    const tail = await openTail(t.store, id);
    writeFileSync(file, all.slice(0, 20).join('\n') + '\n');
    const u = await updateTail(t.store, tail);
    expect(u).toMatchObject({ rewritten: true, deleted: [], sessions: [{ id, changedFrom: 0 }] });
    expect(
      t.store
        .listSessions()
        .filter((s) => s.sourcePath === file)
        .map((s) => s.id),
    ).toEqual([id]);
    await sameAsFreshImport(t.store, t.dir, file, id);
    // And it goes on from there.
    appendFileSync(file, all.slice(20, 30).join('\n') + '\n');
    expect(await updateTail(t.store, tail)).toMatchObject({ rewritten: false, sessions: [{ id }] });
    await sameAsFreshImport(t.store, t.dir, file, id);
  });
});
