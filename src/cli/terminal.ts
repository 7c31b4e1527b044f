/**
 * Terminal safety. Titles, file names, reasons and error messages come from transcripts, which
 * anyone can write: printed raw, an ESC sequence in a title can clear the screen, set the window
 * title, plant an OSC 8 link or rewrite earlier lines, and bidi controls can reorder what a line
 * appears to say; the Unicode line and paragraph separators (U+2028, U+2029) break a line where the
 * reader sees none. Every string the CLI prints goes through `escapeControls`: C0 controls (except
 * newline and tab), DEL, C1 controls (NEL among them), the line and paragraph separators and the
 * Unicode bidi controls become visible `\uXXXX`
 * escapes — in JSON output that is the same string, so `--json` stays valid and lossless.
 * `installOutputGuard` applies it to everything written to stdout and stderr; the few writers
 * that send control sequences on purpose (the progress bar) or raw data to a file-like stdout
 * (`export` without -o) use `writeRaw`.
 */

// C0 except \t and \n, DEL, C1, ALM, LRM/RLM, LINE and PARAGRAPH SEPARATOR, LRE..RLO, LRI..PDI.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
// eslint-disable-next-line no-control-regex
const CONTROLS_AND_NEWLINES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

const escapeOne = (c: string): string => '\\u' + c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');

/** Control and bidi characters as visible `\uXXXX`; newlines and tabs kept unless `oneLine`. */
export function escapeControls(text: string, oneLine = false): string {
  return text.replace(oneLine ? CONTROLS_AND_NEWLINES : CONTROLS, escapeOne);
}

type Write = typeof process.stdout.write;
const originals = new Map<NodeJS.WriteStream, Write>();

/** Writes without escaping: for deliberate control sequences and for exported data. */
export function writeRaw(stream: NodeJS.WriteStream, text: string): boolean {
  const write = originals.get(stream) ?? stream.write;
  return write.call(stream, text);
}

/** From now on, strings written to stdout and stderr are escaped (see the header). */
export function installOutputGuard(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (originals.has(stream)) continue;
    const original = stream.write;
    originals.set(stream, original);
    stream.write = function guarded(this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      const safe = typeof chunk === 'string' ? escapeControls(chunk) : chunk;
      return (original as (...args: unknown[]) => boolean).call(this, safe, ...rest);
    } as Write;
  }
}
