/**
 * v6: what the session library lists, stored with each session so that listing 1,000 sessions
 * reads rows and never a session's messages — the title (the agent's, the instance id, or the
 * first prompt), cwd, the agent's own compactions, reported tokens and their cost, when it ended —
 * and subagents as sessions of their own: a child row (`parent_id`) with its messages, counts and
 * pins like any session, plus the tool call in the parent that spawned it (`spawned_by`, at
 * parent message `spawned_at`). Deleting a parent deletes its children (ON DELETE CASCADE).
 *
 * Rows stored before v6 get what SQL can derive from them: cwd and compaction count from the
 * metadata, tokens from the usage rows, a missing title from the first user text or the instance
 * id. Their cost stays unknown (prices live in the model catalog, not in SQL); their subagents
 * stay in the parent's metadata until the parent is first opened (SessionStore.promoteSubagents).
 */
export const version = 6;
export const sql = `
ALTER TABLE sessions ADD COLUMN parent_id TEXT REFERENCES sessions(id) ON DELETE CASCADE;
ALTER TABLE sessions ADD COLUMN spawned_by TEXT;
ALTER TABLE sessions ADD COLUMN spawned_at INTEGER;
ALTER TABLE sessions ADD COLUMN cwd TEXT;
ALTER TABLE sessions ADD COLUMN compactions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN prompt_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE sessions ADD COLUMN cost REAL;
ALTER TABLE sessions ADD COLUMN ended_at INTEGER;
CREATE INDEX sessions_parent ON sessions(parent_id);
UPDATE sessions SET
  cwd = json_extract(meta, '$.cwd'),
  compactions = COALESCE(json_array_length(meta, '$.sourceCompactions'), 0),
  prompt_tokens = COALESCE((SELECT SUM(CASE WHEN u.convention = 'anthropic' THEN u.input + u.cache_read + u.cache_write ELSE u.input END) FROM usage u WHERE u.session_id = sessions.id), 0),
  output_tokens = COALESCE((SELECT SUM(u.output) FROM usage u WHERE u.session_id = sessions.id), 0),
  title = COALESCE(title,
    CASE WHEN format IN ('openhands', 'swe-agent') THEN source_session_id END,
    (SELECT substr(trim(json_extract(m.body, '$.parts[0].text')), 1, 120) FROM messages m
      WHERE m.session_id = sessions.id AND m.role = 'user' AND json_extract(m.body, '$.parts[0].kind') = 'text' ORDER BY m.idx LIMIT 1));
`;
