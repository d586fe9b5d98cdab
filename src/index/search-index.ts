import type { Chunk } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
import { createHash } from 'node:crypto';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { tokenize, TOKENIZER_VERSION } from './tokenizer.js';
import { encodeVlq, VlqReader, writeVlq } from './vlq.js';

/**
 * The search index: one canonical-JSON artifact (the shared envelope, kind "search-index") holding
 * everything a query needs: chunk text and citations, and BM25 statistics as integers only (term
 * frequencies, chunk lengths in tokens, k1/b in thousandths), so its bytes are identical on every
 * runtime; scores are computed at query time.
 *
 * Layout of the payload (keys in canonical order):
 *   bm25              {bMilli, k1Milli}
 *   chunkCounts       chunks per document, in `documents` order
 *   chunkNormativity  [sorted values, VLQ list of each chunk's value index] (filters without rows)
 *   chunkRowBytes     UTF-8 byte length of each chunk row's JSON text (a plain integer array: parsed natively)
 *   chunks            one row per chunk, documents in documentId order, chunks in chunkId order:
 *                     [chunkId, sectionId, headingPath, blockIds, fragment, normativity, pages, span, textRange, text]
 *   documents    [documentId, sourceUrl, snapshotId, family, authority, documentType], by documentId
 *   lengths      VLQ list: token count of each chunk
 *   postingLengths VLQ list: length (in characters) of each term's run in `postings`
 *   postings     one string: per term, one run per document that has the term, documents ascending:
 *                VLQ (gap to the previous document ordinal - 1, from -1), VLQ (run length in characters),
 *                then the document's own entries: (gap to the previous chunk ordinal within the
 *                document - 1, from -1) * 2 + (tf > 1), then tf - 2 if tf > 1
 *                (document-relative runs are copied verbatim from the parts: merging never re-encodes them)
 *   provenance   {chunkIndexFingerprint, missingSources}
 *   terms        one string: the terms joined by "\n", sorted by UTF-16 code unit (binary-searchable)
 * (Few large strings instead of many small ones: JSON.parse of a cold process is much faster.)
 *   tokenizer    TOKENIZER_VERSION
 *   totalLength  sum of lengths
 * Incremental builds: buildDocumentPart() makes a document's rows and postings once; merging parts
 * copies each document's posting runs verbatim behind a small run header, so it never re-tokenizes
 * or re-encodes.
 * Cold loads: the keys before `chunks` are small, and chunkRowBytes locates every row, so a reader
 * verifies the bytes, parses everything but the rows, and parses a row only when a query needs it.
 * The bytes remain canonical JSON of the shared artifact envelope (parseArtifact accepts them).
 */
// A type alias (not an interface) so it is assignable to Record<string, unknown> for config hashing.
export type IndexOptions = {
  k1: number;
  b: number;
};

export const DEFAULT_INDEX_OPTIONS: IndexOptions = Object.freeze({ k1: 1.2, b: 0.75 });
export { SEARCH_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { SEARCH_INDEX_FORMAT_VERSION } from '../rule-versions.js';
/** Version of the per-document part format (cached parts of another version must not be merged). */
export { INDEX_PART_VERSION } from '../rule-versions.js';
import { INDEX_PART_VERSION } from '../rule-versions.js';

export interface IndexProvenance {
  chunkIndexFingerprint: string;
  /** Non-empty only for an explicitly partial build. */
  missingSources: string[];
}

export type DocumentRow = [documentId: string, sourceUrl: string, snapshotId: string, family: string, authority: string, documentType: string];
export type ChunkRow = [
  chunkId: string,
  sectionId: string | null,
  headingPath: string[],
  blockIds: string[],
  fragment: string | null,
  normativity: string,
  pages: number[] | null,
  span: Record<string, unknown> | null,
  textRange: { start: number; end: number } | null,
  text: string,
];

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
  chunkNormativity: Uint8Array;
  /** The file bytes and where each chunk row lies in them (rows are parsed on demand). */
  bytes: Uint8Array;
  rowOffsets: Float64Array;
  rowCache: (ChunkRow | undefined)[];
  lengths: Uint32Array;
  totalLength: number;
  terms: string[];
  postings: string;
  /** postingStarts[i]..postingStarts[i + 1] is the run of term i in `postings`. */
  postingStarts: Uint32Array;
  /** First chunk ordinal of each document. */
  documentStarts: Uint32Array;
}

