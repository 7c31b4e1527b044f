/**
 * Shared by the CLI commands: read one transcript file (streamed) into sessions, with the
 * CLI's error semantics (a missing file is a usage error, a broken one is bad input, exit 3).
 */
import { existsSync, statSync } from 'node:fs';
import { IMPORTERS, importSource, type ImportOutcome } from '../core/import/index';
import type { FormatId, Session } from '../core/model';
import { fileSource } from '../main/io/file-source';
import { collectGarbage } from '../main/store/collect-garbage';
import { withSubagentFiles } from '../main/io/subagent-files';
import { compilePattern, PatternError } from '../core/pattern';
import { CliError, EXIT } from './errors';

/**
 * A transcript must be a regular file: reading a FIFO, a device or a socket would block forever
 * (or never end). Exit 3 (bad input) with what the path is instead.
 */
export function checkRegularFile(path: string): void {
  const st = statSync(path);
  if (st.isFile()) return;
  const what = st.isFIFO()
    ? 'a FIFO (named pipe)'
    : st.isCharacterDevice() || st.isBlockDevice()
      ? 'a device'
      : st.isSocket()
        ? 'a socket'
        : st.isDirectory()
          ? 'a directory'
          : 'not a regular file';
  throw new CliError(`${path}: is ${what}; expected a regular transcript file`, EXIT.badInput);
}

export function checkFormat(format: string | undefined): FormatId | undefined {
  if (format === undefined) return undefined;
  const known = IMPORTERS.map((i) => i.id);
  if (!known.includes(format as FormatId)) throw new CliError(`--format: expected one of ${known.join(', ')}, got "${format}"`, EXIT.usage);
  return format as FormatId;
}

export async function loadFile(
  path: string,
  format?: string,
  onProgress?: (bytes: number) => void,
  tolerant = false,
): Promise<ImportOutcome> {
  if (!existsSync(path)) throw new CliError(`${path}: no such file`, EXIT.usage);
  if (statSync(path).isDirectory()) throw new CliError(`${path}: is a directory (expected a transcript file)`, EXIT.usage);
  checkRegularFile(path);
  const outcome = await importSource(fileSource(path), {
    format: checkFormat(format),
    keepRaw: false,
    tolerant,
    onProgress: onProgress ? (p) => onProgress(p.bytes) : undefined,
    onPhaseEnd: collectGarbage,
  });
  // A Claude Code 2.x session's subagents are files beside it: counted as the app counts them.
  return withSubagentFiles(path, outcome, { keepRaw: false, tolerant });
}

/** How many subagents a session spawned, and how to replay one (`inspect` and `replay` say it alike). */
export function subagentLine(s: Session): string {
  return `subagents: ${s.subagents.length} (each in a window of its own; replay one with --session ${s.subagents[0]?.id ?? 'ID'})\n`;
}

/** A subagent (at any depth) by its session id: it replays like any session. */
function subagentById(sessions: readonly Session[], id: string): Session | undefined {
  for (const s of sessions) {
    const found = s.subagents.find((x) => x.id === id) ?? subagentById(s.subagents, id);
    if (found) return found;
  }
  return undefined;
}

/** `--session ID|N`: a session (or a subagent) by id, or by 1-based position in the file; default the first. */
export function pickSession(sessions: readonly Session[], which: string | undefined, file: string): Session {
  if (sessions.length === 0) throw new CliError(`${file}: no sessions found`, EXIT.badInput);
  if (which === undefined) return sessions[0]!;
  const byId = sessions.find((s) => s.id === which) ?? subagentById(sessions, which);
  if (byId) return byId;
  const n = Number(which);
  if (Number.isInteger(n) && n >= 1 && n <= sessions.length) return sessions[n - 1]!;
  throw new CliError(`--session: expected a session id or a number 1-${sessions.length}, got "${which}"`, EXIT.usage);
}

/** `--needle` syntax, checked before the replay runs (linear-time RE2 patterns, src/core/pattern.ts). */
export function checkNeedles(specs: readonly string[]): void {
  for (const spec of specs) {
    try {
      compilePattern(spec, 'needle');
    } catch (e) {
      if (e instanceof PatternError) throw new CliError(`--needle: ${e.message}`, EXIT.usage);
      throw e;
    }
  }
}
