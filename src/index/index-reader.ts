import { Buffer } from 'node:buffer';
import { EpistemeError } from '../failure.js';
import { fs, zlib } from '../node-builtins.js';
import { SEARCH_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import {
  crc32Hex,
  decodePerChunkInts,
  isAscendingOrdinals,
  ARTIFACT_KIND,
  FIRST_READ_BYTES,
  HEAD_KEY,
  POSTING_BLOCK_TERMS_END,
  type IndexManifest,
  NO_PASSAGE_KEY,
  PASSAGE_KEY_CHARS,
  SEGMENT_ARTIFACT_KIND,
  SEGMENT_FILE_NAME,
  SEGMENTS_KEY,
  POSTINGS_KEY,
  ROWS_KEY,
  ROW_BLOCKS_END,
  SEAL_KEY,
  SPAN_IN_COLUMN,
  type ChunkRow,
  type DocumentRow,
  type SourceRange,
  type IndexHead,
  type IndexProvenance,
} from './index-layout.js';
import { TOKENIZER_VERSION } from './tokenizer.js';
import { VlqReader } from './vlq.js';

/**
 * Reads a search index (layout in index-layout.ts) the way a cold query needs it: the head first
 * (checked against the seal), then only the posting and row blocks the query touches, each checked
 * against its CRC-32 before use (why CRC-32: index-layout.ts). Kept free of the writer's imports (pako, the tokenizer's
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

/** Opens a segment file named by a manifest (a file name beside the manifest). */
export type SegmentOpener = (file: string) => IndexSource;

export interface LoadedSearchIndex {
  label: string;
  formatVersion: number;
  tokenizerVersion: number;
  k1Milli: number;
  bMilli: number;
  provenance: IndexProvenance;
  documents: DocumentRow[];
  /** Document ordinal -> length in tokens (the sum of its chunks' lengths). */
  documentLengths: readonly number[];
  chunkCounts: number[];
  chunkCount: number;
  /** Chunk ordinal -> document ordinal. */
  chunkDocument: Uint32Array;
  normativityValues: string[];
  /** Chunk ordinal -> index into normativityValues. */
  chunkNormativity: Uint8Array;
  /** Chunk ordinal -> 1 for a chunk of a document's apparatus (Chunk.apparatus), else 0. */
  chunkApparatus: Uint8Array;
  /** Groups of chunk ordinals with the same passage text (two or more each, ascending): for tools and tests. */
  readonly duplicatePassages: readonly (readonly number[])[];
  /** Chunk ordinal -> length in tokens (of its text, the body field). */
  lengths: Uint32Array;
  totalLength: number;
  /**
   * Every term (sorted by code unit), read from every posting block: for tools and tests, not
   * queries. For a single file, term i's handle (findTerm) is i.
   */
  readonly terms: readonly string[];
  /** The file the query opened (a single-file index, or a manifest). */
  source: IndexSource;
  /** The block files: the index itself, or its segments in document order. */
  files: BlockFile[];
  /** First chunk ordinal of each block file (plus the chunk count at the end). */
  fileChunkStarts: Uint32Array;
  /** For a segmented index: the per-file term positions of each term findTerm found (its handle is the position here). */
  foundTerms: number[][];
}

/** A posting block, read and checked: its terms, and where each one's postings lie in its text. */
interface PostingBlock {
  text: string;
  /**
   * Term i is text[termStarts[i] .. termStarts[i + 1] - 1) (terms are joined by one space, the last
   * ends at POSTING_BLOCK_TERMS_END). Offsets, not strings: a query looks up one or two terms per
   * block, and splitting a block made ~1,500 strings for each (most of a cold query's garbage on a
   * segmented index, where every term is looked up in every segment).
   */
  termStarts: Int32Array;
  /** Term i's postings are text[starts[i]..starts[i + 1]). */
  starts: Float64Array;
}

/** A row block, inflated: row i is bytes[starts[i] .. starts[i + 1] - 1) (UTF-8). */
interface RowBlockLines {
  bytes: Buffer;
  starts: number[];
}

/** One file of blocks (layout in index-layout.ts): a single-file index or one segment. */
interface BlockFile {
  label: string;
  k1Milli: number;
  bMilli: number;
  tokenizer: number;
  provenance: IndexProvenance | null;
  documents: DocumentRow[];
  documentLengths: number[];
  chunkCounts: number[];
  chunkCount: number;
  chunkDocument: Uint32Array;
  normativityValues: string[];
  chunkNormativity: Uint8Array;
  chunkApparatus: Uint8Array;
  /** A single-file index: each chunk's same-passage group (-1 for none) and the number of groups. */
  passageGroups: { of: Int32Array; count: number } | null;
  passageKeys: string | null;
  lengths: Uint32Array;
  totalLength: number;
  /** First chunk ordinal of each document. */
  documentStarts: Uint32Array;
  blocks: BlockDirectory;
}

interface BlockDirectory {
  source: IndexSource;
  /** Ordinal of the first term of each posting block (plus the term count at the end). */
  postingFirstTerm: Uint32Array;
  /** The first term of each posting block (ascending by code unit): where a term's block is found. */
  postingFirstTermText: string[];
  postingOffset: Float64Array;
  postingBytes: Float64Array;
  postingDigest: string[];
  postingBlocks: (PostingBlock | undefined)[];
  /** First chunk ordinal of each row block (plus the chunk count at the end). */
  rowFirstChunk: Uint32Array;
  rowOffset: Float64Array;
  rowBytes: Float64Array;
  rowDigest: string[];
  /** Each row block's span column (RowBlockEntry), and once a row of the block is read, its ranges. */
  rowSpanColumns: string[];
  rowSpans: ((SourceRange | null)[] | undefined)[];
  /** The bytes each row block inflates to. */
  rowInflated: Float64Array;
  /** Each read row block: its inflated bytes, and where each row's line starts in them (plus one past the end). */
  rowLines: (RowBlockLines | undefined)[];
  rowCache: (ChunkRow | undefined)[];
}

function invalid(label: string, message: string, extra: Record<string, unknown> = {}): EpistemeError {
  return new EpistemeError('artifact-invalid', `${label} ${message}`, {
    hint: 'Rebuild the search index with `episteme build`.',
    details: { file: label, ...extra },
  });
}

const VERSION_AND_HEAD = /^"formatVersion":(\d+),/;
const TAIL = /^\],"seal":"crc32:([0-9a-f]{8})"\},"producer":\{"name":"[^"\\]*","version":"[^"\\]*"\}\}\n$/;

