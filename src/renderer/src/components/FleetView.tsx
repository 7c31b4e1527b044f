/**
 * The Fleet view (docs/fleet.md §In the app): choose sessions (the library with its search, a
 * folder, or the agents' own logs), policies and settings; run with progress and cancel; then the
 * per-policy report, the charts and a sortable per-session table, read from the dataset's Parquet
 * through the queries of `ctxscope fleet report`. Finished runs stay listed by folder and reopen
 * without replaying.
 */
import { useEffect, useMemo, useState } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { useAppStore } from '../context';
import type { FleetSource } from '../slices/fleet';
import { FleetCharts } from './FleetCharts';
import { FleetTable } from './FleetTable';
import './fleet.css';

const SOURCES: readonly [FleetSource, string][] = [
  ['library', 'Library'],
  ['folder', 'Folder'],
  ['logs', 'Agent logs'],
];

function Sources() {
  const s = useAppStore(
    useShallow((x) => ({
      source: x.fleetSource,
      chosen: x.fleetSessions,
      logFiles: x.fleetLogFiles,
      folder: x.fleetFolder,
      sessions: x.sessions,
      localLogs: x.localLogs,
      setFleet: x.setFleet,
      loadLocalLogs: x.loadLocalLogs,
    })),
  );
  const [query, setQuery] = useState('');
  const visible = useMemo(() => {
    const q = query.trim().toLowerCase();
    return s.sessions.filter((x) => !q || `${x.title ?? ''} ${x.sourcePath} ${x.format} ${x.model ?? ''}`.toLowerCase().includes(q));
  }, [s.sessions, query]);
  const { source, loadLocalLogs, localLogs } = s;
  useEffect(() => {
    if (source === 'logs' && !localLogs) void loadLocalLogs();
  }, [source, localLogs, loadLocalLogs]);
  const toggle = (list: readonly string[], v: string, on: boolean) => (on ? [...new Set([...list, v])] : list.filter((x) => x !== v));
  return (
    <section className="fleet-sources">
      <div className="fleet-source-tabs" role="tablist">
        {SOURCES.map(([id, label]) => (
          <button
            key={id}
            role="tab"
            aria-selected={s.source === id}
            data-testid={`fleet-source-${id}`}
            onClick={() => s.setFleet({ fleetSource: id })}
          >
            {label}
          </button>
        ))}
      </div>
      {s.source === 'library' ? (
        <>
          <div className="fleet-row">
            <input
              type="search"
              placeholder="Search the library"
              value={query}
              onChange={(e) => setQuery(e.target.value)}
              data-testid="fleet-search"
            />
            <button onClick={() => s.setFleet({ fleetSessions: [...new Set([...s.chosen, ...visible.map((x) => x.id)])] })}>All</button>
            <button onClick={() => s.setFleet({ fleetSessions: [] })}>None</button>
          </div>
          <ul className="fleet-pick" data-testid="fleet-library">
            {visible.map((x) => (
              <li key={x.id}>
                <label>
                  <input
                    type="checkbox"
                    checked={s.chosen.includes(x.id)}
                    onChange={(e) => s.setFleet({ fleetSessions: toggle(s.chosen, x.id, e.target.checked) })}
                  />{' '}
                  <bdi>{x.title ?? x.sourcePath}</bdi> <span className="muted">{x.format}</span>
                </label>
              </li>
            ))}
          </ul>
          <p className="muted">{s.chosen.length} chosen</p>
        </>
      ) : null}
      {s.source === 'folder' ? (
        <label className="fleet-folder">
          Folder or file (every transcript inside, recursively)
          <input
            type="text"
            value={s.folder}
            placeholder="/path/to/transcripts"
            onChange={(e) => s.setFleet({ fleetFolder: e.target.value })}
            data-testid="fleet-folder"
          />
        </label>
      ) : null}
      {s.source === 'logs' ? (
        <ul className="fleet-pick" data-testid="fleet-logs">
          {(s.localLogs?.groups ?? []).flatMap((g) =>
            g.files.map((f) => (
              <li key={f.path}>
                <label>
                  <input
                    type="checkbox"
                    checked={s.logFiles.includes(f.path)}
                    onChange={(e) => s.setFleet({ fleetLogFiles: toggle(s.logFiles, f.path, e.target.checked) })}
                  />{' '}
                  <bdi>{f.name}</bdi> <span className="muted">{g.agent}</span>
                </label>
              </li>
            )),
          )}
          {s.localLogs && s.localLogs.groups.length === 0 ? <li className="muted">No agent logs on this machine.</li> : null}
        </ul>
      ) : null}
    </section>
  );
}

