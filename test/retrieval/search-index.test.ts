import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { encodeChunks } from '../../src/chunk/chunk-file.js';
import type { Chunk } from '../../src/document/types.js';
import { EpistemeError } from '../../src/failure.js';
import {
  buildDocumentPart,
  buildSearchIndex,
  chunkRow,
  decodePostings,
  findTerm,
  DEFAULT_INDEX_OPTIONS,
  indexProvenance,
  loadSearchIndex,
  mergeSearchIndex,
  parsePart,
  reusableRowBlocks,
  SEARCH_INDEX_FORMAT_VERSION,
} from '../../src/index/search-index.js';
import { readRows } from '../../src/index/index-reader.js';
import { crc32Hex, decodePerChunkInts, encodePerChunkInts } from '../../src/index/index-layout.js';
import { parseArtifact } from '../../src/store/artifact.js';
import { indexTerms } from '../../src/index/tokenizer.js';
import { canonicalJsonFile } from '../../src/store/canonical-json.js';
import { ALL_DOCS, makeDocument, shuffled } from './fixtures.js';
import { memorySource, type IndexSource } from '../../src/index/index-reader.js';
import { runQuery } from '../../src/query/query.js';
import { seededRandom } from '../helpers/random.js';

const PROVENANCE = { chunkIndexFingerprint: 'sha256:' + 'a'.repeat(64), missingSources: [] };

function corpus(options = DEFAULT_CHUNK_OPTIONS): { documentId: string; chunks: Chunk[] }[] {
  return ALL_DOCS.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, options) }));
}

function isArtifactInvalid(error: unknown): boolean {
  return error instanceof EpistemeError && error.code === 'artifact-invalid' && (error.details as { file?: string }).file === 'idx.json';
}

test('the index is a canonical, fingerprinted search-index artifact', () => {
  const bytes = buildSearchIndex(corpus(), PROVENANCE, DEFAULT_INDEX_OPTIONS);
  assert.equal(canonicalJsonFile(JSON.parse(bytes)), bytes, 'file is canonical JSON');
  // The fingerprint covers the whole file, like every artifact's (the generic reader checks it).
  const artifact = parseArtifact<{ head: { bm25: unknown } }>(bytes, 'search-index', SEARCH_INDEX_FORMAT_VERSION, 'idx.json');
  assert.deepEqual(artifact.payload.head.bm25, { bMilli: 750, k1Milli: 1200 });
  const loaded = loadSearchIndex(bytes, 'idx.json');
  assert.deepEqual(indexProvenance(loaded), PROVENANCE);
  assert.equal(loaded.chunkCount, corpus().flatMap((d) => d.chunks).length);
  // Loading from bytes gives the same index as loading from text; rows come back as built.
  const fromBytes = loadSearchIndex(new TextEncoder().encode(bytes), 'idx.json');
  assert.deepEqual(fromBytes.terms, loaded.terms);
  const chunks = corpus()
    .flatMap((d) => d.chunks)
    .sort((a, b) => (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.chunkId < b.chunkId ? -1 : 1));
  chunks.forEach((chunk, ordinal) => {
    const row = chunkRow(fromBytes, ordinal);
    assert.equal(row[0], chunk.chunkId);
    assert.equal(row[9], chunk.text);
    assert.deepEqual(row[2], chunk.citation.headingPath);
    assert.equal(fromBytes.normativityValues[fromBytes.chunkNormativity[ordinal]!], chunk.normativity);
  });
});

test('bytes do not depend on the order of documents or chunks', () => {
  const reference = buildSearchIndex(corpus(), PROVENANCE, DEFAULT_INDEX_OPTIONS);
  for (let seed = 1; seed <= 5; seed++) {
    const docs = shuffled(corpus(), seed).map((doc) => ({ documentId: doc.documentId, chunks: shuffled(doc.chunks, seed * 7) }));
    assert.equal(buildSearchIndex(docs, PROVENANCE, DEFAULT_INDEX_OPTIONS), reference);
  }
});

test('merging cached document parts equals a one-shot build, and a changed document only needs its own part', () => {
  const docs = corpus({ maxChars: 200, overlapChars: 40 });
  const parts = docs.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
  const oneShot = buildSearchIndex(docs, PROVENANCE, DEFAULT_INDEX_OPTIONS);
  assert.equal(mergeSearchIndex(shuffled(parts, 3), PROVENANCE, DEFAULT_INDEX_OPTIONS), oneShot);
  // Edit one document: replace its part, keep the others.
  const edited = docs.map((doc) =>
    doc.documentId !== 'rfc9110'
      ? doc
      : { ...doc, chunks: doc.chunks.map((c, i) => (i === 0 ? { ...c, text: c.text + ' Freshly added words.' } : c)) },
  );
  const incremental = mergeSearchIndex(
    parts.map((part, i) => (docs[i]!.documentId === 'rfc9110' ? buildDocumentPart('rfc9110', edited[i]!.chunks) : part)),
    PROVENANCE,
    DEFAULT_INDEX_OPTIONS,
  );
  assert.equal(incremental, buildSearchIndex(edited, PROVENANCE, DEFAULT_INDEX_OPTIONS));
  assert.notEqual(incremental, oneShot);
});