/**
 * Opens an index: checks kind, format version and the head's seal, and checks that the block sizes
 * recorded in the head account for the file exactly. Accepts a source, the bytes, or the text. A
 * segmented index (a manifest) opens every segment it names with openSegment and checks that each
 * is the very file the manifest recorded (its fingerprint) before reading its head.
 */
export function loadSearchIndex(input: IndexSource | Uint8Array | string, label: string, openSegment?: SegmentOpener): LoadedSearchIndex {
  const source =
    typeof input === 'string' ? memorySource(new TextEncoder().encode(input)) : input instanceof Uint8Array ? memorySource(input) : input;
  const opened = openBlockFile(source, label, ARTIFACT_KIND);
  if (!('manifest' in opened)) return singleFileIndex(opened, source);
  return segmentedIndex(opened.manifest, source, label, openSegment);
}

const MANIFEST_TAIL = /^,"seal":"crc32:([0-9a-f]{8})"\},"producer":\{"name":"[^"\\]*","version":"[^"\\]*"\}\}\n$/;

/** Reads a block file's head (or, for kind search-index, possibly a manifest). */
function openBlockFile(source: IndexSource, label: string, kind: string): BlockFile | { manifest: IndexManifest } {
  const size = source.size;
  const fingerprintPrefix = `{"artifact":"${kind}","fingerprint":"sha256:`;
  const afterFingerprint = fingerprintPrefix.length + 64 + 2;
  let window = source.read(0, Math.min(size, FIRST_READ_BYTES));
  const head = window.toString('latin1', 0, Math.min(window.length, 200));
  const what = kind === ARTIFACT_KIND ? 'a search index' : 'a search-index segment';
  if (!head.startsWith(fingerprintPrefix)) {
    const found = /^\s*\{\s*"artifact"\s*:\s*"([^"]*)"/.exec(head)?.[1];
    if (found !== undefined && found !== kind) throw invalid(label, `is a ${found} artifact, not ${what}.`);
    throw invalid(label, `is not ${what} (unreadable, truncated or not in canonical form).`);
  }
  const version = VERSION_AND_HEAD.exec(head.slice(afterFingerprint));
  if (version === null) throw invalid(label, `is not ${what} (no format version).`);
  if (Number(version[1]) !== SEARCH_INDEX_FORMAT_VERSION) {
    throw invalid(label, `has search-index format version ${version[1]}; this Episteme reads version ${SEARCH_INDEX_FORMAT_VERSION}.`, {
      formatVersion: Number(version[1]),
    });
  }
  const payloadAt = afterFingerprint + version[0].length;
  if (kind === ARTIFACT_KIND && head.startsWith(SEGMENTS_KEY, payloadAt)) return { manifest: readManifest(source, label, payloadAt) };
  const headStart = payloadAt + HEAD_KEY.length;
  if (head.slice(payloadAt, headStart) !== HEAD_KEY) throw invalid(label, `does not have the ${kind} layout.`);
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
    throw invalid(label, `does not have the ${kind} layout.`, { cause: String(cause) });
  }
  return fromHead(parsed, source, headEnd, tailStart + sealAt, label, kind === ARTIFACT_KIND);
}

