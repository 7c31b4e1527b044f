/**
 * The Node adapter that turns a file on disk into the engine's ByteSource: a read stream in
 * 1 MB chunks, so a JSONL file is never held whole in memory.
 */
import { createReadStream, statSync } from 'node:fs';
import type { ByteSource } from '../../core/import/types';

const CHUNK_BYTES = 1 << 20;

/**
 * `limit`: read only the first `limit` bytes (an import reads the size it stat'ed, so a file an
 * agent is still appending to is parsed, hashed and stored as the same bytes).
 */
export function fileSource(path: string, limit?: number): ByteSource {
  const size = limit ?? statSync(path).size;
  return {
    name: path,
    size,
    async *chunks() {
      if (limit === 0) return;
      const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES, ...(limit !== undefined ? { end: limit - 1 } : {}) });
      for await (const chunk of stream) yield chunk as Buffer;
    },
  };
}
