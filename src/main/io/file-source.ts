/**
 * The Node adapter that turns a file on disk into the engine's ByteSource: 1 MB chunks read into
 * one buffer, so a JSONL file is never held whole in memory.
 */
import { open } from 'node:fs/promises';
import { statSync } from 'node:fs';
import type { ByteSource } from '../../core/import/types';

const CHUNK_BYTES = 1 << 20;

/**
 * The longest line an import of a file reads: core's MAX_LINE_BYTES (src/core/import/read.ts)
 * unless `CTXSCOPE_MAX_LINE_MB` sets another (a bigger one lets an import pass its memory bound,
 * about 28 bytes a byte of line: docs/limits.md, "Bounds").
 */
export function maxLineBytesFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const mb = Number(env['CTXSCOPE_MAX_LINE_MB']);
  return Number.isFinite(mb) && mb > 0 ? Math.round(mb * 1024 * 1024) : undefined;
}

/**
 * `limit`: read only the first `limit` bytes (an import reads the size it stat'ed, so a file an
 * agent is still appending to is parsed, hashed and stored as the same bytes).
 */
export function fileSource(path: string, limit?: number): ByteSource {
  const size = limit ?? statSync(path).size;
  const maxLineBytes = maxLineBytesFromEnv();
  return {
    name: path,
    size,
    ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    async *chunks() {
      if (limit === 0) return;
      const file = await open(path, 'r');
      try {
        // One buffer per pass, refilled for each chunk (ByteSource.chunks: a chunk is used before
        // the next is asked for). A fresh 1 MB buffer per chunk was freed only by a collection,
        // and V8, busy growing the heap, left ~50 MB of them waiting on a million-line import.
        const buffer = Buffer.allocUnsafeSlow(limit !== undefined ? Math.min(CHUNK_BYTES, limit) : CHUNK_BYTES);
        for (let at = 0; limit === undefined || at < limit;) {
          const want = limit === undefined ? buffer.length : Math.min(buffer.length, limit - at);
          const { bytesRead } = await file.read(buffer, 0, want, at);
          if (bytesRead === 0) break;
          at += bytesRead;
          yield buffer.subarray(0, bytesRead);
        }
      } finally {
        await file.close();
      }
    },
  };
}