/** A manifest is small (a few numbers per segment): read whole and checked against its seal. */
function readManifest(source: IndexSource, label: string, payloadAt: number): IndexManifest {
  const text = source.read(0, source.size).toString('latin1');
  const start = payloadAt + SEGMENTS_KEY.length;
  const sealAt = text.lastIndexOf(',"seal":"crc32:');
  const sealed = sealAt < start ? null : MANIFEST_TAIL.exec(text.slice(sealAt));
  if (sealed === null) throw invalid(label, 'is truncated or modified (no seal at its end).');
  const bytes = Buffer.from(text.slice(start, sealAt), 'latin1');
  const actual = crc32Hex(bytes);
  if (actual !== sealed[1])
    throw invalid(label, 'fails its seal check (truncated or modified).', { expected: `crc32:${sealed[1]}`, actual: `crc32:${actual}` });
  let manifest: IndexManifest;
  try {
    manifest = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) as IndexManifest;
  } catch (cause) {
    throw invalid(label, 'does not have the search-index layout.', { cause: String(cause) });
  }
  const isCount = (value: unknown): boolean => Number.isSafeInteger(value) && (value as number) >= 0;
  const ok =
    typeof manifest === 'object' &&
    manifest !== null &&
    typeof manifest.bm25?.k1Milli === 'number' &&
    typeof manifest.bm25?.bMilli === 'number' &&
    typeof manifest.provenance?.chunkIndexFingerprint === 'string' &&
    Array.isArray(manifest.provenance?.missingSources) &&
    Array.isArray(manifest.segments) &&
    manifest.segments.length > 0 &&
    manifest.segments.every(
      (entry) =>
        Array.isArray(entry) &&
        entry.length === 5 &&
        typeof entry[0] === 'string' &&
        SEGMENT_FILE_NAME.test(entry[0]) &&
        typeof entry[1] === 'string' &&
        /^sha256:[0-9a-f]{64}$/.test(entry[1]) &&
        isCount(entry[2]) &&
        isCount(entry[3]) &&
        isCount(entry[4]),
    );
  if (!ok) throw invalid(label, 'does not have the search-index layout.');
  if (manifest.tokenizer !== TOKENIZER_VERSION)
    throw invalid(label, `was built with tokenizer version ${String(manifest.tokenizer)}; this Episteme uses ${TOKENIZER_VERSION}.`);
  return manifest;
}

function singleFileIndex(file: BlockFile, source: IndexSource): LoadedSearchIndex {
  return {
    label: file.label,
    formatVersion: SEARCH_INDEX_FORMAT_VERSION,
    tokenizerVersion: file.tokenizer,
    k1Milli: file.k1Milli,
    bMilli: file.bMilli,
    provenance: file.provenance!,
    documents: file.documents,
    documentLengths: file.documentLengths,
    chunkCounts: file.chunkCounts,
    chunkCount: file.chunkCount,
    chunkDocument: file.chunkDocument,
    normativityValues: file.normativityValues,
    chunkNormativity: file.chunkNormativity,
    chunkApparatus: file.chunkApparatus,
    get duplicatePassages() {
      return groupsOf(file.passageGroups!);
    },
    lengths: file.lengths,
    totalLength: file.totalLength,
    get terms() {
      return fileTerms(file);
    },
    source,
    files: [file],
    fileChunkStarts: Uint32Array.of(0, file.chunkCount),
    foundTerms: [],
  };
}

/** The segments of a manifest as one index: documents and chunks numbered across segments in order. */
function segmentedIndex(
  manifest: IndexManifest,
  source: IndexSource,
  label: string,
  openSegment: SegmentOpener | undefined,
): LoadedSearchIndex {
  if (openSegment === undefined)
    throw invalid(label, 'is a segmented index, whose segment files are beside it; it cannot be read on its own (pass the file path).');
  const files: BlockFile[] = [];
  for (const [name, fingerprint, documentCount, chunkCount, totalLength] of manifest.segments) {
    const segmentLabel = `${label} segment ${name}`;
    let segmentSource: IndexSource;
    try {
      segmentSource = openSegment(name);
    } catch (cause) {
      // Too large for the input bound: that error (and its hint) stands; anything else is a damaged index.
      if (cause instanceof EpistemeError && cause.code === 'input-too-large') throw cause;
      throw invalid(label, `names segment ${name}, which cannot be read (${cause instanceof Error ? cause.message : String(cause)})`, {
        segment: name,
      });
    }
    // The very file the manifest names: its fingerprint (then its seal and CRCs cover every byte used).
    if (sourceFingerprint(segmentSource, SEGMENT_ARTIFACT_KIND) !== fingerprint)
      throw invalid(label, `names segment ${name}, which is not the file it recorded (replaced or modified).`, { segment: name });
    const file = openBlockFile(segmentSource, segmentLabel, SEGMENT_ARTIFACT_KIND) as BlockFile;
    if (
      file.documents.length !== documentCount ||
      file.chunkCount !== chunkCount ||
      file.totalLength !== totalLength ||
      file.k1Milli !== manifest.bm25.k1Milli ||
      file.bMilli !== manifest.bm25.bMilli
    )
      throw invalid(label, `names segment ${name}, which does not match what it recorded.`, { segment: name });
    files.push(file);
  }
  const fileChunkStarts = new Uint32Array(files.length + 1);
  files.forEach((file, i) => {
    fileChunkStarts[i + 1] = fileChunkStarts[i]! + file.chunkCount;
  });
  const chunkCount = fileChunkStarts[files.length]!;
  const documents = ([] as DocumentRow[]).concat(...files.map((file) => file.documents));
  const chunkDocument = new Uint32Array(chunkCount);
  const normativityValues = [...new Set(files.flatMap((file) => file.normativityValues))].sort(compareCodeUnits);
  // Per document and per segment where possible: a query at 10,000 documents pays for every loop here.
  let documentBase = 0;
  files.forEach((file, i) => {
    const base = fileChunkStarts[i]!;
    file.chunkCounts.forEach((count, d) => {
      const start = base + file.documentStarts[d]!;
      chunkDocument.fill(documentBase + d, start, start + count);
    });
    documentBase += file.documents.length;
  });
  const chunkNormativity = new Uint8Array(chunkCount);
  const chunkApparatus = new Uint8Array(chunkCount);
  const lengths = new Uint32Array(chunkCount);
  files.forEach((file, i) => {
    chunkApparatus.set(file.chunkApparatus, fileChunkStarts[i]!);
    const codes = file.normativityValues.map((value) => normativityValues.indexOf(value));
    const own = codes.every((code, k) => code === k) ? file.chunkNormativity : file.chunkNormativity.map((code) => codes[code]!);
    chunkNormativity.set(own, fileChunkStarts[i]!);
    lengths.set(file.lengths, fileChunkStarts[i]!);
  });
  let duplicates: number[][] | undefined;
  return {
    label,
    formatVersion: SEARCH_INDEX_FORMAT_VERSION,
    tokenizerVersion: manifest.tokenizer,
    k1Milli: manifest.bm25.k1Milli,
    bMilli: manifest.bm25.bMilli,
    provenance: manifest.provenance,
    documents,
    documentLengths: ([] as number[]).concat(...files.map((file) => file.documentLengths)),
    chunkCounts: ([] as number[]).concat(...files.map((file) => file.chunkCounts)),
    chunkCount,
    chunkDocument,
    normativityValues,
    chunkNormativity,
    chunkApparatus,
    // Same-passage groups span segments: found from the segments' passage keys when a query collapses.
    get duplicatePassages() {
      duplicates ??= duplicatePassagesOf(files.map((file) => file.passageKeys!).join(''));
      return duplicates;
    },
    lengths,
    totalLength: files.reduce((n, file) => n + file.totalLength, 0),
    get terms() {
      return [...new Set(files.flatMap(fileTerms))].sort(compareCodeUnits);
    },
    source,
    files,
    fileChunkStarts,
    foundTerms: [],
  };
}

