/** v1: where sessions come from, the sessions, and their normalised messages (with the raw source record). */
export const version = 1;
export const sql = `
CREATE TABLE sources (
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL,
  size INTEGER NOT NULL,
  hash TEXT NOT NULL,
  format TEXT NOT NULL,
  imported_at INTEGER NOT NULL
);
CREATE UNIQUE INDEX sources_hash ON sources(hash);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY,
  source_id INTEGER NOT NULL REFERENCES sources(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  source_session_id TEXT NOT NULL,
  format TEXT NOT NULL,
  title TEXT,
  model TEXT,
  meta TEXT NOT NULL,
  message_count INTEGER NOT NULL,
  step_count INTEGER NOT NULL,
  turn_count INTEGER NOT NULL,
  has_usage INTEGER NOT NULL,
  started_at INTEGER,
  imported_at INTEGER NOT NULL
);
CREATE INDEX sessions_source ON sessions(source_id);
CREATE TABLE messages (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  body TEXT NOT NULL,
  raw TEXT,
  PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
`;
