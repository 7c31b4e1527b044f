/**
 * Bytes [from, to) of a file, read at once (the live tail reads what was appended, the shape check
 * a chunk): fewer bytes when the file is now shorter than `to`, so the caller decides what a file
 * that shrank meanwhile means.
 */
import { closeSync, openSync, readSync } from 'node:fs';

export function readRange(path: string, from: number, to: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, to - from));
  if (buf.length === 0) return buf;
  const fd = openSync(path, 'r');
  try {
    let at = 0;
    while (at < buf.length) {
      const n = readSync(fd, buf, at, buf.length - at, from + at);
      if (n === 0) return buf.subarray(0, at);
      at += n;
    }
  } finally {
    closeSync(fd);
  }
  return buf;
}
