/**
 * The sessions agents already wrote on this machine (Claude Code, Codex, Gemini CLI) and the files
 * uploaded to `serve`, grouped by project, newest first. One click opens a stored session, or
 * imports the file (the session opens when the import is done). Opened from the session bar, or
 * by the host (Electron's File ▸ Import Agent Logs…).
 */
import { useMemo, useRef, useState } from 'react';
import type { LocalLogGroup } from '../../../shared/api';
import { useAppStore } from '../context';
import { fmtBytes, fmtWhen } from '../model/import-view';
import { useModal } from '../use-modal';

/** The agent's name as the host labels it (the format's descriptor names it), else its id. */
const agentName = (x: { readonly agent: string; readonly label?: string | undefined }): string => x.label ?? x.agent;
/** Files shown per project before "show all" (a project can hold thousands). */
const FIRST = 20;
/** Projects shown before "show all" (a machine can hold hundreds): the page stays light. */
const FIRST_GROUPS = 40;

export function LocalLogsButton() {
  const open = useAppStore((s) => s.setLocalLogsOpen);
  return (
    <button
      data-testid="local-logs-button"
      title="Sessions Claude Code, Codex and Gemini CLI wrote on this machine"
      onClick={() => open(true)}
    >
      Agent logs…
    </button>
  );
}

function Group({ group }: { group: LocalLogGroup }) {
  const openLocalLog = useAppStore((s) => s.openLocalLog);
  const busy = useAppStore((s) => s.importing !== null || s.importProgress !== null);
  const [all, setAll] = useState(false);
  const files = all ? group.files : group.files.slice(0, FIRST);
  return (
    <section className="local-log-group" data-testid="local-log-group" data-agent={group.agent} data-project={group.project}>
      <h3>
        <span className={`agent agent-${group.agent}`}>{agentName(group)}</span> <bdi>{group.project}</bdi>{' '}
        <span className="muted">
          · {group.files.length} {group.files.length === 1 ? 'file' : 'files'} · newest {fmtWhen(group.newest)}
        </span>
      </h3>
      <table>
        <tbody>
          {files.map((f) => {
            const stored = f.sessionIds.length > 0;
            return (
              <tr
                key={f.path}
                data-testid="local-log-file"
                data-name={f.name}
                data-imported={stored ? (f.changed ? 'changed' : 'yes') : 'no'}
              >
                <td className="name" title={f.path}>
                  <bdi>{f.name}</bdi>
                </td>
                <td className="num">{fmtBytes(f.size)}</td>
                <td className="num">{fmtWhen(f.mtime)}</td>
                <td className="ll-state">
                  {stored ? <span className="ll-badge">{f.changed ? 'changed since import' : 'imported'}</span> : null}
                </td>
                <td>
                  <button data-testid="local-log-open" disabled={busy && !(stored && !f.changed)} onClick={() => void openLocalLog(f)}>
                    {stored && !f.changed ? 'Open' : stored ? 'Update' : 'Import'}
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {group.files.length > FIRST && !all ? (
        <button className="link" onClick={() => setAll(true)}>
          show all {group.files.length}
        </button>
      ) : null}
    </section>
  );
}

export function LocalLogsPanel() {
  const open = useAppStore((s) => s.localLogsOpen);
  const view = useAppStore((s) => s.localLogs);
  const error = useAppStore((s) => s.localLogsError);
  const loading = useAppStore((s) => s.localLogsLoading);
  const setOpen = useAppStore((s) => s.setLocalLogsOpen);
  const reload = useAppStore((s) => s.loadLocalLogs);
  const [filter, setFilter] = useState('');
  const dialog = useRef<HTMLDivElement>(null);
  const [allGroups, setAllGroups] = useState(false);
  const needle = filter.trim().toLowerCase();
  const shown = useMemo(() => {
    if (!view) return [];
    if (!needle) return view.groups;
    // A project matches whole; otherwise only its files whose name matches.
    return view.groups.flatMap((g) => {
      if (g.project.toLowerCase().includes(needle) || agentName(g).toLowerCase().includes(needle)) return [g];
      const files = g.files.filter((f) => f.name.toLowerCase().includes(needle));
      return files.length > 0 ? [{ ...g, files }] : [];
    });
  }, [view, needle]);
  // Typing goes to the filter (data-autofocus); Escape closes.
  useModal(open, dialog, () => setOpen(false));
  if (!open) return null;
  return (
    <div className="modal-backdrop" onClick={(e) => e.target === e.currentTarget && setOpen(false)}>
      <div
        ref={dialog}
        className="local-logs"
        role="dialog"
        aria-modal="true"
        aria-labelledby="local-logs-title"
        data-testid="local-logs"
        data-loading={loading ? 'true' : 'false'}
      >
        <header>
          <h2 id="local-logs-title">Agent logs on this machine</h2>
          <input
            data-autofocus
            data-testid="local-logs-filter"
            placeholder="filter: project or file"
            value={filter}
            onChange={(e) => setFilter(e.target.value)}
            aria-label="Filter projects and files"
          />
          <button onClick={() => void reload()} disabled={loading}>
            Refresh
          </button>
          <button data-testid="local-logs-close" onClick={() => setOpen(false)}>
            Close
          </button>
        </header>
        {error ? (
          <p className="warning" role="alert">
            <bdi>{error}</bdi>
          </p>
        ) : null}
        {loading && !view ? <p className="note">Looking…</p> : null}
        <div className="local-logs-body">
          {view && view.groups.length === 0 ? <p className="note">No agent sessions found in the folders below.</p> : null}
          {view && view.groups.length > 0 && shown.length === 0 ? <p className="note">Nothing matches “{filter}”.</p> : null}
          {(allGroups ? shown : shown.slice(0, FIRST_GROUPS)).map((g) => (
            <Group key={`${g.agent}\u0000${g.project}`} group={g} />
          ))}
          {shown.length > FIRST_GROUPS && !allGroups ? (
            <button className="link" onClick={() => setAllGroups(true)}>
              show all {shown.length} projects
            </button>
          ) : null}
        </div>
        {view ? (
          <footer className="muted">
            {view.roots.map((r) => (
              <div key={`${r.agent}${r.path}`}>
                {agentName(r)}: {r.agent === 'upload' && r.path.startsWith('upload:') ? 'kept by this server' : <bdi>{r.path}</bdi>}{' '}
                {r.exists ? `(${r.files} ${r.files === 1 ? 'file' : 'files'})` : '(not found)'}
              </div>
            ))}
            {view.truncated > 0 ? <div className="warning">{view.truncated} more files not listed (the list stops at its cap).</div> : null}
          </footer>
        ) : null}
      </div>
    </div>
  );
}
