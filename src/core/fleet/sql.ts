/**
 * The SQL of the fleet dataset, as text (the engine that runs it lives in src/main/fleet): the
 * buffer tables a run appends to, the SELECT that turns a buffer into a Parquet part file, the
 * views a reader gets, and the queries of `fleet report` — which the app's Fleet view runs too.
 * Column types are chosen for analysis: integers for tokens, doubles for money, timestamps.
 */
import { REGIONS, STEP_STATUSES } from '../replay/types';
import { STEP_NUMBER_COLUMNS } from './rows';

export const FLEET_TABLES = ['sessions', 'steps', 'compressions'] as const;
export type FleetTable = (typeof FLEET_TABLES)[number];

/** One output column: its name, its Parquet/SQL type and the expression over the buffer row. */
interface OutColumn {
  readonly name: string;
  readonly type: string;
  readonly expr: string;
}

const col = (name: string, type: string, expr = name): OutColumn => ({ name, type, expr });
/** A buffered double that stands for a whole number, NULL when NaN or NULL. */
const whole = (name: string, type = 'BIGINT', from = name): OutColumn =>
  col(name, type, `CASE WHEN isnan(${from}) THEN NULL ELSE CAST(round(${from}) AS ${type}) END`);
const money = (name: string, from = name): OutColumn => col(name, 'DOUBLE', `CASE WHEN isnan(${from}) THEN NULL ELSE ${from} END`);
const time = (name: string, from = name): OutColumn => col(name, 'TIMESTAMP', `epoch_ms(CAST(${from} AS BIGINT))`);

/** The sessions buffer: what SessionRow holds, numbers as doubles (NULL where the row has none). */
export const SESSION_BUFFER: readonly (readonly [string, 'VARCHAR' | 'DOUBLE' | 'INTEGER'])[] = [
  ['key', 'INTEGER'],
  ['policy', 'VARCHAR'],
  ['source_path', 'VARCHAR'],
  ['file_hash', 'VARCHAR'],
  ['format', 'VARCHAR'],
  ['agent', 'VARCHAR'],
  ['own_policy', 'VARCHAR'],
  ['session_id', 'VARCHAR'],
  ['parent_session_id', 'VARCHAR'],
  ['model', 'VARCHAR'],
  ['project', 'VARCHAR'],
  ['title', 'VARCHAR'],
  ['started_at', 'DOUBLE'],
  ['ended_at', 'DOUBLE'],
  ['calls', 'DOUBLE'],
  ['turns', 'DOUBLE'],
  ['reported_prompt_tokens', 'DOUBLE'],
  ['reported_output_tokens', 'DOUBLE'],
  ['reported_cache_read_tokens', 'DOUBLE'],
  ['reported_cache_write_tokens', 'DOUBLE'],
  ['reported_cost_usd', 'DOUBLE'],
  ['billed_input_tokens', 'DOUBLE'],
  ['cached_input_tokens', 'DOUBLE'],
  ['cache_write_tokens', 'DOUBLE'],
  ['output_tokens', 'DOUBLE'],
  ['cost_usd', 'DOUBLE'],
  ['compressions', 'DOUBLE'],
  ['tokens_removed', 'DOUBLE'],
  ['peak_tokens', 'DOUBLE'],
  ['forced_finals', 'DOUBLE'],
  ['aborts', 'DOUBLE'],
  ['overflows', 'DOUBLE'],
  ['lost_facts', 'DOUBLE'],
  ['lost_needles', 'DOUBLE'],
  ['settings_hash', 'VARCHAR'],
  ['status', 'VARCHAR'],
  ['error', 'VARCHAR'],
];

export const COMPRESSION_BUFFER: readonly (readonly [string, 'VARCHAR' | 'DOUBLE' | 'INTEGER'])[] = [
  ['key', 'INTEGER'],
  ['call', 'INTEGER'],
  ['kind', 'VARCHAR'],
  ['path', 'VARCHAR'],
  ['strategy', 'VARCHAR'],
  ['tokens_before', 'DOUBLE'],
  ['tokens_after', 'DOUBLE'],
  ['messages_dropped', 'INTEGER'],
  ['messages_masked', 'INTEGER'],
  ['messages_summarised', 'INTEGER'],
  ['facts_lost', 'INTEGER'],
];

/**
 * Step columns are numbers (the other strings of a step are its session's, joined at write time),
 * then the call's key (StepColumns.callKeys).
 */
