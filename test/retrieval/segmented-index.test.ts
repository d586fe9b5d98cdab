import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import type { Chunk, EvidenceDocument } from '../../src/document/types.js';
import { EpistemeError } from '../../src/failure.js';
import {
  planSearchSegments,
  planSegments,
  SEARCH_SEGMENTS_AIMED,
  SEARCH_SINGLE_FILE_MAX_DOCUMENTS,
  SEGMENT_CUT_ONE_IN,
  SEGMENT_MAX_DOCUMENTS,
  SINGLE_FILE_MAX_DOCUMENTS,
} from '../../src/index/index-layout.js';
import { chunkRow, loadSearchIndex, memorySource } from '../../src/index/index-reader.js';
import {
  buildDocumentPart,
  DEFAULT_INDEX_OPTIONS,
  mergeSearchIndex,
  mergeSegmentedIndex,
  SEARCH_INDEX_FORMAT_VERSION,
} from '../../src/index/search-index.js';
import { runQuery, type QueryRequest } from '../../src/query/query.js';
import { readFileSync } from 'node:fs';
import * as zlib from 'node:zlib';
import { parseArtifact } from '../../src/store/artifact.js';
import { canonicalJsonFile } from '../../src/store/canonical-json.js';
import { ALL_DOCS } from './fixtures.js';
import { seededRandom } from '../helpers/random.js';

const PROVENANCE = { chunkIndexFingerprint: 'sha256:' + 'a'.repeat(64), missingSources: [] };

/** The fixture documents copied under many ids (so same passages fall in different segments), with varied words. */
function copies(count: number): { documentId: string; chunks: Chunk[] }[] {
  const out: { documentId: string; chunks: Chunk[] }[] = [];
  for (let i = 0; i < count; i++) {
    const base = ALL_DOCS[i % ALL_DOCS.length]!;
    const documentId = `${base.documentId}-copy${i}`;
    const doc: EvidenceDocument = structuredClone(base);
    doc.documentId = documentId;
    doc.sourceUrl = `https://example.org/${documentId}/`;
    doc.provenance.snapshotId = `snap-${documentId}`;
    // Every fifth copy gets words of its own (term statistics differ per segment); the others repeat the fixture text exactly.
    if (i % 5 === 0) doc.blocks[0]!.text += ` Unique marker word${i} and shared okapi${i % 7}.`;
    if (i % 11 === 0) doc.family = 'w3c';
    out.push({ documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) });
  }
  return out;
}

function segmentedSources(files: { file: string; bytes: string }[]): (name: string) => ReturnType<typeof memorySource> {
  const byName = new Map(files.map((f) => [f.file, f.bytes]));
  return (name) => {
    const bytes = byName.get(name);
    if (bytes === undefined) throw new Error(`ENOENT: ${name}`);
    return memorySource(new TextEncoder().encode(bytes));
  };
}

