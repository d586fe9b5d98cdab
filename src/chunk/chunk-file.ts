import { createHash } from 'node:crypto';
import type { Chunk, ChunksPayload } from '../document/types.js';
import { artifactFileBytes, artifactFileOfPayloadJson, utf8OfPieces } from '../store/artifact.js';
import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
import { CHUNKS_FORMAT_VERSION } from '../rule-versions.js';
import { chunksContentHash } from './snapshot-provenance.js';

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

/** A chunk's JSON around its citation's snapshot id: head + JSON(snapshot id) + tail. */
interface SplitChunk {
  head: string;
  snapshotId: string;
  tail: string;
  members: ChunkJson;
}

function splitChunk(chunk: Chunk, headingPaths: Map<readonly string[], string>, textJson: (text: string) => string): SplitChunk | null {
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
  const optional = (value: unknown): string | undefined => (value === undefined ? undefined : memberJson(value));
  const members: ChunkJson = {
    chunkId: memberJson(chunk.chunkId),
    sectionId: memberJson(citation.sectionId),
    headingPath,
    blockIds: memberJson(citation.blockIds),
    fragment: memberJson(citation.fragment),
    normativity: memberJson(chunk.normativity),
    pages: optional(citation.pages),
    span: optional(citation.span),
    textRange: optional(citation.textRange),
    text: typeof chunk.text === 'string' ? textJson(chunk.text) : canonicalJson(chunk.text),
    anchors: optional(chunk.anchors),
    steps: optional(citation.steps),
  };
  const known: Record<string, string | undefined> = { ...members };
  let head = '{';
  for (const key of CITATION_KEYS) {
    if (key === 'snapshotId') break;
    const json = known[key] ?? optional((citation as unknown as Record<string, unknown>)[key]);
    if (json !== undefined) head += `${head === '{' ? '' : ','}"${key}":${json}`;
  }
  head += `${head === '{' ? '' : ','}"snapshotId":`;
  let tail = '';
  for (const key of CITATION_KEYS.slice(CITATION_KEYS.indexOf('snapshotId') + 1)) {
    const json = known[key] ?? optional((citation as unknown as Record<string, unknown>)[key]);
    if (json !== undefined) tail += `,"${key}":${json}`;
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
    const json = known[key] ?? optional((chunk as unknown as Record<string, unknown>)[key]);
    if (json === undefined) continue;
    if (inAfter) after += `,"${key}":${json}`;
    else before += `${before === '{' ? '' : ','}"${key}":${json}`;
  }
  after += '}';
  return { head: before + head, snapshotId: JSON.stringify(citation.snapshotId), tail: tail + after, members };
}

/**
 * The chunk file of `payload`, the content hash of its chunks and each chunk's members as canonical
 * JSON, from one serialisation of each value. Null when a chunk has a shape this does not know (the
 * caller then serialises the usual way). `textJson` serialises a chunk text (a stage worker remembers
 * the last round's: worker-memory.ts).
 */
export function encodeChunks(payload: ChunksPayload, textJson: (text: string) => string = canonicalJson): EncodedChunks | null {
  const keys = Object.keys(payload);
  if (keys.length !== 3 || !('chunkOptions' in payload) || !('chunks' in payload) || !('documentId' in payload)) return null;
  const headingPaths = new Map<readonly string[], string>();
  const split: SplitChunk[] = [];
  for (const chunk of payload.chunks) {
    const one = splitChunk(chunk, headingPaths, textJson);
    if (one === null) return null;
    split.push(one);
  }
  const documentIdJson = canonicalJson(payload.documentId);
  // chunksContentHash hashes canonicalJson({chunks (snapshot ids blanked), documentId}), and the file
  // holds canonicalJson(payload): the pieces are encoded once (joined into one string, a single
  // non-Latin-1 character would make it two bytes per character), and the content hash reads the
  // encoded bytes with each snapshot id replaced by "" instead of encoding every piece again.
  const pieces: string[] = [`{"chunkOptions":${canonicalJson(payload.chunkOptions)},"chunks":[`];
  for (let i = 0; i < split.length; i++) {
    const one = split[i]!;
    pieces.push(i === 0 ? one.head : `,${one.head}`, one.snapshotId, one.tail);
  }
  pieces.push(`],"documentId":${documentIdJson}}`);
  const { bytes: payloadBytes, offsets } = utf8OfPieces(pieces);
  const hash = createHash('sha256').update('{"chunks":[');
  // Piece 3i+2 is the snapshot id of chunk i: hash the bytes between them.
  let from = offsets[1]!;
  for (let i = 0; i < split.length; i++) {
    hash.update(payloadBytes.subarray(from, offsets[3 * i + 2])).update('""');
    from = offsets[3 * i + 3]!;
  }
  const contentHash = hash.update(payloadBytes.subarray(from)).digest('hex');
  const { bytes, sha256 } = artifactFileBytes('document-chunks', CHUNKS_FORMAT_VERSION, payloadBytes);
  return { bytes, sha256, contentHash, members: split.map((one) => one.members) };
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
