/**
 * What `ctxscope serve` may read through `importFiles`. The HTTP API is reachable by anything
 * that holds the page's token, so it must not become a way to read (or to probe for) any file the
 * user can read: only the files named on serve's command line, uploads, and the agent-log roots
 * (Claude Code, Codex, Gemini CLI) are importable. Paths are compared after resolving symlinks,
 * so a link inside an allowed root cannot point outside it; only regular files qualify (a FIFO
 * would block the import). Every refusal answers the same sentence, so the answer reveals
 * nothing about whether a path exists. The Electron app's importFiles takes paths from the user's
 * own file picker and is not restricted.
 */
import { realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, sep } from 'node:path';
import { localLogFormats } from '../../core/formats/index';
import { ApiError } from '../../shared/api';

export const REFUSED_IMPORT =
  'this server imports only the files named on its command line, uploaded files, and agent logs (Claude Code, Codex and Gemini CLI folders)';

/**
 * The formats whose agents keep their sessions in a folder of their own (core/formats: `localLogs`),
 * by agent name: Claude Code (`~/.claude/projects` or $CLAUDE_CONFIG_DIR/projects), Codex
 * (`~/.codex/sessions` or $CODEX_HOME/sessions), Gemini CLI (`~/.gemini/tmp`).
 */
export const agentLogFormats = (): ReturnType<typeof localLogFormats>[number][] =>
  [...localLogFormats()].sort((a, b) => a.agent.localeCompare(b.agent));

/** The agent-log folders, one per format of agentLogFormats, in its order. */
export function agentLogRoots(env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string[] {
  return agentLogFormats().map(({ localLogs: l }) => join((l.env !== undefined && env[l.env]) || join(home, ...l.home), ...l.below));
}

const real = (path: string): string | undefined => {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
};

export class ImportAllowList {
  private readonly files = new Set<string>();
  private readonly roots = new Set<string>();

  /** Allows one file (serve's arguments; the uploads hook: call this with the stored upload's path). */
  allowFile(path: string): void {
    const r = real(path);
    if (r) this.files.add(r);
  }

  /** Folders named before they existed (an agent installed after serve started): resolved when asked. */
  private readonly laterRoots = new Set<string>();

  /** Allows every regular file under a folder (agent-log roots). A folder that does not exist yet counts once it does. */
  allowRoot(dir: string): void {
    const r = real(dir);
    if (r) this.roots.add(r.endsWith(sep) ? r : r + sep);
    else this.laterRoots.add(dir);
  }

  /** True when `path` is an allowed regular file. */
  allows(path: string): boolean {
    for (const dir of this.laterRoots) {
      if (real(dir) === undefined) continue;
      this.laterRoots.delete(dir);
      this.allowRoot(dir);
    }
    const r = real(path);
    if (!r) return false;
    if (!this.files.has(r) && ![...this.roots].some((root) => r.startsWith(root))) return false;
    try {
      return statSync(r).isFile();
    } catch {
      return false;
    }
  }

  /** The paths, or one bad_input error (the same text for every refused path). */
  check(paths: readonly string[]): string[] {
    for (const p of paths) if (!this.allows(p)) throw new ApiError('bad_input', REFUSED_IMPORT);
    return paths.map((p) => real(p)!);
  }
}
