/**
 * v7: probe runs (docs/probe.md §Probe), stored with their session so a probe is shown again
 * without sending anything: the policy and its overrides, the call, the endpoint and model, the
 * settings, and the whole result (each replicate's answer) as JSON. `probe_consents` remembers
 * the endpoints the user agreed to send transcripts to (the app asks once per endpoint).
 */
export const version = 7;
export const sql = `
CREATE TABLE probe_runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  policy TEXT NOT NULL,
  overrides TEXT NOT NULL DEFAULT '{}',
  step INTEGER NOT NULL,
  endpoint TEXT NOT NULL,
  model TEXT NOT NULL,
  settings TEXT NOT NULL,
  result TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX probe_runs_session ON probe_runs(session_id, policy, step);
CREATE TABLE probe_consents (
  endpoint TEXT PRIMARY KEY,
  consented_at INTEGER NOT NULL
);
`;
