/**
 * The Node adapter that turns a file on disk into the engine's ByteSource: a read stream in
 * 1 MB chunks, so a JSONL file is never held whole in memory.
 */
import { createReadStream, statSync } from 'node:fs';
import type { ByteSource } from '../../core/import/types';

const CHUNK_BYTES = 1 << 20;

export function fileSource(path: string): ByteSource {
  const size = statSync(path).size;
  return {
    name: path,
    size,
    async *chunks() {
      const stream = createReadStream(path, { highWaterMark: CHUNK_BYTES });
      for await (const chunk of stream) yield chunk as Buffer;
    },
  };
}
