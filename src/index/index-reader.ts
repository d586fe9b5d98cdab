import { Buffer } from 'node:buffer';
import { EpistemeError } from '../failure.js';
import { fs, zlib } from '../node-builtins.js';
import { SEARCH_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import {
  AFTER_FINGERPRINT,
  crc32Hex,
  ARTIFACT_KIND,
  FINGERPRINT_PREFIX,
  FIRST_READ_BYTES,
  HEAD_KEY,
  POSTINGS_KEY,
  ROWS_KEY,
  SEAL_KEY,
  type ChunkRow,
  type DocumentRow,
  type IndexHead,
  type IndexProvenance,
} from './index-layout.js';
import { TOKENIZER_VERSION } from './tokenizer.js';
import { VlqReader } from './vlq.js';

/**
 * Reads a search index (layout in index-layout.ts) the way a cold query needs it: the head first
 * (checked against the seal), then only the posting and row blocks the query touches, each checked
 * against its CRC-32 before use (why CRC-32: index-layout.ts). Kept free of the writer's imports (fflate, the tokenizer's
 * stemmer is loaded by the query anyway) so a query loads as little code as it can.
 */

/** Random access to the index bytes: a file read piece by piece, or bytes already in memory (stdin). */
export interface IndexSource {
  readonly size: number;
  read(position: number, length: number): Buffer;
}

export function memorySource(bytes: Uint8Array): IndexSource {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { size: buffer.length, read: (position, length) => buffer.subarray(position, position + length) };
}

/** A file kept open for the life of the process (a CLI query reads a few blocks and exits). */
export function fileSource(file: string): IndexSource {
  const fd = fs.openSync(file, 'r');
  return descriptorSource(fd, fs.fstatSync(fd).size);
}

/** A descriptor already opened and checked by the caller (see store/bounded-read.ts). */
export function descriptorSource(fd: number, size: number): IndexSource {
  return {
    size,
    read(position, length) {
      const buffer = Buffer.allocUnsafe(length);
      let done = 0;
      while (done < length) {
        const n = fs.readSync(fd, buffer, done, length - done, position + done);
        if (n === 0) break;
        done += n;
      }
      return buffer.subarray(0, done);
    },
  };
}

export interface LoadedSearchIndex {
  label: string;
  formatVersion: number;
  tokenizerVersion: number;
  k1Milli: number;
  bMilli: number;
  provenance: IndexProvenance;
  documents: DocumentRow[];
  chunkCounts: number[];
  chunkCount: number;
  /** Chunk ordinal -> document ordinal. */
  chunkDocument: Uint32Array;
  normativityValues: string[];
  /** Chunk ordinal -> index into normativityValues. */
  chunkNormativity: readonly number[];
  /** Groups of chunk ordinals with the same passage text (two or more each, ascending). */
  duplicatePassages: readonly (readonly number[])[];
  /** Chunk ordinal -> length in tokens (of its text, the body field). */
  lengths: readonly number[];
  totalLength: number;
  terms: string[];
  /** Term i's postings are postingStarts[i]..postingStarts[i + 1] of all postings concatenated. */
  postingStarts: Float64Array;
  /** First chunk ordinal of each document. */
  documentStarts: Uint32Array;
  blocks: BlockDirectory;
}

interface BlockDirectory {
  source: IndexSource;
  /** First term of each posting block (plus the term count at the end). */
  postingFirstTerm: Uint32Array;
  postingOffset: Float64Array;
  postingDigest: string[];
  postingText: (string | undefined)[];
  /** First chunk ordinal of each row block (plus the chunk count at the end). */
  rowFirstChunk: Uint32Array;
  rowOffset: Float64Array;
  rowBytes: Float64Array;
  rowDigest: string[];
  rowLines: (string[] | undefined)[];
  rowCache: (ChunkRow | undefined)[];
}

function invalid(label: string, message: string, extra: Record<string, unknown> = {}): EpistemeError {
  return new EpistemeError('artifact-invalid', `${label} ${message}`, {
    hint: 'Rebuild the search index with `episteme index` (or `episteme build`).',
    details: { file: label, ...extra },
  });
}

const VERSION_AND_HEAD = /^"formatVersion":(\d+),/;
const TAIL = /^\],"seal":"crc32:([0-9a-f]{8})"\},"producer":\{"name":"[^"\\]*","version":"[^"\\]*"\}\}\n$/;

