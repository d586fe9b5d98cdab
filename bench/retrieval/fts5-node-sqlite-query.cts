/**
 * One cold SQLite FTS5 query through the runtime's built-in node:sqlite (Node 22.5+; no native module
 * to build), otherwise the same as fts5-query.cts: `node fts5-node-sqlite-query.cjs DB TERM`.
 */
interface Statement {
  all(...parameters: unknown[]): unknown[];
}
interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean }) => { prepare(sql: string): Statement };
}
// @types/node is Node 20's, which has no node:sqlite: typed here.
const { DatabaseSync } = require('node:sqlite') as NodeSqlite;

const [file, term] = process.argv.slice(2);
const db = new DatabaseSync(file!, { readOnly: true });
const words = term!.match(/[\p{L}\p{N}]+/gu) ?? [];
const rows = db
  .prepare(
    "SELECT chunk_id, snippet(chunks, 1, '', '', '…', 40) AS snippet, citation, bm25(chunks) AS score " +
      'FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT 10',
  )
  .all(words.map((word) => `"${word}"`).join(' OR '));
process.stdout.write(JSON.stringify(rows) + '\n');
