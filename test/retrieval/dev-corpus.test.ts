import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { codePointLength } from '../../src/chunk/text-boundaries.js';
import {
  buildDocumentPart,
  buildSearchIndex,
  DEFAULT_INDEX_OPTIONS,
  loadSearchIndex,
  mergeSearchIndex,
} from '../../src/index/search-index.js';
import { DEV_CORPUS_MISSING, loadDevCorpus } from './corpus-helpers.js';
import { shuffled } from './fixtures.js';

const OPTION_SETS = [DEFAULT_CHUNK_OPTIONS, { maxChars: 300, overlapChars: 80 }, { maxChars: 4000, overlapChars: 0 }];

test('chunk ids are unique over the whole dev corpus, and chunks are bounded and traceable', async (t) => {
  const docs = await loadDevCorpus();
  if (docs === undefined) return t.skip(DEV_CORPUS_MISSING);
  assert.ok(docs.length >= 20);
  for (const options of OPTION_SETS) {
    const ids = new Set<string>();
    let count = 0;
    for (const doc of docs) {
      const blocks = new Map(doc.blocks.map((block) => [block.id, block]));
      for (const chunk of chunkDocument(doc, options)) {
        count++;
        assert.ok(!ids.has(chunk.chunkId), `duplicate chunk id ${chunk.chunkId}`);
        ids.add(chunk.chunkId);
        assert.ok(codePointLength(chunk.text) <= options.maxChars, `${chunk.chunkId} exceeds ${options.maxChars}`);
        assert.ok(chunk.text.trim() !== '');
        const texts = chunk.citation.blockIds.map((id) => blocks.get(id)!.text.trim());
        if (chunk.citation.textRange !== undefined) {
          const { start, end } = chunk.citation.textRange;
          // The piece is of the last block; a lead-in block before it is whole.
          const piece = [...texts[texts.length - 1]!].slice(start, end).join('');
          assert.equal([...texts.slice(0, -1), piece].join('\n\n'), chunk.text, `${chunk.chunkId} textRange`);
          if (texts.length > 1) assert.equal(start, 0, `${chunk.chunkId}: a lead-in goes before a first piece only`);
        } else {
          assert.equal(texts.join('\n\n'), chunk.text, `${chunk.chunkId} is its blocks' text`);
        }
      }
    }
    t.diagnostic(
      `maxChars ${options.maxChars}/overlap ${options.overlapChars}: ${count} chunks from ${docs.length} documents, all ids unique`,
    );
  }
});

test('dev-corpus index bytes do not depend on input order and equal a merge of cached parts', async (t) => {
  const docs = await loadDevCorpus();
  if (docs === undefined) return t.skip(DEV_CORPUS_MISSING);
  const chunked = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
  const provenance = { chunkIndexFingerprint: 'sha256:dev', missingSources: [] };
  const reference = buildSearchIndex(chunked, provenance, DEFAULT_INDEX_OPTIONS);
  const reordered = shuffled(chunked, 5).map((doc) => ({ documentId: doc.documentId, chunks: shuffled(doc.chunks, 9) }));
  assert.equal(buildSearchIndex(reordered, provenance, DEFAULT_INDEX_OPTIONS), reference);
  const parts = reordered.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
  assert.equal(mergeSearchIndex(parts, provenance, DEFAULT_INDEX_OPTIONS), reference);
  const loaded = loadSearchIndex(reference, 'dev');
  assert.equal(
    loaded.chunkCount,
    chunked.reduce((n, doc) => n + doc.chunks.length, 0),
  );
  t.diagnostic(`dev index: ${loaded.chunkCount} chunks, ${loaded.terms.length} terms, ${reference.length} bytes`);
});