test('segments are cut by document id alone: small corpora stay one file, large ones are cut at hash cuts or the cap', () => {
  const ids = (n: number, prefix = 'doc') => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}`).sort();
  assert.deepEqual(planSegments(ids(SINGLE_FILE_MAX_DOCUMENTS)), [SINGLE_FILE_MAX_DOCUMENTS]);
  const many = ids(20_000);
  const ends = planSegments(many);
  assert.equal(ends.at(-1), many.length);
  let start = 0;
  for (const end of ends) {
    assert.ok(end - start >= 1 && end - start <= SEGMENT_MAX_DOCUMENTS);
    start = end;
  }
  // About one cut per SEGMENT_CUT_ONE_IN documents (a loose bound: it is a hash).
  assert.ok(ends.length > many.length / SEGMENT_CUT_ONE_IN / 3 && ends.length < (many.length / SEGMENT_CUT_ONE_IN) * 3, `${ends.length}`);
  // Removing one document moves no cut but possibly its own: every segment away from it keeps its documents.
  const without = many.filter((_, i) => i !== 10_000);
  const segmentsOf = (list: string[], cut: number[]) => cut.map((end, k) => list.slice(k === 0 ? 0 : cut[k - 1], end).join(' '));
  const before = new Set(segmentsOf(many, ends));
  const after = segmentsOf(without, planSegments(without));
  const changed = after.filter((segment) => !before.has(segment));
  assert.ok(changed.length <= 2, `one removal changed ${changed.length} segments`);
});

test('the search index is cut from 17 documents on, into about eight segments up to 256, as the stage indexes above', () => {
  const ids = (n: number, prefix = 'doc') => Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}`).sort();
  for (let n = 0; n <= SEARCH_SINGLE_FILE_MAX_DOCUMENTS; n++) assert.deepEqual(planSearchSegments(ids(n)), [n]);
  let total = 0;
  for (const prefix of ['doc', 'spec', 'rfc', 'w3c']) {
    for (let n = SEARCH_SINGLE_FILE_MAX_DOCUMENTS + 1; n <= SINGLE_FILE_MAX_DOCUMENTS; n++) {
      const list = ids(n, prefix);
      const ends = planSearchSegments(list);
      // The cut number: the least power of two from 4 up that is at least n / 8; segments of at most twice it.
      let oneIn = 4;
      while (oneIn * SEARCH_SEGMENTS_AIMED < n) oneIn *= 2;
      assert.ok(ends.length >= 2, `${n} documents: ${ends.length} segment(s)`);
      assert.equal(ends.at(-1), n);
      let start = 0;
      for (const end of ends) {
        assert.ok(end - start >= 1 && end - start <= 2 * oneIn, `${n} documents: a segment of ${end - start}`);
        start = end;
      }
      // Every cut not forced by the cap is a hash cut of this cut number: a function of the ids alone.
      start = 0;
      for (const end of ends.slice(0, -1)) {
        if (end - start < 2 * oneIn) assert.equal(zlib.crc32(list[end - 1]!) % oneIn, 0);
        start = end;
      }
      total += ends.length;
    }
  }
  // About SEARCH_SEGMENTS_AIMED segments on average (a loose bound: it is a hash).
  const mean = total / 4 / (SINGLE_FILE_MAX_DOCUMENTS - SEARCH_SINGLE_FILE_MAX_DOCUMENTS);
  assert.ok(mean > SEARCH_SEGMENTS_AIMED * 0.6 && mean < SEARCH_SEGMENTS_AIMED * 2, `mean ${mean.toFixed(2)} segments`);
  // Above 256 documents, the stage indexes' plan.
  for (const n of [SINGLE_FILE_MAX_DOCUMENTS + 1, 3000]) assert.deepEqual(planSearchSegments(ids(n)), planSegments(ids(n)));
});

for (const count of [32, 900]) {
  test(`a segmented index answers every query exactly as the single file of the same corpus does (${count} documents)`, async () => {
    await answersAsOneFile(count);
  });
}

async function answersAsOneFile(count: number): Promise<void> {
  const docs = copies(count);
  const parts = docs.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
  const single = loadSearchIndex(mergeSearchIndex(parts, PROVENANCE, DEFAULT_INDEX_OPTIONS), 'single.json');
  const built = mergeSegmentedIndex(parts, PROVENANCE, DEFAULT_INDEX_OPTIONS);
  assert.ok(built.segments.length >= (count > SINGLE_FILE_MAX_DOCUMENTS ? 3 : 2), `${built.segments.length} segments`);
  const manifest = parseArtifact<{ manifest: { segments: unknown[] } }>(built.index, 'search-index', SEARCH_INDEX_FORMAT_VERSION, 'm.json');
  assert.equal(manifest.payload.manifest.segments.length, built.segments.length);
  const segmented = loadSearchIndex(built.index, 'seg.json', segmentedSources(built.segments));
  // Manifest and segments are canonical artifacts (their SHA-256 fingerprints check) that match the published schema.
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const schema = JSON.parse(readFileSync(new URL('../../../schema/search-index.schema.json', import.meta.url), 'utf8')) as object;
  const validate = new Ajv2020({ strict: false }).compile(schema);
  for (const bytes of [built.index, ...built.segments.map((s) => s.bytes)]) {
    assert.equal(canonicalJsonFile(JSON.parse(bytes)), bytes);
    assert.ok(validate(JSON.parse(bytes)), JSON.stringify(validate.errors));
  }
  for (const segment of built.segments) parseArtifact(segment.bytes, 'search-index-segment', SEARCH_INDEX_FORMAT_VERSION, segment.file);
  assert.equal(segmented.chunkCount, single.chunkCount);
  assert.deepEqual(segmented.documents, single.documents);
  assert.deepEqual([...segmented.terms], [...single.terms]);
  assert.deepEqual(segmented.duplicatePassages, single.duplicatePassages);
  assert.ok(single.duplicatePassages.length > 0);
  const vocabulary = single.terms;
  const random = seededRandom(12);
  const requests: QueryRequest[] = [
    { terms: ['fetch', 'redirect'], limit: 20, offset: 0, maxSnippetChars: 200, maxTotalChars: 4000 },
    { terms: ['okapi3', 'marker'], limit: 20, offset: 0, maxSnippetChars: 200, maxTotalChars: 4000, collapse: false, explain: true },
    { terms: ['"request mode"', 'navigate'], limit: 10, offset: 5, maxSnippetChars: 120, maxTotalChars: 900, expand: true },
    { terms: ['word450', 'unique'], limit: 5, offset: 0, maxSnippetChars: 80, maxTotalChars: 400, family: ['w3c'] },
  ];
  for (let i = 0; i < 40; i++) {
    const terms = Array.from({ length: 1 + Math.floor(random() * 3) }, () => vocabulary[Math.floor(random() * vocabulary.length)]!);
    requests.push({ terms, limit: 10, offset: 0, maxSnippetChars: 160, maxTotalChars: 2000, explain: i % 2 === 0, collapse: i % 3 !== 0 });
  }
  for (const request of requests) {
    assert.equal(JSON.stringify(runQuery(segmented, request)), JSON.stringify(runQuery(single, request)), request.terms.join(' '));
  }
}