interface PartHeader {
  partFormat: number;
  documentId: string;
  /** [sourceUrl, snapshotId, family, authority, documentType], or null when the document has no chunks. */
  doc: string[] | null;
  chunkCount: number;
  /** VLQ list: token count of each chunk. */
  lengths: string;
  /** Normativity of each chunk, in order. */
  normativity: string[];
  /** UTF-8 byte length of each row. */
  rowBytes: number[];
  totalLength: number;
  termCount: number;
}

const ARTIFACT_KIND = 'search-index';
const BODY_PREFIX = `{"artifact":"${ARTIFACT_KIND}",`;
const FINGERPRINT_PREFIX = `{"artifact":"${ARTIFACT_KIND}","fingerprint":"sha256:`;

function optionsInThousandths(options: IndexOptions): { k1Milli: number; bMilli: number } {
  const k1Milli = Math.round(options.k1 * 1000);
  const bMilli = Math.round(options.b * 1000);
  if (!Number.isFinite(options.k1) || k1Milli < 0 || k1Milli > 100_000) {
    throw new EpistemeError('usage-error', `BM25 k1 must be a number from 0 to 100; got ${String(options.k1)}.`);
  }
  if (!Number.isFinite(options.b) || bMilli < 0 || bMilli > 1000) {
    throw new EpistemeError('usage-error', `BM25 b must be a number from 0 to 1; got ${String(options.b)}.`);
  }
  return { k1Milli, bMilli };
}

/** Throws for BM25 options the index cannot store (k1 outside 0..100, b outside 0..1). */
export function validateIndexOptions(options: IndexOptions): void {
  optionsInThousandths(options);
}

/** A document's cacheable share of the index: a pure function of its chunks (their order is irrelevant). */
export function buildDocumentPart(documentId: string, chunks: Chunk[]): string {
  const sorted = [...chunks].sort((a, b) => compareCodeUnits(a.chunkId, b.chunkId));
  let doc: string[] | null = null;
  const rows: string[] = [];
  const rowBytes: number[] = [];
  const lengths: string[] = [];
  let totalLength = 0;
  const termPostings = new Map<string, { ordinals: number[]; tfs: number[] }>();
  sorted.forEach((chunk, ordinal) => {
    if (ordinal > 0 && sorted[ordinal - 1]!.chunkId === chunk.chunkId) throw new Error(`duplicate chunk id ${chunk.chunkId}`);
    if (chunk.documentId !== documentId || chunk.citation.documentId !== documentId) {
      throw new Error(`chunk ${chunk.chunkId} belongs to ${chunk.documentId}, not ${documentId}`);
    }
    const docRow = [chunk.citation.sourceUrl, chunk.citation.snapshotId, chunk.family, chunk.authority, chunk.documentType];
    if (doc === null) doc = docRow;
    else if (canonicalJson(doc) !== canonicalJson(docRow)) throw new Error(`chunk ${chunk.chunkId} disagrees with its document's source, snapshot or classification`);
    const c = chunk.citation;
    const row: ChunkRow = [chunk.chunkId, c.sectionId, c.headingPath, c.blockIds, c.fragment, chunk.normativity, c.pages ?? null, c.span ?? null, c.textRange ?? null, chunk.text];
    const rowText = canonicalJson(row);
    rows.push(rowText);
    rowBytes.push(utf8Length(rowText));
    const counts = new Map<string, number>();
    const terms = tokenize(chunk.text);
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
    encodeVlq(terms.length, lengths);
    totalLength += terms.length;
    for (const [term, tf] of counts) {
      let entry = termPostings.get(term);
      if (entry === undefined) termPostings.set(term, (entry = { ordinals: [], tfs: [] }));
      entry.ordinals.push(ordinal);
      entry.tfs.push(tf);
    }
  });
  const terms = [...termPostings.keys()].sort(compareCodeUnits);
  const postings: string[] = [];
  const postingLengths: string[] = [];
  for (const term of terms) {
    const { ordinals, tfs } = termPostings.get(term)!;
    const out: string[] = [];
    let previous = -1;
    ordinals.forEach((ordinal, i) => {
      const tf = tfs[i]!;
      encodeVlq((ordinal - previous - 1) * 2 + (tf > 1 ? 1 : 0), out);
      if (tf > 1) encodeVlq(tf - 2, out);
      previous = ordinal;
    });
    const run = out.join('');
    postings.push(run);
    encodeVlq(run.length, postingLengths);
  }
  const header: PartHeader = {
    partFormat: INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION,
    documentId,
    doc,
    chunkCount: sorted.length,
    lengths: lengths.join(''),
    normativity: sorted.map((chunk) => chunk.normativity),
    rowBytes,
    totalLength,
    termCount: terms.length,
  };
  // Lines: header (JSON); terms joined by spaces (terms never contain spaces, quotes or newlines);
  // all posting runs (VLQ); each run's length (VLQ); the chunk rows as JSON array items, spliced
  // verbatim by the merge. Only the small header goes through JSON.parse.
  return [canonicalJson(header), terms.join(' '), postings.join(''), postingLengths.join(''), rows.join(',')].join('\n');
}

