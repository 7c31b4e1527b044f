/**
 * Live tail (docs/user-guide.md "Live tail"): what an append costs on a big session — on Claude Code, a
 * two-line turn (a prompt and its answer, chained to the last line); on a Codex rollout, a turn of
 * seven lines (prompt, reasoning, tool call, token_count, tool output, answer, token_count).
 * - store: `updateTail` after the append — the fast path (the new lines alone) and, for
 *   comparison, the whole-file path (a sidechain line forces it; on Codex a compaction);
 * - host: append → `sessionUpdated` emitted (fs.watch, debounce, update), then the refresh a
 *   window does: the session detail, then the chart (in the replay worker as in the app: the run
 *   kept from the last chart continued over the new calls, core/replay/resume.ts).
 * Gemini CLI JSONL takes its fast path (a turn of five lines: prompt, `$set`, the call running and
 * again finished, the answer; a `$rewindTo` forces the whole file).
 * The JSON documents (Gemini CLI JSON and checkpoints, OpenHands events and eval instances, SWE-agent trajectories, raw OpenAI chat
 * requests; generators in tail-corpus.ts) are written again whole by their agent with one more
 * turn (the time runs from that write done) and take the document fast path
 * (store/tail-document.ts).
 * The host rounds start once the session's exact counts are stored and charted, as a session open
 * in a window is (before that, the first count runs on every core for seconds).
 * Target: the session updated in place within 1 s of the append.
 *   npx tsx test/bench/run.ts tail            (TAIL_BENCH_MB=100,10, TAIL_BENCH_FORMATS=claude-code,codex by default;
 *   also jsonl, gemini-jsonl, gemini-json, gemini-checkpoint, openhands, openhands-instance, swe-agent, openai-chat)
 */
import { appendFileSync, closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createHost } from '../../src/main/host/handlers';
import { replayWorkerSource } from '../../src/main/host/replay-client';
import { importFileToStore, openStore } from '../../src/main/store/index';
import { closeTail, openTail, updateTail, type TailState } from '../../src/main/store/tail';
import type { SessionStore } from '../../src/main/store/sessions';
import { createBulkCounter } from '../../src/main/count/bulk';
import { countStoredSession, type IncrementalOutcome } from '../../src/main/count/incremental';
import { writeClaudeCodeJsonl, writeCodexJsonl, writeMessagesJsonl } from './corpus';
import {
  geminiCheckpoint,
  geminiJson,
  geminiJsonl,
  openAIChatRequest,
  openHandsEvents,
  openHandsInstance,
  sweAgentTraj,
  type TailCorpus,
} from './tail-corpus';
import { timeMs, type BenchRow, type BenchSuite } from './harness';

const SIZES = (process.env['TAIL_BENCH_MB'] ?? '100,10').split(',').map(Number);
const FORMATS = (process.env['TAIL_BENCH_FORMATS'] ?? 'claude-code,codex').split(',');
const ROUNDS = 3;

/** Two lines continuing the session from its last line. */
export function appendTurn(file: string, n: number): void {
  // The generator's lines are far shorter than 1 MB.
  const size = statSync(file).size;
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(Math.min(size, 1 << 20));
  readSync(fd, buf, 0, buf.length, size - buf.length);
  closeSync(fd);
  const text = buf.toString('utf8');
  const last = JSON.parse(text.slice(text.lastIndexOf('\n', text.length - 2) + 1)) as Record<string, unknown>;
  const base = {
    isSidechain: false,
    userType: 'external',
    cwd: last['cwd'],
    sessionId: last['sessionId'],
    version: '2.0.14',
    timestamp: new Date().toISOString(),
  };
  const id = `${Date.now().toString(16).padStart(12, '0')}`.slice(-12);
  const user = {
    ...base,
    parentUuid: last['uuid'],
    type: 'user',
    uuid: `7a110000-0000-4000-8${String(n).padStart(3, '0')}-${id}`,
    message: { role: 'user', content: `tail prompt ${n}` },
  };
  const answer = {
    ...base,
    parentUuid: user.uuid,
    type: 'assistant',
    uuid: `7a110000-0000-4000-9${String(n).padStart(3, '0')}-${id}`,
    message: {
      id: `msg_tail${n}_${id}`,
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [{ type: 'text', text: `tail answer ${n}` }],
      usage: { input_tokens: 5, output_tokens: 9, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0 },
    },
  };
  appendFileSync(file, JSON.stringify(user) + '\n' + JSON.stringify(answer) + '\n');
}

