/**
 * v2: token counts per (session, tokenizer) — the per-message counts as one little-endian
 * Uint32 blob, so loading a session's counts reads only numbers, in one row, never the text —
 * and provider-reported usage per call.
 */
export const version = 2;
export const sql = `
CREATE TABLE token_counts (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  tokenizer TEXT NOT NULL,
  counts BLOB NOT NULL,
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
