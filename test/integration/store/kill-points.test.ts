/**
 * SIGKILL at 20 points of a large import (docs/reliability.md): a child process imports a
 * ~16 MB JSONL file (through the writer thread, as the app does for big files) and is killed
 * after a delay spread over the whole import — parse, inserts, commit, checkpoint. After every
 * kill the database opens sound (integrity checked, the killed import's WAL checkpointed) and
 * holds only whole sessions: every stored session has all its messages, none has some.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFileToStore, openDatabase, openStore } from '../../../src/main/store/index';

const root = join(__dirname, '..', '..', '..');
const LINES = 100_000;
const KILLS = 20;
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ctxscope-kill-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Line 1 carries a 4-digit run number, rewritten in place so that each run is a new file. */
const firstLine = (run: number): string => JSON.stringify({ role: 'user', content: `run ${String(run).padStart(4, '0')}` });

function writeTranscript(file: string): void {
  const lines = [firstLine(0)];
  for (let i = 1; i < LINES; i++)
    lines.push(JSON.stringify({ role: i % 2 ? 'assistant' : 'user', content: `message number ${i} `.repeat(10) }));
  writeFileSync(file, lines.join('\n') + '\n');
}

function setRun(file: string, run: number): void {
  const fd = openSync(file, 'r+');
  writeSync(fd, firstLine(run), 0);
  closeSync(fd);
}

/** Starts the import in a child; resolves with how it ended once killed `afterMs` after it began (or finished). */
function importAndKill(script: string, afterMs: number | undefined): Promise<{ finished: boolean; ms: number }> {
  return new Promise((resolve, reject) => {
    // tsx as a loader in this one process: tsx's CLI would run the script in a child of its own,
    // which a SIGKILL to the CLI leaves running, still writing. cwd: tsx resolves from the project.
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let started = 0;
    let timer: NodeJS.Timeout | undefined;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (!started && out.includes('ready')) {
        started = performance.now();
        if (afterMs !== undefined) timer = setTimeout(() => child.kill('SIGKILL'), afterMs);
      }
    });
    child.on('error', reject);
    child.on('exit', () => {
      clearTimeout(timer);
      resolve({ finished: out.includes('done'), ms: performance.now() - started });
    });
  });
}

/** Deterministic spread of kill points (a seeded LCG): the same 20 delays on every run. */
function killPoints(span: number): number[] {
  let seed = 20261123;
  const out: number[] = [];
  for (let i = 0; i < KILLS; i++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    // One delay in each twentieth of the span, at a random place within it.
    out.push(((i + seed / 2 ** 31) / KILLS) * span);
  }
  return out;
}

describe('SIGKILL during a large import', () => {
  it('after each of 20 kills: integrity ok, whole sessions only', async () => {
    const file = join(dir, 'big.jsonl');
    writeTranscript(file);
    const dbPath = join(dir, 'kill.db');
    const script = join(dir, 'import.mts');
    const importScript = (db: string): string =>
      `import { openStore, importFileToStore } from ${JSON.stringify(join(root, 'src/main/store/index.ts'))};
       import { writersFinished } from ${JSON.stringify(join(root, 'src/main/store/import-file.ts'))};
       process.stdout.write('ready\\n');
       const store = openStore(${JSON.stringify(db)}, { check: true });
       await importFileToStore(store, ${JSON.stringify(file)}, { pipeline: true });
       await writersFinished();
       store.close();
       process.stdout.write('done\\n');`;
    // One whole import first (into a database of its own): how long it takes sets the span the
    // kills are spread over.
    writeFileSync(script, importScript(join(dir, 'whole.db')));
    const whole = await importAndKill(script, undefined);
    expect(whole.finished).toBe(true);
    // Each kill starts from a copy of this database, which holds a small earlier import that must
    // survive every kill; kept small, so that checking it after each kill is quick.
    const template = join(dir, 'template.db');
    const earlier = openStore(template);
    await importFileToStore(earlier, join(root, 'resources/sample/sample-session.jsonl'));
    earlier.close();
    writeFileSync(script, importScript(dbPath));
    let midImport = 0;
    const points = killPoints(whole.ms * 1.1);
    for (let k = 0; k < points.length; k++) {
      setRun(file, k + 1);
      // The last kill's WAL was checked and checkpointed by the open after it; a new copy starts clean.
      for (const suffix of ['-wal', '-shm']) rmSync(dbPath + suffix, { force: true });
      copyFileSync(template, dbPath);
      const r = await importAndKill(script, points[k]);
      if (!r.finished) midImport++;
      // Opening checks the file (integrity_check after this unclean end) and checkpoints the WAL.
      const db = openDatabase(dbPath, { check: true });
      try {
        expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
        const all = db
          .prepare(
            'SELECT s.id, s.parent_id AS parent, s.message_count AS declared, (SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id) AS stored FROM sessions s',
          )
          .all() as { parent: string | null; declared: number; stored: number }[];
        for (const s of all) expect(s.stored).toBe(s.declared);
        // The earlier import, whole, and the killed one either whole or not at all (subagent rows
        // of the earlier one's file aside: they are checked whole above).
        const sessions = all.filter((s) => s.parent === null);
        expect(sessions.length === 1 || sessions.length === 2).toBe(true);
        expect(sessions.filter((s) => s.declared === LINES).length).toBe(sessions.length - 1);
        // One session per stored source, and no lines kept for a source that is not stored.
        expect(db.prepare('SELECT COUNT(*) AS n FROM sources').get()).toEqual({ n: sessions.length });
        expect(
          db
            .prepare('SELECT COUNT(*) AS n FROM source_lines WHERE id >= (SELECT COALESCE(MAX(id), 0) + 1 FROM sources) * 4294967296')
            .get(),
        ).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    }
    // Most kills must land inside the import, or the test proves little.
    expect(midImport).toBeGreaterThanOrEqual(KILLS / 2);
  }, 240_000);
});
