import { Buffer } from 'node:buffer';
import { zlib } from '../node-builtins.js';

/**
 * The search index file (format 11), shared by its writer (search-index.ts) and reader
 * (index-reader.ts). A corpus of one segment (see planSearchSegments) is one canonical-JSON artifact in
 * the shared envelope; a larger one is a manifest (payload.manifest: the segments' file names,
 * fingerprints and counts, sealed with a CRC-32) naming segment files beside it, each in this same
 * block layout under the kind search-index-segment:
 *
 *   {"artifact":"search-index","fingerprint":"sha256:…","formatVersion":11,
 *    "payload":{"head":{…},"postings":["…",…],"rows":["…",…],"seal":"crc32:…"},
 *    "producer":{…}}
 *
 * - head: everything small a query needs before it reads a posting or a row (BM25 parameters,
 *   documents, per-chunk lengths and normativity, each chunk's same-passage group, and the size
 *   and CRC-32 of every block, with the first term of each posting block). Integers and strings
 *   only; each per-chunk list is one base64 string of little-endian integers (PerChunkInts), which
 *   a query turns into a typed array natively: as JSON arrays they were most of the head's bytes,
 *   of JSON.parse's time and of the objects that lived through the query's first collection
 *   (format 10); an earlier format decoded them in JS, which cost a cold process ~5 ms in the interpreter.
 * - postings: the postings of all terms, in term order (code units), cut into blocks at term
 *   boundaries. A block's text is its terms joined by " ", POSTING_BLOCK_TERMS_END, the length of
 *   each term's postings (base64 VLQ), then the postings (base64 VLQ, see search-index.ts for the
 *   run encoding). The terms live in their blocks, not in the head, because a query looks up a
 *   few terms: it finds each one's block by the first terms in the head and reads only that
 *   block, which it needs for the postings anyway (format 8 kept every term in the head: a third of
 *   its bytes, and ~8,000 strings split and summed by every query).
 * - rows: each chunk's citation row and text, in chunk order, cut into blocks that never span two
 *   documents; a block is the rows' canonical JSON, each followed by "\n", UTF-8, raw DEFLATE from a
 *   fresh compressor ended by a sync flush (not a final block), base64. Such members put one after
 *   another and closed by ROW_BLOCKS_END are one DEFLATE stream, so a query inflates every block it
 *   needs in one call: each inflate call costs a cold process ~0.2 ms of zlib's JavaScript, more
 *   than inflating the block itself (format 9 made 14 calls for a two-word query).
 *   A row's span that is a plain source range ({end, start, unit: "utf16-source"}) is not in the
 *   row: the row holds SPAN_IN_COLUMN and the range is in its block's entry in the head, the span
 *   column (RowBlockEntry). Source offsets are the only row values that an edit elsewhere in the
 *   document changes; kept out of the compressed rows, a one-paragraph edit compresses one or two
 *   blocks again instead of every block after the edit (format 12).
 * - seal: CRC-32 of the head's bytes.
 *
 * The fingerprint (SHA-256) covers the whole file, as for every artifact (parseArtifact and the
 * build graph check it). A cold query instead reads the head and checks it against the seal, then
 * reads only the blocks it needs, each checked against its CRC-32 in the head: every byte it uses
 * is checked, and it reads a few hundred kilobytes rather than the whole corpus text. CRC-32 (as in
 * gzip and zip) detects accidental damage, which is what a reader checks for (anyone able to edit
 * the file can recompute any digest); it comes with node:zlib, which the reader loads anyway to
 * inflate rows, whereas node:crypto costs a cold process ~7 ms to load. The position of every block
 * follows from the head, and the reader checks that they add up to where the seal is, so a
 * truncated file fails before any block is read.
 */
export const ARTIFACT_KIND = 'search-index';
export const BODY_PREFIX = `{"artifact":"${ARTIFACT_KIND}",`;
export const FINGERPRINT_PREFIX = `{"artifact":"${ARTIFACT_KIND}","fingerprint":"sha256:`;
/** Bytes from the start of the file to the first byte after `"fingerprint":"sha256:<64 hex>",`. */
export const AFTER_FINGERPRINT = FINGERPRINT_PREFIX.length + 64 + 2;
/** A segment file: the same block layout under its own kind (so neither can be taken for the other). */
export const SEGMENT_ARTIFACT_KIND = 'search-index-segment';
export const HEAD_KEY = '"payload":{"head":';
/** A segmented index: chunks/search-index.json holds only this manifest; the blocks are in its segment files. */
export const SEGMENTS_KEY = '"payload":{"manifest":';
export const POSTINGS_KEY = ',"postings":[';
export const ROWS_KEY = '],"rows":[';
export const SEAL_KEY = '],"seal":"crc32:';

