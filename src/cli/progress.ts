/** A one-line progress bar on stderr, only when stderr is a terminal (never in pipes or CI logs). */
import { escapeControls, writeRaw } from './terminal';

let lastDraw = 0;

export function progressLine(label: string, bytes: number, total: number, startedMs: number, final = false): void {
  if (!process.stderr.isTTY) return;
  const now = performance.now();
  if (!final && now - lastDraw < 100) return;
  lastDraw = now;
  if (final) {
    writeRaw(process.stderr, '\r\x1b[K');
    return;
  }
  const frac = total > 0 ? Math.min(1, bytes / total) : 0;
  const width = 24;
  const filled = Math.round(frac * width);
  const rate = bytes / Math.max(0.001, (now - startedMs) / 1000);
  const eta = rate > 0 ? (total - bytes) / rate : 0;
  const name = escapeControls(label.length > 40 ? '…' + label.slice(-39) : label, true);
  writeRaw(
    process.stderr,
    `\r\x1b[K${name} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${(frac * 100).toFixed(0)}% ${(rate / 1e6).toFixed(1)} MB/s ETA ${eta.toFixed(0)}s`,
  );
}
