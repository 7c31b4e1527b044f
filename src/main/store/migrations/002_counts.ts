/**
 * v2: token counts per (session, tokenizer) — one row per message, with a covering index so
 * loading counts reads only numbers, never the text — and provider-reported usage per call.
 */
export const version = 2;
export const sql = `
CREATE TABLE token_counts (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tokenizer TEXT NOT NULL,
  idx INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  PRIMARY KEY (session_id, tokenizer, idx)
) WITHOUT ROWID;
CREATE TABLE count_totals (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tokenizer TEXT NOT NULL,
  system INTEGER NOT NULL,
  tools INTEGER NOT NULL,
  unlogged INTEGER NOT NULL,
  approximate INTEGER NOT NULL,
  PRIMARY KEY (session_id, tokenizer)
) WITHOUT ROWID;
CREATE TABLE usage (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  convention TEXT NOT NULL,
  input INTEGER NOT NULL,
  cache_read INTEGER NOT NULL,
  cache_write INTEGER NOT NULL,
  output INTEGER NOT NULL,
  reasoning INTEGER,
  PRIMARY KEY (session_id, idx)
) WITHOUT ROWID;
`;