/** Raw row bytes gathered before a row block is cut (bounds what one hit costs to read and inflate). */
export const ROW_BLOCK_TARGET_BYTES = 16 * 1024;
/** An empty final fixed-Huffman DEFLATE block: ends a run of row-block members. */
export const ROW_BLOCKS_END = Uint8Array.of(0x03, 0x00);
/** Postings characters gathered before a posting block is cut (at the next term boundary). */
export const POSTING_BLOCK_TARGET_CHARS = 16 * 1024;
/**
 * Segments (format 8). An index's documents are cut into segments of consecutive documents (in
 * document-id order, so chunk ordinals, ranking ties and output bytes are those of one file). A segment
 * ends after a document whose id hashes (CRC-32) to 0 modulo a cut number, or when it holds a maximum
 * number of documents: a pure function of the set of document ids, so a clean and an incremental build
 * cut the same segments, and adding or removing a document moves at most the cuts up to the next hash
 * cut (unless it changes the cut number: see planSearchSegments). An edit rewrites the segments of the
 * documents it touched and the small manifest; the others are reused by their key (their documents'
 * chunk content). A plan of one segment is one file.
 *
 * The stage indexes (planSegments) are one file up to SINGLE_FILE_MAX_DOCUMENTS entries and cut one in
 * SEGMENT_CUT_ONE_IN, at most SEGMENT_MAX_DOCUMENTS above. The search index (planSearchSegments) is cut
 * alike above SINGLE_FILE_MAX_DOCUMENTS, but also below, from SEARCH_SINGLE_FILE_MAX_DOCUMENTS: its
 * file is what an edit merges and rewrites (2.8 MB for the 32 documents of the dev corpus, where a stage
 * index is a few kilobytes), so an edit of one file of 32 merged every document again.
 */
export const SINGLE_FILE_MAX_DOCUMENTS = 256;
export const SEGMENT_CUT_ONE_IN = 256;
export const SEGMENT_MAX_DOCUMENTS = 1024;
/** Up to this many documents the search index is one file (each of its documents is then ~1/16 of a full build's work or more). */
export const SEARCH_SINGLE_FILE_MAX_DOCUMENTS = 16;
/**
 * Segments the search index aims at between SEARCH_SINGLE_FILE_MAX_DOCUMENTS and SINGLE_FILE_MAX_DOCUMENTS
 * documents: an edit merges about an eighth of the corpus, and a cold query opens about eight segment
 * heads. On the dev corpus (bench/RESULTS.md, 2026-12-03) four segments put whatwg/dom.html in one of 10
 * documents, 45 % of the index's bytes, and its update in the watch took 0.14x a full build; eight
 * (three documents with it) took 0.024-0.045x, for a cold query 1.06-1.17x the single file's on Node 24
 * (four: 0.97x).
 */
export const SEARCH_SEGMENTS_AIMED = 8;

/** Ends (exclusive) of the segments of a stage index's documents, sorted by id; one segment for a small corpus. */
export function planSegments(documentIds: readonly string[]): number[] {
  const n = documentIds.length;
  if (n <= SINGLE_FILE_MAX_DOCUMENTS) return [n];
  return cutSegments(documentIds, SEGMENT_CUT_ONE_IN, SEGMENT_MAX_DOCUMENTS);
}

/**
 * Ends (exclusive) of the segments of the search index's documents, sorted by id. Above
 * SINGLE_FILE_MAX_DOCUMENTS, those of planSegments. From SEARCH_SINGLE_FILE_MAX_DOCUMENTS + 1 up to it,
 * a cut one in k, at most 2k documents, where k is the least power of two from 4 up that is at
 * least n / SEARCH_SEGMENTS_AIMED (17-32 documents: 1 in 4, at most 8; 129-256: 1 in 32, at most 64):
 * about SEARCH_SEGMENTS_AIMED segments. k is a function of the number of documents, so a corpus that crosses 32, 64, 128 or 256
 * documents is cut anew once (a merge of cached parts, no tokenising); since each cut number divides
 * the next, the coarser plan's hash cuts are among the finer one's.
 */
