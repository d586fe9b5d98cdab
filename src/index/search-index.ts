import { Buffer } from 'node:buffer';
import { createHash, hash } from 'node:crypto';
import { Deflate, Z_SYNC_FLUSH } from 'pako';
import type { ChunkJson } from '../chunk/chunk-file.js';
import type { Chunk } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
import { sameStrings } from '../store/string-lists.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { zlib } from '../node-builtins.js';
import {
  BODY_PREFIX,
  crc32Hex,
  type IndexManifest,
  NO_PASSAGE_KEY,
  planSearchSegments,
  SEGMENT_ARTIFACT_KIND,
  type SegmentEntry,
  segmentFileName,
  SEGMENTS_KEY,
  FINGERPRINT_PREFIX,
  HEAD_KEY,
  encodePerChunkInts,
  isAscendingOrdinals,
  POSTING_BLOCK_TARGET_CHARS,
  POSTING_BLOCK_TERMS_END,
  POSTINGS_KEY,
  ROW_BLOCK_TARGET_BYTES,
  ROWS_KEY,
  SEAL_KEY,
  type IndexHead,
  type IndexProvenance,
  type PostingBlockEntry,
  type RowBlockEntry,
  type SourceRange,
  SPAN_IN_COLUMN,
} from './index-layout.js';
import { indexTerms, type IndexTerms, TOKENIZER_VERSION } from './tokenizer.js';
import { encodeVlq, VlqReader, writeVlq } from './vlq.js';

/**
 * Writes the search index (layout in index-layout.ts). BM25 statistics are integers only (term
 * frequencies, chunk lengths in tokens, k1/b in thousandths), so the bytes are identical on every
 * runtime; scores are computed at query time.
 *
 * Two fields per chunk (BM25F): its text (body) and its heading path (title and section headings,
 * which a chunk does not repeat in its text). A term's postings list every chunk that has it in
 * either field: one run per (term, document that has the term), documents ascending:
 *   VLQ (gap to the previous document ordinal - 1, from -1), VLQ (run length in characters),
 *   then the document's own entries: (gap to the previous chunk ordinal within the document - 1,
 *   from -1) * 2 + (1 unless body tf = 1 and heading tf = 0), then, when that bit is 1, either
 *   (body tf - 2) * 2 (heading tf = 0) or body tf * 2 + 1 followed by heading tf - 1.
 * Each chunk's passage key (a digest of its terms) groups chunks with the same text, so a query
 * can show one hit per passage.
 * Incremental builds: buildDocumentPart() makes a document's posting runs and compressed row
 * blocks once (the graph caches it by the chunk file's hash); merging copies runs and row blocks
 * verbatim, so it never re-tokenizes, re-encodes or re-compresses a document.
 * Row blocks are compressed with pako (pure JS), not the runtime's zlib, because compressed
 * bytes must be identical on every runtime; any inflater reads them.
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
export type { ChunkRow, DocumentRow, IndexProvenance, SegmentEntry } from './index-layout.js';

const SEGMENT_BODY_PREFIX = `{"artifact":"${SEGMENT_ARTIFACT_KIND}",`;
export { planSearchSegments, planSegments, SEGMENT_FILE_NAME } from './index-layout.js';
export { chunkRow, decodePostings, findTerm, indexProvenance, loadSearchIndex, type LoadedSearchIndex } from './index-reader.js';

interface PartHeader {
  partFormat: number;
  /** Ordinals (ascending, in the part's chunk order) of the chunks of the document's apparatus (Chunk.apparatus). */
  apparatus: number[];
  documentId: string;
  /** [sourceUrl, snapshotId, family, authority, documentType], or null when the document has no chunks. */
  doc: string[] | null;
  chunkCount: number;
  /** Token count of each chunk. */
  lengths: number[];
  /** Normativity of each chunk, in order. */
  normativity: string[];
  /** Passage key of each chunk ('' for a chunk without terms): equal keys, equal normalised text. */
  passageKeys: string[];
  rowBlocks: RowBlockEntry[];
  /** SHA-256 (hex) of each row block's raw bytes: the next part of this document reuses a block whose rows are unchanged. */
  rowBlockKeys: string[];
  totalLength: number;
  termCount: number;
}

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

/**
 * Compressed row blocks of an earlier part of a document, by the SHA-256 of their raw bytes
 * (reusableRowBlocks). A block's compressed bytes are a pure function of its raw bytes (a fresh
 * compressor per block), so taking them from here gives the bytes compressing would give.
 */
export type RowBlockCache = ReadonlyMap<string, string>;

/**
 * Cuts a document's rows into blocks of about ROW_BLOCK_TARGET_BYTES; each block: its rows, each
 * ending with "\n", as one sync-flushed DEFLATE member, base64 (layout in index-layout.ts). A block
 * whose raw bytes `reuse` holds is not compressed again: compressing is most of a part's cost, and
 * after an edit of one paragraph all blocks but one or two are unchanged (a block is cut where its
 * raw bytes first reach the target, so a longer row moves a later cut only when it crosses it).
 */
function encodeRowBlocks(
  rows: RowText[],
  reuse?: RowBlockCache,
  known?: RowBlockMemory,
): { texts: string[]; entries: RowBlockEntry[]; keys: string[]; made: RowBlockMemory } {
  const texts: string[] = [];
  const entries: RowBlockEntry[] = [];
  const keys: string[] = [];
  const made: RowBlockMemory = new Map();
  let pending: string[] = [];
  let spans: string[] = [];
  let previousStart = 0;
  let pendingBytes = 0;
  const flush = (): void => {
    if (pending.length === 0) return;
    let block = knownBlock(known, pending);
    if (block === undefined) {
      const raw = Buffer.from(`${pending.join('\n')}\n`, 'utf8');
      const key = createHash('sha256').update(raw).digest('hex');
      const text = reuse?.get(key) ?? Buffer.from(rowBlockMember(raw)).toString('base64');
      block = { rows: pending, key, text, crc: crc32Hex(text), bytes: raw.length };
    }
    rememberBlock(made, block);
    texts.push(block.text);
    entries.push([pending.length, block.text.length, block.crc, block.bytes, spans.join('')]);
    keys.push(block.key);
    pending = [];
    spans = [];
    previousStart = 0;
    pendingBytes = 0;
  };
  for (const { row, span, bytes } of rows) {
    pending.push(row);
    if (span === null) encodeVlq(0, spans);
    else {
      encodeVlq(zigzag(span.start - previousStart) + 1, spans);
      encodeVlq(span.end - span.start, spans);
      previousStart = span.start;
    }
    pendingBytes += (bytes ?? Buffer.byteLength(row, 'utf8')) + 1;
    if (pendingBytes >= ROW_BLOCK_TARGET_BYTES) flush();
  }
  flush();
  return { texts, entries, keys, made };
}

