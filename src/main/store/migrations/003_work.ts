/** v3: what people make with sessions — saved policies, replay runs, cached summaries, needles, pins. */
export const version = 3;
export const sql = `
CREATE TABLE policies (
  id TEXT PRIMARY KEY,
  label TEXT NOT NULL,
  config TEXT NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE TABLE replay_runs (
  id INTEGER PRIMARY KEY,
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  policy TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  totals TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE INDEX replay_runs_session ON replay_runs(session_id, config_hash);
CREATE TABLE summaries (
  key TEXT PRIMARY KEY,
  summary TEXT NOT NULL,
  created_at INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE needles (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  needle TEXT NOT NULL,
  PRIMARY KEY (session_id, needle)
) WITHOUT ROWID;
CREATE TABLE pins (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  message_id TEXT NOT NULL,
  PRIMARY KEY (session_id, message_id)
) WITHOUT ROWID;
`;