/**
 * Opens an index: checks kind, format version and the head's seal, and checks that the block sizes
 * recorded in the head account for the file exactly. Accepts a source, the bytes, or the text.
 */
export function loadSearchIndex(input: IndexSource | Uint8Array | string, label: string): LoadedSearchIndex {
  const source =
    typeof input === 'string' ? memorySource(new TextEncoder().encode(input)) : input instanceof Uint8Array ? memorySource(input) : input;
  const size = source.size;
  let window = source.read(0, Math.min(size, FIRST_READ_BYTES));
  const head = window.toString('latin1', 0, Math.min(window.length, 200));
  if (!head.startsWith(FINGERPRINT_PREFIX)) {
    const kind = /^\s*\{\s*"artifact"\s*:\s*"([^"]*)"/.exec(head)?.[1];
    if (kind !== undefined && kind !== ARTIFACT_KIND) throw invalid(label, `is a ${kind} artifact, not a search index.`);
    throw invalid(label, 'is not a search index (unreadable, truncated or not in canonical form).');
  }
  const version = VERSION_AND_HEAD.exec(head.slice(AFTER_FINGERPRINT));
  if (version === null) throw invalid(label, 'is not a search index (no format version).');
  if (Number(version[1]) !== SEARCH_INDEX_FORMAT_VERSION) {
    throw invalid(label, `has search-index format version ${version[1]}; this Episteme reads version ${SEARCH_INDEX_FORMAT_VERSION}.`, {
      formatVersion: Number(version[1]),
    });
  }
  const headStart = AFTER_FINGERPRINT + version[0].length + HEAD_KEY.length;
  if (head.slice(headStart - HEAD_KEY.length, headStart) !== HEAD_KEY) throw invalid(label, 'does not have the search-index layout.');
  // The head ends where the postings begin; the key cannot occur inside the head (its quotes would be escaped).
  let headEnd = window.indexOf(POSTINGS_KEY, headStart, 'latin1');
  while (headEnd < 0 && window.length < size) {
    // Read on from where the window ends (doubling it); search only the new part and the seam.
    const searched = Math.max(headStart, window.length - POSTINGS_KEY.length);
    window = Buffer.concat([window, source.read(window.length, Math.min(size - window.length, window.length))]);
    headEnd = window.indexOf(POSTINGS_KEY, searched, 'latin1');
  }
  if (headEnd < 0) throw invalid(label, 'is truncated (no postings after its head).');
  const tailStart = Math.max(headEnd, size - 256);
  const tail = source.read(tailStart, size - tailStart).toString('latin1');
  const sealAt = tail.lastIndexOf(SEAL_KEY);
  const sealed = sealAt < 0 ? null : TAIL.exec(tail.slice(sealAt));
  if (sealed === null) throw invalid(label, 'is truncated or modified (no seal at its end).');
  const headBytes = window.subarray(headStart, headEnd);
  const actualSeal = crc32Hex(headBytes);
  if (actualSeal !== sealed[1]) {
    throw invalid(label, 'fails its seal check (truncated or modified).', {
      expected: `crc32:${sealed[1]}`,
      actual: `crc32:${actualSeal}`,
    });
  }
  let parsed: IndexHead;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(headBytes)) as IndexHead;
  } catch (cause) {
    throw invalid(label, 'does not have the search-index layout.', { cause: String(cause) });
  }
  return fromHead(parsed, source, headEnd, tailStart + sealAt, label);
}