test('options and provenance are recorded as integers and sorted lists', () => {
  const bytes = buildSearchIndex(corpus(), { chunkIndexFingerprint: 'x', missingSources: ['b', 'a', 'b'] }, { k1: 0.9, b: 0.4 });
  const loaded = loadSearchIndex(bytes, 'idx.json');
  assert.equal(loaded.k1Milli, 900);
  assert.equal(loaded.bMilli, 400);
  assert.deepEqual(loaded.provenance.missingSources, ['a', 'b']);
  assert.throws(
    () => buildSearchIndex(corpus(), PROVENANCE, { k1: -1, b: 0.5 }),
    (e) => e instanceof EpistemeError && e.code === 'usage-error',
  );
  assert.throws(
    () => buildSearchIndex(corpus(), PROVENANCE, { k1: 1, b: 2 }),
    (e) => e instanceof EpistemeError && e.code === 'usage-error',
  );
});

test('an empty corpus still gives a loadable index', () => {
  const loaded = loadSearchIndex(buildSearchIndex([], PROVENANCE, DEFAULT_INDEX_OPTIONS), 'idx.json');
  assert.equal(loaded.chunkCount, 0);
  assert.equal(loaded.terms.length, 0);
});

test('truncated, edited, foreign and other-version files are artifact-invalid', () => {
  const bytes = buildSearchIndex(corpus(), PROVENANCE, DEFAULT_INDEX_OPTIONS);
  for (const cut of [1, 50, Math.floor(bytes.length / 2)]) {
    assert.throws(() => loadSearchIndex(bytes.slice(0, bytes.length - cut), 'idx.json'), isArtifactInvalid, `cut ${cut}`);
  }
  assert.throws(() => loadSearchIndex('', 'idx.json'), isArtifactInvalid);
  assert.throws(
    () => loadSearchIndex('{"artifact":"chunk-index","fingerprint":"x"}', 'idx.json'),
    (e) => isArtifactInvalid(e) && /chunk-index artifact/.test((e as Error).message),
  );
  const future = bytes.replace(`"formatVersion":${SEARCH_INDEX_FORMAT_VERSION},`, `"formatVersion":${SEARCH_INDEX_FORMAT_VERSION + 1},`);
  assert.throws(
    () => loadSearchIndex(future, 'idx.json'),
    (e) =>
      isArtifactInvalid(e) &&
      (e as Error).message.includes(
        `format version ${SEARCH_INDEX_FORMAT_VERSION + 1}; this Episteme reads version ${SEARCH_INDEX_FORMAT_VERSION}`,
      ),
  );
  // Pretty-printing is a modification too (the file must stay canonical).
  assert.throws(() => loadSearchIndex(JSON.stringify(JSON.parse(bytes), null, 2), 'idx.json'), isArtifactInvalid);
  // A changed byte in the head fails the seal before anything is read.
  assert.ok(bytes.includes('"bMilli":750'));
  assert.throws(
    () => loadSearchIndex(bytes.replace('"bMilli":750', '"bMilli":751'), 'idx.json'),
    (e) => isArtifactInvalid(e) && /seal/.test((e as Error).message),
  );
  // A changed term in a posting block fails that block's CRC-32 when a query looks the term up.
  assert.ok(bytes.includes(' condit '));
  assert.throws(
    () => findTerm(loadSearchIndex(bytes.replace(' condit ', ' condiT '), 'idx.json'), 'condit'),
    (e) => isArtifactInvalid(e) && /posting block \(#\d+\) that fails its CRC-32 check/.test((e as Error).message),
  );
  // A changed byte in a block (same length) is found when a query reads that block.
  const parsed = JSON.parse(bytes) as { payload: { postings: string[]; rows: string[] } };
  const flip = (text: string): string => text.slice(0, 10) + (text[10] === 'A' ? 'B' : 'A') + text.slice(11);
  const rowBlock = parsed.payload.rows[0]!;
  const editedRows = loadSearchIndex(bytes.replace(rowBlock, flip(rowBlock)), 'idx.json');
  assert.throws(
    () => chunkRow(editedRows, 0),
    (e) => isArtifactInvalid(e) && /row block \(#0\) that fails its CRC-32 check/.test((e as Error).message),
  );
  const postingBlock = parsed.payload.postings[0]!;
  const editedPostings = loadSearchIndex(bytes.replace(postingBlock, flip(postingBlock)), 'idx.json');
  assert.throws(
    () => decodePostings(editedPostings, 0),
    (e) => isArtifactInvalid(e) && /posting block \(#0\)/.test((e as Error).message),
  );
  // ... and the whole-file fingerprint catches it without a query.
  assert.throws(
    () => parseArtifact(bytes.replace(rowBlock, flip(rowBlock)), 'search-index', SEARCH_INDEX_FORMAT_VERSION, 'idx.json'),
    isArtifactInvalid,
  );
});

test('row blocks read together give the rows read one by one; a damaged one in a batch is named', () => {
  const bytes = buildSearchIndex(corpus({ maxChars: 120, overlapChars: 30 }), PROVENANCE, DEFAULT_INDEX_OPTIONS);
  const parsed = JSON.parse(bytes) as { payload: { head: { rowBlocks: [number, number, string, number, string][] }; rows: string[] } };
  const blocks = parsed.payload.head.rowBlocks;
  assert.ok(blocks.length >= 3, `${blocks.length} row blocks`);
  const chunkCount = blocks.reduce((n, entry) => n + entry[0], 0);
  const oneByOne = loadSearchIndex(bytes, 'idx.json');
  const expected = Array.from({ length: chunkCount }, (_, ordinal) => chunkRow(oneByOne, ordinal));
  // Every subset of blocks (first and last without the middle, all, each alone), in any order asked.
  const firstOf = (block: number): number => blocks.slice(0, block).reduce((n, entry) => n + entry[0], 0);
  const last = blocks.length - 1;
  for (const subset of [[0, last], [last, 0, 1], [...blocks.keys()], [1]]) {
    const together = loadSearchIndex(bytes, 'idx.json');
    readRows(together, subset.map(firstOf));
    for (let ordinal = 0; ordinal < chunkCount; ordinal++) assert.deepEqual(chunkRow(together, ordinal), expected[ordinal]);
  }
  // A changed byte in the last block (same length) fails its CRC-32 when a batch reads it.
  const flip = (text: string): string => text.slice(0, 10) + (text[10] === 'A' ? 'B' : 'A') + text.slice(11);
  const lastBlock = parsed.payload.rows[last]!;
  assert.throws(
    () => readRows(loadSearchIndex(bytes.replace(lastBlock, flip(lastBlock)), 'idx.json'), [0, firstOf(last)]),
    (e) => isArtifactInvalid(e) && new RegExp(`row block \\(#${last}\\) that fails its CRC-32 check`).test((e as Error).message),
  );
  // A head that records the wrong inflated size for block 0 (resealed, so only that check can catch it).
  const entry = JSON.stringify(blocks[0]);
  const wrongSize = JSON.stringify([...blocks[0]!.slice(0, 3), blocks[0]![3] + 1, blocks[0]![4]]);
  const headStart = bytes.indexOf('"payload":{"head":') + '"payload":{"head":'.length;
  const headEnd = bytes.indexOf(',"postings":[');
  const head = bytes.slice(headStart, headEnd);
  assert.ok(head.includes(entry));
  const resealed = bytes
    .replace(head, head.replace(entry, wrongSize))
    .replace(/"seal":"crc32:[0-9a-f]{8}"/, `"seal":"crc32:${crc32Hex(head.replace(entry, wrongSize))}"`);
  assert.throws(
    () => readRows(loadSearchIndex(resealed, 'idx.json'), [0, firstOf(last)]),
    (e) => isArtifactInvalid(e) && /row block \(#0\) that does not inflate to the size its head records/.test((e as Error).message),
  );
});

/** Chunks of one document whose spans are source ranges (as HTML's), with one chunk of another span shape. */
function rangedChunks(count: number): Chunk[] {
  const base = corpus()[0]!.chunks[0]!;
  return Array.from({ length: count }, (_, i) => {
    const start = 1000 + i * 700;
    // Each chunk is a few hundred bytes: the part cuts several 16 KiB row blocks.
    const text = `Paragraph ${i} about conditional requests and caches. `.repeat(6 + (i % 5));
    const span: Record<string, unknown> =
      i === 7 ? { unit: 'utf16-page-text', page: 2, start: 5, end: 40 } : { end: start + text.length, start, unit: 'utf16-source' };
    return { ...base, chunkId: `${base.documentId}#s${String(i).padStart(3, '0')}`, text, citation: { ...base.citation, span } };
  });
}

/** The chunks after `edit` moved by `shift` code units (their text unchanged), and the edited chunk's text one word longer. */
function edited(chunks: Chunk[], edit: number, shift: number): Chunk[] {
  return chunks.map((chunk, i) => {
    const span = chunk.citation.span!;
    if (i < edit || span['unit'] !== 'utf16-source') return chunk;
    const moved = { ...span, start: (span['start'] as number) + (i === edit ? 0 : shift), end: (span['end'] as number) + shift };
    return { ...chunk, text: i === edit ? `${chunk.text} word` : chunk.text, citation: { ...chunk.citation, span: moved } };
  });
}

test('source ranges live in the span column: rows read back with their spans, and an edit re-keys only its own row block', () => {
  const chunks = rangedChunks(120);
  const documentId = chunks[0]!.documentId;
  const bytes = mergeSearchIndex([buildDocumentPart(documentId, chunks)], PROVENANCE, DEFAULT_INDEX_OPTIONS);
  const loaded = loadSearchIndex(bytes, 'idx.json');
  const byId = new Map(chunks.map((chunk) => [chunk.chunkId, chunk]));
  for (let ordinal = 0; ordinal < loaded.chunkCount; ordinal++) {
    const row = chunkRow(loaded, ordinal);
    assert.deepEqual(row[7], byId.get(row[0])!.citation.span, row[0]);
  }
  // In the file, the offsets are not in the rows: the compressed blocks do not depend on them.
  assert.ok(bytes.includes('"in-span-column"') === false, 'rows are compressed');
  const keysOf = (set: Chunk[]): string[] => parsePart(buildDocumentPart(documentId, set)).header.rowBlockKeys;
  const before = keysOf(chunks);
  assert.ok(before.length >= 4, `${before.length} row blocks`);
  for (const edit of [3, 60, 110]) {
    const after = keysOf(edited(chunks, edit, 5));
    assert.equal(after.length, before.length);
    const changed = after.filter((key, i) => key !== before[i]).length;
    assert.equal(changed, 1, `an edit of chunk ${edit} changes its own row block only`);
  }
  // A span column that does not match its rows (resealed head, so only that check can catch it) is named.
  const parsed = JSON.parse(bytes) as { payload: { head: { rowBlocks: [number, number, string, number, string][] } } };
  const entry = JSON.stringify(parsed.payload.head.rowBlocks[0]);
  const damaged = JSON.stringify([...parsed.payload.head.rowBlocks[0]!.slice(0, 4), 'A']);
  const headStart = bytes.indexOf('"payload":{"head":') + '"payload":{"head":'.length;
  const head = bytes.slice(headStart, bytes.indexOf(',"postings":['));
  const resealed = bytes
    .replace(head, head.replace(entry, damaged))
    .replace(/"seal":"crc32:[0-9a-f]{8}"/, `"seal":"crc32:${crc32Hex(head.replace(entry, damaged))}"`);
  assert.throws(
    () => chunkRow(loadSearchIndex(resealed, 'idx.json'), 0),
    (e) => isArtifactInvalid(e) && /row block \(#0\) whose span column does not match its rows/.test((e as Error).message),
  );
});

test('generated spans of every shape read back as written, and members-made parts equal plain ones', () => {
  const random = seededRandom(31);
  const int = (n: number): number => Math.floor(random() * n);
  const shapes: (() => Record<string, unknown>)[] = [
    () => ({ end: 5000 + int(9000), start: int(5000), unit: 'utf16-source' }),
    () => ({ end: 7, start: 7, unit: 'utf16-source' }),
    () => ({ end: int(100), start: -1 - int(50), unit: 'utf16-source' }),
    () => ({ end: int(10), start: 20 + int(10), unit: 'utf16-source' }),
    () => ({ end: 40, endLine: 3, line: 1, start: 2, unit: 'utf16-source' }),
    () => ({ end: 40, page: 1 + int(9), start: 2, unit: 'utf16-page-text' }),
    () => ({ end: 9, start: '3', unit: 'utf16-source' }),
    () => ({ end: 9, start: 3 }),
  ];
  const base = rangedChunks(1)[0]!;
  for (let round = 0; round < 20; round++) {
    const chunks: Chunk[] = Array.from({ length: 1 + int(60) }, (_, i) => {
      const span = random() < 0.1 ? undefined : shapes[int(shapes.length)]!();
      const citation = { ...base.citation };
      if (span === undefined) delete citation.span;
      else citation.span = span;
      return {
        ...base,
        chunkId: `${base.documentId}#g${round}-${i}`,
        text: `Generated chunk ${i} of round ${round}. `.repeat(1 + int(40)),
        citation,
      };
    });
    const documentId = base.documentId;
    const encoded = encodeChunks({ chunkOptions: { maxChars: 1200, overlapChars: 200 }, chunks, documentId })!;
    const plain = buildDocumentPart(documentId, chunks);
    assert.equal(buildDocumentPart(documentId, chunks, undefined, encoded.members), plain, `round ${round}`);
    const loaded = loadSearchIndex(mergeSearchIndex([plain], PROVENANCE, DEFAULT_INDEX_OPTIONS), 'idx.json');
    const byId = new Map(chunks.map((chunk) => [chunk.chunkId, chunk]));
    for (let ordinal = 0; ordinal < loaded.chunkCount; ordinal++) {
      const row = chunkRow(loaded, ordinal);
      assert.deepEqual(row[7], byId.get(row[0])!.citation.span ?? null, `round ${round}, ${row[0]}`);
    }
  }
});

test('a chunk set with duplicate ids or foreign chunks is refused', () => {
  const chunks = corpus()[0]!.chunks;
  assert.throws(() => buildDocumentPart('rfc9110', [...chunks, chunks[0]!]), /duplicate chunk id/);
  assert.throws(() => buildDocumentPart('other', chunks), /belongs to/);
  const parts = [buildDocumentPart('rfc9110', chunks), buildDocumentPart('rfc9110', chunks)];
  assert.throws(() => mergeSearchIndex(parts, PROVENANCE, DEFAULT_INDEX_OPTIONS), /given twice/);
});

test('every posting list agrees with tokenizing each chunk (merge renumbering is right)', () => {
  const docs = ALL_DOCS.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, { maxChars: 120, overlapChars: 30 }) }));
  const index = loadSearchIndex(
    mergeSearchIndex(
      shuffled(
        docs.map((d) => buildDocumentPart(d.documentId, d.chunks)),
        7,
      ),
      PROVENANCE,
      DEFAULT_INDEX_OPTIONS,
    ),
    'idx.json',
  );
  // term -> chunk ordinal -> [tf in the text, tf in the heading path]
  const expected = new Map<string, Map<number, [number, number]>>();
  const count = (term: string, ordinal: number, field: 0 | 1): void => {
    const postings = expected.get(term) ?? new Map<number, [number, number]>();
    expected.set(term, postings);
    const counts = postings.get(ordinal) ?? [0, 0];
    counts[field]++;
    postings.set(ordinal, counts);
  };
  let total = 0;
  let headingOnly = 0;
  for (let ordinal = 0; ordinal < index.chunkCount; ordinal++) {
    const row = chunkRow(index, ordinal);
    const terms = indexTerms(row[9]).terms;
    assert.equal(index.lengths[ordinal], terms.length);
    total += terms.length;
    for (const term of terms) count(term, ordinal, 0);
    for (const term of indexTerms(row[2].join('\n')).terms) count(term, ordinal, 1);
  }
  assert.equal(index.totalLength, total);
  assert.deepEqual(
    index.terms,
    [...expected.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
  );
  index.terms.forEach((term, termIndex) => {
    const { ordinals, tfs, headingTfs } = decodePostings(index, termIndex);
    const actual = [...ordinals].map((ordinal, i) => [ordinal, [tfs[i], headingTfs[i]]]);
    headingOnly += tfs.filter((tf) => tf === 0).length;
    assert.deepEqual(
      actual,
      [...expected.get(term)!].sort((a, b) => a[0] - b[0]),
      term,
    );
  });
  assert.ok(headingOnly > 0, 'the fixtures have words that only a heading says');
});

test('the index matches schema/search-index.schema.json', async () => {
  const { Ajv2020 } = await import('ajv/dist/2020.js');
  const { readFileSync } = await import('node:fs');
  const schema = JSON.parse(readFileSync(new URL('../../../schema/search-index.schema.json', import.meta.url), 'utf8')) as object;
  const validate = new Ajv2020({ strict: false }).compile(schema);
  for (const bytes of [
    buildSearchIndex(corpus(), PROVENANCE, DEFAULT_INDEX_OPTIONS),
    buildSearchIndex([], PROVENANCE, DEFAULT_INDEX_OPTIONS),
  ]) {
    assert.ok(validate(JSON.parse(bytes)), JSON.stringify(validate.errors));
  }
  assert.equal(validate({ artifact: 'search-index', formatVersion: 1, producer: {}, fingerprint: 'x', payload: { terms: [] } }), false);
});

test('rows with astral characters, lone surrogates and escapes are located and read back exactly', () => {
  const texts = [
    'emoji 🙂 and 𝔸 astral',
    'lone \ud800 high and \udc00 low surrogates',
    'quotes " and \\ backslash\nnewline\ttab',
    'ünïcödé 東京 ﬁle',
  ];
  const doc = makeDocument({
    documentId: 'odd',
    sections: [],
    blocks: texts.map((text, i) => ({ id: `b${i}`, sectionId: null, text, normativity: i % 2 === 0 ? 'normative' : 'informative' })),
  });
  const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
  assert.equal(chunks.length, 4);
  const bytes = buildSearchIndex([{ documentId: 'odd', chunks }], PROVENANCE, DEFAULT_INDEX_OPTIONS);
  const index = loadSearchIndex(new TextEncoder().encode(bytes), 'idx.json');
  chunks.forEach((chunk, ordinal) => {
    assert.equal(chunkRow(index, ordinal)[9], chunk.text);
  });
});

test('a query reads the head and only the blocks it needs, even when the head spans several reads', () => {
  // Documents with source URLs long enough that the head (which lists the documents) outgrows the
  // first two reads; enough distinct words for many posting blocks, of which a query reads one.
  const random = seededRandom(11);
  const vocabulary = Array.from({ length: 15_000 }, () =>
    Array.from({ length: 6 + Math.floor(random() * 6) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(''),
  );
  const word = (): string => vocabulary[Math.floor(random() * vocabulary.length)]!;
  const docs = Array.from({ length: 40 }, (_, d) =>
    makeDocument({
      documentId: `doc${String(d).padStart(2, '0')}`,
      sourceUrl: `https://example.org/doc${d}/${'x'.repeat(3500)}`,
      sections: [{ id: 's1', fragment: null, heading: 'Section', level: 1, number: null, parentId: null }],
      blocks: Array.from({ length: 30 }, (_, b) => ({
        id: `b${b}`,
        text: Array.from({ length: 60 }, word).join(' ') + (b === 7 && d === 23 ? ' needlework' : '') + '.',
      })),
    }),
  );
  const corpus = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
  const bytes = new TextEncoder().encode(buildSearchIndex(corpus, PROVENANCE, DEFAULT_INDEX_OPTIONS));
  const headEnd = Buffer.from(bytes).indexOf(',"postings":[');
  assert.ok(headEnd > 2 * 64 * 1024, `head is ${headEnd} bytes`);
  const whole = memorySource(bytes);
  const ranges: [number, number][] = [];
  const counted: IndexSource = {
    size: whole.size,
    read: (position, length) => {
      ranges.push([position, length]);
      return whole.read(position, length);
    },
  };
  const index = loadSearchIndex(counted, 'idx.json');
  const hit = runQuery(index, { terms: ['needlework'], limit: 5, offset: 0, maxSnippetChars: 200, maxTotalChars: 1000 });
  assert.equal(hit.total, 1);
  assert.equal(hit.hits[0]!.citation.documentId, 'doc23');
  assert.match(hit.hits[0]!.snippet.text, /needlework/);
  const read = ranges.reduce((n, [, length]) => n + length, 0);
  assert.ok(read < bytes.length / 2, `read ${read} of ${bytes.length} bytes`);
  // No byte is read twice while gathering the head.
  const sorted = [...ranges].sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < sorted.length; i++) assert.ok(sorted[i]![0] >= sorted[i - 1]![0] + sorted[i - 1]![1], 'overlapping reads');
  // The same answer from the whole file in memory.
  assert.deepEqual(
    runQuery(loadSearchIndex(bytes, 'idx.json'), { terms: ['needlework'], limit: 5, offset: 0, maxSnippetChars: 200, maxTotalChars: 1000 }),
    hit,
  );
});

test('damaged index files fail as artifact-invalid, never with another error (500 random mutations)', () => {
  const bytes = new TextEncoder().encode(buildSearchIndex(corpus(), PROVENANCE, DEFAULT_INDEX_OPTIONS));
  const random = seededRandom(5);
  const int = (max: number): number => Math.floor(random() * max);
  let failed = 0;
  for (let trial = 0; trial < 500; trial++) {
    const damaged = new Uint8Array(bytes);
    let file: Uint8Array = damaged;
    const kind = trial % 4;
    if (kind === 0) {
      const at = int(damaged.length);
      damaged[at] = damaged[at]! ^ (1 << int(8));
    } else if (kind === 1) damaged[int(damaged.length)] = int(256);
    else if (kind === 2) file = damaged.subarray(0, int(damaged.length));
    else {
      const at = int(damaged.length);
      file = new Uint8Array([...damaged.subarray(0, at), ...damaged.subarray(at, at + 1 + int(40)), ...damaged.subarray(at)]);
    }
    try {
      const index = loadSearchIndex(file, 'idx.json');
      for (let ordinal = 0; ordinal < index.chunkCount; ordinal++) chunkRow(index, ordinal);
      for (let term = 0; term < index.terms.length; term++) decodePostings(index, term);
      runQuery(index, { terms: ['conditional request', '"entity tag"'], limit: 5, offset: 0, maxSnippetChars: 100, maxTotalChars: 300 });
    } catch (error) {
      failed++;
      assert.ok(isArtifactInvalid(error), `trial ${trial} (kind ${kind}): ${error instanceof Error ? error.stack : String(error)}`);
    }
  }
  // Most mutations must be caught (the few that pass touched only the unchecked fingerprint).
  assert.ok(failed > 450, `${failed} of 500 damaged files were refused`);
});

test("the head's per-chunk lists decode to each chunk's values; lists that do not fit the chunks are refused", () => {
  const bytes = buildSearchIndex(corpus({ maxChars: 120, overlapChars: 30 }), PROVENANCE, DEFAULT_INDEX_OPTIONS);
  const index = loadSearchIndex(bytes, 'idx.json');
  const headStart = bytes.indexOf('"payload":{"head":') + '"payload":{"head":'.length;
  const headText = bytes.slice(headStart, bytes.indexOf(',"postings":['));
  const head = JSON.parse(headText) as { lengths: string; chunkNormativity: [string[], string]; passageGroups: string };
  // Little-endian integers, one per chunk, as the schema says.
  const lengths = Buffer.from(head.lengths, 'base64');
  const groups = Buffer.from(head.passageGroups, 'base64');
  assert.equal(lengths.length, index.chunkCount * 4);
  for (let ordinal = 0; ordinal < index.chunkCount; ordinal++) {
    assert.equal(index.lengths[ordinal], lengths.readUInt32LE(ordinal * 4));
    assert.equal(index.lengths[ordinal], indexTerms(chunkRow(index, ordinal)[9]).terms.length);
    assert.equal(index.normativityValues[index.chunkNormativity[ordinal]!], chunkRow(index, ordinal)[5]);
  }
  // Groups: numbered by their first chunk, two or more chunks each, -1 outside any.
  const members = new Map<number, number[]>();
  for (let ordinal = 0; ordinal < index.chunkCount; ordinal++) {
    const g = groups.readInt32LE(ordinal * 4);
    if (g >= 0) members.set(g, [...(members.get(g) ?? []), ordinal]);
  }
  assert.deepEqual(index.duplicatePassages, [...members.values()]);
  assert.ok(members.size > 0, 'the fixtures have same-passage chunks');
  assert.deepEqual(
    [...members.keys()],
    [...members.keys()].map((_, k) => k),
  );
  // Resealed heads (so only the list checks can catch them).
  const resealed = (edit: (h: typeof head) => void): string => {
    const edited = JSON.parse(headText) as typeof head;
    edit(edited);
    const text = canonicalJsonFile(edited).trimEnd();
    return bytes.replace(headText, text).replace(/"seal":"crc32:[0-9a-f]{8}"/, `"seal":"crc32:${crc32Hex(text)}"`);
  };
  const withInt32 = (text: string, at: number, value: number): string => {
    const raw = Buffer.from(text, 'base64');
    raw.writeInt32LE(value, at * 4);
    return raw.toString('base64');
  };
  const refused = (edit: (h: typeof head) => void, message: RegExp): void =>
    assert.throws(
      () => loadSearchIndex(resealed(edit), 'idx.json'),
      (e) => isArtifactInvalid(e) && message.test((e as Error).message),
    );
  refused((h) => {
    h.lengths = Buffer.from(h.lengths, 'base64').subarray(4).toString('base64');
  }, /per-chunk lists that do not match its chunks/);
  refused((h) => {
    h.chunkNormativity[1] = Buffer.from(h.chunkNormativity[1], 'base64').fill(h.chunkNormativity[0].length, 0, 1).toString('base64');
  }, /per-chunk lists that do not match its chunks/);
  refused((h) => {
    h.passageGroups = withInt32(h.passageGroups, 0, index.chunkCount);
  }, /passage groups that do not match its chunks/);
  refused((h) => {
    h.passageGroups = withInt32(h.passageGroups, 1, -2);
  }, /passage groups that do not match its chunks/);
  refused((h) => {
    h.passageGroups = `${h.passageGroups.slice(0, -4)}`;
  }, /passage groups that do not match its chunks/);
});

test('PerChunkInts: any values of each width decode to themselves, whatever the size; other lengths are refused', () => {
  const next = seededRandom(2026);
  // Sizes around Node's pooled-Buffer threshold too: a small decoded Buffer sits at any offset of a shared pool.
  for (const count of [
    0,
    1,
    2,
    3,
    5,
    63,
    64,
    1023,
    1024,
    1025,
    2047,
    4097,
    ...Array.from({ length: 30 }, () => Math.floor(next() * 20_000)),
  ]) {
    const bytes = Array.from({ length: count }, () => Math.floor(next() * 256));
    const unsigned = Array.from({ length: count }, () => Math.floor(next() * 2 ** 32));
    const signed = Array.from({ length: count }, () => Math.floor(next() * 2 ** 32) - 2 ** 31);
    assert.deepEqual([...decodePerChunkInts(encodePerChunkInts(bytes, 1), count, 1)!], bytes);
    assert.deepEqual([...decodePerChunkInts(encodePerChunkInts(unsigned, 4), count, 4)!], unsigned);
    assert.deepEqual([...decodePerChunkInts(encodePerChunkInts(signed, 4, true), count, 4, true)!], signed);
    // A decoded array is a plain typed array: its slice() is a copy (a Buffer's is a view), so sorting one leaves it as it was.
    const decoded = decodePerChunkInts(encodePerChunkInts(bytes, 1), count, 1)!;
    decoded.slice().sort();
    assert.deepEqual([...decoded], bytes);
    assert.equal(decodePerChunkInts(encodePerChunkInts(unsigned, 4), count + 1, 4), undefined);
    if (count > 0) assert.equal(decodePerChunkInts(encodePerChunkInts(bytes, 1), count - 1, 1), undefined);
  }
  assert.equal(decodePerChunkInts(42, 0, 1), undefined);
  assert.equal(decodePerChunkInts('!!!!', 3, 1), undefined, 'not base64, of the right length');
});

test("a document's next part reuses its unchanged row blocks: the same bytes as a fresh part, damaged blocks left out", () => {
  // A long document (several row blocks), then the same with one word added to one block.
  const blocks = Array.from({ length: 240 }, (_, i) => ({
    id: `b${i}`,
    sectionId: null,
    fragment: null,
    text: `Paragraph ${i} describes the widget and its ${i % 7} settings in enough words to fill a row. `.repeat(4),
  }));
  const before = makeDocument({ documentId: 'long', sections: [], blocks });
  const after = makeDocument({
    documentId: 'long',
    sections: [],
    blocks: blocks.map((b, i) => (i === 120 ? { ...b, text: `Edited ${b.text}` } : b)),
  });
  const oldPart = buildDocumentPart('long', chunkDocument(before, DEFAULT_CHUNK_OPTIONS));
  const chunks = chunkDocument(after, DEFAULT_CHUNK_OPTIONS);
  const fresh = buildDocumentPart('long', chunks);
  const reuse = reusableRowBlocks(oldPart);
  const blockCount = parsePart(oldPart).header.rowBlocks.length;
  assert.ok(blockCount >= 4, `${blockCount} row blocks`);
  assert.equal(reuse.size, blockCount);
  assert.equal(buildDocumentPart('long', chunks, reuse), fresh);
  // Reuse only saves work: a part whose block was damaged loses that block, and the result is the same.
  const [first] = parsePart(oldPart).rowBlocksText.split(',');
  const damaged = oldPart.replace(first!, `"${'A'.repeat(first!.length - 2)}"`);
  const kept = reusableRowBlocks(damaged);
  assert.equal(kept.size, blockCount - 1);
  assert.equal(buildDocumentPart('long', chunks, kept), fresh);
  assert.equal(reusableRowBlocks('not a part').size, 0);
});

test('every term of every posting block is found, and a block whose terms disagree with its head is refused', () => {
  const random = seededRandom(5);
  const vocabulary = [
    ...new Set(
      Array.from({ length: 20_000 }, () =>
        Array.from({ length: 5 + Math.floor(random() * 5) }, () => String.fromCharCode(97 + Math.floor(random() * 26))).join(''),
      ),
    ),
  ];
  const docs = Array.from({ length: 6 }, (_, d) =>
    makeDocument({
      documentId: `doc${d}`,
      sections: [{ id: 's1', fragment: null, heading: 'Section', level: 1, number: null, parentId: null }],
      blocks: Array.from({ length: 20 }, (_, b) => ({
        id: `b${b}`,
        text: vocabulary.filter((_, i) => i % 120 === d * 20 + b).join(' ') + '.',
      })),
    }),
  );
  const corpus = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
  const bytes = buildSearchIndex(corpus, PROVENANCE, DEFAULT_INDEX_OPTIONS);
  const parsed = JSON.parse(bytes) as { payload: { head: { postingBlocks: [number, number, string, string][] }; postings: string[] } };
  const blocks = parsed.payload.head.postingBlocks;
  assert.ok(blocks.length >= 3, `${blocks.length} posting blocks`);
  const index = loadSearchIndex(bytes, 'idx.json');
  const terms = [...new Set(corpus.flatMap((d) => d.chunks.flatMap((c) => indexTerms(c.text).terms)))].sort();
  terms.forEach((term, i) => {
    assert.ok(findTerm(index, term) >= 0, term);
    // Between two indexed terms, before the first and after the last: absent.
    assert.equal(findTerm(index, `${term}\u0000`), -1, `after ${term}`);
    if (i === 0) assert.equal(findTerm(index, term.slice(0, -1) + '\u0000'), -1);
  });
  assert.equal(findTerm(index, '\uffff'), -1);
  // A block rewritten with a consistent CRC-32 and head seal, but not the terms the head names for it.
  const resealed = (block: number, text: string): string => {
    const original = parsed.payload.postings[block]!;
    assert.equal(Buffer.byteLength(text), Buffer.byteLength(original));
    let edited = bytes.replace(JSON.stringify(original), JSON.stringify(text));
    edited = edited.replace(`"${blocks[block]![2]}","${blocks[block]![3]}"]`, `"${crc32Hex(text)}","${blocks[block]![3]}"]`);
    const headStart = edited.indexOf('"payload":{"head":') + '"payload":{"head":'.length;
    const headEnd = edited.indexOf(',"postings":[');
    return edited.replace(/"seal":"crc32:[0-9a-f]{8}"/, `"seal":"crc32:${crc32Hex(edited.slice(headStart, headEnd))}"`);
  };
  const block = 1;
  const text = parsed.payload.postings[block]!;
  const refused = (edited: string): void =>
    assert.throws(
      () => {
        const damaged = loadSearchIndex(edited, 'idx.json');
        for (const term of terms) findTerm(damaged, term);
      },
      (e) => isArtifactInvalid(e) && /posting block \(#1\) whose terms do not match its head/.test((e as Error).message),
    );
  // Two terms joined: one term fewer than the head says.
  refused(resealed(block, text.replace(' ', '_')));
  // The first term changed.
  refused(resealed(block, (text[0] === 'a' ? 'b' : 'a') + text.slice(1)));
  // The list of terms unterminated.
  refused(resealed(block, text.replace('|', '_')));
  // The unedited bytes pass the same path.
  assert.equal(resealed(block, text), bytes);
});
