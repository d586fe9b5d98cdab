import type { Chunk } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { tokenize, TOKENIZER_VERSION } from './tokenizer.js';
import { encodeVlq, VlqReader } from './vlq.js';

/**
 * The search index: one canonical-JSON artifact (the shared envelope, kind "search-index") holding
 * everything a query needs: chunk text and citations, and BM25 statistics as integers only (term
 * frequencies, chunk lengths in tokens, k1/b in thousandths), so its bytes are identical on every
 * runtime; scores are computed at query time.
 *
 * Layout of the payload (keys in canonical order):
 *   bm25         {bMilli, k1Milli}
 *   chunkCounts  chunks per document, in `documents` order
 *   chunks       one row per chunk, documents in documentId order, chunks in chunkId order:
 *                [chunkId, sectionId, headingPath, blockIds, fragment, normativity, pages, span, textRange, text]
 *   documents    [documentId, sourceUrl, snapshotId, family, authority, documentType], by documentId
 *   lengths      VLQ list: token count of each chunk
 *   postings     per term, VLQ pairs: (gap to previous chunk ordinal) * 2 + (tf > 1), then tf - 2 if tf > 1
 *   provenance   {chunkIndexFingerprint, missingSources}
 *   terms        sorted by UTF-16 code unit (binary-searchable)
 *   tokenizer    TOKENIZER_VERSION
 *   totalLength  sum of lengths
 * Incremental builds: buildDocumentPart() makes a document's rows and postings once; merging parts
 * only renumbers the first posting of each run (VLQ strings concatenate), so it never re-tokenizes.
 */
// A type alias (not an interface) so it is assignable to Record<string, unknown> for config hashing.
export type IndexOptions = {
  k1: number;
  b: number;
};

export const DEFAULT_INDEX_OPTIONS: IndexOptions = Object.freeze({ k1: 1.2, b: 0.75 });
export const SEARCH_INDEX_FORMAT_VERSION = 1;
/** Version of the per-document part format (and of everything that makes part bytes). */
export const INDEX_PART_VERSION = 1;

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
  chunks: ChunkRow[];
  /** Chunk ordinal -> document ordinal. */
  chunkDocument: Uint32Array;
  lengths: Uint32Array;
  totalLength: number;
  terms: string[];
  postings: string[];
}

interface PartHeader {
  partFormat: number;
  documentId: string;
  /** [sourceUrl, snapshotId, family, authority, documentType], or null when the document has no chunks. */
  doc: string[] | null;
  chunkCount: number;
  lengths: string;
  totalLength: number;
  terms: string[];
  postings: string[];
  /** Local ordinal of the last posting of each term (what the next run's first gap is relative to). */
  lastOrdinals: string;
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

/** A document's cacheable share of the index: a pure function of its chunks (their order is irrelevant). */
export function buildDocumentPart(documentId: string, chunks: Chunk[]): string {
  const sorted = [...chunks].sort((a, b) => compareCodeUnits(a.chunkId, b.chunkId));
  let doc: string[] | null = null;
  const rows: string[] = [];
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
    rows.push(canonicalJson(row));
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
  const lastOrdinals: string[] = [];
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
    postings.push(out.join(''));
    encodeVlq(previous, lastOrdinals);
  }
  const header: PartHeader = {
    partFormat: INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION,
    documentId,
    doc,
    chunkCount: sorted.length,
    lengths: lengths.join(''),
    totalLength,
    terms,
    postings,
    lastOrdinals: lastOrdinals.join(''),
  };
  // Line 1: header; line 2: the chunk rows as JSON array items, spliced verbatim by the merge.
  return canonicalJson(header) + '\n' + rows.join(',');
}

interface ParsedPart {
  header: PartHeader;
  rowsText: string;
}

function parsePart(part: string): ParsedPart {
  const newline = part.indexOf('\n');
  if (newline < 0) throw new Error('search index part: missing row section');
  const header = JSON.parse(part.slice(0, newline)) as PartHeader;
  if (header.partFormat !== INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION) {
    throw new Error(`search index part for ${header.documentId} has part format ${header.partFormat}; expected ${INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION}`);
  }
  return { header, rowsText: part.slice(newline + 1) };
}

