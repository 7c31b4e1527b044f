/**
 * The Fleet view's per-session table: one row per (session, policy), sortable by any column (a
 * second click reverses). A click opens the session in the debugger under that row's policy. Cells
 * are text (React escapes them): transcript titles are never HTML.
 */
import { useMemo, useState } from 'react';
import type { FleetTable as Table } from '../../../shared/api';

const COLUMNS = [
  ['policy', 'policy'],
  ['title', 'session'],
  ['format', 'format'],
  ['calls', 'calls'],
  ['cost_usd', 'cost'],
  ['compressions', 'compressions'],
  ['lost_facts', 'lost facts'],
  ['peak_tokens', 'peak'],
  ['forced_finals', 'finals'],
  ['aborts', 'aborts'],
  ['overflows', 'overflows'],
  ['status', 'status'],
] as const;
type Column = (typeof COLUMNS)[number][0];

const cell = (c: Column, v: unknown, row: Record<string, unknown>): string => {
  if (v === null || v === undefined) return c === 'title' ? String(row['session_id'] ?? row['source_path'] ?? '') : '–';
  if (c === 'cost_usd') return `$${Number(v).toFixed(4)}`;
  if (typeof v === 'number') return v.toLocaleString('en-US');
  return String(v);
};

export function FleetTable({ table, onOpen }: { table: Table; onOpen: (sourcePath: string, sessionId: string, policy: string) => void }) {
  const [sort, setSort] = useState<{ column: Column; desc: boolean }>({ column: 'cost_usd', desc: true });
  const rows = useMemo(() => {
    const dir = sort.desc ? -1 : 1;
    return [...table.rows].sort((a, b) => {
      const x = a[sort.column] ?? null,
        y = b[sort.column] ?? null;
      if (x === y) return 0;
      if (x === null) return 1;
      if (y === null) return -1;
      return (x < y ? -1 : 1) * dir;
    });
  }, [table, sort]);
  return (
    <div className="fleet-table-wrap">
      <table className="fleet-table" data-testid="fleet-table">
        <thead>
          <tr>
            {COLUMNS.map(([c, label]) => (
              <th key={c} aria-sort={sort.column === c ? (sort.desc ? 'descending' : 'ascending') : 'none'}>
                <button
                  data-testid={`fleet-sort-${c}`}
                  onClick={() =>
                    setSort((s) => ({
                      column: c,
                      desc: s.column === c ? !s.desc : c !== 'policy' && c !== 'title' && c !== 'format' && c !== 'status',
                    }))
                  }
                >
                  {label}
                  {sort.column === c ? (sort.desc ? ' ▼' : ' ▲') : ''}
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr
              key={`${String(r['source_path'])}|${String(r['session_id'])}|${String(r['policy'])}|${i}`}
              data-testid="fleet-row"
              className={r['status'] === 'error' ? 'fleet-error-row' : undefined}
              title={r['status'] === 'error' ? String(r['error'] ?? '') : `${String(r['source_path'])} — open under ${String(r['policy'])}`}
              onClick={() => r['status'] === 'ok' && onOpen(String(r['source_path']), String(r['session_id']), String(r['policy']))}
            >
              {COLUMNS.map(([c]) => (
                <td key={c} className={typeof r[c] === 'number' ? 'num' : undefined}>
                  <bdi>{cell(c, r[c], r)}</bdi>
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
