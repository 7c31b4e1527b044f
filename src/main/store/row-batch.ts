/**
 * Rows of one table inserted ROWS_PER_INSERT at a time: one statement call per row cost a tenth of
 * an import's time (the writer's bulk path, store/sessions.ts, and the live tail's appends,
 * store/tail-append.ts).
 */
/** What a batch runs: a prepared statement, or one that records its runs for another thread (store/chunk-writer.ts). */
export interface Runnable {
  run(params: unknown[]): unknown;
}

export const ROWS_PER_INSERT = 32;

export class RowBatch {
  private readonly params: unknown[] = [];
  private readonly many: Runnable;
  private readonly one: Runnable;

  /** `head` is the INSERT up to VALUES, `row` one row's placeholders holding `columns` values. */
  constructor(
    prepare: (sql: string) => Runnable,
    head: string,
    row: string,
    private readonly columns: number,
  ) {
    this.one = prepare(head + row);
    this.many = prepare(head + new Array<string>(ROWS_PER_INSERT).fill(row).join(', '));
  }

  add(...values: unknown[]): void {
    for (const v of values) this.params.push(v);
    if (this.params.length >= ROWS_PER_INSERT * this.columns) {
      this.many.run(this.params);
      this.params.length = 0;
    }
  }

  /** Inserts the rows still waiting. */
  flush(): void {
    for (let p = 0; p < this.params.length; p += this.columns) this.one.run(this.params.slice(p, p + this.columns));
    this.params.length = 0;
  }
}