interface ParsedPart {
  header: PartHeader;
  terms: string;
  postings: string;
  postingStarts: Uint32Array;
  rowsText: string;
}

function parsePart(part: string): ParsedPart {
  const breaks: number[] = [];
  for (let at = part.indexOf('\n'); at >= 0 && breaks.length < 4; at = part.indexOf('\n', at + 1)) breaks.push(at);
  if (breaks.length < 4) throw new Error('search index part: missing sections');
  const [b1, b2, b3, b4] = breaks as [number, number, number, number];
  const header = JSON.parse(part.slice(0, b1)) as PartHeader;
  if (header.partFormat !== INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION) {
    throw new Error(`search index part for ${header.documentId} has part format ${header.partFormat}; expected ${INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION}`);
  }
  const postingStarts = new Uint32Array(header.termCount + 1);
  const reader = new VlqReader(part.slice(b3 + 1, b4));
  for (let i = 0; i < header.termCount; i++) postingStarts[i + 1] = postingStarts[i]! + reader.next();
  if (!reader.done) throw new Error(`search index part for ${header.documentId}: posting lengths do not match its terms`);
  return { header, terms: part.slice(b1 + 1, b2), postings: part.slice(b2 + 1, b3), postingStarts, rowsText: part.slice(b4 + 1) };
}