function Setup() {
  const s = useAppStore(
    useShallow((x) => ({
      policies: x.policies,
      chosen: x.fleetPolicies,
      settings: x.fleetSettings,
      run: x.fleetRun,
      progress: x.fleetProgress,
      setFleet: x.setFleet,
      start: x.startFleet,
      cancel: x.cancelFleet,
    })),
  );
  const p = s.progress;
  const pct = p && p.total > 0 ? Math.round((p.done / p.total) * 100) : 0;
  return (
    <section className="fleet-setup">
      <h3>Policies</h3>
      <div className="fleet-policies" data-testid="fleet-policies">
        {s.policies.map((x) => (
          <label key={x.id} title={x.description}>
            <input
              type="checkbox"
              checked={s.chosen.includes(x.id)}
              data-testid={`fleet-policy-${x.id}`}
              onChange={(e) => s.setFleet({ fleetPolicies: e.target.checked ? [...s.chosen, x.id] : s.chosen.filter((c) => c !== x.id) })}
            />{' '}
            {x.id}
          </label>
        ))}
      </div>
      <h3>Settings (every policy)</h3>
      <textarea
        rows={3}
        placeholder={'key=value, one a line (as --set)\ne.g. window=64000'}
        value={s.settings}
        onChange={(e) => s.setFleet({ fleetSettings: e.target.value })}
        data-testid="fleet-settings"
      />
      <div className="fleet-row">
        <button className="primary" disabled={!!s.run || s.chosen.length === 0} onClick={() => void s.start()} data-testid="fleet-run">
          Run fleet
        </button>
        {s.run ? (
          <button onClick={() => void s.cancel()} data-testid="fleet-cancel">
            Cancel
          </button>
        ) : null}
      </div>
      {p ? (
        <div className="fleet-progress" data-testid="fleet-progress" role="status">
          <progress max={p.total} value={p.done} />
          <span>
            {p.done} of {p.total} transcripts ({pct}%) · {p.rate === null ? '–' : `${p.rate.toFixed(1)}/s`} ·{' '}
            {p.etaMs === null ? '–' : `${Math.ceil(p.etaMs / 1000)} s left`}
            {p.errors > 0 ? ` · ${p.errors} failed` : ''}
            {p.skipped > 0 ? ` · ${p.skipped} already written` : ''}
          </span>
        </div>
      ) : null}
    </section>
  );
}

function Runs() {
  const s = useAppStore(useShallow((x) => ({ runs: x.fleetRuns, open: x.openFleetResults, current: x.fleetResults?.out ?? null })));
  return (
    <section className="fleet-runs">
      <h3>Runs</h3>
      <ul data-testid="fleet-runs">
        {s.runs.map((r) => (
          <li key={r.out} className={r.out === s.current ? 'current' : undefined}>
            <button className="link" disabled={r.running} onClick={() => void s.open(r.out)} title={r.out} data-testid="fleet-run-item">
              {r.name}
            </button>{' '}
            <span className="muted">
              {r.policies.join(', ')} · {r.sessions} rows{r.running ? ' · running' : r.finishedAt ? '' : ' · unfinished'}
            </span>
          </li>
        ))}
        {s.runs.length === 0 ? <li className="muted">No runs yet.</li> : null}
      </ul>
    </section>
  );
}

