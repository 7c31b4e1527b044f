/**
 * The agent logs already on this machine (`listLocalLogs`): the session files the agents wrote
 * under their own folders — each format that names one (`localLogs` of its descriptor,
 * core/formats/<format>.ts: Claude Code, Codex, Gemini CLI; import-allow.ts `agentLogRoots`) — plus the files
 * uploaded to `ctxscope serve`, grouped by project and newest first. Nothing else is ever listed:
 * the walk starts at those roots only, never follows a folder link, and a file link counts only
 * when its target is inside the same root (so a link cannot make `serve` list, or import, a file
 * elsewhere). It has to stay quick on a folder of thousands of sessions: one `stat` per file, a
 * small head read only where the project is written inside the file (one per Claude Code project,
 * one per Codex session), and a cap on how many files are listed at all.
 */
import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { agentOf, formatOf } from '../../core/formats/index';
import type { LocalLogs } from '../../core/formats/types';
import type { LocalLogAgent, LocalLogFile, LocalLogGroup, LocalLogsView } from '../../shared/api';
import type { SessionStore } from '../store/sessions';
import { agentLogFormats, agentLogRoots } from './import-allow';
import { uploadsDirFor } from './uploads';

export interface LocalLogRoot {
  readonly agent: LocalLogAgent;
  readonly dir: string;
}

export interface ListOptions {
  /** Sessions stored from a file (by the path it was imported from) and the size it had then. */
  readonly imported: (path: string) => { readonly sessionIds: readonly string[]; readonly size: number } | undefined;
  /** At most this many files are listed (the rest are counted in `truncated`). */
  readonly maxFiles?: number;
}

/** Bytes read from the head of a file to find its project (`"cwd":"…"` comes early in both formats). */
const HEAD_BYTES = 4096;
const MAX_FILES = 20_000;

/** The agent-log roots as import-allow.ts names them (one per format with a log folder, in its order), plus uploads. */
export function localLogRoots(agentRoots: readonly string[], uploadsDir: string | null): LocalLogRoot[] {
  const agents = agentLogFormats().map((f) => f.id);
  const roots: LocalLogRoot[] = agentRoots.slice(0, agents.length).map((dir, i) => ({ agent: agents[i]!, dir }));
  if (uploadsDir) roots.push({ agent: 'upload', dir: uploadsDir });
  return roots;
}

export { decodeClaudeProject } from '../../core/formats/claude-code';

/** The label the view shows for who wrote a file. */
const labelOf = (agent: LocalLogAgent): string => (agent === 'upload' ? 'Uploaded' : agentOf(agent));

const CWD = /"cwd"\s*:\s*"((?:[^"\\]|\\.)*)"/;