export function planSearchSegments(documentIds: readonly string[]): number[] {
  const n = documentIds.length;
  if (n > SINGLE_FILE_MAX_DOCUMENTS) return planSegments(documentIds);
  if (n <= SEARCH_SINGLE_FILE_MAX_DOCUMENTS) return [n];
  let oneIn = 4;
  while (oneIn * SEARCH_SEGMENTS_AIMED < n) oneIn *= 2;
  return cutSegments(documentIds, oneIn, 2 * oneIn);
}

/** A cut after each id whose CRC-32 is 0 modulo `oneIn`, and after `max` documents without one. */
function cutSegments(documentIds: readonly string[], oneIn: number, max: number): number[] {
  const n = documentIds.length;
  const ends: number[] = [];
  let start = 0;
  for (let i = 0; i < n; i++) {
    if (zlib.crc32(documentIds[i]!) % oneIn === 0 || i + 1 - start >= max) {
      ends.push(i + 1);
      start = i + 1;
    }
  }
  if (start < n) ends.push(n);
  return ends;
}

/** A segment file is named by its fingerprint (content-addressed): equal segments, one file. */
export function segmentFileName(fingerprintHex: string): string {
  return `search-index.seg-${fingerprintHex.slice(0, 16)}.json`;
}
export const SEGMENT_FILE_NAME = /^search-index\.seg-[0-9a-f]{16}\.json$/;

/** [file name beside the manifest, "sha256:…" fingerprint of the file, documents, chunks, total length]. */
export type SegmentEntry = [file: string, fingerprint: string, documentCount: number, chunkCount: number, totalLength: number];

export interface IndexManifest {
  bm25: { bMilli: number; k1Milli: number };
  provenance: IndexProvenance;
  segments: SegmentEntry[];
  tokenizer: number;
}

/** Bytes read first (the dev corpus head is ~73 KB); the reader reads on (doubling) until it has the whole head. */
export const FIRST_READ_BYTES = 128 * 1024;

export interface IndexProvenance {
  chunkIndexFingerprint: string;
  /**
   * CRC-32 of the chunk index file's exact bytes (set by the build): a query whose chunk index has
   * these bytes knows it is the verified one the index was built from, without hashing it with SHA-256.
   */
  chunkIndexCrc32?: string;
  /** Non-empty only for an explicitly partial build. */
  missingSources: string[];
}

export type DocumentRow = [
  documentId: string,
  sourceUrl: string,
  snapshotId: string,
  family: string,
  authority: string,
  documentType: string,
];
export type ChunkRow = [
  chunkId: string,
  sectionId: string | null,
  headingPath: string[],
  blockIds: string[],
  fragment: string | null,
  normativity: string,
  pages: number[] | null,
  /** As chunkRow() returns it; a stored row holds SPAN_IN_COLUMN for a source range. */
  span: Record<string, unknown> | null,
  textRange: { start: number; end: number } | null,
  text: string,
  /** Source ids inside the text, [code-point offset, id] ascending (Chunk.anchors), or null. */
  anchors: [number, string][] | null,
  /** Only for a chunk of one algorithm block: the first and last step it covers. */
  steps?: { first: string; last: string },
];

/** Ends a posting block's term list (terms are letters, digits and marks, or fullwidth symbol forms: symbol-terms.ts; VLQ is base64). */
export const POSTING_BLOCK_TERMS_END = '|';
/** [number of terms, length of the block's text in UTF-8 bytes, CRC-32 of those bytes as 8 hex digits, first term]. */
export type PostingBlockEntry = [termCount: number, byteLength: number, crc32: string, firstTerm: string];
/**
 * A row block: its chunks, its base64 length, the CRC-32 of that text, the bytes it inflates to, and
 * its span column. The column has one item per row, in order, VLQ (vlq.ts): 0 for a row whose span is
 * in the row, else (start - the previous such row's start in the block, from 0, zigzag: 0, -1, 1,
 * -2... as 0, 1, 2, 3...) + 1, then end - start.
 */
export type RowBlockEntry = [chunkCount: number, byteLength: number, crc32: string, inflatedBytes: number, spans: string];

/** The span slot of a row whose source range is in its block's span column. */
export const SPAN_IN_COLUMN = 'in-span-column';

/** A plain range of source code units: the spans a block's span column holds. */
export interface SourceRange {
  start: number;
  end: number;
}

/** CRC-32 as 8 lowercase hex digits (zlib.crc32 is the same function on Node, Deno and Bun). */
export function crc32Hex(data: string | Uint8Array): string {
  return zlib.crc32(data).toString(16).padStart(8, '0');
}