test('every segment is checked: a damaged, swapped or missing segment is artifact-invalid with the rebuild hint', () => {
  const parts = copies(700).map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
  const built = mergeSegmentedIndex(parts, PROVENANCE, DEFAULT_INDEX_OPTIONS);
  assert.ok(built.segments.length >= 2);
  const query = (files: { file: string; bytes: string }[]) =>
    runQuery(loadSearchIndex(built.index, 'seg.json', segmentedSources(files)), {
      terms: ['fetch', 'marker'],
      limit: 400,
      offset: 0,
      maxSnippetChars: 100,
      maxTotalChars: 100_000,
    });
  const invalid = (pattern: RegExp) => (error: unknown) =>
    error instanceof EpistemeError &&
    error.code === 'artifact-invalid' &&
    pattern.test(error.message) &&
    /episteme build/.test(error.hint ?? '');
  // A row block near the end of the last segment: a flipped character fails its CRC-32.
  const last = built.segments.at(-1)!;
  const at = last.bytes.lastIndexOf('"],"seal"') - 10;
  const flipped = last.bytes.slice(0, at) + (last.bytes[at] === 'A' ? 'B' : 'A') + last.bytes.slice(at + 1);
  const damaged = loadSearchIndex(
    built.index,
    'seg.json',
    segmentedSources([...built.segments.slice(0, -1), { file: last.file, bytes: flipped }]),
  );
  chunkRow(damaged, 0);
  assert.throws(() => chunkRow(damaged, damaged.chunkCount - 1), invalid(/CRC-32/));
  // Another (valid) segment under this one's name: not the file the manifest recorded.
  assert.throws(
    () => query([{ file: built.segments[0]!.file, bytes: built.segments[1]!.bytes }, ...built.segments.slice(1)]),
    invalid(/not the file it recorded/),
  );
  assert.throws(() => query(built.segments.slice(1)), invalid(/cannot be read/));
  // A manifest alone (from stdin, without its folder) cannot be read as an index.
  assert.throws(() => loadSearchIndex(built.index, 'seg.json'), invalid(/segmented/));
  // A segment is not a search index, nor the other way round.
  assert.throws(() => loadSearchIndex(built.segments[0]!.bytes, 'seg.json'), invalid(/search-index-segment artifact/));
  assert.equal(query(built.segments).total > 0, true);
});

test('the segments of a corpus do not depend on the order of its parts, and an edit rewrites only its own segment', () => {
  const docs = copies(800);
  const parts = docs.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
  const built = mergeSegmentedIndex(parts, PROVENANCE, DEFAULT_INDEX_OPTIONS);
  const reversed = mergeSegmentedIndex([...parts].reverse(), PROVENANCE, DEFAULT_INDEX_OPTIONS);
  assert.deepEqual(reversed, built);
  const edited = structuredClone(docs);
  edited[400]!.chunks[0]!.text += ' An edited sentence.';
  const after = mergeSegmentedIndex(
    edited.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
    PROVENANCE,
    DEFAULT_INDEX_OPTIONS,
  );
  const before = new Set(built.segments.map((s) => s.file));
  assert.equal(after.segments.filter((s) => !before.has(s.file)).length, 1);
  assert.equal(after.segments.length, built.segments.length);
});
