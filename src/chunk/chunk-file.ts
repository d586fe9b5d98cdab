import { createHash } from 'node:crypto';
import type { Chunk, ChunksPayload } from '../document/types.js';
import { artifactFileBytes, artifactFileOfPayloadJson, utf8OfPieces } from '../store/artifact.js';
import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
import { CHUNKS_FORMAT_VERSION } from '../rule-versions.js';
import { chunksContentHash } from './snapshot-provenance.js';
import type { ChunkRecord } from './section-chunks.js';

/**
 * The chunk stage serialises each chunk's values once: the chunk file, the content hash of its chunks
 * (chunksContentHash) and the rows of the document's index part are all assembled from the same
 * canonical JSON of each value, instead of serialising the chunks for the file, scanning that text
 * again to blank its snapshot ids for the hash, and serialising the same values a second time for the
 * rows. The bytes are the ones canonicalJson gives (a chunk's keys in code-unit order, absent and
 * undefined members left out); a chunk with a member this does not know is serialised by
 * canonicalJson itself, so the shortcut can cost time but never change bytes.
 */

/** Each member of a chunk and of its citation as canonical JSON (undefined: absent), for the index rows. */
export interface ChunkJson {
  chunkId: string;
  sectionId: string;
  headingPath: string;
  blockIds: string;
  fragment: string;
  normativity: string;
  pages: string | undefined;
  span: string | undefined;
  textRange: string | undefined;
  text: string;
  anchors: string | undefined;
  steps: string | undefined;
}

export interface EncodedChunks {
  /** artifactFile('document-chunks', CHUNKS_FORMAT_VERSION, payload) as UTF-8, byte for byte. */
  bytes: Buffer;
  /** SHA-256 of bytes. */
  sha256: string;
  /** chunksContentHash(payload.documentId, payload.chunks). */
  contentHash: string;
  /** The members of each chunk, in payload order. */
  members: ChunkJson[];
}

const CHUNK_KEYS = [
  'anchors',
  'apparatus',
  'authority',
  'chunkId',
  'citation',
  'contentTrust',
  'documentId',
  'documentType',
  'family',
  'normativity',
  'text',
].sort(compareCodeUnits);
const CITATION_KEYS = [
  'blockIds',
  'documentId',
  'fragment',
  'headingPath',
  'pages',
  'sectionId',
  'snapshotId',
  'sourceUrl',
  'span',
  'steps',
  'textRange',
].sort(compareCodeUnits);
const OPTIONAL = new Set(['anchors', 'apparatus', 'pages', 'span', 'steps', 'textRange']);
const CHUNK_KEY_SET = new Set(CHUNK_KEYS);
const CITATION_KEY_SET = new Set(CITATION_KEYS);

/** True when every member of `value` is one of `known` and every required one is there. */
function hasKnownShape(value: object, known: ReadonlySet<string>): boolean {
  const keys = Object.keys(value);
  let required = 0;
  for (const key of keys) {
    if (!known.has(key)) return false;
    if (!OPTIONAL.has(key)) {
      if ((value as Record<string, unknown>)[key] === undefined) return false;
      required++;
    }
  }
  let expected = 0;
  for (const key of known) if (!OPTIONAL.has(key)) expected++;
  return required === expected;
}

/**
 * canonicalJson of a chunk member. Most members are strings, or arrays of strings, which JSON.stringify
 * already writes canonically: they skip canonicalJson's walk for keys to sort (a third of encoding a
 * large document's chunks).
 */
function memberJson(value: unknown): string {
  if (typeof value === 'string' || typeof value === 'boolean' || value === null) return JSON.stringify(value);
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return JSON.stringify(value);
  return canonicalJson(value);
}

/**
 * A chunk's JSON around the two members that change from one round of a document to the next while
 * the rest stays (section-chunks.ts): head + JSON(citation.snapshotId) + middle + span + tail, where
 * span is `,"span":<JSON>` or nothing.
 */