function PerPolicy() {
  const r = useAppStore((x) => x.fleetResults);
  if (!r) return null;
  const money = (v: unknown) => (v === null || v === undefined ? '–' : `$${Number(v).toFixed(4)}`);
  const pct = (v: unknown) => (v === null || v === undefined ? '–' : `${(Number(v) * 100).toFixed(1)}%`);
  return (
    <table className="fleet-summary" data-testid="fleet-summary">
      <thead>
        <tr>
          <th>policy</th>
          <th>sessions</th>
          <th>total cost</th>
          <th>median cost</th>
          <th>saves vs baseline</th>
          <th>compressions</th>
          <th>forced final</th>
          <th>aborted</th>
          <th title="sessions with at least one call whose request did not fit the window">overflowed</th>
          <th>lost facts median / p90</th>
        </tr>
      </thead>
      <tbody>
        {r.perPolicy.rows.map((row) => (
          <tr key={String(row['policy'])}>
            <td>{String(row['policy'])}</td>
            <td className="num">{String(row['sessions'])}</td>
            <td className="num">{money(row['total_cost'])}</td>
            <td className="num">{money(row['median_cost'])}</td>
            <td className="num">
              {money(row['savings'])} ({pct(row['savings_ratio'])})
            </td>
            <td className="num">{String(row['compressions'] ?? 0)}</td>
            <td className="num">{String(row['sessions_forced_final'])}</td>
            <td className="num">{String(row['sessions_aborted'])}</td>
            <td className="num">{String(row['sessions_overflowed'])}</td>
            <td className="num">
              {String(row['lost_facts_median'] ?? '–')} / {String(row['lost_facts_p90'] ?? '–')}
            </td>
          </tr>
        ))}
      </tbody>
      <caption>
        Baseline: {r.baseline ?? `each session's agent's own policy where it was run, else ${r.policies[0] ?? ''}`}.{' '}
        {r.errors.rows.length > 0 ? `${r.errors.rows.reduce((a, e) => a + Number(e['errors']), 0)} row(s) failed (status error).` : ''}
      </caption>
    </table>
  );
}

export function FleetView() {
  const s = useAppStore(
    useShallow((x) => ({
      open: x.fleetOpen,
      close: x.closeFleet,
      results: x.fleetResults,
      loading: x.fleetLoading,
      error: x.fleetError,
      openRow: x.openFleetRow,
    })),
  );
  if (!s.open) return null;
  return (
    <div className="fleet-backdrop">
      <div className="fleet" role="dialog" aria-modal="true" aria-label="Fleet" data-testid="fleet">
        <div className="fleet-head">
          <strong>Fleet</strong>
          <span className="muted">
            replay many sessions under several policies; the results are Parquet you can query (ctxscope fleet query)
          </span>
          <button className="fleet-close" aria-label="Close the fleet view" onClick={s.close}>
            ×
          </button>
        </div>
        {s.error ? (
          <div className="error-banner" role="alert" data-testid="fleet-error">
            <bdi>{s.error}</bdi>
          </div>
        ) : null}
        <div className="fleet-body">
          <aside className="fleet-left">
            <Sources />
            <Setup />
            <Runs />
          </aside>
          <main className="fleet-main">
            {s.loading ? <p className="muted">Reading the dataset…</p> : null}
            {s.results ? (
              <>
                <p className="muted fleet-out" title={s.results.out}>
                  {s.results.out}
                </p>
                <PerPolicy />
                <FleetCharts results={s.results} />
                <FleetTable table={s.results.sessions} onOpen={(p, id, policy) => void s.openRow(p, id, policy)} />
              </>
            ) : !s.loading ? (
              <p className="muted">Choose sessions and policies, then Run fleet — or open a finished run.</p>
            ) : null}
          </main>
        </div>
        <p className="assumption">
          Replays take the agent's own outputs as unchanged by a different context: every figure rests on that assumption.
        </p>
      </div>
    </div>
  );
}