/**
 * For the given chunks: a passage group number for each that has the same passage as another chunk,
 * reading the stored groups of a single file, or for a segmented index the passage keys of just these
 * chunks (grouping every chunk of a large corpus would cost a query more than the rest of its work).
 * Only the groups' members among `ordinals` are found, which is all a query that collapses them needs.
 * `of[ordinal]` is the group (-1 for none), `count` the number of groups; a typed array, because a
 * cold query filled a Map with every stored group member (~5M instructions on the dev corpus).
 */
export function passageGroupsOf(index: LoadedSearchIndex, ordinals: readonly number[]): { of: Int32Array; count: number } {
  if (index.files.length === 1) {
    // Stored as each chunk's group: the query gets the decoded head array as it is.
    return index.files[0]!.passageGroups!;
  }
  const of = new Int32Array(index.chunkCount).fill(-1);
  const byKey = new Map<string, number[]>();
  for (const ordinal of ordinals) {
    const at = blockOf(index.fileChunkStarts, ordinal);
    const local = (ordinal - index.fileChunkStarts[at]!) * PASSAGE_KEY_CHARS;
    const key = index.files[at]!.passageKeys!.slice(local, local + PASSAGE_KEY_CHARS);
    if (key === NO_PASSAGE_KEY) continue;
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, [ordinal]);
    else group.push(ordinal);
  }
  let count = 0;
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    for (const ordinal of group) of[ordinal] = count;
    count++;
  }
  return { of, count };
}

/** The groups of each chunk's group numbers: chunk ordinals ascending, groups by number. */
function groupsOf(groups: { of: Int32Array; count: number }): number[][] {
  const members: number[][] = Array.from({ length: groups.count }, () => []);
  groups.of.forEach((g, ordinal) => {
    if (g >= 0) members[g]!.push(ordinal);
  });
  return members;
}

/** Groups of chunk ordinals (two or more, ascending; groups by first member) that share a passage key. */
function duplicatePassagesOf(keys: string): number[][] {
  const byKey = new Map<string, number[]>();
  for (let ordinal = 0; ordinal * PASSAGE_KEY_CHARS < keys.length; ordinal++) {
    const key = keys.slice(ordinal * PASSAGE_KEY_CHARS, (ordinal + 1) * PASSAGE_KEY_CHARS);
    if (key === NO_PASSAGE_KEY) continue;
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, [ordinal]);
    else group.push(ordinal);
  }
  return [...byKey.values()].filter((group) => group.length > 1);
}