/** FNV-1a over UTF-16 code units of text[start, end): integer-only, so the same everywhere. */
function hashRegion(text: string, start: number, end: number): number {
  let hash = 0x811c9dc5;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

function equalsRegion(term: string, text: string, start: number, end: number): boolean {
  if (term.length !== end - start) return false;
  for (let i = 0; i < term.length; i++) if (term.charCodeAt(i) !== text.charCodeAt(start + i)) return false;
  return true;
}

/**
 * Merges document parts (in any order) into the exact bytes of the index file.
 * The work per (document, term) run is kept to integer operations: terms are found by hash in the
 * parts' space-joined term strings (no per-run string objects), runs are grouped by term with a counting sort,
 * and posting runs are copied as ASCII bytes behind a (document gap, length) header.
 */
export function mergeSearchIndex(parts: string[], provenance: IndexProvenance, options: IndexOptions): string {
  const { k1Milli, bMilli } = optionsInThousandths(options);
  const parsed = parts.map(parsePart).filter((p) => p.header.chunkCount > 0);
  parsed.sort((a, b) => compareCodeUnits(a.header.documentId, b.header.documentId));
  for (let i = 1; i < parsed.length; i++) {
    if (parsed[i - 1]!.header.documentId === parsed[i]!.header.documentId) throw new Error(`search index: document ${parsed[i]!.header.documentId} given twice`);
  }
  // Pass 1: give every distinct term a slot; record the slot of every run (part order, term order).
  const offsets: number[] = [];
  const partRunStart: number[] = [];
  let chunkTotal = 0;
  let totalLength = 0;
  let runTotal = 0;
  for (const p of parsed) {
    offsets.push(chunkTotal);
    partRunStart.push(runTotal);
    chunkTotal += p.header.chunkCount;
    totalLength += p.header.totalLength;
    runTotal += p.header.termCount;
  }
  partRunStart.push(runTotal);
  const runSlot = new Int32Array(runTotal);
  const runPart = new Int32Array(runTotal);
  const slotTerms: string[] = [];
  const slotByHash = new Map<number, number>();
  const nextWithHash: number[] = [];
  let run = 0;
  parsed.forEach((p, partIndex) => {
    const text = p.terms;
    const termCount = p.header.termCount;
    let start = 0;
    for (let termIndex = 0; termIndex < termCount; termIndex++) {
      let end = text.indexOf(' ', start);
      if (end < 0) end = text.length;
      const hash = hashRegion(text, start, end);
      let slot = slotByHash.get(hash) ?? -1;
      while (slot >= 0 && !equalsRegion(slotTerms[slot]!, text, start, end)) slot = nextWithHash[slot]!;
      if (slot < 0) {
        slot = slotTerms.length;
        slotTerms.push(text.slice(start, end));
        nextWithHash.push(slotByHash.get(hash) ?? -1);
        slotByHash.set(hash, slot);
      }
      runSlot[run] = slot;
      runPart[run] = partIndex;
      run++;
      start = end + 1;
    }
    if (start < text.length) throw new Error(`search index part for ${p.header.documentId}: terms and postings disagree`);
  });
  // Pass 2: runs grouped by slot (counting sort keeps part order within a slot).
  const slotCount = slotTerms.length;
  const slotStart = new Int32Array(slotCount + 1);
  for (let r = 0; r < runTotal; r++) slotStart[runSlot[r]! + 1]!++;
  for (let slot = 0; slot < slotCount; slot++) slotStart[slot + 1]! += slotStart[slot]!;
  const fill = slotStart.slice(0, slotCount);
  const runsBySlot = new Int32Array(runTotal);
  for (let r = 0; r < runTotal; r++) runsBySlot[fill[runSlot[r]!]!++] = r;
  // Pass 3: terms in code-unit order; each term's runs concatenated.
  const slotOrder = Array.from({ length: slotCount }, (_, slot) => slot).sort((a, b) => compareCodeUnits(slotTerms[a]!, slotTerms[b]!));
  const terms = slotOrder.map((slot) => slotTerms[slot]!);
  const encoder = new TextEncoder();
  const partPostings = parsed.map((p) => encoder.encode(p.postings));
  const out = new Uint8Array(partPostings.reduce((n, bytes) => n + bytes.length, 0) + runTotal * 12);
  const lengthsOut = new Uint8Array(slotCount * 12);
  let written = 0;
  let lengthsWritten = 0;
  for (const slot of slotOrder) {
    let previousDocument = -1;
    const runStart = written;
    for (let k = slotStart[slot]!; k < slotStart[slot + 1]!; k++) {
      const r = runsBySlot[k]!;
      const partIndex = runPart[r]!; // = the document's ordinal (parts are in document order)
      const termIndex = r - partRunStart[partIndex]!;
      const bytes = partPostings[partIndex]!;
      const start = parsed[partIndex]!.postingStarts[termIndex]!;
      const end = parsed[partIndex]!.postingStarts[termIndex + 1]!;
      written = writeVlq(partIndex - previousDocument - 1, out, written);
      written = writeVlq(end - start, out, written);
      for (let i = start; i < end; i++) out[written++] = bytes[i]!;
      previousDocument = partIndex;
    }
    lengthsWritten = writeVlq(written - runStart, lengthsOut, lengthsWritten);
  }
  const decoder = new TextDecoder();
  const postings = decoder.decode(out.subarray(0, written));
  const postingLengths = decoder.decode(lengthsOut.subarray(0, lengthsWritten));
  const documents = parsed.map((p) => [p.header.documentId, ...(p.header.doc ?? [])]);
  const normativityValues = [...new Set(parsed.flatMap((p) => p.header.normativity))].sort(compareCodeUnits);
  const normativityCodes: string[] = [];
  for (const p of parsed) for (const value of p.header.normativity) encodeVlq(normativityValues.indexOf(value), normativityCodes);
  const missingSources = [...new Set(provenance.missingSources)].sort(compareCodeUnits);
  // The body in pieces (hashed piece by piece: no giant intermediate string to flatten twice).
  const body: string[] = [
    BODY_PREFIX,
    `"formatVersion":${SEARCH_INDEX_FORMAT_VERSION},"payload":`,
    `{"bm25":${canonicalJson({ bMilli, k1Milli })}`,
    `,"chunkCounts":${canonicalJson(parsed.map((p) => p.header.chunkCount))}`,
    `,"chunkNormativity":${canonicalJson([normativityValues, normativityCodes.join('')])}`,
    `,"chunkRowBytes":${canonicalJson(parsed.flatMap((p) => p.header.rowBytes))}`,
    ',"chunks":[',
  ];
  parsed.forEach((p, i) => {
    if (i > 0) body.push(',');
    body.push(p.rowsText);
  });
  body.push(
    `],"documents":${canonicalJson(documents)}`,
    `,"lengths":${JSON.stringify(parsed.map((p) => p.header.lengths).join(''))}`,
    `,"postingLengths":${JSON.stringify(postingLengths)}`,
    `,"postings":${JSON.stringify(postings)}`,
    `,"provenance":${canonicalJson({ chunkIndexFingerprint: provenance.chunkIndexFingerprint, missingSources })}`,
    `,"terms":${JSON.stringify(terms.join('\n'))}`,
    `,"tokenizer":${TOKENIZER_VERSION}`,
    `,"totalLength":${totalLength}}`,
    `,"producer":${canonicalJson({ name: PRODUCER_NAME, version: PRODUCER_VERSION })}}`,
  );
  const hash = createHash('sha256');
  for (const piece of body) hash.update(piece);
  body[0] = `${FINGERPRINT_PREFIX}${hash.digest('hex')}",`;
  body.push('\n');
  return body.join('');
}

/** One-shot build; equal to merging the documents' parts. */
export function buildSearchIndex(docs: { documentId: string; chunks: Chunk[] }[], provenance: IndexProvenance, options: IndexOptions): string {
  return mergeSearchIndex(
    docs.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
    provenance,
    options,
  );
}

function invalid(label: string, message: string, extra: Record<string, unknown> = {}): EpistemeError {
  return new EpistemeError('artifact-invalid', `${label} ${message}`, {
    hint: 'Rebuild the search index with `episteme index` (or `episteme build`).',
    details: { file: label, ...extra },
  });
}

const CHUNKS_KEY = ',"chunks":[';
const PRODUCER_KEY = ',"producer":{';

/**
 * Checks an index file before trusting it: the artifact kind, the format version, and the sha256
 * fingerprint (computed over the file minus its fingerprint field, which equals the canonical body
 * because the file is canonical JSON). Accepts the UTF-8 bytes (fastest: hashed as they are) or the
 * text. Chunk rows are left unparsed until a query reads them.
 */
export function loadSearchIndex(text: string | Uint8Array, label: string): LoadedSearchIndex {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const decode = (from: number, to: number): string => {
    try {
      return decoder.decode(bytes.subarray(from, to));
    } catch (cause) {
      throw invalid(label, 'is not valid UTF-8.', { cause: String(cause) });
    }
  };
  const head = new TextDecoder().decode(bytes.subarray(0, 200));
  if (!head.startsWith(FINGERPRINT_PREFIX)) {
    const kind = /^\s*\{\s*"artifact"\s*:\s*"([^"]*)"/.exec(head)?.[1];
    if (kind !== undefined && kind !== ARTIFACT_KIND) throw invalid(label, `is a ${kind} artifact, not a search index.`);
    throw invalid(label, 'is not a search index (unreadable, truncated or not in canonical form).');
  }
  const afterFingerprint = FINGERPRINT_PREFIX.length + 64 + 2;
  const version = /^"formatVersion":(\d+),"payload":\{/.exec(head.slice(afterFingerprint));
  if (version === null) throw invalid(label, 'is not a search index (no format version).');
  if (Number(version[1]) !== SEARCH_INDEX_FORMAT_VERSION) {
    throw invalid(label, `has search-index format version ${version[1]}; this Episteme reads version ${SEARCH_INDEX_FORMAT_VERSION}.`, { formatVersion: Number(version[1]) });
  }
  const expected = head.slice(FINGERPRINT_PREFIX.length, FINGERPRINT_PREFIX.length + 64);
  const end = bytes.length > 0 && bytes[bytes.length - 1] === 0x0a ? bytes.length - 1 : bytes.length;
  const actual = createHash('sha256').update(BODY_PREFIX).update(bytes.subarray(afterFingerprint, end)).digest('hex');
  if (actual !== expected) throw invalid(label, 'fails its fingerprint check (truncated or modified).', { expected: `sha256:${expected}`, actual: `sha256:${actual}` });

  // The bytes are exactly what a build wrote; now find the regions of the layout.
  const payloadStart = afterFingerprint + version[0].length - 1;
  const chunksKey = findChunksKey(bytes, payloadStart);
  const producerKey = lastIndexOfAscii(bytes, PRODUCER_KEY, end);
  if (chunksKey < 0 || producerKey < chunksKey) throw invalid(label, 'does not have the search-index layout.');
  let headPart: Pick<Payload, 'bm25' | 'chunkCounts' | 'chunkNormativity' | 'chunkRowBytes'>;
  let tailPart: Omit<Payload, 'bm25' | 'chunkCounts' | 'chunkNormativity' | 'chunkRowBytes'>;
  const rowsStart = chunksKey + CHUNKS_KEY.length;
  let rowBytesList: number[];
  try {
    headPart = JSON.parse(decode(payloadStart, chunksKey) + '}') as typeof headPart;
    rowBytesList = headPart.chunkRowBytes;
    if (!Array.isArray(rowBytesList)) throw new Error('chunkRowBytes is not a list');
  } catch (cause) {
    if (cause instanceof EpistemeError) throw cause;
    throw invalid(label, 'does not have the search-index layout.', { cause: String(cause) });
  }
  const rowOffsets = new Float64Array(rowBytesList.length + 1);
  let offset = rowsStart;
  for (let i = 0; i < rowBytesList.length; i++) {
    rowOffsets[i] = offset;
    offset += rowBytesList[i]! + 1; // the row, then a comma (or the closing bracket)
  }
  rowOffsets[rowBytesList.length] = offset;
  const rowsEnd = rowBytesList.length === 0 ? rowsStart : offset - 1;
  if (bytes[rowsEnd] !== 0x5d /* ] */) throw invalid(label, 'has chunk rows that do not match their recorded lengths.');
  try {
    tailPart = parseTail(decode(rowsEnd + 1, producerKey));
  } catch (cause) {
    if (cause instanceof EpistemeError) throw cause;
    throw invalid(label, 'does not have the search-index layout.', { cause: String(cause) });
  }
  return fromPayload({ ...headPart, ...tailPart }, rowBytesList.length, bytes, rowOffsets, label);
}

/**
 * The tail of the payload (`,"documents":...}`) without pushing its two big strings through
 * JSON.parse, which is slow on them in a cold process: `postings` (base64 digits) and `terms`
 * (letters, digits and marks, joined by an escaped newline) never contain quotes or backslashes
 * other than those separators, so their JSON text is cut out by position and the rest is parsed.
 */
function parseTail(tail: string): Omit<Payload, 'bm25' | 'chunkCounts' | 'chunkNormativity' | 'chunkRowBytes'> {
  const postingsKey = ',"postings":"';
  const termsKey = ',"terms":"';
  const postingsStart = tail.indexOf(postingsKey);
  const postingsEnd = tail.indexOf('","provenance":', postingsStart);
  const termsStart = tail.indexOf(termsKey, postingsEnd);
  const termsEnd = tail.indexOf('","tokenizer":', termsStart);
  if (postingsStart < 0 || postingsEnd < 0 || termsStart < 0 || termsEnd < 0 || !tail.startsWith(',"documents":')) throw new Error('unexpected tail layout');
  const rest = JSON.parse('{' + tail.slice(1, postingsStart) + tail.slice(postingsEnd + 1, termsStart) + tail.slice(termsEnd + 1)) as Omit<Payload, 'postings' | 'terms'>;
  const postings = tail.slice(postingsStart + postingsKey.length, postingsEnd);
  const rawTerms = tail.slice(termsStart + termsKey.length, termsEnd);
  // Only the newline escape may occur; anything else means this is not our writer's output.
  const terms = rawTerms.replaceAll('\\n', '\n');
  if (terms.includes('\\') || terms.includes('"') || postings.includes('\\')) throw new Error('unexpected escapes in terms or postings');
  return { ...rest, postings, terms };
}

interface Payload {
  bm25: { bMilli: number; k1Milli: number };
  chunkCounts: number[];
  chunkNormativity: [string[], string];
  chunkRowBytes: number[];
  documents: DocumentRow[];
  lengths: string;
  postingLengths: string;
  postings: string;
  provenance: IndexProvenance;
  terms: string;
  tokenizer: number;
  totalLength: number;
}

/**
 * Byte offset of `,"chunks":[` after the payload start. The keys before it are short and ASCII in
 * practice, so a decoded window is searched natively; the byte loop is the fallback.
 */
function findChunksKey(bytes: Uint8Array, from: number): number {
  for (let window = 1 << 16; ; window *= 4) {
    const to = Math.min(bytes.length, from + window);
    const text = new TextDecoder().decode(bytes.subarray(from, to));
    const at = text.indexOf(CHUNKS_KEY);
    if (at >= 0) return /^[\x00-\x7f]*$/.test(text.slice(0, at)) ? from + at : indexOfAscii(bytes, CHUNKS_KEY, from);
    if (to === bytes.length) return -1;
  }
}

function indexOfAscii(bytes: Uint8Array, needle: string, from: number): number {
  const first = needle.charCodeAt(0);
  outer: for (let i = from; i + needle.length <= bytes.length; i++) {
    if (bytes[i] !== first) continue;
    for (let k = 1; k < needle.length; k++) if (bytes[i + k] !== needle.charCodeAt(k)) continue outer;
    return i;
  }
  return -1;
}

function lastIndexOfAscii(bytes: Uint8Array, needle: string, before: number): number {
  outer: for (let i = before - needle.length; i >= 0; i--) {
    for (let k = 0; k < needle.length; k++) if (bytes[i + k] !== needle.charCodeAt(k)) continue outer;
    return i;
  }
  return -1;
}

/** UTF-8 length of a string without lone surrogates (JSON.stringify escapes those). */
export function utf8Length(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) length += 1;
    else if (code < 0x800) length += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      length += 4;
      i++;
    } else length += 3;
  }
  return length;
}