/** Merges document parts (in any order) into the exact bytes of the index file. */
export function mergeSearchIndex(parts: string[], provenance: IndexProvenance, options: IndexOptions): string {
  const { k1Milli, bMilli } = optionsInThousandths(options);
  const parsed = parts.map(parsePart).filter((p) => p.header.chunkCount > 0);
  parsed.sort((a, b) => compareCodeUnits(a.header.documentId, b.header.documentId));
  for (let i = 1; i < parsed.length; i++) {
    if (parsed[i - 1]!.header.documentId === parsed[i]!.header.documentId) throw new Error(`search index: document ${parsed[i]!.header.documentId} given twice`);
  }
  const runsByTerm = new Map<string, { part: number; term: number }[]>();
  const offsets: number[] = [];
  let chunkTotal = 0;
  let totalLength = 0;
  parsed.forEach((p, partIndex) => {
    offsets.push(chunkTotal);
    chunkTotal += p.header.chunkCount;
    totalLength += p.header.totalLength;
    p.header.terms.forEach((term, termIndex) => {
      const runs = runsByTerm.get(term);
      if (runs === undefined) runsByTerm.set(term, [{ part: partIndex, term: termIndex }]);
      else runs.push({ part: partIndex, term: termIndex });
    });
  });
  const lastOrdinals = parsed.map((p) => {
    const reader = new VlqReader(p.header.lastOrdinals);
    return p.header.terms.map(() => reader.next());
  });
  const terms = [...runsByTerm.keys()].sort(compareCodeUnits);
  const postings = terms.map((term) => {
    const pieces: string[] = [];
    let previous = -1;
    for (const run of runsByTerm.get(term)!) {
      const text = parsed[run.part]!.header.postings[run.term]!;
      const offset = offsets[run.part]!;
      const reader = new VlqReader(text);
      const first = reader.next();
      const flag = first % 2;
      const ordinal = offset + (first - flag) / 2;
      encodeVlq((ordinal - previous - 1) * 2 + flag, pieces);
      pieces.push(text.slice(reader.position));
      previous = offset + lastOrdinals[run.part]![run.term]!;
    }
    return pieces.join('');
  });
  const documents = parsed.map((p) => [p.header.documentId, ...(p.header.doc ?? [])]);
  const missingSources = [...new Set(provenance.missingSources)].sort(compareCodeUnits);
  const payload =
    `{"bm25":${canonicalJson({ bMilli, k1Milli })}` +
    `,"chunkCounts":${canonicalJson(parsed.map((p) => p.header.chunkCount))}` +
    `,"chunks":[${parsed.map((p) => p.rowsText).join(',')}]` +
    `,"documents":${canonicalJson(documents)}` +
    `,"lengths":${JSON.stringify(parsed.map((p) => p.header.lengths).join(''))}` +
    `,"postings":${canonicalJson(postings)}` +
    `,"provenance":${canonicalJson({ chunkIndexFingerprint: provenance.chunkIndexFingerprint, missingSources })}` +
    `,"terms":${canonicalJson(terms)}` +
    `,"tokenizer":${TOKENIZER_VERSION}` +
    `,"totalLength":${totalLength}}`;
  const body = `${BODY_PREFIX}"formatVersion":${SEARCH_INDEX_FORMAT_VERSION},"payload":${payload},"producer":${canonicalJson({ name: PRODUCER_NAME, version: PRODUCER_VERSION })}}`;
  const fingerprint = sha256Hex(body);
  return `${FINGERPRINT_PREFIX}${fingerprint}",${body.slice(BODY_PREFIX.length)}\n`;
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

/**
 * Parses an index file and checks, before trusting it: the artifact kind, the format version, and
 * the sha256 fingerprint (computed over the file minus its fingerprint field, which equals the
 * canonical body because the file is canonical JSON). Accepts the text or its UTF-8 bytes.
 */
export function loadSearchIndex(text: string | Uint8Array, label: string): LoadedSearchIndex {
  const head = typeof text === 'string' ? text.slice(0, 200) : new TextDecoder().decode(text.subarray(0, 200));
  if (!head.startsWith(FINGERPRINT_PREFIX)) {
    const kind = /^\s*\{\s*"artifact"\s*:\s*"([^"]*)"/.exec(head)?.[1];
    if (kind !== undefined && kind !== ARTIFACT_KIND) throw invalid(label, `is a ${kind} artifact, not a search index.`);
    throw invalid(label, 'is not a search index (unreadable, truncated or not in canonical form).');
  }
  const afterFingerprint = FINGERPRINT_PREFIX.length + 64 + 2;
  const version = /^"formatVersion":(\d+),/.exec(head.slice(afterFingerprint))?.[1];
  if (version === undefined) throw invalid(label, 'is not a search index (no format version).');
  if (Number(version) !== SEARCH_INDEX_FORMAT_VERSION) {
    throw invalid(label, `has search-index format version ${version}; this Episteme reads version ${SEARCH_INDEX_FORMAT_VERSION}.`, { formatVersion: Number(version) });
  }
  const expected = head.slice(FINGERPRINT_PREFIX.length, FINGERPRINT_PREFIX.length + 64);
  const length = text.length;
  const end = length > 0 && (typeof text === 'string' ? text.charCodeAt(length - 1) : text[length - 1]) === 0x0a ? length - 1 : length;
  const actual =
    typeof text === 'string'
      ? sha256Hex(BODY_PREFIX + text.slice(afterFingerprint, end))
      : sha256Hex(concatBytes(new TextEncoder().encode(BODY_PREFIX), text.subarray(afterFingerprint, end)));
  if (actual !== expected) throw invalid(label, 'fails its fingerprint check (truncated or modified).', { expected: `sha256:${expected}`, actual: `sha256:${actual}` });
  const source = typeof text === 'string' ? text : new TextDecoder().decode(text);
  let parsed: { formatVersion: number; payload: Record<string, unknown> };
  try {
    parsed = JSON.parse(source) as typeof parsed;
  } catch (cause) {
    throw invalid(label, 'is not valid JSON.', { cause: String(cause) });
  }
  return fromPayload(parsed.payload, label);
}