export const STEP_BUFFER: readonly (readonly [string, 'VARCHAR' | 'DOUBLE' | 'INTEGER'])[] = [
  ...STEP_NUMBER_COLUMNS.map((c) => [c === 'key' ? 'key' : `"${c}"`, c === 'key' ? 'INTEGER' : 'DOUBLE'] as const),
  ['call_key', 'VARCHAR'],
];

export const bufferName = (t: FleetTable): string => `${t}_buf`;

export function createBuffers(): string {
  const table = (name: string, cols: readonly (readonly [string, string])[]) =>
    `CREATE OR REPLACE TEMP TABLE ${name} (${cols.map(([n, t]) => `${n} ${t}`).join(', ')});`;
  return [
    table(bufferName('sessions'), SESSION_BUFFER),
    table(bufferName('steps'), STEP_BUFFER),
    table(bufferName('compressions'), COMPRESSION_BUFFER),
  ].join('\n');
}

/** The Parquet columns of each table (the `policy` partition column is in the path, not in the file). */
export const OUT_COLUMNS: Readonly<Record<FleetTable, readonly OutColumn[]>> = {
  sessions: [
    col('source_path', 'VARCHAR'),
    col('file_hash', 'VARCHAR'),
    col('format', 'VARCHAR'),
    col('agent', 'VARCHAR'),
    col('own_policy', 'VARCHAR'),
    col('session_id', 'VARCHAR'),
    col('parent_session_id', 'VARCHAR'),
    col('model', 'VARCHAR'),
    col('project', 'VARCHAR'),
    col('title', 'VARCHAR'),
    time('started_at'),
    time('ended_at'),
    whole('calls', 'INTEGER'),
    whole('turns', 'INTEGER'),
    whole('reported_prompt_tokens'),
    whole('reported_output_tokens'),
    whole('reported_cache_read_tokens'),
    whole('reported_cache_write_tokens'),
    money('reported_cost_usd'),
    whole('billed_input_tokens'),
    whole('cached_input_tokens'),
    whole('cache_write_tokens'),
    whole('output_tokens'),
    money('cost_usd'),
    whole('compressions', 'INTEGER'),
    whole('tokens_removed'),
    whole('peak_tokens'),
    whole('forced_finals', 'INTEGER'),
    whole('aborts', 'INTEGER'),
    whole('overflows', 'INTEGER'),
    whole('lost_facts', 'INTEGER'),
    whole('lost_needles', 'INTEGER'),
    col('settings_hash', 'VARCHAR'),
    col('status', 'VARCHAR'),
    col('error', 'VARCHAR'),
  ],
  steps: [
    col('source_path', 'VARCHAR', 's.source_path'),
    col('session_id', 'VARCHAR', 's.session_id'),
    whole('call', 'INTEGER', 'b."call"'),
    whole('message_index', 'INTEGER', 'b."message_index"'),
    whole('turn', 'INTEGER', 'b."turn"'),
    ...REGIONS.map((r) => whole(r === 'output' ? 'output_reserve_tokens' : `${r}_tokens`, 'INTEGER', `b."${r}"`)),
    whole('total_tokens', 'INTEGER', 'b."total"'),
    whole('limit_tokens', 'INTEGER', 'b."limit_tokens"'),
    col(
      'trigger_tokens',
      'INTEGER',
      `CASE WHEN isnan(b."trigger_tokens") OR NOT isfinite(b."trigger_tokens") THEN NULL ELSE CAST(round(b."trigger_tokens") AS INTEGER) END`,
    ),
    col(
      'reported_prompt_tokens',
      'INTEGER',
      `CASE WHEN isnan(b."reported_prompt_tokens") THEN NULL ELSE CAST(round(b."reported_prompt_tokens") AS INTEGER) END`,
    ),
    col('status', 'VARCHAR', `[${STEP_STATUSES.map((s) => `'${s}'`).join(', ')}][CAST(b."status" AS INTEGER) + 1]`),
    money('cost_usd', 'b."cost_usd"'),
    whole('cache_read_tokens', 'INTEGER', 'b."cache_read_tokens"'),
    whole('cache_write_tokens', 'INTEGER', 'b."cache_write_tokens"'),
    col('call_key', 'VARCHAR', 'b.call_key'),
  ],
  compressions: [
    col('source_path', 'VARCHAR', 's.source_path'),
    col('session_id', 'VARCHAR', 's.session_id'),
    col('call', 'INTEGER', 'b."call"'),
    col('kind', 'VARCHAR', 'b.kind'),
    col('path', 'VARCHAR', 'b.path'),
    col('strategy', 'VARCHAR', 'b.strategy'),
    whole('tokens_before', 'BIGINT', 'b.tokens_before'),
    whole('tokens_after', 'BIGINT', 'b.tokens_after'),
    col('messages_dropped', 'INTEGER', 'b.messages_dropped'),
    col('messages_masked', 'INTEGER', 'b.messages_masked'),
    col('messages_summarised', 'INTEGER', 'b.messages_summarised'),
    col('facts_lost', 'INTEGER', 'b.facts_lost'),
  ],
};

