/**
 * Statements recorded on one thread and run on another: a progressive import plans a chunk's
 * writes in the import worker (store/tail-append.ts) while the writer thread runs the previous
 * chunk's (store/chunk-writer.ts). A recording crosses threads as plain data: its distinct SQL
 * texts, one (statement, parameter count) pair per run, the parameters, and its bytes: a byte
 * parameter (a line's UTF-8 text) is named by where it is in the chunk's own bytes, which move
 * to the other thread whole (transferred, not cloned — a cloned view would carry its whole
 * underlying buffer with it); any other byte parameter is copied after them.
 */
import type { Database, Statement } from 'better-sqlite3';

/** A byte parameter: where its bytes are in the recording's buffer. */
interface BytesAt {
  readonly at: number;
  readonly n: number;
}

/** A recording as it crosses to the thread that runs it. */
export interface Recording {
  readonly sql: readonly string[];
  /** Per run: the statement's index in `sql`, then how many of `params` it takes. */
  readonly runs: Int32Array;
  readonly params: readonly unknown[];
  /** The chunk's bytes (`chunkBytes` of them), then any byte parameter that was not one of their views. */
  readonly bytes: Uint8Array;
  readonly chunkBytes: number;
}

/** Stands in for a connection: `prepare(sql).run(…)` records the run instead of running it. */
export class StatementRecorder {
  private readonly sql: string[] = [];
  private readonly index = new Map<string, number>();
  private readonly runs: number[] = [];
  private readonly params: unknown[] = [];
  private bytes: Uint8Array;
  private used: number;
  private readonly base: Uint8Array;

  /** `bytes`: the chunk's bytes, which byte parameters are views of (handed over with the recording). */
  constructor(bytes: Uint8Array = new Uint8Array(0)) {
    // A buffer of its own (never a slice of Node's shared pool), to be transferred.
    this.base = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice();
    this.bytes = this.base;
    this.used = bytes.length;
  }

  prepare(sql: string): { run(...params: unknown[]): void } {
    let k = this.index.get(sql);
    if (k === undefined) {
      k = this.sql.push(sql) - 1;
      this.index.set(sql, k);
    }
    const statement = k;
    return {
      run: (...args: unknown[]) => {
        // better-sqlite3 binds an array argument as the positional parameters.
        const values = args.length === 1 && Array.isArray(args[0]) ? (args[0] as unknown[]) : args;
        this.runs.push(statement, values.length);
        for (const v of values) this.params.push(v instanceof Uint8Array ? this.copy(v) : v);
      },
    };
  }

  private copy(v: Uint8Array): BytesAt {
    const at = v.byteOffset - this.base.byteOffset;
    if (v.buffer === this.base.buffer && at >= 0 && at + v.length <= this.base.length) return { at, n: v.length };
    if (this.used + v.length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(2 * this.bytes.length, this.used + v.length));
      grown.set(this.bytes.subarray(0, this.used));
      this.bytes = grown;
    }
    this.bytes.set(v, this.used);
    const copied = { at: this.used, n: v.length };
    this.used += v.length;
    return copied;
  }

  /** The recording, and what to transfer with it. */
  take(): { recording: Recording; transfer: ArrayBuffer[] } {
    const bytes = this.bytes.subarray(0, this.used);
    return {
      recording: { sql: this.sql, runs: Int32Array.from(this.runs), params: this.params, bytes, chunkBytes: this.base.length },
      transfer: [bytes.buffer as ArrayBuffer],
    };
  }
}

/** Runs a recording on `db` (in the caller's transaction), its statements prepared once per connection. */
export function runRecording(db: Database, recording: Recording, prepared: Map<string, Statement>): void {
  const { sql, runs, params, bytes } = recording;
  const statements = sql.map((text) => {
    let st = prepared.get(text);
    if (!st) prepared.set(text, (st = db.prepare(text)));
    return st;
  });
  let p = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const n = runs[r + 1]!;
    const values = new Array<unknown>(n);
    for (let k = 0; k < n; k++) {
      const v = params[p++];
      values[k] =
        v !== null && typeof v === 'object' && 'at' in v
          ? Buffer.from(bytes.buffer, bytes.byteOffset + (v as BytesAt).at, (v as BytesAt).n)
          : v;
    }
    statements[runs[r]!]!.run(values);
  }
}