/** A Codex turn after the rollout's last line: the same model and window, so nothing reaches back. */
function appendCodexTurn(file: string, n: number): void {
  const at = Date.now();
  const line = (type: string, payload: Record<string, unknown>, k: number): string =>
    JSON.stringify({ timestamp: new Date(at + k * 10).toISOString(), type, payload });
  const usage = (input: number): Record<string, unknown> => ({
    info: {
      total_token_usage: {
        input_tokens: input,
        cached_input_tokens: 0,
        output_tokens: 9,
        reasoning_output_tokens: 0,
        total_tokens: input + 9,
      },
      last_token_usage: {
        input_tokens: input,
        cached_input_tokens: input - 50,
        output_tokens: 9,
        reasoning_output_tokens: 3,
        total_tokens: input + 9,
      },
      model_context_window: 272_000,
    },
  });
  const lines = [
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: `tail prompt ${n}` }] }, 0),
    line(
      'response_item',
      { type: 'reasoning', summary: [{ type: 'summary_text', text: `thinking ${n}` }], content: null, encrypted_content: 'gAAAA' },
      1,
    ),
    line('response_item', { type: 'function_call', name: 'shell', arguments: '{"command":["ls"]}', call_id: `call_tail${n}` }, 2),
    line('event_msg', { type: 'token_count', ...usage(1000) }, 3),
    line('response_item', { type: 'function_call_output', call_id: `call_tail${n}`, output: 'a.ts\nb.ts' }, 4),
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `tail answer ${n}` }] }, 5),
    line('event_msg', { type: 'token_count', ...usage(1100) }, 6),
  ];
  appendFileSync(file, lines.join('\n') + '\n');
}

/** How each format's session is made, appended to, and forced through the whole-file path. */
interface Format {
  readonly label: string;
  readonly write: (file: string, mb: number) => Promise<number>;
  readonly append: (file: string, n: number) => void;
  /** A line that sends the update through the whole-file path (none for a format where every line only adds). */
  readonly forceWhole?: { readonly what: string; readonly line: string };
  /** No fast path: every update goes through the whole file (a JSON document is written again whole). */
  readonly wholeFile?: true;
  /** The file's name (an importer may go by its extension). */
  readonly file?: string;
}
/** A JSON document format from test/bench/tail-corpus.ts (its fast path: store/tail-document.ts). */
const document = (label: string, c: TailCorpus, file: string): Format => ({ label, write: c.write, append: c.append, file });
const FORMAT: Record<string, Format> = {
  'claude-code': {
    label: '',
    write: writeClaudeCodeJsonl,
    append: appendTurn,
    forceWhole: {
      what: 'sidechain line',
      line: JSON.stringify({
        type: 'user',
        parentUuid: null,
        uuid: '7a110000-0000-4000-8000-ffffffffffff',
        sessionId: 's',
        isSidechain: true,
        message: { role: 'user', content: 'side' },
      }),
    },
  },
  codex: {
    label: 'Codex ',
    write: writeCodexJsonl,
    append: appendCodexTurn,
    forceWhole: {
      what: 'compaction',
      line: JSON.stringify({
        timestamp: new Date().toISOString(),
        type: 'compacted',
        payload: { message: 'summary', replacement_history: [] },
      }),
    },
  },
  jsonl: {
    label: 'JSONL of messages ',
    write: writeMessagesJsonl,
    append: (file, n) =>
      appendFileSync(
        file,
        JSON.stringify({ role: 'user', content: `tail prompt ${n}` }) +
          '\n' +
          JSON.stringify({
            role: 'assistant',
            content: `tail answer ${n}`,
            model: 'gpt-4o',
            usage: { prompt_tokens: 900, completion_tokens: 5 },
          }) +
          '\n',
      ),
  },
  'gemini-jsonl': {
    label: 'Gemini CLI JSONL ',
    write: geminiJsonl.write,
    append: geminiJsonl.append,
    file: 'session.jsonl',
    forceWhole: { what: 'rewind', line: JSON.stringify({ $rewindTo: 'u-1000000' }) },
  },
  'gemini-json': document('Gemini CLI JSON ', geminiJson, 'session.json'),
  'gemini-checkpoint': document('Gemini CLI checkpoint ', geminiCheckpoint, 'checkpoint-bench.json'),
  openhands: document('OpenHands events ', openHandsEvents, 'events.json'),
  'openhands-instance': document('OpenHands eval instance ', openHandsInstance, 'instance.json'),
  'swe-agent': document('SWE-agent ', sweAgentTraj, 'run.traj'),
  'openai-chat': document('OpenAI chat request ', openAIChatRequest, 'request.json'),
};

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/**
 * The exact count the background recount makes (calibrated, on the bulk pool as the count worker
 * does): of the whole session, then after one appended turn, when only the messages the append
 * estimated are tokenized (src/main/count/incremental.ts).
 */
