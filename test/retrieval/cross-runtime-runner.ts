/**
 * Builds search indexes and answers queries over fixed fixtures, printing everything as JSON on
 * stdout. cross-runtime.test.ts runs this same file under Node 20, Node 24, Deno and Bun and
 * compares the outputs byte for byte. Plain ESM; only node:process beyond the library modules.
 */
import { readFileSync } from 'node:fs';
import process from 'node:process';
import type { Chunk } from '../../src/document/types.js';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS, loadSearchIndex } from '../../src/index/search-index.js';
import { indexTerms, tokenize } from '../../src/index/tokenizer.js';
import { runQuery } from '../../src/query/query.js';
import { sha256Hex } from '../../src/store/hash.js';
import { ALL_DOCS, makeDocument, shuffled } from './fixtures.js';
import { UNICODE_SAMPLES } from './unicode-samples.js';

const unicodeDoc = makeDocument({
  documentId: 'unicode',
  sections: [{ id: 's', fragment: 's', heading: 'Unicode', level: 1, number: null, parentId: null }],
  blocks: UNICODE_SAMPLES.map((text, i) => ({ id: `u${i}`, text })),
});
const docs = [...ALL_DOCS, unicodeDoc];
const output: Record<string, unknown> = {
  tokens: UNICODE_SAMPLES.map((text) => tokenize(text)),
  indexTerms: UNICODE_SAMPLES.map((text) => indexTerms(text).terms),
};
for (const [name, chunkOptions, indexOptions] of [
  ['defaults', DEFAULT_CHUNK_OPTIONS, DEFAULT_INDEX_OPTIONS],
  ['small', { maxChars: 120, overlapChars: 30 }, { k1: 0.9, b: 0.4 }],
] as const) {
  const chunked = shuffled(docs, 11).map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, chunkOptions) }));
  const bytes = buildSearchIndex(chunked, { chunkIndexFingerprint: 'sha256:cross-runtime', missingSources: [] }, indexOptions);
  const index = loadSearchIndex(bytes, name);
  output[name] = {
    indexSha256: sha256Hex(bytes),
    indexBytes: bytes,
    queries: [
      'conditional request',
      '"strong comparison"',
      'redirect URL list',
      'cafe STRASSE οδος',
      '東京',
      'ﬁle İstanbul',
      'the',
      'request request request etag validator',
    ].map((term) => runQuery(index, { terms: [term], limit: 5, offset: 0, maxSnippetChars: 90, maxTotalChars: 300, explain: true })),
    expanded: runQuery(index, {
      terms: ['conditional request'],
      limit: 5,
      offset: 0,
      maxSnippetChars: 90,
      maxTotalChars: 300,
      explain: true,
      expand: true,
    }),
  };
}
// Optional: a JSON file of {documentId, chunks}[] (the dev corpus, chunked by Node) to index as well.
const chunkFile = process.argv[2];
if (chunkFile !== undefined) {
  const chunked = JSON.parse(readFileSync(chunkFile, 'utf8')) as { documentId: string; chunks: Chunk[] }[];
  const bytes = buildSearchIndex(shuffled(chunked, 3), { chunkIndexFingerprint: 'sha256:dev', missingSources: [] }, DEFAULT_INDEX_OPTIONS);
  const index = loadSearchIndex(bytes, 'dev');
  output['dev'] = {
    indexSha256: sha256Hex(bytes),
    indexBytes: bytes.length,
    queries: [
      'conditional request',
      '"origin server"',
      'URL parser percent-encode',
      'content security policy nonce',
      'cookie domain attribute',
      'must not',
    ].map((term) => runQuery(index, { terms: [term], limit: 10, offset: 0, maxSnippetChars: 200, maxTotalChars: 2000 })),
    // A long question with repeated words, explained, with and without feedback and collapsing.
    questions: [false, true].flatMap((expand) =>
      [true, false].map((collapse) =>
        runQuery(index, {
          terms: [
            'How does a user agent decide whether a cached response is fresh, ' +
              'and what happens to a cached response when the origin server sends a new validator for the cached resource?',
          ],
          limit: 20,
          offset: 0,
          maxSnippetChars: 120,
          maxTotalChars: 4000,
          explain: true,
          expand,
          collapse,
        }),
      ),
    ),
  };
}
process.stdout.write(JSON.stringify(output) + '\n');