/**
 * A row block this process compressed or checked: its rows, its raw bytes' SHA-256 and length, and
 * its compressed text (base64) with that text's CRC-32.
 */
interface MadeRowBlock {
  rows: readonly string[];
  key: string;
  text: string;
  crc: string;
  bytes: number;
}

/** Row blocks by their first row (rows of an unchanged chunk are the same strings from one round to the next). */
type RowBlockMemory = Map<string, MadeRowBlock[]>;

function rememberBlock(memory: RowBlockMemory, block: MadeRowBlock): void {
  const first = block.rows[0]!;
  const same = memory.get(first);
  if (same === undefined) memory.set(first, [block]);
  else same.push(block);
}

/** The block of `memory` whose rows are `rows`, if any. */
function knownBlock(memory: RowBlockMemory | undefined, rows: readonly string[]): MadeRowBlock | undefined {
  const candidates = memory?.get(rows[0]!);
  if (candidates === undefined) return undefined;
  for (const block of candidates) {
    if (block.rows.length !== rows.length) continue;
    let same = true;
    for (let i = 0; i < rows.length && same; i++) same = block.rows[i] === rows[i];
    if (same) return block;
  }
  return undefined;
}

/**
 * The compressed row blocks of a document's part, by their raw bytes' SHA-256, for its next part.
 * Each block is inflated and hashed first (native zlib: inflating is deterministic, unlike
 * compressing), so a damaged or foreign part is never a source of wrong rows: such blocks are left out
 * and compressed again. Empty for a part that cannot be read.
 */
export function reusableRowBlocks(part: string): Map<string, string> {
  const reuse = new Map<string, string>();
  let parsed: ParsedPart;
  try {
    parsed = parsePart(part);
  } catch {
    return reuse;
  }
  const { header, rowBlocksText } = parsed;
  // Base64 holds neither quotes nor commas: each item is one block's text in quotes.
  const texts = rowBlocksText === '' ? [] : rowBlocksText.split(',');
  if (!Array.isArray(header.rowBlockKeys) || texts.length !== header.rowBlockKeys.length) return reuse;
  texts.forEach((quoted, i) => {
    const text = quoted.slice(1, -1);
    const key = header.rowBlockKeys[i]!;
    if (checkedRowBlock(text, key) !== null) reuse.set(key, text);
  });
  return reuse;
}

/** A row block's raw bytes, inflated from its text (base64) when they hash to `key`; null otherwise. */
function checkedRowBlock(text: string, key: string): Buffer | null {
  try {
    const raw = zlib.inflateRawSync(Buffer.from(text, 'base64'), { finishFlush: zlib.constants.Z_SYNC_FLUSH });
    return createHash('sha256').update(raw).digest('hex') === key ? raw : null;
  } catch {
    return null; // not a block
  }
}

/**
 * A document's part made elsewhere (the previous build's, or the part cache's: sealed for its chunks),
 * read back as the memory buildDocumentPart keeps of the last part it made itself: the postings
 * decoded, each row block inflated and checked against its key, and from the rows each chunk's id,
 * text and heading path. A worker that did not make the document's last part (a one-shot build's,
 * the first save of a watch session) then tokenises only the chunks an edit changed, as a warm one
 * does, instead of every chunk. The search index already merges such a part's postings verbatim, so
 * patching them trusts nothing more. Null when any of it cannot be read (the caller builds afresh).
 */