interface SplitChunk<Piece> {
  head: Piece;
  middle: Piece;
  tail: Piece;
  /** The chunk's members but its span. */
  members: Omit<ChunkJson, 'span'>;
}

/** What a chunk's record keeps (section-chunks.ts ChunkRecord.encoded): its pieces as UTF-8. */
type EncodedPieces = SplitChunk<Buffer>;

function splitChunk(
  chunk: Chunk,
  headingPaths: Map<readonly string[], string>,
  textJson: (text: string) => string,
): SplitChunk<string> | null {
  if (typeof chunk !== 'object' || chunk === null) return null;
  const citation = chunk.citation;
  if (typeof citation !== 'object' || citation === null) return null;
  if (!hasKnownShape(chunk, CHUNK_KEY_SET) || !hasKnownShape(citation, CITATION_KEY_SET)) return null;
  if (typeof citation.snapshotId !== 'string') return null;
  // Heading paths are shared by every chunk of a section (chunker.ts resolves each once).
  let headingPath = headingPaths.get(citation.headingPath);
  if (headingPath === undefined) {
    headingPath = canonicalJson(citation.headingPath);
    headingPaths.set(citation.headingPath, headingPath);
  }
  const members: Omit<ChunkJson, 'span'> = {
    chunkId: memberJson(chunk.chunkId),
    sectionId: memberJson(citation.sectionId),
    headingPath,
    blockIds: memberJson(citation.blockIds),
    fragment: memberJson(citation.fragment),
    normativity: memberJson(chunk.normativity),
    pages: optionalJson(citation.pages),
    textRange: optionalJson(citation.textRange),
    text: typeof chunk.text === 'string' ? textJson(chunk.text) : canonicalJson(chunk.text),
    anchors: optionalJson(chunk.anchors),
    steps: optionalJson(citation.steps),
  };
  const known: Record<string, string | undefined> = { ...members };
  const json = (value: Record<string, unknown>, key: string): string | undefined => known[key] ?? optionalJson(value[key]);
  let head = '{';
  for (const key of CITATION_KEYS) {
    if (key === 'snapshotId') break;
    const value = json(citation as unknown as Record<string, unknown>, key);
    if (value !== undefined) head += `${head === '{' ? '' : ','}"${key}":${value}`;
  }
  head += `${head === '{' ? '' : ','}"snapshotId":`;
  let middle = '';
  let tail = '';
  let afterSpan = false;
  for (const key of CITATION_KEYS.slice(CITATION_KEYS.indexOf('snapshotId') + 1)) {
    if (key === 'span') {
      afterSpan = true;
      continue;
    }
    const value = json(citation as unknown as Record<string, unknown>, key);
    if (value === undefined) continue;
    if (afterSpan) tail += `,"${key}":${value}`;
    else middle += `,"${key}":${value}`;
  }
  tail += '}';
  let before = '{';
  let after = '';
  let inAfter = false;
  for (const key of CHUNK_KEYS) {
    if (key === 'citation') {
      before += `${before === '{' ? '' : ','}"citation":`;
      inAfter = true;
      continue;
    }
    const value = json(chunk as unknown as Record<string, unknown>, key);
    if (value === undefined) continue;
    if (inAfter) after += `,"${key}":${value}`;
    else before += `${before === '{' ? '' : ','}"${key}":${value}`;
  }
  after += '}';
  return { head: before + head, middle, tail: tail + after, members };
}

function optionalJson(value: unknown): string | undefined {
  return value === undefined ? undefined : memberJson(value);
}

/** What encodeChunks may reuse from the last round of the same document (graph/worker-memory.ts). */
export interface EncodingMemory {
  /** canonicalJson of a chunk text. */
  textJson(text: string): string;
  /** The record of a chunk the chunker gave out this round (section-chunks.ts), where its pieces are kept. */
  recordOf(chunk: Chunk): ChunkRecord | undefined;
}

