import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { encodeChunks, encodeChunksSlowly } from '../../src/chunk/chunk-file.js';
import { chunksContentHash } from '../../src/chunk/snapshot-provenance.js';
import type { Chunk, ChunksPayload, Section } from '../../src/document/types.js';
import { buildDocumentPart } from '../../src/index/search-index.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { sha256Hex } from '../../src/store/hash.js';
import { CHUNKS_FORMAT_VERSION } from '../../src/rule-versions.js';
import { ALL_DOCS, makeDocument } from './fixtures.js';

// The chunk stage serialises each chunk's values once (chunk-file.ts); these pin that the file, the
// content hash and the index part's rows are the bytes the generic serialisation gives.

function payloadOf(documentId: string, chunks: Chunk[]): ChunksPayload {
  return {
    chunkOptions: { maxChars: DEFAULT_CHUNK_OPTIONS.maxChars, overlapChars: DEFAULT_CHUNK_OPTIONS.overlapChars },
    chunks,
    documentId,
  };
}

/** Every optional member in use, odd strings, a span whose keys are out of order, and a citation of another snapshot. */
function oddChunks(): Chunk[] {
  const base = chunkDocument(ALL_DOCS[0]!, DEFAULT_CHUNK_OPTIONS);
  const first = base[0]!;
  const variants: Chunk[] = [
    { ...first, chunkId: `${first.chunkId}-a`, text: 'quote " backslash \\ newline \n tab \t nul \u0000 lone \ud800 emoji 😀 <>&' },
    {
      ...first,
      chunkId: `${first.chunkId}-b`,
      anchors: [
        [0, 'x'],
        [5, 'y"z'],
      ],
      citation: {
        ...first.citation,
        pages: [2, 3],
        span: { unit: 'line', start: 4, end: 9, deeper: { zeta: 1, alpha: [true, null] } },
        textRange: { start: 10, end: 20 },
        steps: { first: '1', last: '3.2' },
      },
    },
    { ...first, chunkId: `${first.chunkId}-c`, citation: { ...first.citation, snapshotId: 'snap-other', fragment: null, sectionId: null } },
    { ...first, chunkId: `${first.chunkId}-d`, anchors: undefined, citation: { ...first.citation, pages: undefined, span: undefined } },
  ];
  return [...base, ...variants];
}

test('the chunk file and content hash serialised once equal the generic serialisation', () => {
  const cases: ChunksPayload[] = [
    ...ALL_DOCS.map((doc) => payloadOf(doc.documentId, chunkDocument(doc, DEFAULT_CHUNK_OPTIONS))),
    ...ALL_DOCS.map((doc) => payloadOf(doc.documentId, chunkDocument(doc, { maxChars: 120, overlapChars: 30 }))),
    payloadOf(ALL_DOCS[0]!.documentId, oddChunks()),
    payloadOf('empty', []),
  ];
  for (const payload of cases) {
    const encoded = encodeChunks(payload);
    assert.ok(encoded !== null, `${payload.documentId}: the known chunk shape takes the shortcut`);
    const file = artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, payload));
    assert.equal(encoded.bytes.toString('utf8'), file, payload.documentId);
    assert.equal(encoded.sha256, sha256Hex(file), `${payload.documentId}: the hash is of the file's bytes`);
    assert.equal(encoded.contentHash, chunksContentHash(payload.documentId, payload.chunks), payload.documentId);
    assert.deepEqual(encodeChunksSlowly(payload), { bytes: encoded.bytes, sha256: encoded.sha256, contentHash: encoded.contentHash });
  }
});

test('a chunk with a member the shortcut does not know, or without a required one, is left to the generic serialisation', () => {
  const chunks = chunkDocument(ALL_DOCS[0]!, DEFAULT_CHUNK_OPTIONS);
  const extra = [{ ...chunks[0]!, extra: 1 } as Chunk, ...chunks.slice(1)];
  assert.equal(encodeChunks(payloadOf('d', extra)), null);
  const citationExtra = [{ ...chunks[0]!, citation: { ...chunks[0]!.citation, note: 'x' } } as Chunk];
  assert.equal(encodeChunks(payloadOf('d', citationExtra)), null);
  const missing = [{ ...chunks[0]!, family: undefined } as unknown as Chunk];
  assert.equal(encodeChunks(payloadOf('d', missing)), null);
  assert.equal(encodeChunks({ ...payloadOf('d', chunks), more: 1 } as ChunksPayload), null);
});

test("an index part made from the chunks' members serialised once equals one made from the chunks alone", () => {
  for (const doc of ALL_DOCS) {
    const chunks = chunkDocument(doc, { maxChars: 200, overlapChars: 40 });
    const encoded = encodeChunks(payloadOf(doc.documentId, chunks))!;
    // In the chunker's order and shuffled (the part sorts chunks by id; the members follow them).
    const reversed = [...chunks].reverse();
    const reversedMembers = [...encoded.members].reverse();
    const plain = buildDocumentPart(doc.documentId, chunks);
    assert.equal(buildDocumentPart(doc.documentId, chunks, undefined, encoded.members), plain, doc.documentId);
    assert.equal(buildDocumentPart(doc.documentId, reversed, undefined, reversedMembers), plain, doc.documentId);
  }
});

test("a document's next part, made with the terms of its previous part's chunks at hand, equals a fresh one", () => {
  const sections: Section[] = [{ id: 's', heading: 'Section', level: 2, parentId: null, fragment: null, number: null }];
  const blocks = Array.from({ length: 30 }, (_, i) => ({ id: `b${i}`, text: `Paragraph ${i} says the fetch algorithm runs step ${i}.` }));
  const edited = blocks.map((block, i) => (i === 12 ? { ...block, text: `${block.text} An added word.` } : block));
  const fresh = (id: string) =>
    buildDocumentPart(id, chunkDocument(makeDocument({ documentId: id, sections, blocks: edited }), { maxChars: 100, overlapChars: 20 }));
  // A document id this process has not made a part of: nothing at hand, every text tokenised.
  const expected = fresh('memo-check');
  const before = chunkDocument(makeDocument({ documentId: 'memo-check', sections, blocks }), { maxChars: 100, overlapChars: 20 });
  buildDocumentPart('memo-check', before);
  assert.equal(fresh('memo-check'), expected);
});