export function partMemoryOf(part: string): PartMemory | null {
  try {
    const { header, terms: termsText, postings, postingStarts, rowBlocksText } = parsePart(part);
    const blockTexts = rowBlocksText === '' ? [] : rowBlocksText.split(',');
    if (!Array.isArray(header.rowBlockKeys) || blockTexts.length !== header.rowBlockKeys.length) return null;
    const rowBlocks: RowBlockMemory = new Map();
    const chunkIds: string[] = [];
    const texts: string[] = [];
    const headingKeys: string[] = [];
    for (let i = 0; i < blockTexts.length; i++) {
      const text = blockTexts[i]!.slice(1, -1);
      const key = header.rowBlockKeys[i]!;
      const raw = typeof key === 'string' ? checkedRowBlock(text, key) : null;
      if (raw === null) return null;
      // Rows are canonical JSON, one per line (no raw newline inside), each block ending with one.
      const rows = raw.toString('utf8').slice(0, -1).split('\n');
      rememberBlock(rowBlocks, { rows, key, text, crc: crc32Hex(text), bytes: raw.length });
      for (const row of rows) {
        const [chunkId, , headingPath, , , , , , , chunkText] = JSON.parse(row) as unknown[];
        if (typeof chunkId !== 'string' || typeof chunkText !== 'string' || !isStringArray(headingPath)) return null;
        chunkIds.push(chunkId);
        headingKeys.push(headingPath.join('\n'));
        texts.push(chunkText);
      }
    }
    const terms = termsText === '' ? [] : termsText.split(' ');
    const { chunkCount, lengths, passageKeys } = header;
    if (chunkIds.length !== chunkCount || !Array.isArray(lengths) || !isStringArray(passageKeys)) return null;
    if (lengths.length !== chunkCount || passageKeys.length !== chunkCount || !lengths.every(Number.isSafeInteger)) return null;
    if (terms.length !== header.termCount) return null;
    const runs = new Map<string, string>();
    for (let t = 0; t < terms.length; t++) {
      const run = postings.slice(postingStarts[t]!, postingStarts[t + 1]!);
      // Checked here (a run patching would read must decode), decoded when patching touches it.
      if (!isPostingRun(run)) return null;
      runs.set(terms[t]!, run);
    }
    return { chunkIds, texts, headingKeys, lengths, passageKeys, byTerm: new Map(), runs, terms, rowBlocks };
  } catch {
    return null;
  }
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/** Whether `run` is VLQ digits only (its entries are checked when they are decoded: termPostingsOf). */
function isPostingRun(run: string): boolean {
  return /^[A-Za-z0-9+/]*$/.test(run);
}

/** A posting run of a part read back that does not decode to entries of its chunks. */
class DamagedRunError extends Error {}

/**
 * The entries of a posting run within a part (the inverse of postingRun). Throws DamagedRunError for
 * one that is not a run of `chunkCount` chunks (a part read back is checked lazily: patchedPostings).
 */
function termPostingsOf(run: string, chunkCount: number): TermPostings {
  const ordinals: number[] = [];
  const tfs: number[] = [];
  const headingTfs: number[] = [];
  const reader = new VlqReader(run);
  let previous = -1;
  while (!reader.done) {
    let first: number;
    try {
      first = reader.next();
    } catch {
      throw new DamagedRunError('posting run: not VLQ');
    }
    const ordinal = previous + 1 + Math.floor(first / 2);
    if (ordinal >= chunkCount) throw new DamagedRunError('posting run: chunk ordinal out of range');
    let tf = 1;
    let headingTf = 0;
    if (first % 2 === 1) {
      try {
        const second = reader.next();
        if (second % 2 === 0) tf = second / 2 + 2;
        else {
          tf = (second - 1) / 2;
          headingTf = reader.next() + 1;
        }
      } catch {
        throw new DamagedRunError('posting run: not VLQ');
      }
    }
    ordinals.push(ordinal);
    tfs.push(tf);
    headingTfs.push(headingTf);
    previous = ordinal;
  }
  return { ordinals, tfs, headingTfs };
}

/**
 * Raw DEFLATE of one block's bytes from a fresh compressor, ended by a sync flush instead of a final
 * block: byte-aligned, and it refers to nothing before its start, so any blocks put one after
 * another (plus ROW_BLOCKS_END) are one valid stream that inflates to their rows in that order.
 * pako (zlib ported to JS) because fflate's sync flush emits stored blocks with wrong lengths for
 * about one block in seven of the dev corpus. Level 3, zlib's fastest-but-one strategy: on the dev
 * corpus's rows it is 3x faster than level 9 for 8 % more bytes, and a one-document edit re-compresses
 * that whole document's rows (bench/RESULTS.md, "Watch on real specs").
 */
function rowBlockMember(bytes: Uint8Array): Uint8Array {
  const deflate = new Deflate({ level: 3, raw: true });
  if (!deflate.push(bytes, Z_SYNC_FLUSH)) throw new Error(`row block compression failed: ${String(deflate.msg)}`);
  return deflate.chunks.length === 1 ? deflate.chunks[0]! : Buffer.concat(deflate.chunks);
}

/**
 * A document's cacheable share of the index: a pure function of its chunks (their order is
 * irrelevant). `reuse` (row blocks of the document's previous part) saves work, never changes bytes.
 * `memory` (a stage worker's, worker-memory.ts) holds what the last part of this document was made
 * of: when the chunk ids are the same, only the postings of the chunks whose text or heading changed
 * are redone (patchedPostings), and the part is the one a fresh build gives, byte for byte.
 */
export function buildDocumentPart(
  documentId: string,
  chunks: Chunk[],
  reuse?: RowBlockCache,
  members?: readonly ChunkJson[],
  memory?: PartBuildMemory,
): string {
  if (members !== undefined && members.length !== chunks.length) throw new Error('chunk members do not match the chunks');
  const order = chunks.map((_, i) => i).sort((a, b) => compareCodeUnits(chunks[a]!.chunkId, chunks[b]!.chunkId));
  const sorted = order.map((i) => chunks[i]!);
  let doc: string[] | null = null;
  const rows: RowText[] = [];
  const headingKeys: string[] = [];
  // A section's chunks share its heading path (one array, chunker.ts): joined once.
  const joinedHeadings = new Map<readonly string[], string>();
  sorted.forEach((chunk, ordinal) => {
    if (ordinal > 0 && sorted[ordinal - 1]!.chunkId === chunk.chunkId) throw new Error(`duplicate chunk id ${chunk.chunkId}`);
    if (chunk.documentId !== documentId || chunk.citation.documentId !== documentId) {
      throw new Error(`chunk ${chunk.chunkId} belongs to ${chunk.documentId}, not ${documentId}`);
    }
    const docRow = [chunk.citation.sourceUrl, chunk.citation.snapshotId, chunk.family, chunk.authority, chunk.documentType];
    if (doc === null) doc = docRow;
    else if (docRow.some((value, i) => value !== doc![i]))
      throw new Error(`chunk ${chunk.chunkId} disagrees with its document's source, snapshot or classification`);
    const known = members?.[order[ordinal]!];
    rows.push(known === undefined ? chunkRowText(chunk) : rowOf(known, memory?.recordOf?.(chunk)));
    const path = chunk.citation.headingPath;
    let joined = joinedHeadings.get(path);
    if (joined === undefined) {
      joined = path.join('\n');
      joinedHeadings.set(path, joined);
    }
    headingKeys.push(joined);
  });
  const chunkIds = sorted.map((chunk) => chunk.chunkId);
  const texts = sorted.map((chunk) => chunk.text);
  const termsOf = memory === undefined ? indexTerms : (text: string) => memory.terms.get(text);
  // The last part's postings are patched in place: forget them first, so a failure leaves no half-patched memory.
  const previous = memory?.part;
  if (memory !== undefined) memory.part = undefined;
  const postings =
    (previous !== undefined &&
      sameStrings(previous.chunkIds, chunkIds) &&
      patchedOrNull(documentId, previous, texts, headingKeys, termsOf)) ||
    freshPostings(documentId, chunkIds, texts, headingKeys, termsOf);
  const { terms, runs } = postings;
  const postingLengths: string[] = [];
  const runTexts = terms.map((term) => {
    const run = runs.get(term)!;
    encodeVlq(run.length, postingLengths);
    return run;
  });
  // Blocks whose rows this process compressed for the last part are looked up by their rows, not hashed again.
  const rowBlocks = encodeRowBlocks(rows, reuse, previous?.rowBlocks);
  if (memory !== undefined) memory.part = { ...postings, rowBlocks: rowBlocks.made };
  const apparatus: number[] = [];
  sorted.forEach((chunk, ordinal) => {
    if (chunk.apparatus === true) apparatus.push(ordinal);
  });
  const header: PartHeader = {
    partFormat: INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION,
    apparatus,
    documentId,
    doc,
    chunkCount: sorted.length,
    lengths: postings.lengths,
    normativity: sorted.map((chunk) => chunk.normativity),
    passageKeys: postings.passageKeys,
    rowBlocks: rowBlocks.entries,
    rowBlockKeys: rowBlocks.keys,
    totalLength: postings.lengths.reduce((sum, length) => sum + length, 0),
    termCount: terms.length,
  };
  // Lines: header (JSON); terms joined by spaces (terms never contain spaces, quotes or newlines);
  // all posting runs (VLQ); each run's length (VLQ); the row blocks as JSON array items, spliced
  // verbatim by the merge. Only the small header goes through JSON.parse.
  return [
    canonicalJson(header),
    terms.join(' '),
    runTexts.join(''),
    postingLengths.join(''),
    rowBlocks.texts.map((text) => `"${text}"`).join(','),
  ].join('\n');
}

/** What buildDocumentPart may reuse from the last part of the same document, and updates for the next. */
export interface PartBuildMemory {
  /** indexTerms, remembered for the texts of the last round (worker-memory.ts RoundMemo). */
  terms: { get(text: string): IndexTerms };
  part: PartMemory | undefined;
  /**
   * The record of a chunk the chunker gave out this round (chunk/section-chunks.ts): a chunk whose
   * record has its row from an earlier round takes it when the row does not change with the span.
   */
  recordOf?(chunk: Chunk): { row?: unknown } | undefined;
}

/** One term's entries in a part: chunk ordinals ascending, with the term's count in each chunk's text and heading. */
interface TermPostings {
  ordinals: number[];
  tfs: number[];
  headingTfs: number[];
}

/** A part's postings and per-chunk statistics, by chunk ordinal (chunks in chunk id order). */
interface PartPostings {
  chunkIds: string[];
  texts: string[];
  /** Each chunk's heading path joined by newlines, as tokenised for its heading field. */
  headingKeys: string[];
  lengths: number[];
  passageKeys: string[];
  /**
   * Terms' entries, decoded: every term's after freshPostings; a part read back (partMemoryOf) starts
   * with none, and patchedPostings decodes a term's run the first time it touches the term.
   */
  byTerm: Map<string, TermPostings>;
  /** Each term's posting run, encoded: every term's. */
  runs: Map<string, string>;
  /** The terms in code-unit order. */
  terms: string[];
}

/** A document's last part as buildDocumentPart made it: its postings, and its row blocks by their rows. */
export interface PartMemory extends PartPostings {
  rowBlocks: RowBlockMemory;
}

/**
 * At most this many distinct terms in one document's part (its chunks' texts and heading paths). Real
 * specifications have a few thousand (RFC 9110: 2,932 over 440,000 characters of chunks; vocabulary
 * grows about with the square root of the text); random data or an encoded blob has one new term every
 * few words (45 MB of random bytes in base64, under limits.maxFileBytes: about 9 million), and each
 * costs the part, its merge and every query's dictionary. A deterministic bound: the chunk target
 * fails, naming it, before the part's memory grows past a few hundred MB.
 */
export const MAX_DOCUMENT_TERMS = 200_000;

function termsBoundExceeded(documentId: string): EpistemeError {
  return new EpistemeError(
    'index-bound-exceeded',
    `Document ${documentId} holds more than ${MAX_DOCUMENT_TERMS} distinct index terms (a real specification has a few thousand): ` +
      'it looks like random or encoded data, and it is not indexed.',
    {
      hint: 'Exclude the source from the workspace, or supply a copy without the encoded data (see docs/extraction.md, "Bounds").',
      details: { bound: 'index-distinct-terms', limit: MAX_DOCUMENT_TERMS },
    },
  );
}

function freshPostings(
  documentId: string,
  chunkIds: string[],
  texts: string[],
  headingKeys: string[],
  termsOf: (text: string) => IndexTerms,
): PartPostings {
  const byTerm = new Map<string, TermPostings>();
  const lengths: number[] = [];
  const passageKeys: string[] = [];
  texts.forEach((text, ordinal) => {
    // One pass over the chunk's terms, then its heading's: a term's lists end with this chunk's entry
    // once it has been seen here, so counting needs no map per chunk.
    const { terms, words, length } = termsOf(text);
    for (const term of terms) {
      const entry = byTerm.get(term);
      if (entry === undefined) {
        if (byTerm.size === MAX_DOCUMENT_TERMS) throw termsBoundExceeded(documentId);
        byTerm.set(term, { ordinals: [ordinal], tfs: [1], headingTfs: [0] });
      } else if (entry.ordinals[entry.ordinals.length - 1] === ordinal) entry.tfs[entry.tfs.length - 1]!++;
      else {
        entry.ordinals.push(ordinal);
        entry.tfs.push(1);
        entry.headingTfs.push(0);
      }
    }
    for (const term of termsOf(headingKeys[ordinal]!).terms) {
      const entry = byTerm.get(term);
      if (entry === undefined) {
        if (byTerm.size === MAX_DOCUMENT_TERMS) throw termsBoundExceeded(documentId);
        byTerm.set(term, { ordinals: [ordinal], tfs: [0], headingTfs: [1] });
      } else if (entry.ordinals[entry.ordinals.length - 1] === ordinal) entry.headingTfs[entry.headingTfs.length - 1]!++;
      else {
        entry.ordinals.push(ordinal);
        entry.tfs.push(0);
        entry.headingTfs.push(1);
      }
    }
    lengths.push(length);
    passageKeys.push(passageKey(terms, words));
  });
  const terms = [...byTerm.keys()].sort(compareCodeUnits);
  const runs = new Map<string, string>();
  for (const term of terms) runs.set(term, postingRun(byTerm.get(term)!));
  return { chunkIds, texts, headingKeys, lengths, passageKeys, byTerm, runs, terms };
}

/**
 * The postings of `previous` (a part with the same chunk ids) patched for the chunks whose text or
 * heading changed: their entries are taken out of the terms they had and put into the terms they
 * have, and only those terms' runs are encoded again. Null when too many chunks changed for patching
 * to pay (freshPostings then builds them). Takes over `previous`'s maps and lists.
 */
function patchedPostings(
  documentId: string,
  previous: PartPostings,
  texts: string[],
  headingKeys: string[],
  termsOf: (text: string) => IndexTerms,
): PartPostings | null {
  const changed: number[] = [];
  texts.forEach((text, ordinal) => {
    if (text !== previous.texts[ordinal] || headingKeys[ordinal] !== previous.headingKeys[ordinal]) changed.push(ordinal);
  });
  if (changed.length * PATCH_AT_MOST > texts.length) return null;
  const { byTerm, runs, terms, lengths, passageKeys } = previous;
  const chunkCount = previous.chunkIds.length;
  // A term's entries, decoded from its run the first time (a part read back decodes only what it patches).
  const entryOf = (term: string): TermPostings | undefined => {
    let entry = byTerm.get(term);
    const run = entry === undefined ? runs.get(term) : undefined;
    if (run !== undefined) {
      entry = termPostingsOf(run, chunkCount);
      byTerm.set(term, entry);
    }
    return entry;
  };
  const touched = new Set<string>();
  for (const ordinal of changed) {
    for (const term of termsOf(previous.texts[ordinal]!).terms) touched.add(term);
    for (const term of termsOf(previous.headingKeys[ordinal]!).terms) touched.add(term);
  }
  for (const term of touched) removeEntry(entryOf(term)!, changed);
  for (const ordinal of changed) {
    const counts = new Map<string, [number, number]>();
    const body = termsOf(texts[ordinal]!);
    for (const term of body.terms) {
      const count = counts.get(term);
      if (count === undefined) counts.set(term, [1, 0]);
      else count[0]++;
    }
    for (const term of termsOf(headingKeys[ordinal]!).terms) {
      const count = counts.get(term);
      if (count === undefined) counts.set(term, [0, 1]);
      else count[1]++;
    }
    for (const [term, [tf, headingTf]] of counts) {
      let entry = entryOf(term);
      if (entry === undefined) {
        entry = { ordinals: [], tfs: [], headingTfs: [] };
        byTerm.set(term, entry);
      }
      insertEntry(entry, ordinal, tf, headingTf);
      touched.add(term);
    }
    lengths[ordinal] = body.length;
    passageKeys[ordinal] = passageKey(body.terms, body.words);
  }
  let added = false;
  for (const term of touched) {
    const entry = byTerm.get(term)!;
    if (entry.ordinals.length === 0) {
      byTerm.delete(term);
      runs.delete(term);
      added = true; // the term list changes
      continue;
    }
    if (!runs.has(term)) added = true;
    runs.set(term, postingRun(entry));
  }
  if (runs.size > MAX_DOCUMENT_TERMS) throw termsBoundExceeded(documentId);
  const nextTerms = added ? [...runs.keys()].sort(compareCodeUnits) : terms;
  return { chunkIds: previous.chunkIds, texts, headingKeys, lengths, passageKeys, byTerm, runs, terms: nextTerms };
}

/**
 * patchedPostings, or null when a run of a part read back turns out damaged as it is decoded: the
 * postings are then built afresh (the patch had begun to change `previous`, which is dropped).
 */
function patchedOrNull(
  documentId: string,
  previous: PartPostings,
  texts: string[],
  headingKeys: string[],
  termsOf: (text: string) => IndexTerms,
): PartPostings | null {
  try {
    return patchedPostings(documentId, previous, texts, headingKeys, termsOf);
  } catch (error) {
    if (error instanceof DamagedRunError) return null;
    throw error;
  }
}

/** At most one chunk in this many changed: beyond that a fresh build of the postings is about as fast. */
const PATCH_AT_MOST = 8;

/** Takes the entries of `ordinals` (ascending) out of a term's postings. */
function removeEntry(entry: TermPostings, ordinals: readonly number[]): void {
  const drop = new Set(ordinals);
  let kept = 0;
  for (let i = 0; i < entry.ordinals.length; i++) {
    if (drop.has(entry.ordinals[i]!)) continue;
    entry.ordinals[kept] = entry.ordinals[i]!;
    entry.tfs[kept] = entry.tfs[i]!;
    entry.headingTfs[kept] = entry.headingTfs[i]!;
    kept++;
  }
  entry.ordinals.length = kept;
  entry.tfs.length = kept;
  entry.headingTfs.length = kept;
}

/** Puts a chunk's entry into a term's postings at its place in ordinal order. */
function insertEntry(entry: TermPostings, ordinal: number, tf: number, headingTf: number): void {
  let lo = 0;
  let hi = entry.ordinals.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (entry.ordinals[mid]! < ordinal) lo = mid + 1;
    else hi = mid;
  }
  entry.ordinals.splice(lo, 0, ordinal);
  entry.tfs.splice(lo, 0, tf);
  entry.headingTfs.splice(lo, 0, headingTf);
}