function fromHead(p: IndexHead, source: IndexSource, headEnd: number, sealPosition: number, label: string, isIndex: boolean): BlockFile {
  const shapeOk =
    typeof p === 'object' &&
    p !== null &&
    typeof p.bm25?.k1Milli === 'number' &&
    typeof p.bm25?.bMilli === 'number' &&
    Array.isArray(p.chunkCounts) &&
    Array.isArray(p.chunkNormativity) &&
    Array.isArray(p.chunkNormativity[0]) &&
    Array.isArray(p.documents) &&
    (isIndex ? typeof p.passageGroups === 'string' : typeof p.passageKeys === 'string') &&
    p.documents.length === p.chunkCounts.length &&
    Array.isArray(p.documentLengths) &&
    p.documentLengths.length === p.documents.length &&
    Array.isArray(p.postingBlocks) &&
    p.postingBlocks.every(
      (entry) =>
        Array.isArray(entry) &&
        entry.length === 4 &&
        Number.isSafeInteger(entry[0]) &&
        entry[0] > 0 &&
        Number.isSafeInteger(entry[1]) &&
        entry[1] >= 0 &&
        typeof entry[2] === 'string' &&
        typeof entry[3] === 'string',
    ) &&
    Array.isArray(p.rowBlocks) &&
    p.rowBlocks.every(
      (entry) =>
        Array.isArray(entry) &&
        entry.length === 5 &&
        Number.isSafeInteger(entry[0]) &&
        entry[0] > 0 &&
        Number.isSafeInteger(entry[1]) &&
        entry[1] >= 0 &&
        typeof entry[2] === 'string' &&
        Number.isSafeInteger(entry[3]) &&
        entry[3] >= entry[0] &&
        typeof entry[4] === 'string',
    ) &&
    (!isIndex || (typeof p.provenance?.chunkIndexFingerprint === 'string' && Array.isArray(p.provenance?.missingSources))) &&
    typeof p.totalLength === 'number';
  if (!shapeOk) throw invalid(label, `does not have the ${isIndex ? ARTIFACT_KIND : SEGMENT_ARTIFACT_KIND} layout.`);
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
  const lengths = decodePerChunkInts(p.lengths, chunkCount, 4);
  const normativityCodes = decodePerChunkInts(p.chunkNormativity[1], chunkCount, 1);
  if (lengths === undefined || normativityCodes === undefined || !areCodes(normativityCodes, p.chunkNormativity[0].length))
    throw invalid(label, 'has per-chunk lists that do not match its chunks.');
  if (!isAscendingOrdinals(p.apparatusChunks, chunkCount))
    throw invalid(label, 'has apparatus chunks that are not ascending chunk ordinals.');
  const chunkApparatus = new Uint8Array(chunkCount);
  for (let i = 0; i < p.apparatusChunks.length; i++) chunkApparatus[p.apparatusChunks[i]!] = 1;
  let documentLengthSum = 0;
  for (let d = 0; d < p.documentLengths.length; d++) documentLengthSum += p.documentLengths[d]!;
  if (documentLengthSum !== p.totalLength) throw invalid(label, 'has document lengths that do not add up to its total length.');
  const passageGroups = isIndex ? passageGroupsIn(p.passageGroups, chunkCount) : null;
  if (isIndex && passageGroups === undefined) throw invalid(label, 'has passage groups that do not match its chunks.');
  if (!isIndex && p.passageKeys!.length !== chunkCount * PASSAGE_KEY_CHARS)
    throw invalid(label, 'has passage keys that do not match its chunks.');

  // Where every block lies: blocks are JSON strings ("…"), separated by commas.
  const postingFirstTerm = new Uint32Array(p.postingBlocks.length + 1);
  const postingOffset = new Float64Array(p.postingBlocks.length);
  const postingBytes = new Float64Array(p.postingBlocks.length);
  const postingFirstTermText: string[] = [];
  let position = headEnd + POSTINGS_KEY.length;
  // Entries read by index, not destructured: array destructuring in the interpreter (where a cold
  // query runs) goes through the iterator protocol, several objects per entry.
  for (let i = 0; i < p.postingBlocks.length; i++) {
    const entry = p.postingBlocks[i]!;
    const termCount = entry[0];
    const byteLength = entry[1];
    const firstTerm = entry[3];
    postingFirstTerm[i + 1] = postingFirstTerm[i]! + termCount;
    // Blocks in term order: a term's block is found by binary search over their first terms.
    if (i > 0 && !(postingFirstTermText[i - 1]! < firstTerm)) throw invalid(label, 'has posting blocks out of term order.');
    postingFirstTermText.push(firstTerm);
    if (i > 0) position += 1;
    postingOffset[i] = position + 1;
    postingBytes[i] = byteLength;
    position += 2 + byteLength;
  }
  position += ROWS_KEY.length;
  const rowFirstChunk = new Uint32Array(p.rowBlocks.length + 1);
  const rowOffset = new Float64Array(p.rowBlocks.length);
  const rowBytes = new Float64Array(p.rowBlocks.length);
  const rowInflated = new Float64Array(p.rowBlocks.length);
  for (let i = 0; i < p.rowBlocks.length; i++) {
    const entry = p.rowBlocks[i]!;
    const count = entry[0];
    const byteLength = entry[1];
    rowInflated[i] = entry[3];
    rowFirstChunk[i + 1] = rowFirstChunk[i]! + count;
    if (i > 0) position += 1;
    rowOffset[i] = position + 1;
    rowBytes[i] = byteLength;
    position += 2 + byteLength;
  }
  if (rowFirstChunk[p.rowBlocks.length] !== chunkCount) throw invalid(label, 'has row blocks that do not match its chunks.');
  if (position !== sealPosition)
    throw invalid(label, 'is truncated or modified (its blocks do not add up to its size).', {
      expectedSeal: position,
      actualSeal: sealPosition,
    });
  return {
    label,
    k1Milli: p.bm25.k1Milli,
    bMilli: p.bm25.bMilli,
    tokenizer: p.tokenizer,
    provenance: isIndex
      ? {
          chunkIndexFingerprint: p.provenance!.chunkIndexFingerprint,
          missingSources: p.provenance!.missingSources,
          ...(typeof p.provenance!.chunkIndexCrc32 === 'string' ? { chunkIndexCrc32: p.provenance!.chunkIndexCrc32 } : {}),
        }
      : null,
    documents: p.documents,
    documentLengths: p.documentLengths,
    chunkCounts: p.chunkCounts,
    chunkCount,
    chunkDocument,
    normativityValues: p.chunkNormativity[0],
    chunkNormativity: normativityCodes,
    chunkApparatus,
    passageGroups: passageGroups ?? null,
    passageKeys: isIndex ? null : p.passageKeys!,
    lengths,
    totalLength: p.totalLength,
    documentStarts,
    blocks: {
      source,
      postingFirstTerm,
      postingFirstTermText,
      postingOffset,
      postingBytes,
      postingDigest: p.postingBlocks.map((entry) => entry[2]),
      postingBlocks: new Array<PostingBlock | undefined>(p.postingBlocks.length),
      rowFirstChunk,
      rowOffset,
      rowBytes,
      rowDigest: p.rowBlocks.map((entry) => entry[2]),
      rowSpanColumns: p.rowBlocks.map((entry) => entry[4]),
      rowSpans: new Array<(SourceRange | null)[] | undefined>(p.rowBlocks.length),
      rowInflated,
      rowLines: new Array<RowBlockLines | undefined>(p.rowBlocks.length),
      rowCache: new Array<ChunkRow | undefined>(chunkCount),
    },
  };
}