function fromPayload(p: Payload, chunkCount: number, bytes: Uint8Array, rowOffsets: Float64Array, label: string): LoadedSearchIndex {
  const shapeOk =
    typeof p.bm25?.k1Milli === 'number' &&
    typeof p.bm25?.bMilli === 'number' &&
    Array.isArray(p.chunkCounts) &&
    Array.isArray(p.chunkNormativity) &&
    Array.isArray(p.chunkNormativity[0]) &&
    typeof p.chunkNormativity[1] === 'string' &&
    Array.isArray(p.documents) &&
    p.documents.length === p.chunkCounts.length &&
    typeof p.lengths === 'string' &&
    typeof p.terms === 'string' &&
    typeof p.postings === 'string' &&
    typeof p.postingLengths === 'string' &&
    typeof p.provenance?.chunkIndexFingerprint === 'string' &&
    Array.isArray(p.provenance?.missingSources) &&
    typeof p.totalLength === 'number';
  if (!shapeOk) throw invalid(label, 'does not have the search-index layout.');
  if (p.tokenizer !== TOKENIZER_VERSION) throw invalid(label, `was built with tokenizer version ${String(p.tokenizer)}; this Episteme uses ${TOKENIZER_VERSION}.`);
  const chunkDocument = new Uint32Array(chunkCount);
  let ordinal = 0;
  p.chunkCounts.forEach((count, docOrdinal) => {
    chunkDocument.fill(docOrdinal, ordinal, ordinal + count);
    ordinal += count;
  });
  if (ordinal !== chunkCount) throw invalid(label, 'has chunk counts that do not add up.');
  const lengths = new Uint32Array(chunkCount);
  const chunkNormativity = new Uint8Array(chunkCount);
  const lengthReader = new VlqReader(p.lengths);
  const normativityReader = new VlqReader(p.chunkNormativity[1]);
  for (let i = 0; i < chunkCount; i++) {
    lengths[i] = lengthReader.next();
    chunkNormativity[i] = normativityReader.next();
  }
  if (!lengthReader.done || !normativityReader.done) throw invalid(label, 'has per-chunk lists that do not match its chunks.');
  const terms = p.terms === '' ? [] : p.terms.split('\n');
  const documentStarts = new Uint32Array(p.chunkCounts.length);
  for (let d = 1; d < documentStarts.length; d++) documentStarts[d] = documentStarts[d - 1]! + p.chunkCounts[d - 1]!;
  const postingStarts = new Uint32Array(terms.length + 1);
  const postingReader = new VlqReader(p.postingLengths);
  for (let i = 0; i < terms.length; i++) postingStarts[i + 1] = postingStarts[i]! + postingReader.next();
  if (!postingReader.done || postingStarts[terms.length] !== p.postings.length) throw invalid(label, 'has postings that do not match its terms.');
  return {
    label,
    formatVersion: SEARCH_INDEX_FORMAT_VERSION,
    tokenizerVersion: p.tokenizer,
    k1Milli: p.bm25.k1Milli,
    bMilli: p.bm25.bMilli,
    provenance: { chunkIndexFingerprint: p.provenance.chunkIndexFingerprint, missingSources: p.provenance.missingSources },
    documents: p.documents,
    chunkCounts: p.chunkCounts,
    chunkCount,
    chunkDocument,
    normativityValues: p.chunkNormativity[0],
    chunkNormativity,
    bytes,
    rowOffsets,
    rowCache: new Array<ChunkRow | undefined>(chunkCount),
    lengths,
    totalLength: p.totalLength,
    terms,
    postings: p.postings,
    postingStarts,
    documentStarts,
  };
}