/**
 * The chunk file of `payload`, the content hash of its chunks and each chunk's members as canonical
 * JSON, from one serialisation of each value. Null when a chunk has a shape this does not know (the
 * caller then serialises the usual way). `memory` (a stage worker's) serialises a chunk the last round
 * of the document had already serialised only in the members that changed: its snapshot id and span.
 */
export function encodeChunks(payload: ChunksPayload, memory?: EncodingMemory): EncodedChunks | null {
  const keys = Object.keys(payload);
  if (keys.length !== 3 || !('chunkOptions' in payload) || !('chunks' in payload) || !('documentId' in payload)) return null;
  const textJson = memory === undefined ? (text: string) => canonicalJson(text) : (text: string) => memory.textJson(text);
  const headingPaths = new Map<readonly string[], string>();
  const snapshotJson = new Map<string, string>();
  // chunksContentHash hashes canonicalJson({chunks (snapshot ids blanked), documentId}), and the file
  // holds canonicalJson(payload): the pieces are encoded once (a chunk's unchanged pieces were encoded
  // in an earlier round), and the content hash reads the encoded bytes with each snapshot id replaced
  // by "" instead of encoding every piece again.
  const pieces: (string | Uint8Array)[] = [`{"chunkOptions":${canonicalJson(payload.chunkOptions)},"chunks":[`];
  const snapshotPieces: number[] = [];
  const members: ChunkJson[] = [];
  for (let i = 0; i < payload.chunks.length; i++) {
    const chunk = payload.chunks[i]!;
    const record = memory?.recordOf(chunk);
    let split: SplitChunk<string | Uint8Array> | undefined = record?.encoded as EncodedPieces | undefined;
    if (split === undefined) {
      const fresh = splitChunk(chunk, headingPaths, textJson);
      if (fresh === null) return null;
      split = fresh;
      if (record !== undefined) record.encoded = encodedPieces(fresh);
    }
    const { snapshotId, span } = chunk.citation;
    let snapshot = snapshotJson.get(snapshotId);
    if (snapshot === undefined) {
      snapshot = JSON.stringify(snapshotId);
      snapshotJson.set(snapshotId, snapshot);
    }
    const spanJson = optionalJson(span);
    if (i > 0) pieces.push(',');
    pieces.push(split.head);
    snapshotPieces.push(pieces.length);
    pieces.push(snapshot, split.middle, spanJson === undefined ? '' : `,"span":${spanJson}`, split.tail);
    members.push({ ...split.members, span: spanJson });
  }
  pieces.push(`],"documentId":${canonicalJson(payload.documentId)}}`);
  const { bytes: payloadBytes, offsets } = utf8OfPieces(pieces);
  const hash = createHash('sha256').update('{"chunks":[');
  let from = offsets[1]!;
  for (const piece of snapshotPieces) {
    hash.update(payloadBytes.subarray(from, offsets[piece])).update('""');
    from = offsets[piece + 1]!;
  }
  const contentHash = hash.update(payloadBytes.subarray(from)).digest('hex');
  const { bytes, sha256 } = artifactFileBytes('document-chunks', CHUNKS_FORMAT_VERSION, payloadBytes);
  return { bytes, sha256, contentHash, members };
}

/** A chunk's pieces as UTF-8, kept for the next rounds. */
function encodedPieces(split: SplitChunk<string>): EncodedPieces {
  return {
    head: Buffer.from(split.head, 'utf8'),
    middle: Buffer.from(split.middle, 'utf8'),
    tail: Buffer.from(split.tail, 'utf8'),
    members: split.members,
  };
}

/** encodeChunks without the shortcut: what it must equal (tests), and the fallback for unknown shapes. */
export function encodeChunksSlowly(payload: ChunksPayload): { bytes: Buffer; sha256: string; contentHash: string } {
  const bytes = Buffer.from(artifactFileOfPayloadJson('document-chunks', CHUNKS_FORMAT_VERSION, canonicalJson(payload)), 'utf8');
  return {
    bytes,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    contentHash: chunksContentHash(payload.documentId, payload.chunks),
  };
}
