/**
 * v4: messages move to an ordinary rowid table. A message row (normalised body + raw source
 * record) is ~1 KB or more; in a WITHOUT ROWID table such rows spill into overflow pages, which
 * made a bulk import's inserts and its commit about twice as slow. Same columns, same key.
 */
export const version = 4;
export const sql = `
CREATE TABLE messages_v4 (
  session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
  idx INTEGER NOT NULL,
  message_id TEXT NOT NULL,
  role TEXT NOT NULL,
  body TEXT NOT NULL,
  raw TEXT,
  PRIMARY KEY (session_id, idx)
);
INSERT INTO messages_v4 (session_id, idx, message_id, role, body, raw) SELECT session_id, idx, message_id, role, body, raw FROM messages ORDER BY session_id, idx;
DROP TABLE messages;
ALTER TABLE messages_v4 RENAME TO messages;
`;