/** A term's posting run within a part (layout at the top of this file). */
function postingRun({ ordinals, tfs, headingTfs }: TermPostings): string {
  const out: string[] = [];
  let previous = -1;
  for (let i = 0; i < ordinals.length; i++) {
    const ordinal = ordinals[i]!;
    const tf = tfs[i]!;
    const headingTf = headingTfs[i]!;
    const more = tf !== 1 || headingTf !== 0;
    encodeVlq((ordinal - previous - 1) * 2 + (more ? 1 : 0), out);
    if (more && headingTf === 0) encodeVlq((tf - 2) * 2, out);
    else if (more) {
      encodeVlq(tf * 2 + 1, out);
      encodeVlq(headingTf - 1, out);
    }
    previous = ordinal;
  }
  return out.join('');
}

/** Digest of a chunk's terms: chunks whose texts differ only in case, spacing or punctuation share it. */
function passageKey(terms: readonly string[], words: number): string {
  // Of the words' terms only: "ETag" and "etag" are the same passage, though only the first has parts.
  // crypto.hash: the same digest as createHash, without a Hash object per chunk.
  return words === 0 ? '' : hash('sha256', (words === terms.length ? terms : terms.slice(0, words)).join(' '), 'hex').slice(0, 16);
}

/** A chunk's row as stored in its block, and its source range when that is kept in the block's span column. */
interface RowText {
  row: string;
  span: SourceRange | null;
  /** The row's length in UTF-8, when known. */
  bytes?: number;
}