function fromHead(p: IndexHead, source: IndexSource, headEnd: number, sealPosition: number, label: string): LoadedSearchIndex {
  const isBlockList = (value: unknown, width: number): boolean =>
    Array.isArray(value) && value.every((entry) => Array.isArray(entry) && entry.length === width && typeof entry[width - 1] === 'string');
  const shapeOk =
    typeof p === 'object' &&
    p !== null &&
    typeof p.bm25?.k1Milli === 'number' &&
    typeof p.bm25?.bMilli === 'number' &&
    Array.isArray(p.chunkCounts) &&
    Array.isArray(p.chunkNormativity) &&
    Array.isArray(p.chunkNormativity[0]) &&
    Array.isArray(p.documents) &&
    Array.isArray(p.duplicatePassages) &&
    p.documents.length === p.chunkCounts.length &&
    typeof p.terms === 'string' &&
    isBlockList(p.postingBlocks, 2) &&
    isBlockList(p.rowBlocks, 3) &&
    typeof p.provenance?.chunkIndexFingerprint === 'string' &&
    Array.isArray(p.provenance?.missingSources) &&
    typeof p.totalLength === 'number';
  if (!shapeOk) throw invalid(label, 'does not have the search-index layout.');
  if (p.tokenizer !== TOKENIZER_VERSION)
    throw invalid(label, `was built with tokenizer version ${String(p.tokenizer)}; this Episteme uses ${TOKENIZER_VERSION}.`);
  const chunkCount = p.chunkCounts.reduce((n, count) => n + count, 0);
  const chunkDocument = new Uint32Array(chunkCount);
  const documentStarts = new Uint32Array(p.chunkCounts.length);
  let ordinal = 0;
  p.chunkCounts.forEach((count, docOrdinal) => {
    documentStarts[docOrdinal] = ordinal;
    chunkDocument.fill(docOrdinal, ordinal, ordinal + count);
    ordinal += count;
  });
  const isCountList = (list: unknown, length: number): boolean => Array.isArray(list) && list.length === length;
  if (!isCountList(p.lengths, chunkCount) || !isCountList(p.chunkNormativity[1], chunkCount))
    throw invalid(label, 'has per-chunk lists that do not match its chunks.');
  const isOrdinal = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0 && (value as number) < chunkCount;
  if (!p.duplicatePassages.every((group) => Array.isArray(group) && group.length > 1 && group.every(isOrdinal)))
    throw invalid(label, 'has passage groups that do not match its chunks.');
  const terms = p.terms === '' ? [] : p.terms.split(' ');
  if (!isCountList(p.postingLengths, terms.length)) throw invalid(label, 'has postings that do not match its terms.');
  // postingStarts[i + 1] = postingStarts[i] + length of term i's postings.
  const postingStarts = new Float64Array(terms.length + 1);
  for (let i = 0; i < terms.length; i++) postingStarts[i + 1] = postingStarts[i]! + p.postingLengths[i]!;

  // Where every block lies: blocks are JSON strings ("…"), separated by commas.
  const postingFirstTerm = new Uint32Array(p.postingBlocks.length + 1);
  const postingOffset = new Float64Array(p.postingBlocks.length);
  let position = headEnd + POSTINGS_KEY.length;
  p.postingBlocks.forEach(([termCount], i) => {
    postingFirstTerm[i + 1] = postingFirstTerm[i]! + termCount;
    if (i > 0) position += 1;
    postingOffset[i] = position + 1;
    const next = postingFirstTerm[i + 1]!;
    if (next > terms.length) return;
    position += 2 + postingStarts[next]! - postingStarts[postingFirstTerm[i]!]!;
  });
  if (postingFirstTerm[p.postingBlocks.length] !== terms.length) throw invalid(label, 'has posting blocks that do not match its terms.');
  position += ROWS_KEY.length;
  const rowFirstChunk = new Uint32Array(p.rowBlocks.length + 1);
  const rowOffset = new Float64Array(p.rowBlocks.length);
  const rowBytes = new Float64Array(p.rowBlocks.length);
  p.rowBlocks.forEach(([count, byteLength], i) => {
    rowFirstChunk[i + 1] = rowFirstChunk[i]! + count;
    if (i > 0) position += 1;
    rowOffset[i] = position + 1;
    rowBytes[i] = byteLength;
    position += 2 + byteLength;
  });
  if (rowFirstChunk[p.rowBlocks.length] !== chunkCount) throw invalid(label, 'has row blocks that do not match its chunks.');
  if (position !== sealPosition)
    throw invalid(label, 'is truncated or modified (its blocks do not add up to its size).', {
      expectedSeal: position,
      actualSeal: sealPosition,
    });
  return {
    label,
    formatVersion: SEARCH_INDEX_FORMAT_VERSION,
    tokenizerVersion: p.tokenizer,
    k1Milli: p.bm25.k1Milli,
    bMilli: p.bm25.bMilli,
    provenance: {
      chunkIndexFingerprint: p.provenance.chunkIndexFingerprint,
      missingSources: p.provenance.missingSources,
      ...(typeof p.provenance.chunkIndexCrc32 === 'string' ? { chunkIndexCrc32: p.provenance.chunkIndexCrc32 } : {}),
    },
    documents: p.documents,
    chunkCounts: p.chunkCounts,
    chunkCount,
    chunkDocument,
    normativityValues: p.chunkNormativity[0],
    chunkNormativity: p.chunkNormativity[1],
    duplicatePassages: p.duplicatePassages,
    lengths: p.lengths,
    totalLength: p.totalLength,
    terms,
    postingStarts,
    documentStarts,
    blocks: {
      source,
      postingFirstTerm,
      postingOffset,
      postingDigest: p.postingBlocks.map((entry) => entry[1]),
      postingText: new Array<string | undefined>(p.postingBlocks.length),
      rowFirstChunk,
      rowOffset,
      rowBytes,
      rowDigest: p.rowBlocks.map((entry) => entry[2]),
      rowLines: new Array<string[] | undefined>(p.rowBlocks.length),
      rowCache: new Array<ChunkRow | undefined>(chunkCount),
    },
  };
}

