/**
 * The session library [`library`]: every stored session in a virtualised table — searchable,
 * sortable by any column (click a header; again reverses), subagents nested under their parent
 * (expand / collapse), a click opens a session, and delete asks first with what will go (its
 * messages, calls, subagents and cached results). Escape closes it (or the confirmation first).
 * Titles, projects and models come from transcripts: shown as text, isolated for bidi.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef } from 'react';
import type { SessionSummary } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtInt, fmtTokens } from '../format';
import { dateOf, LIBRARY_COLUMNS, libraryRows, projectOf, tokensOf, type LibraryColumn } from '../model/library-rows';
import { libraryTotals } from '../model/library-totals';
import { useModal } from '../use-modal';
import './library.css';

const ROW_HEIGHT = 26;
const LABELS: Record<LibraryColumn, string> = {
  title: 'Title',
  project: 'Project / cwd',
  agent: 'Agent · format',
  model: 'Model',
  calls: 'Calls',
  tokens: 'Tokens (reported, with cache)',
  cost: 'Cost (reported)',
  compactions: 'Compactions',
  date: 'Date',
  size: 'Size',
};
const NUMERIC: ReadonlySet<LibraryColumn> = new Set(['calls', 'tokens', 'cost', 'compactions', 'size']);

export function fmtBytes(n: number): string {
  if (n >= 1 << 30) return `${(n / (1 << 30)).toFixed(1)} GB`;
  if (n >= 1 << 20) return `${(n / (1 << 20)).toFixed(1)} MB`;
  if (n >= 1 << 10) return `${(n / (1 << 10)).toFixed(1)} KB`;
  return `${n} B`;
}

export const fmtCost = (c: number | null): string => (c === null ? '—' : c < 0.01 && c > 0 ? '<$0.01' : `$${c.toFixed(2)}`);
const fmtDate = (ms: number): string => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');

function Cell({ s, column }: { s: SessionSummary; column: LibraryColumn }) {
  switch (column) {
    case 'title':
      return <bdi>{s.title}</bdi>;
    case 'project':
      return <bdi>{projectOf(s)}</bdi>;
    case 'agent':
      return (
        <>
          {s.agent} <span className="muted">· {s.format}</span>
        </>
      );
    case 'model':
      return <bdi>{s.model ?? '—'}</bdi>;
    case 'calls':
      return <>{fmtInt(s.steps)}</>;
    case 'tokens':
      return (
        <span
          title={
            s.reportedUsage
              ? `${fmtInt(s.promptTokens)} prompt + ${fmtInt(s.outputTokens)} output, as the provider reported`
              : 'the transcript reports no usage'
          }
        >
          {s.reportedUsage ? fmtTokens(tokensOf(s)) : '—'}
        </span>
      );
    case 'cost':
      return (
        <span
          title={
            s.cost === null
              ? 'no reported usage, or no price for the model'
              : 'reported usage at the model catalog prices (or the source’s own cost)'
          }
        >
          {fmtCost(s.cost)}
        </span>
      );
    case 'compactions':
      return <>{s.sourceCompactions > 0 ? fmtInt(s.sourceCompactions) : ''}</>;
    case 'date':
      return <>{fmtDate(dateOf(s))}</>;
    case 'size':
      return <>{fmtBytes(s.fileSize)}</>;
  }
}

function ConfirmDelete() {
  const doomed = useAppStore((s) => s.pendingDelete);
  const sessions = useAppStore((s) => s.sessions);
  const confirm = useAppStore((s) => s.confirmDelete);
  const cancel = useAppStore((s) => s.cancelDelete);
  const okRef = useRef<HTMLButtonElement>(null);
  useEffect(() => okRef.current?.focus(), [doomed]);
  if (!doomed) return null;
  const kids = sessions.filter((s) => s.parentId === doomed.id);
  const messages = doomed.messages + kids.reduce((n, k) => n + k.messages, 0);
  const calls = doomed.steps + kids.reduce((n, k) => n + k.steps, 0);
  const cached = doomed.cachedResults + kids.reduce((n, k) => n + k.cachedResults, 0);
  return (
    <div className="library-confirm" role="alertdialog" aria-label="Delete session" data-testid="library-confirm-delete">
      <p>
        Delete <bdi className="strong">{doomed.title}</bdi>?
      </p>
      <p data-testid="library-delete-counts">
        {fmtInt(messages)} messages, {fmtInt(calls)} calls
        {kids.length > 0 ? `, ${kids.length} subagent session${kids.length === 1 ? '' : 's'}` : ''} and {fmtInt(cached)} cached result
        {cached === 1 ? '' : 's'} (token counts, replay runs) go from the database. The file on disk stays.
      </p>
      <button ref={okRef} className="danger" data-testid="library-confirm" onClick={() => void confirm()}>
        Delete
      </button>{' '}
      <button data-testid="library-cancel" onClick={cancel}>
        Cancel
      </button>
    </div>
  );
}

export function Library() {
  const open = useAppStore((s) => s.libraryOpen);
  const sessions = useAppStore((s) => s.sessions);
  const query = useAppStore((s) => s.libraryQuery);
  const sort = useAppStore((s) => s.librarySort);
  const expanded = useAppStore((s) => s.libraryExpanded);
  const currentId = useAppStore((s) => s.currentId);
  const pending = useAppStore((s) => s.pendingDelete);
  const lastDeleted = useAppStore((s) => s.lastDeleted);
  const closeLibrary = useAppStore((s) => s.closeLibrary);
  const setLibraryQuery = useAppStore((s) => s.setLibraryQuery);
  const sortLibrary = useAppStore((s) => s.sortLibrary);
  const toggleExpanded = useAppStore((s) => s.toggleExpanded);
  const askDelete = useAppStore((s) => s.askDelete);
  const cancelDelete = useAppStore((s) => s.cancelDelete);
  const openFromLibrary = useAppStore((s) => s.openFromLibrary);
  const rows = useMemo(() => libraryRows(sessions, query, sort, expanded), [sessions, query, sort, expanded]);
  const bodyRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => bodyRef.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 12,
  });
  const dialog = useRef<HTMLDivElement>(null);
  // Escape takes back a delete waiting for its confirmation first, then closes the library.
  useModal(open, dialog, () => (pending ? cancelDelete() : closeLibrary()));
  if (!open) return null;

  const top = sessions.filter((s) => s.parentId === null).length;
  const totals = libraryTotals(sessions);
  return (
    <div className="library-backdrop" onMouseDown={(e) => e.target === e.currentTarget && closeLibrary()}>
      <div ref={dialog} className="library" role="dialog" aria-modal="true" aria-label="Session library" data-testid="library">
        <div className="library-head">
          <strong>Library</strong>
          <input
            data-autofocus
            type="search"
            placeholder="Search title, project, agent, model, file…"
            aria-label="Search sessions"
            data-testid="library-search"
            value={query}
            onChange={(e) => setLibraryQuery(e.target.value)}
          />
          <span className="muted" data-testid="library-count">
            {fmtInt(rows.filter((r) => r.depth === 0).length)} of {fmtInt(top)} sessions
          </span>
          <span className="muted" data-testid="library-totals">
            {fmtInt(totals.calls)} calls · {fmtTokens(totals.promptTokens)} prompt, {fmtTokens(totals.outputTokens)} output tokens ·{' '}
            {fmtCost(totals.cost)}
            {totals.repeatedCalls > 0 ? ` · ${fmtInt(totals.repeatedCalls)} call(s) repeated by resumed sessions counted once` : ''}
          </span>
          {lastDeleted ? (
            <span className="muted" data-testid="library-deleted">
              deleted <bdi>{lastDeleted.title}</bdi>: {fmtInt(lastDeleted.messages)} messages, {fmtInt(lastDeleted.cachedResults)} cached
              results
            </span>
          ) : null}
          <button className="library-close" aria-label="Close the library" onClick={closeLibrary}>
            ✕
          </button>
        </div>
        <div className="library-table" role="table" aria-label="Stored sessions">
          <div className="library-row library-header" role="row">
            <span className="lib-expand" />
            {LIBRARY_COLUMNS.map((c) => (
              <button
                key={c}
                role="columnheader"
                className={`lib-col lib-${c}${NUMERIC.has(c) ? ' num' : ''}`}
                data-testid={`library-sort-${c}`}
                aria-sort={sort.column === c ? (sort.dir === 1 ? 'ascending' : 'descending') : 'none'}
                onClick={() => sortLibrary(c)}
              >
                {LABELS[c]}
                {sort.column === c ? (sort.dir === 1 ? ' ▲' : ' ▼') : ''}
              </button>
            ))}
            <span className="lib-actions" />
          </div>
          <div className="library-body" ref={bodyRef} role="rowgroup">
            {rows.length === 0 ? (
              <p className="note">
                {sessions.length === 0 ? 'No sessions stored yet: open a transcript.' : 'No session matches the search.'}
              </p>
            ) : null}
            <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
              {virtualizer.getVirtualItems().map((item) => {
                const row = rows[item.index]!;
                const s = row.session;
                return (
                  <div
                    key={s.id}
                    role="row"
                    className={`library-row depth-${row.depth}${s.id === currentId ? ' current' : ''}`}
                    data-testid={row.depth === 0 ? 'library-row' : 'library-subagent-row'}
                    data-id={s.id}
                    style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT }}
                    onClick={() => void openFromLibrary(s.id)}
                    tabIndex={0}
                    onKeyDown={(e) => {
                      if (e.key === 'Enter' && e.target === e.currentTarget) void openFromLibrary(s.id);
                    }}
                    title={s.sourcePath ?? ''}
                  >
                    <span className="lib-expand">
                      {row.children > 0 ? (
                        <button
                          className="link"
                          data-testid="library-expand"
                          aria-expanded={row.expanded}
                          aria-label={`${row.expanded ? 'Hide' : 'Show'} ${row.children} subagent session${row.children === 1 ? '' : 's'}`}
                          onClick={(e) => {
                            e.stopPropagation();
                            toggleExpanded(s.id);
                          }}
                        >
                          {row.expanded ? '▾' : '▸'}
                          {row.children}
                        </button>
                      ) : row.depth > 0 ? (
                        <span className="muted">└</span>
                      ) : null}
                    </span>
                    {LIBRARY_COLUMNS.map((c) => (
                      <span key={c} role="cell" className={`lib-col lib-${c}${NUMERIC.has(c) ? ' num' : ''}`} data-col={c}>
                        <Cell s={s} column={c} />
                      </span>
                    ))}
                    <span className="lib-actions">
                      <button
                        className="link"
                        data-testid="library-delete"
                        aria-label={`Delete ${s.title}`}
                        onClick={(e) => {
                          e.stopPropagation();
                          askDelete(s.id);
                        }}
                      >
                        Delete
                      </button>
                    </span>
                  </div>
                );
              })}
            </div>
          </div>
        </div>
        <ConfirmDelete />
      </div>
    </div>
  );
}