async function recountRows(store: SessionStore, id: string, tail: TailState, file: string, mb: number, f: Format): Promise<BenchRow[]> {
  const bulk = createBulkCounter();
  try {
    let whole: IncrementalOutcome | undefined;
    const wholeMs = await timeMs(async () => (whole = await countStoredSession(store, id, 'calibrated', bulk)));
    f.append(file, ROUNDS + 1);
    await updateTail(store, tail);
    let after: IncrementalOutcome | undefined;
    const afterMs = await timeMs(async () => (after = await countStoredSession(store, id, 'calibrated', bulk)));
    return [
      {
        name: `${f.label}${mb} MB: exact count of the whole session (calibrated)`,
        value: wholeMs,
        unit: 'ms',
        note: `${whole?.counted} messages tokenized`,
      },
      {
        name: `${f.label}${mb} MB: recount after an append (calibrated)`,
        value: afterMs,
        unit: 'ms',
        note: `${after?.counted} of ${after?.messages} messages tokenized; the heads read, calibrated refitted`,
      },
    ];
  } finally {
    await bulk.close();
  }
}

async function storeRows(dir: string, file: string, mb: number, f: Format): Promise<BenchRow[]> {
  const store = openStore(join(dir, 'store.db'));
  try {
    const id = (await importFileToStore(store, file)).sessionIds[0]!;
    // The watch begins (the file hashed; a document's arrays found), ends, and begins again on the unchanged file.
    let t0 = performance.now();
    closeTail(store, await openTail(store, id));
    const start = performance.now() - t0;
    t0 = performance.now();
    const tail = await openTail(store, id);
    const again = performance.now() - t0;
    const times: number[] = [];
    let fast = true;
    for (let n = 0; n < ROUNDS; n++) {
      f.append(file, n);
      times.push(await timeMs(async () => (fast = ((await updateTail(store, tail))?.fast ?? false) && fast)));
    }
    const calls = store.getRow(id)?.stepCount ?? 0;
    const rows: BenchRow[] = [
      { name: `${f.label}${mb} MB: watch begins`, value: start, unit: 'ms', note: "the file hashed, a document's arrays found" },
      {
        name: `${f.label}${mb} MB: watch begun again on the unchanged file`,
        value: again,
        unit: 'ms',
        note: "a document's arrays as the last watch left them",
      },
      {
        name: `${f.label}${mb} MB (${calls} calls): first append after the watch begins → stored`,
        value: times[0]!,
        unit: 'ms',
        note: f.wholeFile ? 'whole-file path' : 'includes reading the fast path state',
      },
      {
        name: `${f.label}${mb} MB: append → stored (median of ${ROUNDS})${fast || f.wholeFile ? '' : ' WHOLE-FILE PATH'}`,
        value: median(times),
        unit: 'ms',
        note: fast ? 'fast path: the new lines alone' : 'whole-file path',
      },
    ];
    if (f.wholeFile) return rows;
    rows.push(...(await recountRows(store, id, tail, file, mb, f)));
    // The same append without the fast path (its state dropped): what every append cost before it.
    tail.lines = tail.doc = undefined;
    f.append(file, ROUNDS);
    rows.push({
      name: `${f.label}${mb} MB: append → stored without the fast path (whole file)`,
      value: await timeMs(() => updateTail(store, tail)),
      unit: 'ms',
    });
    if (f.forceWhole) {
      appendFileSync(file, f.forceWhole.line + '\n');
      rows.push({
        name: `${f.label}${mb} MB: ${f.forceWhole.what} → stored (whole-file path)`,
        value: await timeMs(() => updateTail(store, tail)),
        unit: 'ms',
      });
    }
    return rows;
  } finally {
    store.close();
  }
}