/**
 * A chunk's row (canonical JSON). A span that is a plain range of the source ({end, start, unit:
 * "utf16-source"}) is not in the row but in its block's span column (RowBlockEntry), the row holding
 * SPAN_IN_COLUMN in its place: an edit shifts the offsets of every later chunk, and with them in the
 * rows every later block would be compressed again on each save (index-layout.ts).
 */
function chunkRowText(chunk: Chunk): RowText {
  const c = chunk.citation;
  const span = sourceRangeOf(c.span);
  // A ChunkRow as stored (the span slot may be SPAN_IN_COLUMN).
  const row: unknown[] = [
    chunk.chunkId,
    c.sectionId,
    c.headingPath,
    c.blockIds,
    c.fragment,
    chunk.normativity,
    c.pages ?? null,
    span === null ? (c.span ?? null) : SPAN_IN_COLUMN,
    c.textRange ?? null,
    chunk.text,
    chunk.anchors ?? null,
  ];
  if (c.steps !== undefined) row.push(c.steps);
  return { row: canonicalJson(row), span };
}

/** A chunk's row as its record keeps it: for the span it was made with, and whether the row holds the span. */
interface RememberedRow {
  spanJson: string | undefined;
  rowText: RowText;
  spanInRow: boolean;
}

/**
 * chunkRowJson(m), from the row an earlier round made of the same chunk (its record's) when its span
 * is the same or is kept in the span column then and now. The members but the span are the record's.
 */