function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

function fromPayload(payload: Record<string, unknown>, label: string): LoadedSearchIndex {
  const p = payload as {
    bm25: { bMilli: number; k1Milli: number };
    chunkCounts: number[];
    chunks: ChunkRow[];
    documents: DocumentRow[];
    lengths: string;
    postings: string[];
    provenance: IndexProvenance;
    terms: string[];
    tokenizer: number;
    totalLength: number;
  };
  const shapeOk =
    typeof p.bm25?.k1Milli === 'number' &&
    typeof p.bm25?.bMilli === 'number' &&
    Array.isArray(p.chunkCounts) &&
    Array.isArray(p.chunks) &&
    Array.isArray(p.documents) &&
    p.documents.length === p.chunkCounts.length &&
    typeof p.lengths === 'string' &&
    Array.isArray(p.terms) &&
    Array.isArray(p.postings) &&
    p.terms.length === p.postings.length &&
    typeof p.provenance?.chunkIndexFingerprint === 'string' &&
    Array.isArray(p.provenance?.missingSources) &&
    typeof p.totalLength === 'number';
  if (!shapeOk) throw invalid(label, 'does not have the search-index layout.');
  if (p.tokenizer !== TOKENIZER_VERSION) throw invalid(label, `was built with tokenizer version ${String(p.tokenizer)}; this Episteme uses ${TOKENIZER_VERSION}.`);
  const chunkDocument = new Uint32Array(p.chunks.length);
  let ordinal = 0;
  p.chunkCounts.forEach((count, docOrdinal) => {
    chunkDocument.fill(docOrdinal, ordinal, ordinal + count);
    ordinal += count;
  });
  if (ordinal !== p.chunks.length) throw invalid(label, 'has chunk counts that do not add up.');
  const lengths = new Uint32Array(p.chunks.length);
  const reader = new VlqReader(p.lengths);
  for (let i = 0; i < lengths.length; i++) lengths[i] = reader.next();
  if (!reader.done) throw invalid(label, 'has a length list that does not match its chunks.');
  return {
    label,
    formatVersion: SEARCH_INDEX_FORMAT_VERSION,
    tokenizerVersion: p.tokenizer,
    k1Milli: p.bm25.k1Milli,
    bMilli: p.bm25.bMilli,
    provenance: { chunkIndexFingerprint: p.provenance.chunkIndexFingerprint, missingSources: p.provenance.missingSources },
    documents: p.documents,
    chunkCounts: p.chunkCounts,
    chunks: p.chunks,
    chunkDocument,
    lengths,
    totalLength: p.totalLength,
    terms: p.terms,
    postings: p.postings,
  };
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
  const reader = new VlqReader(index.postings[termIndex]!);
  const ordinals: number[] = [];
  const tfs: number[] = [];
  let previous = -1;
  while (!reader.done) {
    const value = reader.next();
    const flag = value % 2;
    previous = previous + 1 + (value - flag) / 2;
    ordinals.push(previous);
    tfs.push(flag === 1 ? reader.next() + 2 : 1);
  }
  return { ordinals: Uint32Array.from(ordinals), tfs: Uint32Array.from(tfs) };
}