async function hostRows(dir: string, file: string, mb: number, f: Format): Promise<BenchRow[]> {
  let seen: (() => void) | undefined;
  let counted: (() => void) | undefined;
  // The watcher and its poll never hold the process open by themselves (a server does): this does.
  const keep = setInterval(() => {}, 1000);
  // Exact counts in the count worker, as the app does (from its TypeScript source here).
  const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
  const countWorkerFile = join(dir, 'count-boot.mjs');
  writeFileSync(
    countWorkerFile,
    `import { register } from ${JSON.stringify(join(root, 'node_modules/tsx/dist/esm/api/index.mjs'))};\nregister();\nexport default (await import(${JSON.stringify(join(root, 'src/main/host/count-worker.ts'))})).default;\n`,
  );
  const host = await createHost({
    dbPath: join(dir, 'host.db'),
    hostKind: 'serve',
    version: 'bench',
    initialFiles: [file],
    replayWorkerFile: replayWorkerSource()!,
    countWorkerFile,
    emit: (event) => (event === 'sessionUpdated' ? seen?.() : event === 'countsReady' && counted?.()),
  });
  try {
    const id = host.initialSessionId!;
    const policy = (await host.handlers.getSession({ id })).defaultPolicy;
    // The session as a window has it open: its exact counts done (the first chart asks for them;
    // their count runs on every core for seconds) and the chart drawn with them.
    const ready = new Promise<void>((resolve) => {
      counted = resolve;
      setTimeout(resolve, 20_000).unref();
    });
    await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 1200 });
    await ready;
    await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 1200 });
    await host.handlers.watchSession({ sessionId: id, on: true });
    const event: number[] = [];
    const detail: number[] = [];
    const chart: number[] = [];
    for (let n = 0; n < ROUNDS; n++) {
      const updated = new Promise<void>((resolve) => (seen = resolve));
      // From the agent's write done (a JSON document's agent writes it all again: not the tail's time).
      f.append(file, 100 + n);
      const t0 = performance.now();
      await updated;
      event.push(performance.now() - t0);
      await host.handlers.getSession({ id });
      detail.push(performance.now() - t0);
      await host.handlers.getChartView({ sessionId: id, policy, overrides: {}, needles: [], buckets: 1200 });
      chart.push(performance.now() - t0);
    }
    const e = median(event);
    return [
      {
        name: `${f.label}${mb} MB: append → sessionUpdated (watcher + update)`,
        value: e,
        unit: 'ms',
        target: '≤ 1000 ms',
        pass: e <= 1000,
      },
      { name: `${f.label}${mb} MB: append → session detail refreshed`, value: median(detail), unit: 'ms' },
      {
        name: `${f.label}${mb} MB: append → chart extended (the kept replay continued over the new calls)`,
        value: median(chart),
        unit: 'ms',
        target: '≤ 1000 ms',
        pass: median(chart) <= 1000,
      },
      {
        name: `${f.label}${mb} MB: the chart request alone (after the detail)`,
        value: median(chart.map((c, i) => c - detail[i]!)),
        unit: 'ms',
        note: 'core/replay/resume.ts; a refused continuation replays every call',
      },
    ];
  } finally {
    await host.close();
    clearInterval(keep);
  }
}

export const suite: BenchSuite = {
  name: 'tail',
  async run() {
    const rows: BenchRow[] = [];
    for (const name of FORMATS) {
      const f = FORMAT[name];
      if (!f) throw new Error(`TAIL_BENCH_FORMATS: unknown format "${name}" (known: ${Object.keys(FORMAT).join(', ')})`);
      for (const mb of SIZES) {
        const dir = mkdtempSync(join(tmpdir(), 'ctxscope-tail-bench-'));
        try {
          const file = join(dir, f.file ?? 'session.jsonl');
          await f.write(file, mb);
          // The host first: the store's last case appends a line that sends later appends whole-file.
          rows.push(...(await hostRows(dir, file, mb, f)));
          rows.push(...(await storeRows(dir, file, mb, f)));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    }
    return rows;
  },
};
