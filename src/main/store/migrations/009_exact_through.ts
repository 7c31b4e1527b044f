/**
 * v9: how many leading messages a session's stored counts counted exactly (`exact_through`). A
 * live-tail append keeps the exact counts of the messages it did not rewrite and estimates the
 * rest (store/tail-append.ts `extendCounts`); the recount that follows then counts only the
 * messages from there on (count/incremental.ts) instead of the whole session again. NULL: every
 * message was counted (a whole count, or counts stored before v9).
 */
export const version = 9;
export const sql = `
ALTER TABLE token_counts ADD COLUMN exact_through INTEGER;
`;
