/**
 * The embedded DuckDB (`@duckdb/node-api`, a native module kept external by the builds): an
 * in-memory instance that never fetches an extension (no network traffic unless the user asks),
 * and a helper that appends column arrays in chunks of DuckDB's vector size.
 */
import {
  DuckDBDataChunk,
  DuckDBDoubleType,
  DuckDBDoubleVector,
  DuckDBInstance,
  DuckDBIntegerType,
  DuckDBVarCharType,
  type DuckDBAppender,
  type DuckDBConnection,
  type DuckDBType,
} from '@duckdb/node-api';

export async function openDuck(): Promise<{ instance: DuckDBInstance; connection: DuckDBConnection }> {
  // A bounded engine: the buffers of one flush fit well within it, and a report spills past it.
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    threads: '2',
    memory_limit: '256MB',
  });
  return { instance, connection: await instance.connect() };
}

export type BufferType = 'VARCHAR' | 'DOUBLE' | 'INTEGER';
const TYPES: Record<BufferType, DuckDBType> = {
  VARCHAR: DuckDBVarCharType.instance,
  DOUBLE: DuckDBDoubleType.instance,
  INTEGER: DuckDBIntegerType.instance,
};

/** DuckDB's vector size: a data chunk holds at most this many rows. */
const CHUNK_ROWS = 2048;

export type ColumnValues = ArrayLike<number | string | null>;

/**
 * Appends `count` rows given as one array per column (in the table's column order). A DOUBLE
 * column given as a Float64Array is written straight into the chunk's vector (no array of
 * values per column and chunk); NaN stays NaN there, and the part's SELECT turns it into NULL (src/core/fleet/sql.ts).
 */
export function appendColumns(
  appender: DuckDBAppender,
  types: readonly BufferType[],
  columns: readonly ColumnValues[],
  count: number,
): void {
  const duckTypes = types.map((t) => TYPES[t]);
  for (let at = 0; at < count; at += CHUNK_ROWS) {
    const n = Math.min(CHUNK_ROWS, count - at);
    const chunk = DuckDBDataChunk.create(duckTypes, n);
    for (let c = 0; c < columns.length; c++) {
      const src = columns[c]!;
      if (src instanceof Float64Array && types[c] === 'DOUBLE') {
        const vector = chunk.getColumnVector(c);
        if (vector instanceof DuckDBDoubleVector) {
          for (let i = 0; i < n; i++) vector.setItem(i, src[at + i]!);
          vector.flush();
          continue;
        }
      }
      const values: (number | string | null)[] = new Array<number | string | null>(n);
      for (let i = 0; i < n; i++) {
        const v = src[at + i]!;
        values[i] = typeof v === 'number' && Number.isNaN(v) && types[c] !== 'DOUBLE' ? null : v;
      }
      chunk.setColumnValues(c, values);
    }
    appender.appendDataChunk(chunk);
  }
}