const q = (s: string): string => `'${s.replace(/'/g, "''")}'`;

/** The SELECT whose result is one policy's part file of `table`, from the buffers. */
export function partSelect(table: FleetTable, policy: string): string {
  const cols = OUT_COLUMNS[table].map((c) => `${c.expr} AS ${c.name}`).join(', ');
  if (table === 'sessions') return `SELECT ${cols} FROM ${bufferName('sessions')} WHERE policy = ${q(policy)} ORDER BY key`;
  const order = table === 'steps' ? 'b.key, b."call"' : 'b.key, b."call"';
  return `SELECT ${cols} FROM ${bufferName(table)} b JOIN ${bufferName('sessions')} s ON s.key = b.key WHERE s.policy = ${q(policy)} ORDER BY ${order}`;
}

/** `COPY (…) TO 'file' (FORMAT parquet)`: one part file. */
export function copyPart(table: FleetTable, policy: string, file: string): string {
  return `COPY (${partSelect(table, policy)}) TO ${q(file)} (FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE 122880)`;
}

/**
 * The view a reader queries: every part file of the table, with `policy` from the hive path.
 * `files` false (no part file yet, e.g. no compressions anywhere): an empty view of the same columns.
 */
export function createView(table: FleetTable, dir: string, files: boolean): string {
  if (!files)
    return `CREATE OR REPLACE VIEW ${table} AS SELECT ${OUT_COLUMNS[table].map((c) => `CAST(NULL AS ${c.type}) AS ${c.name}`).join(', ')}, CAST(NULL AS VARCHAR) AS policy WHERE false`;
  const glob = `${dir.replace(/[\\/]+$/, '')}/${table}/*/*.parquet`;
  return `CREATE OR REPLACE VIEW ${table} AS SELECT * FROM read_parquet(${q(glob)}, hive_partitioning = true, hive_types = {'policy': VARCHAR})`;
}

/** What `fleet report` compares each policy with (docs/fleet.md §Report). */
export interface Baseline {
  /** `--baseline P`: one policy for every session. */
  readonly policy?: string;
  /** The run's policies, in order: where the agent's own is not among them, the first stands in. */
  readonly policies: readonly string[];
}

/** Per session, the policy its savings are measured against. */
function baselineExpr(b: Baseline): string {
  if (b.policy !== undefined) return q(b.policy);
  const list = b.policies.map(q).join(', ');
  return `CASE WHEN own_policy IN (${list}) THEN own_policy ELSE ${q(b.policies[0] ?? '')} END`;
}

export interface ReportQueries {
  readonly perPolicy: string;
  readonly stopped: string;
  readonly differ: string;
  readonly errors: string;
}

/**
 * Per (policy, session), the steps that repeat a call another session holds too: Claude Code's
 * `--resume` and `--continue` start a new file that repeats earlier calls with their keys (message
 * id + request id, as ccusage keys a call; the library's rule, src/core/library/repeated-calls.ts).
 * Each (policy, call_key) counts once — the copy in the session that started first (then by path,
 * session and call) — and every other copy is taken out of its session's cost and counted as
 * skipped. Done at query time: rows are written per file and per shard, apart from each other.
 */
export const REPEATED_CALLS = `(SELECT policy, source_path, session_id, count(*) AS repeated_calls, coalesce(sum(cost_usd), 0) AS repeated_cost
FROM (SELECT st.policy, st.source_path, st.session_id, st.cost_usd,
    row_number() OVER (PARTITION BY st.policy, st.call_key ORDER BY s.started_at NULLS LAST, st.source_path, st.session_id, st."call") AS copy
  FROM steps st JOIN sessions s ON s.policy = st.policy AND s.source_path = st.source_path AND s.session_id = st.session_id
  WHERE st.call_key IS NOT NULL AND s.status = 'ok')
WHERE copy > 1 GROUP BY policy, source_path, session_id)`;

