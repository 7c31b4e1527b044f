/**
 * The files of a Claude Code 2.x session's subagents, found beside the parent's transcript:
 * `<dir>/<sessionId>.jsonl` has them in `<dir>/<sessionId>/subagents/agent-<id>.jsonl` (with
 * `agent-<id>.meta.json`). The store's import, `ctxscope inspect` and `replay` read them through
 * this (src/core/library/subagent-files.ts attaches them).
 *
 * The parent decides what may be read: `ctxscope serve` imports a file only when it allows it
 * (src/main/host/import-allow.ts), and a parent beside an allowed file must not open a way to
 * read anything else. So a subagent file, once its symlinks are resolved, must be a regular file
 * inside the parent's own (resolved) folder; one that is not is skipped with a warning that does
 * not say where it points.
 */
import { readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { ImportOutcome } from '../../core/import/index';
import { attachSubagentFiles, type SubagentFile, type SubagentFileOptions } from '../../core/library/subagent-files';
import { fileSource } from './file-source';

/** A meta file is a few hundred bytes; anything much bigger is not one. */
const MAX_META_BYTES = 64 << 10;
const AGENT_FILE = /^agent-(.+)\.jsonl$/;
/** Session ids as Claude Code writes them (uuids): nothing that could climb out of a folder. */
const SAFE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

/** `path` resolved, when it is a regular file inside `folder` (resolved, ending with a separator). */
function inside(path: string, folder: string): string | undefined {
  const r = real(path);
  if (r === undefined || !r.startsWith(folder)) return undefined;
  try {
    return statSync(r).isFile() ? r : undefined;
  } catch {
    return undefined;
  }
}

export interface FoundSubagentFiles {
  readonly files: SubagentFile[];
  /** Paths skipped because they resolve outside the parent's folder (or are no regular file). */
  readonly refused: string[];
}

/**
 * The subagent files beside `parentPath`. `sessionId`: the parent's session id, tried as the
 * folder's name when the file's own name (Claude Code names both after the session) has none.
 */
export function findSubagentFiles(parentPath: string, sessionId?: string): FoundSubagentFiles {
  const parent = real(parentPath);
  if (parent === undefined || !parent.endsWith('.jsonl')) return { files: [], refused: [] };
  const dir = dirname(parent);
  const folder = dir.endsWith(sep) ? dir : dir + sep;
  const names = [basename(parent, '.jsonl'), ...(sessionId !== undefined ? [sessionId] : [])].filter(
    (n, i, all) => SAFE_NAME.test(n) && all.indexOf(n) === i,
  );
  for (const name of names) {
    const sub = join(dir, name, 'subagents');
    let entries: string[];
    try {
      entries = readdirSync(sub).sort();
    } catch {
      continue;
    }
    const files: SubagentFile[] = [];
    const refused: string[] = [];
    for (const entry of entries) {
      const m = AGENT_FILE.exec(entry);
      if (!m) continue;
      const path = join(sub, entry);
      const r = inside(path, folder);
      if (r === undefined) {
        refused.push(path);
        continue;
      }
      const metaPath = inside(join(sub, `agent-${m[1]!}.meta.json`), folder);
      let meta: string | undefined;
      try {
        if (metaPath !== undefined && statSync(metaPath).size <= MAX_META_BYTES) meta = readFileSync(metaPath, 'utf8');
      } catch {
        meta = undefined;
      }
      // Read from the resolved path (the one that was checked), named as the user would see it.
      const source = { ...fileSource(r), name: path };
      files.push({ agentId: m[1]!, source, ...(meta !== undefined ? { meta } : {}) });
    }
    return { files, refused };
  }
  return { files: [], refused: [] };
}

/** The outcome of importing `parentPath` with its subagent files attached (Claude Code only). */
export async function withSubagentFiles(
  parentPath: string,
  outcome: ImportOutcome,
  options: SubagentFileOptions = {},
): Promise<ImportOutcome> {
  if (outcome.format !== 'claude-code' || outcome.sessions.length === 0) return outcome;
  const { files, refused } = findSubagentFiles(parentPath, outcome.sessions[0]!.id);
  const attached = await attachSubagentFiles(outcome, files, options);
  if (refused.length === 0) return attached;
  const notes = refused.map((p) => `${p}: not read as a subagent: it is not a regular file inside the folder of ${parentPath}`);
  return { ...attached, warnings: [...attached.warnings, ...notes] };
}
