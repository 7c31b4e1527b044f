/**
 * v5: the source file's lines, for imports whose raw records are whole lines (JSONL). The
 * import's writer thread stores every line while the parser is still reading the file (it has
 * nothing else to do then), so a message row names its record by line instead of carrying a
 * second copy of it: `messages.raw_line` is the `source_lines` key, `raw` stays for records that
 * are not one line (JSON documents, small imports). The key is source id × 2³² + line number, so
 * one source's lines are one contiguous rowid range and inserting them appends to the table.
 * Lines are never deleted with their source: a grown file's carried-over messages still point at
 * the lines of the import they came from.
 */
export const version = 5;
export const sql = `
CREATE TABLE source_lines (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL
);
ALTER TABLE messages ADD COLUMN raw_line INTEGER;
`;
