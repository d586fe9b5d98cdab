/**
 * Relevance on Cranfield 1400: Episteme's own chunker, index and query code (default options, no
 * tuning to this collection) next to MiniSearch, lunr and SQLite FTS5 (porter unicode61), all in
 * the same run over the same text (title + abstract). Reports nDCG@10 (graded, gain = 5 - code),
 * binary nDCG@10 and MAP over the top DEPTH results.
 *
 *   npx tsc -p . && node dist/bench/relevance.js
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch from 'minisearch';
import lunr from 'lunr';
import Database from 'better-sqlite3';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../src/chunk/chunker.js';
import type { EvidenceDocument } from '../src/document/types.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS, loadSearchIndex } from '../src/index/search-index.js';
import { runQuery } from '../src/query/query.js';
import { averagePrecision, cranfieldDirectory, loadCranfield, ndcgAt, type CranfieldCollection, type CranfieldDoc } from './retrieval/cranfield.js';

const DEPTH = 1000;
const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

type Engine = (collection: CranfieldCollection) => (query: string) => string[];

function fullText(doc: CranfieldDoc): string {
  return `${doc.title}\n\n${doc.text}`;
}

export function cranfieldEvidence(doc: CranfieldDoc): EvidenceDocument {
  return {
    documentId: `cran-${doc.id}`,
    sourceUrl: `https://example.org/cranfield/${doc.id}`,
    fragment: null,
    title: doc.title,
    family: 'generic',
    authority: 'informative',
    documentType: 'text',
    contentTrust: 'untrusted-source',
    provenance: {
      producer: { name: 'episteme', version: '0' },
      extractor: { id: 'text', version: 1 },
      sourceSha256: '',
      extractionConfigSha256: '',
      snapshotId: `cran-${doc.id}`,
      captureMethod: 'manual-ingest',
      contentType: 'text/plain',
    },
    sections: [{ id: 's', fragment: null, heading: doc.title, level: 1, number: null, parentId: null }],
    blocks: [{ id: 'b', kind: 'paragraph', sectionId: 's', fragment: null, text: fullText(doc), normativity: 'informative' }],
    diagnostics: [],
    limits: [],
  };
}

const episteme: Engine = (collection) => {
  const docs = collection.docs.map((doc) => {
    const evidence = cranfieldEvidence(doc);
    return { documentId: evidence.documentId, chunks: chunkDocument(evidence, DEFAULT_CHUNK_OPTIONS) };
  });
  const index = loadSearchIndex(buildSearchIndex(docs, { chunkIndexFingerprint: 'cranfield', missingSources: [] }, DEFAULT_INDEX_OPTIONS), 'cranfield');
  return (query) => {
    const response = runQuery(index, { terms: [query.replaceAll('"', ' ')], limit: DEPTH, offset: 0, maxSnippetChars: 1, maxTotalChars: DEPTH });
    // A document may have several chunks: it ranks at its best chunk.
    const seen = new Set<string>();
    for (const hit of response.hits) seen.add(hit.citation.documentId.slice('cran-'.length));
    return [...seen];
  };
};

const miniSearch: Engine = (collection) => {
  const index = new MiniSearch<{ id: string; text: string }>({ fields: ['text'] });
  index.addAll(collection.docs.map((doc) => ({ id: doc.id, text: fullText(doc) })));
  return (query) => index.search(query).slice(0, DEPTH).map((result) => String(result.id));
};

const lunrEngine: Engine = (collection) => {
  const index = lunr(function () {
    this.ref('id');
    this.field('text');
    for (const doc of collection.docs) this.add({ id: doc.id, text: fullText(doc) });
  });
  // Query through the builder: lunr's query-string syntax would treat ':' '-' '+' '~' as operators.
  return (query) =>
    index
      .query((q) => {
        q.term(lunr.tokenizer(query), {});
      })
      .slice(0, DEPTH)
      .map((result) => result.ref);
};

const fts5: Engine = (collection) => {
  const db = new Database(':memory:');
  db.exec("CREATE VIRTUAL TABLE docs USING fts5(text, tokenize = 'porter unicode61')");
  const insert = db.prepare('INSERT INTO docs(rowid, text) VALUES (?, ?)');
  db.transaction(() => {
    for (const doc of collection.docs) insert.run(Number(doc.id), fullText(doc));
  })();
  const search = db.prepare('SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?');
  return (query) => {
    const words = query.match(/[\p{L}\p{N}]+/gu) ?? [];
    if (words.length === 0) return [];
    const match = words.map((word) => `"${word}"`).join(' OR ');
    return (search.all(match, DEPTH) as { rowid: number }[]).map((row) => String(row.rowid));
  };
};

export interface RelevanceRow {
  engine: string;
  ndcg10: number;
  ndcg10Binary: number;
  map: number;
  buildMs: number;
  queryMs: number;
}

export function evaluate(name: string, engine: Engine, collection: CranfieldCollection): RelevanceRow {
  let started = performance.now();
  const search = engine(collection);
  const buildMs = performance.now() - started;
  started = performance.now();
  let ndcg = 0;
  let ndcgBinary = 0;
  let ap = 0;
  collection.queries.forEach((query, i) => {
    const ranking = search(query);
    const judged = collection.qrels[i]!;
    ndcg += ndcgAt(ranking, judged, 10);
    ndcgBinary += ndcgAt(ranking, judged, 10, true);
    ap += averagePrecision(ranking, judged);
  });
  const n = collection.queries.length;
  return { engine: name, ndcg10: ndcg / n, ndcg10Binary: ndcgBinary / n, map: ap / n, buildMs, queryMs: performance.now() - started };
}

export const ENGINES: [string, Engine][] = [
  ['episteme (defaults)', episteme],
  ['minisearch 7 (defaults)', miniSearch],
  ['lunr 2 (defaults)', lunrEngine],
  ['sqlite fts5 porter unicode61', fts5],
];

function main(): void {
  const collection = loadCranfield(cranfieldDirectory(repoRoot));
  if (collection === undefined) {
    console.log(`SKIP: Cranfield collection not found at ${cranfieldDirectory(repoRoot)} (../shared is absent).`);
    return;
  }
  console.log(`Cranfield: ${collection.docs.length} documents, ${collection.queries.length} queries, ${collection.qrels.reduce((n, q) => n + q.size, 0)} judgements; MAP depth ${DEPTH}`);
  const rows = ENGINES.map(([name, engine]) => evaluate(name, engine, collection));
  console.log('engine                          nDCG@10  nDCG@10(bin)  MAP     build ms  queries ms');
  for (const row of rows) {
    console.log(
      `${row.engine.padEnd(32)}${row.ndcg10.toFixed(4).padEnd(9)}${row.ndcg10Binary.toFixed(4).padEnd(14)}${row.map.toFixed(4).padEnd(8)}${row.buildMs.toFixed(0).padStart(8)}  ${row.queryMs.toFixed(0).padStart(10)}`,
    );
  }
  const ours = rows[0]!;
  const bestPeer = rows.slice(1).reduce((best, row) => (row.ndcg10 > best.ndcg10 ? row : best));
  console.log(`Episteme nDCG@10 ${ours.ndcg10.toFixed(4)} vs best peer ${bestPeer.engine} ${bestPeer.ndcg10.toFixed(4)}: ${ours.ndcg10 >= bestPeer.ndcg10 ? 'at or above' : 'BELOW'} (goal: at or above)`);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) main();