/**
 * A per-chunk list of integers in the head: base64 of each value as a little-endian integer of
 * `width` bytes (1: unsigned, 4: unsigned for lengths, signed for passage groups).
 */
export type PerChunkInts = string;

/** Per-chunk integers as PerChunkInts. */
export function encodePerChunkInts(values: ArrayLike<number>, width: 1 | 4, signed = false): PerChunkInts {
  const bytes = Buffer.alloc(values.length * width);
  for (let i = 0; i < values.length; i++) {
    const value = values[i]!;
    if (width === 1) bytes.writeUInt8(value, i);
    else if (signed) bytes.writeInt32LE(value, i * 4);
    else bytes.writeUInt32LE(value, i * 4);
  }
  return bytes.toString('base64');
}

/** Whether `value` is a list of distinct chunk ordinals below `count`, ascending. */
export function isAscendingOrdinals(value: unknown, count: number): value is number[] {
  if (!Array.isArray(value)) return false;
  for (let i = 0; i < value.length; i++) {
    const ordinal = value[i] as unknown;
    if (!Number.isSafeInteger(ordinal) || (ordinal as number) < 0 || (ordinal as number) >= count) return false;
    if (i > 0 && (ordinal as number) <= (value[i - 1] as number)) return false;
  }
  return true;
}

const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * The integers of a PerChunkInts of `count` values, or undefined when it does not hold exactly
 * that many (or is not base64): a typed array over the decoded bytes, made natively.
 */
export function decodePerChunkInts(text: unknown, count: number, width: 1): Uint8Array | undefined;
export function decodePerChunkInts(text: unknown, count: number, width: 4, signed: true): Int32Array | undefined;
export function decodePerChunkInts(text: unknown, count: number, width: 4): Uint32Array | undefined;
export function decodePerChunkInts(
  text: unknown,
  count: number,
  width: 1 | 4,
  signed = false,
): Uint8Array | Uint32Array | Int32Array | undefined {
  // Base64 of count · width bytes has exactly this length; Buffer.from skips characters that are not
  // base64, so such a text decodes to fewer bytes and is refused below (damage is the seal's to catch).
  if (typeof text !== 'string' || text.length !== Math.ceil((count * width) / 3) * 4) return undefined;
  const decoded = Buffer.from(text, 'base64');
  if (decoded.length !== count * width) return undefined;
  // Own memory for every width: a Buffer (a view of Node's shared pool when small) behaves
  // differently from a Uint8Array (its slice() is a view).
  if (width === 1) return new Uint8Array(decoded);
  // Own, aligned memory (a small Buffer may sit at any offset of Node's shared pool).
  const bytes = new Uint8Array(count * 4);
  bytes.set(decoded);
  if (!LITTLE_ENDIAN) Buffer.from(bytes.buffer).swap32();
  return signed ? new Int32Array(bytes.buffer) : new Uint32Array(bytes.buffer);
}

/**
 * The head of a single-file index; a segment's head has passageKeys instead of passageGroups and
 * provenance.
 */
export interface IndexHead {
  /** Ordinals (ascending) of the chunks of a document's apparatus (Chunk.apparatus): a query weighs their matches less. */
  apparatusChunks: number[];
  bm25: { bMilli: number; k1Milli: number };
  chunkCounts: number[];
  /** [sorted normativity values, each chunk's index into them (width 1)]. */
  chunkNormativity: [string[], PerChunkInts];
  /** Each document's length in tokens (the sum of its chunks' lengths): document-level BM25 without a pass over every chunk. */
  documentLengths: number[];
  documents: DocumentRow[];
  /**
   * Each chunk's same-passage group (width 4, signed): groups of two or more chunks whose text is
   * the same passage, numbered by their first chunk; -1 for a chunk in none.
   */
  passageGroups?: PerChunkInts;
  /** Each chunk's length in tokens (width 4). */
  lengths: PerChunkInts;
  /**
   * Segment only: each chunk's passage key, PASSAGE_KEY_CHARS characters each (NO_PASSAGE_KEY for a
   * chunk without terms), so a query finds same-passage chunks across segments.
   */
  passageKeys?: string;
  postingBlocks: PostingBlockEntry[];
  provenance?: IndexProvenance;
  rowBlocks: RowBlockEntry[];
  tokenizer: number;
  totalLength: number;
}

export const PASSAGE_KEY_CHARS = 16;
export const NO_PASSAGE_KEY = '-'.repeat(PASSAGE_KEY_CHARS);