function rowOf(m: ChunkJson, record: { row?: unknown } | undefined): RowText {
  const remembered = record?.row as RememberedRow | undefined;
  if (remembered !== undefined) {
    if (remembered.spanJson === m.span) return remembered.rowText;
    if (!remembered.spanInRow && m.span !== undefined) {
      const span = sourceRangeOf(JSON.parse(m.span) as Record<string, unknown>);
      if (span !== null) return { row: remembered.rowText.row, span, bytes: remembered.rowText.bytes! };
    }
  }
  const rowText = chunkRowJson(m);
  if (record !== undefined) {
    rowText.bytes = Buffer.byteLength(rowText.row, 'utf8');
    const spanInRow = rowText.span === null && m.span !== undefined;
    record.row = { spanJson: m.span, rowText, spanInRow } satisfies RememberedRow;
  }
  return rowText;
}

/** chunkRowText(chunk), assembled from the chunk's members already serialised (chunk-file.ts). */
function chunkRowJson(m: ChunkJson): RowText {
  const steps = m.steps === undefined ? '' : `,${m.steps}`;
  // The same test as chunkRowText's, on the span parsed back (a few dozen bytes).
  const span = m.span === undefined ? null : sourceRangeOf(JSON.parse(m.span) as Record<string, unknown>);
  const spanText = span === null ? (m.span ?? 'null') : JSON.stringify(SPAN_IN_COLUMN);
  return {
    row:
      `[${m.chunkId},${m.sectionId},${m.headingPath},${m.blockIds},${m.fragment},${m.normativity},` +
      `${m.pages ?? 'null'},${spanText},${m.textRange ?? 'null'},${m.text},${m.anchors ?? 'null'}${steps}]`,
    span,
  };
}

