/**
 * The library's rows: search, sort and the parent → subagent nesting, as one pure function of the
 * session list (unit-tested). Sorting orders top-level sessions; a session's subagents stay under
 * it in spawn order. A search matches a session by its title, project, agent, format, model or
 * file; a subagent that matches brings its parent along, opened.
 */
import type { SessionSummary } from '../../../shared/api';

export const LIBRARY_COLUMNS = ['title', 'project', 'agent', 'model', 'calls', 'tokens', 'cost', 'compactions', 'date', 'size'] as const;
export type LibraryColumn = (typeof LIBRARY_COLUMNS)[number];
export interface LibrarySort {
  readonly column: LibraryColumn;
  /** 1 ascending, -1 descending. */
  readonly dir: 1 | -1;
}

export interface LibraryRow {
  readonly session: SessionSummary;
  /** 0 for a session, 1 for a subagent under it. */
  readonly depth: number;
  readonly children: number;
  readonly expanded: boolean;
}

/** The project a session belongs to: its cwd, else the folder of its file. */
export function projectOf(s: SessionSummary): string {
  if (s.cwd) return s.cwd;
  const p = s.sourcePath ?? '';
  const cut = Math.max(p.lastIndexOf('/'), p.lastIndexOf('\\'));
  return cut > 0 ? p.slice(0, cut) : '';
}

/** Reported tokens, prompt and output. */
export const tokensOf = (s: SessionSummary): number => s.promptTokens + s.outputTokens;

/** When it happened: the first timestamp the session has, else when it was imported. */
export const dateOf = (s: SessionSummary): number => s.startedAt ?? s.endedAt ?? s.importedAt;

function key(s: SessionSummary, c: LibraryColumn): string | number {
  switch (c) {
    case 'title':
      return s.title.toLowerCase();
    case 'project':
      return projectOf(s).toLowerCase();
    case 'agent':
      return `${s.agent} ${s.format}`.toLowerCase();
    case 'model':
      return (s.model ?? '').toLowerCase();
    case 'calls':
      return s.steps;
    case 'tokens':
      return tokensOf(s);
    case 'cost':
      // Unknown cost sorts below every known one.
      return s.cost ?? -1;
    case 'compactions':
      return s.sourceCompactions;
    case 'date':
      return dateOf(s);
    case 'size':
      return s.fileSize;
  }
}

function matches(s: SessionSummary, words: readonly string[]): boolean {
  if (words.length === 0) return true;
  const hay = `${s.title} ${projectOf(s)} ${s.agent} ${s.format} ${s.model ?? ''} ${s.sourcePath ?? ''}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export function libraryRows(
  sessions: readonly SessionSummary[],
  query: string,
  sort: LibrarySort,
  expanded: ReadonlySet<string>,
): LibraryRow[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== '');
  const children = new Map<string, SessionSummary[]>();
  const top: SessionSummary[] = [];
  const ids = new Set(sessions.map((s) => s.id));
  for (const s of sessions) {
    // A subagent whose parent is not listed (should not happen) is shown on its own.
    if (s.parentId !== null && ids.has(s.parentId)) {
      let list = children.get(s.parentId);
      if (!list) children.set(s.parentId, (list = []));
      list.push(s);
    } else top.push(s);
  }
  const shown: { s: SessionSummary; kids: SessionSummary[]; open: boolean }[] = [];
  for (const s of top) {
    const kids = children.get(s.id) ?? [];
    const selfMatch = matches(s, words);
    const kidMatches = words.length > 0 ? kids.filter((k) => matches(k, words)) : [];
    if (!selfMatch && kidMatches.length === 0) continue;
    const open = expanded.has(s.id) || kidMatches.length > 0;
    shown.push({ s, kids: selfMatch || words.length === 0 ? kids : kidMatches, open });
  }
  shown.sort((a, b) => {
    const x = key(a.s, sort.column);
    const y = key(b.s, sort.column);
    const c = x < y ? -1 : x > y ? 1 : 0;
    // Ties keep the host's order (import order): a stable sort does that.
    return c * sort.dir;
  });
  const rows: LibraryRow[] = [];
  for (const { s, kids, open } of shown) {
    rows.push({ session: s, depth: 0, children: kids.length, expanded: open && kids.length > 0 });
    if (open) for (const k of kids) rows.push({ session: k, depth: 1, children: 0, expanded: false });
  }
  return rows;
}
