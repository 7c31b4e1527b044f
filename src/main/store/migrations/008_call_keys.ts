/**
 * v8: each reported call's identity at the provider (`ReportedUsage.callKey`: Claude Code's
 * `message.id` + `requestId`) and its 1-hour cache writes, stored with its usage, so the library's
 * totals count a call that a resumed session repeats once and price the repeat the way the
 * session priced it (docs/cost.md, "Folders of sessions"). Rows stored before v8 have no key: they
 * are counted as before (the library says nothing about them).
 */
export const version = 8;
export const sql = `
ALTER TABLE usage ADD COLUMN call_key TEXT;
ALTER TABLE usage ADD COLUMN cache_write_1h INTEGER;
CREATE INDEX usage_call_key ON usage(call_key) WHERE call_key IS NOT NULL;
`;