/** The span as a source range for the span column, or null when it is anything else (then it stays in the row). */
function sourceRangeOf(span: Record<string, unknown> | undefined): SourceRange | null {
  if (span === undefined || span['unit'] !== 'utf16-source') return null;
  const { start, end } = span;
  if (Object.keys(span).length !== 3 || !Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return null;
  if ((start as number) < 0 || (end as number) < (start as number)) return null;
  return { start: start as number, end: end as number };
}

/** Signed to unsigned (0, -1, 1, -2... as 0, 1, 2, 3...): the column's start deltas go both ways (rows are in chunk id order). */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

/**
 * Each chunk's same-passage group: chunks that share a passage key, two or more, form a group,
 * numbered in the order of their first chunk; -1 for a chunk in none.
 */
function passageGroups(keys: readonly string[]): Int32Array {
  const byKey = new Map<string, number[]>();
  keys.forEach((key, ordinal) => {
    if (key === '') return;
    const group = byKey.get(key);
    if (group === undefined) byKey.set(key, [ordinal]);
    else group.push(ordinal);
  });
  const groupOf = new Int32Array(keys.length).fill(-1);
  let count = 0;
  for (const group of byKey.values()) {
    if (group.length < 2) continue;
    for (const ordinal of group) groupOf[ordinal] = count;
    count++;
  }
  return groupOf;
}

interface ParsedPart {
  header: PartHeader;
  terms: string;
  postings: string;
  postingStarts: Uint32Array;
  rowBlocksText: string;
}

export function parsePart(part: string): ParsedPart {
  const breaks: number[] = [];
  for (let at = part.indexOf('\n'); at >= 0 && breaks.length < 4; at = part.indexOf('\n', at + 1)) breaks.push(at);
  if (breaks.length < 4) throw new Error('search index part: missing sections');
  const [b1, b2, b3, b4] = breaks as [number, number, number, number];
  const header = JSON.parse(part.slice(0, b1)) as PartHeader;
  if (header.partFormat !== INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION) {
    throw new Error(
      `search index part for ${header.documentId} has part format ${header.partFormat}; ` +
        `expected ${INDEX_PART_VERSION * 1000 + TOKENIZER_VERSION}`,
    );
  }
  if (!isAscendingOrdinals(header.apparatus, header.chunkCount))
    throw new Error(`search index part for ${header.documentId}: its apparatus chunks are not ascending chunk ordinals`);
  const postingStarts = new Uint32Array(header.termCount + 1);
  const reader = new VlqReader(part.slice(b3 + 1, b4));
  for (let i = 0; i < header.termCount; i++) postingStarts[i + 1] = postingStarts[i]! + reader.next();
  if (!reader.done) throw new Error(`search index part for ${header.documentId}: posting lengths do not match its terms`);
  return { header, terms: part.slice(b1 + 1, b2), postings: part.slice(b2 + 1, b3), postingStarts, rowBlocksText: part.slice(b4 + 1) };
}

/**
 * The distinct terms of sorted term lists in code-unit order, and for each the lists that hold it as
 * flat (list index, index in that list) pairs, lists ascending: one map entry per distinct term, then
 * one sort of the distinct terms (Array.prototype.sort without a comparator compares UTF-16 code
 * units, the order compareCodeUnits gives). On the dev corpus's 32 parts this is several times faster
 * than a heap merge of the lists, whose string comparisons were most of a merge.
 */
function termsAndHolders(lists: readonly string[][]): { terms: string[]; holders: Map<string, number[]> } {
  const holders = new Map<string, number[]>();
  lists.forEach((list, listIndex) => {
    for (let i = 0; i < list.length; i++) {
      const term = list[i]!;
      const known = holders.get(term);
      if (known === undefined) holders.set(term, [listIndex, i]);
      else known.push(listIndex, i);
    }
  });
  return { terms: [...holders.keys()].sort(), holders };
}

/** Parses parts, drops documents without chunks, restamps snapshots, sorts by document id. */
function prepareParts(parts: string[], snapshotIds?: ReadonlyMap<string, string>): ParsedPart[] {
  const parsed = parts.map(parsePart).filter((p) => p.header.chunkCount > 0);
  // Postings depend only on chunk content, so a part cached for the same chunks under an earlier
  // snapshot is reused: the snapshot its document row cites is the current one, given here. The result
  // equals merging parts built from the restamped chunks.
  if (snapshotIds !== undefined) {
    for (const p of parsed) {
      const current = snapshotIds.get(p.header.documentId);
      if (current !== undefined && p.header.doc !== null) p.header.doc = [p.header.doc[0]!, current, ...p.header.doc.slice(2)];
    }
  }
  parsed.sort((a, b) => compareCodeUnits(a.header.documentId, b.header.documentId));
  for (let i = 1; i < parsed.length; i++) {
    if (parsed[i - 1]!.header.documentId === parsed[i]!.header.documentId)
      throw new Error(`search index: document ${parsed[i]!.header.documentId} given twice`);
  }
  return parsed;
}

function provenanceField(provenance: IndexProvenance): IndexProvenance {
  return {
    ...(provenance.chunkIndexCrc32 === undefined ? {} : { chunkIndexCrc32: provenance.chunkIndexCrc32 }),
    chunkIndexFingerprint: provenance.chunkIndexFingerprint,
    missingSources: [...new Set(provenance.missingSources)].sort(compareCodeUnits),
  };
}

/**
 * Merges document parts (in any order) into the exact bytes of a single-file index: the whole corpus
 * in one file, whatever its size (what a build writes for a corpus of one segment; tests and benches
 * use it for any corpus, and a segmented index answers every query exactly as it does).
 */
export function mergeSearchIndex(
  parts: string[],
  provenance: IndexProvenance,
  options: IndexOptions,
  snapshotIds?: ReadonlyMap<string, string>,
): string {
  const { k1Milli, bMilli } = optionsInThousandths(options);
  return encodeBlockFile(prepareParts(parts, snapshotIds), k1Milli, bMilli, provenance).text;
}

/** What a segment file adds to a manifest. */
export interface BuiltSegment {
  entry: SegmentEntry;
  bytes: string;
}

/** One segment file from its documents' parts (a segment holds no provenance: it changes with its documents only). */
export function buildSegment(parts: string[], options: IndexOptions, snapshotIds?: ReadonlyMap<string, string>): BuiltSegment {
  const { k1Milli, bMilli } = optionsInThousandths(options);
  const parsed = prepareParts(parts, snapshotIds);
  const built = encodeBlockFile(parsed, k1Milli, bMilli, null);
  return {
    entry: [segmentFileName(built.fingerprint), `sha256:${built.fingerprint}`, parsed.length, built.chunkCount, built.totalLength],
    bytes: built.text,
  };
}

/** The manifest a segmented chunks/search-index.json holds: small, O(segments). */
export function segmentManifest(segments: SegmentEntry[], provenance: IndexProvenance, options: IndexOptions): string {
  const { k1Milli, bMilli } = optionsInThousandths(options);
  const manifest: IndexManifest = {
    bm25: { bMilli, k1Milli },
    provenance: provenanceField(provenance),
    segments,
    tokenizer: TOKENIZER_VERSION,
  };
  const manifestText = canonicalJson(manifest);
  const body = [
    BODY_PREFIX,
    `"formatVersion":${SEARCH_INDEX_FORMAT_VERSION},${SEGMENTS_KEY}`,
    manifestText,
    `,${SEAL_KEY.slice(2)}${crc32Hex(manifestText)}"}`,
    `,"producer":${canonicalJson({ name: PRODUCER_NAME, version: PRODUCER_VERSION })}}`,
  ];
  body[0] = `${FINGERPRINT_PREFIX}${createHash('sha256').update(body.join('')).digest('hex')}",`;
  body.push('\n');
  return body.join('');
}

/**
 * The files of an index as a build writes them: one file for a corpus of one segment (planSearchSegments),
 * otherwise the manifest and its segment files. The manifest names every segment file by fingerprint.
 */
export function mergeSegmentedIndex(
  parts: string[],
  provenance: IndexProvenance,
  options: IndexOptions,
  snapshotIds?: ReadonlyMap<string, string>,
): { index: string; segments: { file: string; bytes: string }[] } {
  const byId = new Map<string, string>();
  for (const part of parts) byId.set(parsePart(part).header.documentId, part);
  const ids = [...byId.keys()].sort(compareCodeUnits);
  const ends = planSearchSegments(ids);
  if (ends.length === 1) return { index: mergeSearchIndex(parts, provenance, options, snapshotIds), segments: [] };
  const segments: BuiltSegment[] = [];
  let start = 0;
  for (const end of ends) {
    segments.push(
      buildSegment(
        ids.slice(start, end).map((id) => byId.get(id)!),
        options,
        snapshotIds,
      ),
    );
    start = end;
  }
  return {
    index: segmentManifest(
      segments.map((s) => s.entry),
      provenance,
      options,
    ),
    segments: segments.map((s) => ({ file: s.entry[0], bytes: s.bytes })),
  };
}

/**
 * The blocks of parsed parts as one file: a single-file index (with provenance) or a segment (null).
 * The work per (document, term) run is kept to integer operations: each distinct term is hashed once
 * into a map of its (part, index) pairs, the distinct terms are sorted once, and posting runs are
 * copied as ASCII bytes behind a (document gap, length) header.
 */
function encodeBlockFile(
  parsed: ParsedPart[],
  k1Milli: number,
  bMilli: number,
  provenance: IndexProvenance | null,
): { text: string; fingerprint: string; chunkCount: number; totalLength: number } {
  // The distinct terms in code-unit order and, for each, the parts that hold it in part (= document)
  // order (termsAndHolders); each part's own list must be in that order (checked here).
  let totalLength = 0;
  const termLists = parsed.map((p) => {
    totalLength += p.header.totalLength;
    const list = p.terms === '' ? [] : p.terms.split(' ');
    if (list.length !== p.header.termCount) throw new Error(`search index part for ${p.header.documentId}: terms and postings disagree`);
    for (let i = 1; i < list.length; i++)
      if (!(list[i - 1]! < list[i]!)) throw new Error(`search index part for ${p.header.documentId}: terms out of order`);
    return list;
  });
  const runTotal = termLists.reduce((n, list) => n + list.length, 0);
  const encoder = new TextEncoder();
  const partPostings = parsed.map((p) => encoder.encode(p.postings));
  const out = new Uint8Array(partPostings.reduce((n, bytes) => n + bytes.length, 0) + runTotal * 12);
  let written = 0;
  const postingBlocks: PostingBlockEntry[] = [];
  const postingBlockTexts: string[] = [];
  const ascii = new TextDecoder('latin1');
  let blockStart = 0;
  // The block's terms and the length of each one's postings (see index-layout.ts for the block text).
  let blockTerms: string[] = [];
  let blockLengths: string[] = [];
  const closeBlock = (): void => {
    const postings = ascii.decode(out.subarray(blockStart, written));
    const text = `${blockTerms.join(' ')}${POSTING_BLOCK_TERMS_END}${blockLengths.join('')}${postings}`;
    postingBlockTexts.push(text);
    postingBlocks.push([blockTerms.length, Buffer.byteLength(text, 'utf8'), crc32Hex(text), blockTerms[0]!]);
    blockStart = written;
    blockTerms = [];
    blockLengths = [];
  };
  const { terms: mergedTermList, holders: termHolders } = termsAndHolders(termLists);
  for (const term of mergedTermList) {
    let previousDocument = -1;
    const runStart = written;
    const holders = termHolders.get(term)!;
    for (let h = 0; h < holders.length; h += 2) {
      // partIndex = the document's ordinal (parts are in document order); the term's index in the part:
      const partIndex = holders[h]!;
      const termIndex = holders[h + 1]!;
      const bytes = partPostings[partIndex]!;
      const start = parsed[partIndex]!.postingStarts[termIndex]!;
      const end = parsed[partIndex]!.postingStarts[termIndex + 1]!;
      written = writeVlq(partIndex - previousDocument - 1, out, written);
      written = writeVlq(end - start, out, written);
      for (let i = start; i < end; i++) out[written++] = bytes[i]!;
      previousDocument = partIndex;
    }
    blockTerms.push(term);
    encodeVlq(written - runStart, blockLengths);
    if (written - blockStart >= POSTING_BLOCK_TARGET_CHARS) closeBlock();
  }
  if (blockTerms.length > 0) closeBlock();
  const normativityValues = [...new Set(parsed.flatMap((p) => p.header.normativity))].sort(compareCodeUnits);
  const normativityCodes = parsed.flatMap((p) => p.header.normativity.map((value) => normativityValues.indexOf(value)));
  // One byte per chunk: the values are the normativity enum's few.
  if (normativityValues.length > 256) throw new Error(`search index: ${normativityValues.length} normativity values (at most 256)`);
  const lengths = parsed.flatMap((p) => p.header.lengths);
  const apparatusChunks: number[] = [];
  let firstChunk = 0;
  for (const p of parsed) {
    for (const ordinal of p.header.apparatus) apparatusChunks.push(firstChunk + ordinal);
    firstChunk += p.header.chunkCount;
  }
  const head: IndexHead = {
    apparatusChunks,
    bm25: { bMilli, k1Milli },
    chunkCounts: parsed.map((p) => p.header.chunkCount),
    chunkNormativity: [normativityValues, encodePerChunkInts(normativityCodes, 1)],
    documentLengths: parsed.map((p) => p.header.totalLength),
    documents: parsed.map((p) => [p.header.documentId, ...(p.header.doc ?? [])] as IndexHead['documents'][number]),
    ...(provenance === null
      ? { passageKeys: parsed.map((p) => p.header.passageKeys.map((key) => (key === '' ? NO_PASSAGE_KEY : key)).join('')).join('') }
      : { passageGroups: encodePerChunkInts(passageGroups(parsed.flatMap((p) => p.header.passageKeys)), 4, true) }),
    lengths: encodePerChunkInts(lengths, 4),
    postingBlocks,
    ...(provenance === null ? {} : { provenance: provenanceField(provenance) }),
    rowBlocks: parsed.flatMap((p) => p.header.rowBlocks),
    tokenizer: TOKENIZER_VERSION,
    totalLength,
  };
  const headText = canonicalJson(head);
  // The body in pieces (hashed piece by piece: no giant intermediate string to flatten twice).
  const kindPrefix = provenance === null ? SEGMENT_BODY_PREFIX : BODY_PREFIX;
  const body: string[] = [kindPrefix, `"formatVersion":${SEARCH_INDEX_FORMAT_VERSION},${HEAD_KEY}`, headText, POSTINGS_KEY];
  postingBlockTexts.forEach((text, i) => {
    body.push(i === 0 ? `"${text}"` : `,"${text}"`);
  });
  body.push(ROWS_KEY);
  parsed.forEach((p, i) => {
    if (i > 0) body.push(',');
    body.push(p.rowBlocksText);
  });
  body.push(`${SEAL_KEY}${crc32Hex(headText)}"}`, `,"producer":${canonicalJson({ name: PRODUCER_NAME, version: PRODUCER_VERSION })}}`);
  const hash = createHash('sha256');
  for (const piece of body) hash.update(piece);
  const fingerprint = hash.digest('hex');
  body[0] = `${kindPrefix}"fingerprint":"sha256:${fingerprint}",`;
  body.push('\n');
  return { text: body.join(''), fingerprint, chunkCount: lengths.length, totalLength };
}

/** One-shot build; equal to merging the documents' parts. */
export function buildSearchIndex(
  docs: { documentId: string; chunks: Chunk[] }[],
  provenance: IndexProvenance,
  options: IndexOptions,
): string {
  return mergeSearchIndex(
    docs.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
    provenance,
    options,
  );
}