/** Groups of two or more chunk ordinals (plain loops: every cold query checks every group). */
/**
 * The smallest and largest of some integers, by a native sort of a copy: a cold query runs JS
 * loops in the interpreter, where checking each chunk's entry cost ~0.1 ms per 1,000 chunks.
 */
function extremes(values: Uint8Array | Int32Array): { min: number; max: number } | undefined {
  if (values.length === 0) return undefined;
  // A copy made by the plain constructor: a Buffer's slice() is a view, which sort() would reorder.
  const sorted = values instanceof Int32Array ? new Int32Array(values) : new Uint8Array(values);
  sorted.sort();
  return { min: sorted[0]!, max: sorted[sorted.length - 1]! };
}

/** Whether every normativity code names one of the `values` values. */
function areCodes(codes: Uint8Array, values: number): boolean {
  return (extremes(codes)?.max ?? -1) < values;
}

/**
 * The head's passageGroups: each chunk's group (0, 1, …) or -1, and the number of groups; undefined
 * when it does not hold one entry per chunk or an entry is below -1 or past the chunk count. (The
 * writer numbers groups by their first chunk and makes each of two chunks or more; a query only
 * needs the numbers to be in range.)
 */
function passageGroupsIn(text: unknown, chunkCount: number): { of: Int32Array; count: number } | undefined {
  const of = decodePerChunkInts(text, chunkCount, 4, true);
  if (of === undefined) return undefined;
  const range = extremes(of) ?? { min: -1, max: -1 };
  if (range.min < -1 || range.max >= chunkCount) return undefined;
  return { of, count: range.max + 1 };
}