/** The report's queries: the same text for `fleet report`, the app's Fleet view and the docs. */
export function reportQueries(b: Baseline): ReportQueries {
  const ok = `(SELECT s.* EXCLUDE (cost_usd), s.cost_usd - coalesce(r.repeated_cost, 0) AS cost_usd, coalesce(r.repeated_calls, 0) AS repeated_calls
FROM sessions s LEFT JOIN ${REPEATED_CALLS} r ON r.policy = s.policy AND r.source_path = s.source_path AND r.session_id = s.session_id
WHERE s.status = 'ok')`;
  const base = `(SELECT source_path, session_id, cost_usd AS base_cost FROM ${ok} WHERE policy = ${baselineExpr(b)})`;
  return {
    perPolicy: `SELECT o.policy,
  count(*) AS sessions,
  sum(o.cost_usd) AS total_cost,
  median(o.cost_usd) AS median_cost,
  sum(b.base_cost) AS baseline_cost,
  sum(b.base_cost) - sum(o.cost_usd) FILTER (WHERE b.base_cost IS NOT NULL) AS savings,
  (sum(b.base_cost) - sum(o.cost_usd) FILTER (WHERE b.base_cost IS NOT NULL)) / nullif(sum(b.base_cost), 0) AS savings_ratio,
  sum(o.compressions) AS compressions,
  count(*) FILTER (WHERE o.forced_finals > 0) AS sessions_forced_final,
  count(*) FILTER (WHERE o.aborts > 0) AS sessions_aborted,
  count(*) FILTER (WHERE o.overflows > 0) AS sessions_overflowed,
  median(o.lost_facts) AS lost_facts_median,
  quantile_cont(o.lost_facts, 0.9) AS lost_facts_p90,
  sum(o.lost_needles) AS lost_needles,
  sum(o.repeated_calls) AS skipped_calls
FROM ${ok} o LEFT JOIN ${base} b ON b.source_path = o.source_path AND b.session_id = o.session_id
GROUP BY o.policy ORDER BY o.policy`,
    stopped: `SELECT policy, source_path, session_id, title, forced_finals, aborts, overflows FROM ${ok}
WHERE forced_finals > 0 OR aborts > 0 OR overflows > 0 ORDER BY policy, aborts DESC, overflows DESC, forced_finals DESC, source_path, session_id LIMIT 100`,
    differ: `SELECT source_path, session_id, any_value(title) AS title,
  max(cost_usd) - min(cost_usd) AS cost_spread,
  arg_min(policy, cost_usd) AS cheapest, min(cost_usd) AS cheapest_cost,
  arg_max(policy, cost_usd) AS dearest, max(cost_usd) AS dearest_cost,
  max(lost_facts) - min(lost_facts) AS lost_facts_spread
FROM ${ok} GROUP BY source_path, session_id HAVING count(*) > 1
ORDER BY cost_spread DESC, lost_facts_spread DESC, source_path, session_id LIMIT 10`,
    errors: `SELECT policy, count(*) AS errors, any_value(source_path) AS example, any_value(error) AS message FROM sessions WHERE status = 'error' GROUP BY policy ORDER BY policy`,
  };
}

/** The Fleet view's per-session table and charts (the same `sessions` view the report reads). */
export const VIEW_QUERIES = {
  sessions: `SELECT policy, source_path, session_id, title, format, model, calls, cost_usd, billed_input_tokens, cached_input_tokens, compressions, lost_facts, lost_needles, peak_tokens, forced_finals, aborts, overflows, status, error
FROM sessions ORDER BY source_path, session_id, policy LIMIT 5000`,
  compressionsHistogram: `SELECT policy, compressions AS value, count(*) AS sessions FROM sessions WHERE status = 'ok' GROUP BY ALL ORDER BY policy, value`,
  lostFactsHistogram: `SELECT policy, lost_facts AS value, count(*) AS sessions FROM sessions WHERE status = 'ok' GROUP BY ALL ORDER BY policy, value`,
} as const;

/** True for a statement `fleet query` accepts: exactly one, and a SELECT (the engine says which; see src/main/fleet/dataset.ts). */
export const QUERY_REFUSAL = 'fleet query runs one read-only SELECT (or WITH … SELECT) over the views sessions, steps and compressions';