/** The `cwd` written in the first HEAD_BYTES of a file, or null. */
function cwdInHead(path: string, buf: Buffer): string | null {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const bytesRead = readSync(fd, buf, 0, HEAD_BYTES, 0);
    const m = CWD.exec(buf.toString('utf8', 0, bytesRead));
    return m ? (JSON.parse(`"${m[1]}"`) as string) : null;
  } catch {
    return null;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

const realSync = (p: string): string | null => {
  try {
    return realpathSync(p);
  } catch {
    return null;
  }
};

interface Found {
  readonly path: string;
  /** Folders between the root and the file. */
  readonly dirs: readonly string[];
  readonly size: number;
  readonly mtime: number;
}

interface Walk {
  readonly root: string;
  readonly maxDepth: number;
  readonly accept: (name: string, dirs: readonly string[]) => boolean;
  readonly budget: { left: number; skipped: number };
}

/**
 * Regular files under `root` (already resolved) down to `maxDepth` folders. Folder links are not
 * followed (no loops, no escapes); a file link counts when its target is a regular file inside the
 * root. One folder is read with synchronous calls (a promise per stat costs more than the stat:
 * 10,000 files took 1.3 s that way), and the walk yields to the event loop between folders so the
 * host keeps answering.
 */
async function walk(w: Walk, dir: string, dirs: readonly string[], out: Found[]): Promise<void> {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  const subdirs: string[] = [];
  for (const e of entries) {
    if (e.isDirectory()) {
      if (dirs.length < w.maxDepth) subdirs.push(e.name);
      continue;
    }
    if (!(e.isFile() || e.isSymbolicLink()) || !w.accept(e.name, dirs)) continue;
    if (w.budget.left <= 0) {
      w.budget.skipped++;
      continue;
    }
    w.budget.left--;
    let target = join(dir, e.name);
    if (e.isSymbolicLink()) {
      const r = realSync(target);
      if (!r || !r.startsWith(w.root + sep)) continue;
      target = r;
    }
    const st = statSync(target, { throwIfNoEntry: false });
    if (st?.isFile()) out.push({ path: target, dirs, size: st.size, mtime: st.mtimeMs });
  }
  for (const d of subdirs.sort()) {
    await new Promise<void>((resolve) => setImmediate(resolve));
    await walk(w, join(dir, d), [...dirs, d], out);
  }
}

/** Uploads to `serve`: uploads/<uuid>-<name>; `.part` is an upload still arriving (src/main/transport/upload.ts). */
const UPLOADS: Pick<LocalLogs, 'maxDepth' | 'accept' | 'project'> = {
  maxDepth: 0,
  accept: (n) => !n.endsWith('.part'),
  project: { by: 'folder' },
};

/** Where an agent keeps its sessions below its root (its format's descriptor says). */
const layoutOf = (agent: LocalLogAgent): Pick<LocalLogs, 'maxDepth' | 'accept' | 'project'> =>
  agent === 'upload' ? UPLOADS : (formatOf(agent)?.localLogs ?? { ...UPLOADS, accept: () => false });

/** Lists every session file under the roots, grouped by project, newest group and file first. */
export async function listLocalLogs(roots: readonly LocalLogRoot[], options: ListOptions): Promise<LocalLogsView> {
  const budget = { left: options.maxFiles ?? MAX_FILES, skipped: 0 };
  const head = Buffer.alloc(HEAD_BYTES);
  const rootViews: LocalLogsView['roots'][number][] = [];
  const groups: LocalLogGroup[] = [];
  for (const { agent, dir } of roots) {
    const root = realSync(dir);
    if (!root) {
      rootViews.push({ agent, label: labelOf(agent), path: dir, exists: false, files: 0 });
      continue;
    }
    const layout = layoutOf(agent);
    const walked: Found[] = [];
    await walk({ root, budget, maxDepth: layout.maxDepth, accept: layout.accept }, root, [], walked);
    // A link to another file of the same root is that file: list it once.
    const seen = new Set<string>();
    const found = walked.filter((f) => !seen.has(f.path) && seen.add(f.path));
    rootViews.push({ agent, label: labelOf(agent), path: dir, exists: true, files: found.length });
    const project = layout.project;
    const byProject = new Map<string, Found[]>();
    for (const f of found) {
      // One folder per project (Claude Code, Gemini CLI), or the cwd written inside each file (Codex).
      const key = project.by === 'folder' && agent !== 'upload' ? f.dirs[0]! : '';
      const list = byProject.get(key) ?? [];
      list.push(f);
      byProject.set(key, list);
    }
    for (const [key, list] of byProject) {
      list.sort((a, b) => b.mtime - a.mtime);
      if (project.by === 'cwd') {
        // One group per cwd; a session without one in its head goes under its date folder.
        const cwds = list.map((f) => cwdInHead(f.path, head));
        const byCwd = new Map<string, Found[]>();
        list.forEach((f, i) => {
          const name = cwds[i] ?? f.dirs.join('/');
          const same = byCwd.get(name) ?? [];
          same.push(f);
          byCwd.set(name, same);
        });
        for (const [name, files] of byCwd) groups.push(groupOf(agent, name, root, files, options));
        continue;
      }
      const name =
        agent === 'upload'
          ? 'Uploaded files'
          : ((project.cwdInHead ? cwdInHead(list[0]!.path, head) : null) ?? (project.decode ? project.decode(key) : key));
      groups.push(groupOf(agent, name, root, list, options));
    }
  }
  return { roots: rootViews, groups: groups.sort((a, b) => b.newest - a.newest), truncated: budget.skipped };
}

function groupOf(agent: LocalLogAgent, project: string, root: string, list: readonly Found[], options: ListOptions): LocalLogGroup {
  const files = list.map((f): LocalLogFile => {
    const stored = options.imported(f.path);
    return {
      path: f.path,
      name:
        agent === 'upload'
          ? basename(f.path).replace(/^[0-9a-f-]{36}-/, '')
          : relative(join(root, ...f.dirs.slice(0, layoutOf(agent).project.by === 'cwd' ? 0 : 1)), f.path),
      size: f.size,
      mtime: f.mtime,
      sessionIds: stored ? [...stored.sessionIds] : [],
      changed: stored !== undefined && stored.size !== f.size,
    };
  });
  return { agent, label: labelOf(agent), project, files, newest: files[0]?.mtime ?? 0 };
}

/** Which listed files are already stored: by the path they were imported from. */
export function importedIn(store: Pick<SessionStore, 'listSessions' | 'latestByPath'>): ListOptions['imported'] {
  const byPath = new Map<string, string[]>();
  for (const r of store.listSessions()) {
    const ids = byPath.get(r.sourcePath) ?? [];
    ids.push(r.id);
    byPath.set(r.sourcePath, ids);
  }
  return (path) => {
    const sessionIds = byPath.get(path);
    return sessionIds ? { sessionIds, size: store.latestByPath(path)?.size ?? -1 } : undefined;
  };
}

/** `listLocalLogs` of a host whose database is `dbPath`: the agents' roots of this environment, and its uploads. */
export function localLogsOf(store: Pick<SessionStore, 'listSessions' | 'latestByPath'>, dbPath: string): Promise<LocalLogsView> {
  return listLocalLogs(localLogRoots(agentLogRoots(), uploadsDirFor(dbPath)), { imported: importedIn(store) });
}