/** Reads one block's bytes and checks them against the CRC-32 the head recorded. */
function readVerified(file: BlockFile, what: string, position: number, length: number, digest: string): Buffer {
  const bytes = file.blocks.source.read(position, length);
  const actual = crc32Hex(bytes);
  if (bytes.length !== length || actual !== digest) {
    throw invalid(file.label, `has a ${what} that fails its CRC-32 check (truncated or modified).`, {
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

/** The row of one chunk (its block is read, verified and inflated on first use, unless readRows read it). */
export function chunkRow(index: LoadedSearchIndex, ordinal: number): ChunkRow {
  if (index.files.length === 1) return fileChunkRow(index.files[0]!, ordinal);
  const at = blockOf(index.fileChunkStarts, ordinal);
  return fileChunkRow(index.files[at]!, ordinal - index.fileChunkStarts[at]!);
}

/**
 * Reads the row blocks that hold these chunks and are not read yet, each checked against its
 * CRC-32, and inflates them in one call per file (their members form one DEFLATE stream, see
 * index-layout.ts): a query that needs many rows (proximity, phrases, a page of hits) calls this
 * first, since every inflate call costs a cold process more than the inflating.
 */
export function readRows(index: LoadedSearchIndex, ordinals: readonly number[]): void {
  const wanted = index.files.map(() => new Set<number>());
  for (let i = 0; i < ordinals.length; i++) {
    const ordinal = ordinals[i]!;
    const at = index.files.length === 1 ? 0 : blockOf(index.fileChunkStarts, ordinal);
    const blocks = index.files[at]!.blocks;
    const block = blockOf(blocks.rowFirstChunk, ordinal - index.fileChunkStarts[at]!);
    if (blocks.rowLines[block] === undefined) wanted[at]!.add(block);
  }
  wanted.forEach((blocks, at) => {
    if (blocks.size > 0)
      inflateRowBlocks(
        index.files[at]!,
        [...blocks].sort((a, b) => a - b),
      );
  });
}

function fileChunkRow(file: BlockFile, ordinal: number): ChunkRow {
  const blocks = file.blocks;
  const cached = blocks.rowCache[ordinal];
  if (cached !== undefined) return cached;
  const block = blockOf(blocks.rowFirstChunk, ordinal);
  if (blocks.rowLines[block] === undefined) inflateRowBlocks(file, [block]);
  const lines = blocks.rowLines[block]!;
  const line = ordinal - blocks.rowFirstChunk[block]!;
  const row = JSON.parse(lines.bytes.toString('utf8', lines.starts[line]!, lines.starts[line + 1]! - 1)) as ChunkRow;
  let spans = blocks.rowSpans[block];
  if (spans === undefined) {
    spans = spanColumn(file, block);
    blocks.rowSpans[block] = spans;
  }
  const span = spans[line];
  if ((row[7] as unknown) === SPAN_IN_COLUMN) {
    if (span === null) throw invalid(file.label, `has a row in block #${block} whose span is in the column, which has none for it.`);
    row[7] = { end: span!.end, start: span!.start, unit: 'utf16-source' };
  } else if (span !== null) {
    throw invalid(file.label, `has a row in block #${block} with a span of its own and one in the column.`);
  }
  blocks.rowCache[ordinal] = row;
  return row;
}

/** The source ranges of a row block's span column, one per row (null: the row holds its span). */
function spanColumn(file: BlockFile, block: number): (SourceRange | null)[] {
  const blocks = file.blocks;
  const rows = blocks.rowFirstChunk[block + 1]! - blocks.rowFirstChunk[block]!;
  const reader = new VlqReader(blocks.rowSpanColumns[block]!);
  const spans: (SourceRange | null)[] = [];
  let start = 0;
  try {
    for (let i = 0; i < rows; i++) {
      const code = reader.next();
      if (code === 0) {
        spans.push(null);
        continue;
      }
      const delta = code - 1;
      start += delta % 2 === 0 ? delta / 2 : -(delta + 1) / 2;
      const end = start + reader.next();
      if (start < 0 || !Number.isSafeInteger(end)) throw new RangeError('span out of range');
      spans.push({ start, end });
    }
    if (!reader.done) throw new RangeError('more spans than rows');
  } catch {
    throw invalid(file.label, `has a row block (#${block}) whose span column does not match its rows.`);
  }
  return spans;
}

/** Reads, checks and inflates these row blocks (ascending, none read yet) in one inflate call. */
function inflateRowBlocks(file: BlockFile, wanted: readonly number[]): void {
  const blocks = file.blocks;
  const members: Buffer[] = [];
  let expected = 0;
  for (const block of wanted) {
    const encoded = readVerified(
      file,
      `row block (#${block})`,
      blocks.rowOffset[block]!,
      blocks.rowBytes[block]!,
      blocks.rowDigest[block]!,
    );
    members.push(Buffer.from(encoded.toString('latin1'), 'base64'));
    expected += blocks.rowInflated[block]!;
  }
  members.push(Buffer.from(ROW_BLOCKS_END));
  let bytes: Buffer | undefined;
  try {
    bytes = zlib.inflateRawSync(Buffer.concat(members));
  } catch {
    // Said of the block at fault: each one alone.
  }
  if (bytes === undefined || bytes.length !== expected) {
    if (wanted.length > 1) {
      for (const block of wanted) inflateRowBlocks(file, [block]);
      throw invalid(file.label, 'has row blocks that inflate to other bytes together than one by one.');
    }
    throw invalid(file.label, `has a row block (#${wanted[0]}) that does not inflate to the size its head records.`, {
      expectedBytes: expected,
      actualBytes: bytes?.length ?? null,
    });
  }
  // Each block's rows end with "\n" (a 0x0A byte is always a line feed in them): only the rows a query
  // uses are decoded, not the whole block (whose text and lines were most of a cold query's garbage).
  let end = 0;
  for (const block of wanted) {
    const start = end;
    end += blocks.rowInflated[block]!;
    const rows = blocks.rowFirstChunk[block + 1]! - blocks.rowFirstChunk[block]!;
    const own = bytes.subarray(start, end);
    const starts = [0];
    for (let at = own.indexOf(10); at >= 0; at = own.indexOf(10, at + 1)) starts.push(at + 1);
    if (starts.length - 1 !== rows || starts[rows] !== own.length)
      throw invalid(file.label, `has a row block (#${block}) with the wrong number of rows.`);
    blocks.rowLines[block] = { bytes: own, starts };
  }
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
  return sourceFingerprint(index.source);
}

/** The fingerprint at the start of an index (or segment) file, without loading it. */
export function sourceFingerprint(source: IndexSource, kind: string = ARTIFACT_KIND): string {
  const prefixLength = `{"artifact":"${kind}","fingerprint":"`.length;
  return source.read(prefixLength, 'sha256:'.length + 64).toString('latin1');
}

/**
 * A handle for a term (for decodePostings), or -1 when no document has it. For a single file the
 * handle is the term's position; for a segmented index, an entry of index.foundTerms.
 */
export function findTerm(index: LoadedSearchIndex, term: string): number {
  if (index.files.length === 1) return findFileTerm(index.files[0]!, term);
  const positions = index.files.map((file) => findFileTerm(file, term));
  if (positions.every((position) => position < 0)) return -1;
  index.foundTerms.push(positions);
  return index.foundTerms.length - 1;
}

function findFileTerm(file: BlockFile, term: string): number {
  const firsts = file.blocks.postingFirstTermText;
  if (firsts.length === 0 || term < firsts[0]!) return -1;
  // The last block whose first term is <= term, then the term among that block's terms.
  let lo = 0;
  let hi = firsts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (firsts[mid]! <= term) lo = mid;
    else hi = mid - 1;
  }
  const { text, termStarts } = postingBlock(file, lo);
  let low = 0;
  let high = termStarts.length - 2;
  while (low <= high) {
    const mid = (low + high) >> 1;
    const candidate = text.slice(termStarts[mid]!, termStarts[mid + 1]! - 1);
    if (candidate === term) return file.blocks.postingFirstTerm[lo]! + mid;
    if (candidate < term) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}

/** Every term of a file, from all its posting blocks. */
function fileTerms(file: BlockFile): string[] {
  const terms: string[] = [];
  for (let block = 0; block < file.blocks.postingBlocks.length; block++) {
    const { text, termStarts } = postingBlock(file, block);
    for (let i = 0; i + 1 < termStarts.length; i++) terms.push(text.slice(termStarts[i]!, termStarts[i + 1]! - 1));
  }
  return terms;
}

/** A posting block, read, checked against its CRC-32 and split into its terms and their postings' extents (once). */
function postingBlock(file: BlockFile, block: number): PostingBlock {
  const blocks = file.blocks;
  const cached = blocks.postingBlocks[block];
  if (cached !== undefined) return cached;
  const text = readVerified(
    file,
    `posting block (#${block})`,
    blocks.postingOffset[block]!,
    blocks.postingBytes[block]!,
    blocks.postingDigest[block]!,
  ).toString('utf8');
  const termCount = blocks.postingFirstTerm[block + 1]! - blocks.postingFirstTerm[block]!;
  const termsEnd = text.indexOf(POSTING_BLOCK_TERMS_END);
  // Where each term starts: the terms before POSTING_BLOCK_TERMS_END, split at single spaces, must
  // be exactly the block's count, the first being the one the head names.
  const termStarts = new Int32Array(termCount + 1);
  let count = 0;
  if (termsEnd >= 0) {
    for (let at = 0; count <= termCount; ) {
      if (count < termCount) termStarts[count] = at;
      count++;
      const space = text.indexOf(' ', at);
      if (space < 0 || space > termsEnd) break;
      at = space + 1;
    }
    termStarts[termCount] = termsEnd + 1;
  }
  if (count !== termCount || text.slice(0, termStarts[1]! - 1) !== blocks.postingFirstTermText[block])
    throw invalid(file.label, `has a posting block (#${block}) whose terms do not match its head.`);
  const starts = new Float64Array(termCount + 1);
  try {
    const reader = new VlqReader(text, termsEnd + 1);
    for (let i = 0; i < termCount; i++) starts[i + 1] = starts[i]! + reader.next();
    for (let i = 0; i <= termCount; i++) starts[i] = starts[i]! + reader.position;
  } catch (cause) {
    throw invalid(file.label, `has a posting block (#${block}) whose lengths do not decode.`, { cause: String(cause) });
  }
  if (starts[termCount] !== text.length)
    throw invalid(file.label, `has a posting block (#${block}) whose lengths do not match its postings.`);
  const decoded = { text, termStarts, starts };
  blocks.postingBlocks[block] = decoded;
  return decoded;
}

/** One term's postings as parallel arrays: chunk ordinals ascending, and the term's frequency in each chunk's text and heading path. */
export interface Postings {
  ordinals: Uint32Array;
  tfs: Uint32Array;
  headingTfs: Uint32Array;
}

/**
 * Decodes one term's postings (entry encoding: search-index.ts) from its handle (findTerm). The
 * segments of an index hold consecutive chunk ordinals, so theirs follow one another in order.
 */
export function decodePostings(index: LoadedSearchIndex, handle: number): Postings {
  const parts: [file: BlockFile, termIndex: number, chunkBase: number][] = index.files.length === 1 ? [[index.files[0]!, handle, 0]] : [];
  if (index.files.length > 1)
    index.foundTerms[handle]!.forEach((position, i) => {
      if (position >= 0) parts.push([index.files[i]!, position, index.fileChunkStarts[i]!]);
    });
  // Every entry takes at least one character, so the postings' length bounds their number: the
  // arrays are made once, at that size, rather than grown entry by entry.
  let bound = 0;
  for (const [file, termIndex] of parts) {
    const { starts, local } = postingExtent(file, termIndex);
    bound += starts[local + 1]! - starts[local]!;
  }
  const out: Postings = { ordinals: new Uint32Array(bound), tfs: new Uint32Array(bound), headingTfs: new Uint32Array(bound) };
  let count = 0;
  for (const [file, termIndex, chunkBase] of parts) count = decodeFilePostings(file, termIndex, chunkBase, out, count);
  return { ordinals: out.ordinals.subarray(0, count), tfs: out.tfs.subarray(0, count), headingTfs: out.headingTfs.subarray(0, count) };
}

/** A term's posting block (text and per-term starts) and its position among the block's terms. */
function postingExtent(file: BlockFile, termIndex: number): PostingBlock & { local: number } {
  const block = blockOf(file.blocks.postingFirstTerm, termIndex);
  return { ...postingBlock(file, block), local: termIndex - file.blocks.postingFirstTerm[block]! };
}

/** Decodes one file's postings of a term into `out` from entry `count`; returns the new count. */
function decodeFilePostings(file: BlockFile, termIndex: number, chunkBase: number, out: Postings, count: number): number {
  const { text, starts, local } = postingExtent(file, termIndex);
  const { ordinals, tfs, headingTfs } = out;
  const reader = new VlqReader(text, starts[local]!);
  const end = starts[local + 1]!;
  let n = count;
  let document = -1;
  while (reader.position < end) {
    document += reader.next() + 1;
    const runEnd = reader.next() + reader.position;
    const base = chunkBase + file.documentStarts[document]!;
    let previous = -1;
    while (reader.position < runEnd) {
      const value = reader.next();
      const flag = value % 2;
      previous = previous + 1 + (value - flag) / 2;
      ordinals[n] = base + previous;
      if (flag === 0) {
        tfs[n] = 1;
        headingTfs[n++] = 0;
        continue;
      }
      const counts = reader.next();
      if (counts % 2 === 0) {
        tfs[n] = counts / 2 + 2;
        headingTfs[n++] = 0;
      } else {
        tfs[n] = (counts - 1) / 2;
        headingTfs[n++] = reader.next() + 1;
      }
    }
  }
  return n;
}