/** The row of one chunk (parsed on first use, then cached). */
export function chunkRow(index: LoadedSearchIndex, ordinal: number): ChunkRow {
  const cached = index.rowCache[ordinal];
  if (cached !== undefined) return cached;
  const text = new TextDecoder().decode(index.bytes.subarray(index.rowOffsets[ordinal]!, index.rowOffsets[ordinal + 1]! - 1));
  const row = JSON.parse(text) as ChunkRow;
  index.rowCache[ordinal] = row;
  return row;
}

export function indexProvenance(index: LoadedSearchIndex): IndexProvenance {
  return { chunkIndexFingerprint: index.provenance.chunkIndexFingerprint, missingSources: [...index.provenance.missingSources] };
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

/** Decodes one term's postings into parallel arrays (chunk ordinals ascending, term frequencies). */
export function decodePostings(index: LoadedSearchIndex, termIndex: number): { ordinals: Uint32Array; tfs: Uint32Array } {
  const reader = new VlqReader(index.postings, index.postingStarts[termIndex]!);
  const end = index.postingStarts[termIndex + 1]!;
  const ordinals: number[] = [];
  const tfs: number[] = [];
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
      tfs.push(flag === 1 ? reader.next() + 2 : 1);
    }
  }
  return { ordinals: Uint32Array.from(ordinals), tfs: Uint32Array.from(tfs) };
}
