/**
 * One cold SQLite FTS5 query (CommonJS: no ES module loader, like `episteme query`): `node fts5-query.cjs DB TERM`.
 * Opens the prebuilt database and prints the top 10 with snippets and citations.
 */
import Database from 'better-sqlite3';

const [file, term] = process.argv.slice(2);
const db = new Database(file!, { readonly: true });
const words = term!.match(/[\p{L}\p{N}]+/gu) ?? [];
const rows = db
  .prepare(
    "SELECT chunk_id, snippet(chunks, 1, '', '', '…', 40) AS snippet, citation, bm25(chunks) AS score " +
      'FROM chunks WHERE chunks MATCH ? ORDER BY bm25(chunks) LIMIT 10',
  )
  .all(words.map((word) => `"${word}"`).join(' OR '));
process.stdout.write(JSON.stringify(rows) + '\n');