/** Reads one block's bytes and checks them against the CRC-32 the head recorded. */
function readVerified(index: LoadedSearchIndex, what: string, position: number, length: number, digest: string): Buffer {
  const bytes = index.blocks.source.read(position, length);
  const actual = crc32Hex(bytes);
  if (bytes.length !== length || actual !== digest) {
    throw invalid(index.label, `has a ${what} that fails its CRC-32 check (truncated or modified).`, {
      expected: `crc32:${digest}`,
      actual: `crc32:${actual}`,
    });
  }
  return bytes;
}

/** Index of the block whose first item is the last one <= item (firsts ascending, firsts[0] = 0). */
function blockOf(firsts: Uint32Array, item: number): number {
  let lo = 0;
  let hi = firsts.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (firsts[mid]! <= item) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The row of one chunk (its block is read, verified and inflated on first use). */
export function chunkRow(index: LoadedSearchIndex, ordinal: number): ChunkRow {
  const blocks = index.blocks;
  const cached = blocks.rowCache[ordinal];
  if (cached !== undefined) return cached;
  const block = blockOf(blocks.rowFirstChunk, ordinal);
  let lines = blocks.rowLines[block];
  if (lines === undefined) {
    const encoded = readVerified(
      index,
      `row block (#${block})`,
      blocks.rowOffset[block]!,
      blocks.rowBytes[block]!,
      blocks.rowDigest[block]!,
    );
    try {
      lines = zlib
        .inflateRawSync(Buffer.from(encoded.toString('latin1'), 'base64'))
        .toString('utf8')
        .split('\n');
    } catch (cause) {
      throw invalid(index.label, `has a row block (#${block}) that does not inflate.`, { cause: String(cause) });
    }
    if (lines.length !== blocks.rowFirstChunk[block + 1]! - blocks.rowFirstChunk[block]!)
      throw invalid(index.label, `has a row block (#${block}) with the wrong number of rows.`);
    blocks.rowLines[block] = lines;
  }
  const row = JSON.parse(lines[ordinal - blocks.rowFirstChunk[block]!]!) as ChunkRow;
  blocks.rowCache[ordinal] = row;
  return row;
}

export function indexProvenance(index: LoadedSearchIndex): IndexProvenance {
  const { chunkIndexCrc32 } = index.provenance;
  return {
    chunkIndexFingerprint: index.provenance.chunkIndexFingerprint,
    missingSources: [...index.provenance.missingSources],
    ...(chunkIndexCrc32 === undefined ? {} : { chunkIndexCrc32 }),
  };
}

/** The index file's own fingerprint (its first bytes), e.g. to notice that the file was replaced. */
export function indexFingerprint(index: LoadedSearchIndex): string {
  return sourceFingerprint(index.blocks.source);
}

/** The fingerprint at the start of an index file, without loading it. */
export function sourceFingerprint(source: IndexSource): string {
  return source.read(FINGERPRINT_PREFIX.length - 'sha256:'.length, 'sha256:'.length + 64).toString('latin1');
}

/** Position of a term in the sorted term list, or -1. */
export function findTerm(index: LoadedSearchIndex, term: string): number {
  let lo = 0;
  let hi = index.terms.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const candidate = index.terms[mid]!;
    if (candidate === term) return mid;
    if (candidate < term) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

function postingBlockText(index: LoadedSearchIndex, block: number): string {
  const blocks = index.blocks;
  let text = blocks.postingText[block];
  if (text === undefined) {
    const first = index.postingStarts[blocks.postingFirstTerm[block]!]!;
    const end = index.postingStarts[blocks.postingFirstTerm[block + 1]!]!;
    text = readVerified(
      index,
      `posting block (#${block})`,
      blocks.postingOffset[block]!,
      end - first,
      blocks.postingDigest[block]!,
    ).toString('latin1');
    blocks.postingText[block] = text;
  }
  return text;
}

/** One term's postings as parallel arrays: chunk ordinals ascending, and the term's frequency in each chunk's text and heading path. */
export interface Postings {
  ordinals: Uint32Array;
  tfs: Uint32Array;
  headingTfs: Uint32Array;
}

/** Decodes one term's postings (entry encoding: search-index.ts). */
export function decodePostings(index: LoadedSearchIndex, termIndex: number): Postings {
  const block = blockOf(index.blocks.postingFirstTerm, termIndex);
  const text = postingBlockText(index, block);
  const blockStart = index.postingStarts[index.blocks.postingFirstTerm[block]!]!;
  const reader = new VlqReader(text, index.postingStarts[termIndex]! - blockStart);
  const end = index.postingStarts[termIndex + 1]! - blockStart;
  const ordinals: number[] = [];
  const tfs: number[] = [];
  const headingTfs: number[] = [];
  let document = -1;
  while (reader.position < end) {
    document += reader.next() + 1;
    const runEnd = reader.next() + reader.position;
    const base = index.documentStarts[document]!;
    let previous = -1;
    while (reader.position < runEnd) {
      const value = reader.next();
      const flag = value % 2;
      previous = previous + 1 + (value - flag) / 2;
      ordinals.push(base + previous);
      if (flag === 0) {
        tfs.push(1);
        headingTfs.push(0);
        continue;
      }
      const counts = reader.next();
      if (counts % 2 === 0) {
        tfs.push(counts / 2 + 2);
        headingTfs.push(0);
      } else {
        tfs.push((counts - 1) / 2);
        headingTfs.push(reader.next() + 1);
      }
    }
  }
  return { ordinals: Uint32Array.from(ordinals), tfs: Uint32Array.from(tfs), headingTfs: Uint32Array.from(headingTfs) };
}
