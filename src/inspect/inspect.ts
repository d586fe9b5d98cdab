import { createHash } from 'node:crypto';
import type { ChunksPayload, EvidenceDocument } from '../document/types.js';
import { chunksContentHash, chunksContentHashOfText } from '../chunk/snapshot-provenance.js';
import { diagnosticFactsOf } from '../document/diagnostic-facts.js';
import { unsealPart } from '../index/index-part-seal.js';
import { parseArtifactUnverified, type Artifact, type ArtifactKind } from '../store/artifact-header.js';
import { CHUNKS_FORMAT_VERSION, DOCUMENT_FORMAT_VERSION, SEARCH_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { parsePart } from '../index/search-index.js';
import { canonicalJson } from '../store/canonical-json.js';

/**
 * The checks of a downloaded artifact that need nothing but its bytes: each blob's SHA-256 against the
 * action-cache entry, the artifact's envelope, producer and fingerprint, that its bytes are the
 * canonical file a build writes, and what the target binding needs from its content (document id,
 * cited snapshot, content hash, the index part's seal). Pure and self-contained, so the build runs them
 * on its stage workers while the main thread receives and writes (the rules' restore binds the results
 * to the target); the same function runs in-process for an upload check.
 */
export interface InspectTask {
  kind: 'document' | 'document-chunks' | 'search-index';
  output: InspectedFile;
  /** The chunks' index part, when the entry holds one. */
  part?: InspectedFile;
  /** For chunks: the workspace's chunk options, which the chunk file must record exactly. */
  chunkOptions?: ChunksPayload['chunkOptions'];
}

export interface InspectedFile {
  bytes: Uint8Array;
  /** What the action-cache entry names. */
  sha256: string;
  sizeBytes: number;
  /** Already checked against the digest (a local copy read by the caller). */
  checked?: true;
}

export type Inspection =
  | { ok: false; why: string }
  | {
      ok: true;
      kind: 'document';
      documentId: string;
      snapshotId: string;
      facts: Record<string, string>;
      /** provenance.extractionConfigSha256: the extraction config the document was made with. */
      extractionConfigSha256: string;
    }
  | {
      ok: true;
      kind: 'document-chunks';
      documentId: string;
      /** The snapshot every chunk cites; null when there are no chunks. */
      citedSnapshotId: string | null;
      chunksContentHash: string;
      /** Set when the task had a part: it is sealed for these chunks and of this document. */
      partChecked?: true;
    }
  /** The envelope and bytes only: the search-index rule's restore reads and binds the rest. */
  | { ok: true; kind: 'search-index' };

export function inspectRestored(task: InspectTask): Inspection {
  for (const file of task.part ? [task.output, task.part] : [task.output]) {
    const why = file.checked ? null : blobMismatch(file);
    if (why !== null) return { ok: false, why };
  }
  try {
    switch (task.kind) {
      case 'document':
        return inspectDocument(task.output.bytes);
      case 'document-chunks':
        return inspectChunks(task.output.bytes, task.part?.bytes, task.chunkOptions);
      case 'search-index':
        parseCheckedArtifact(task.output.bytes, 'search-index', SEARCH_INDEX_FORMAT_VERSION, 'the cached search index');
        return { ok: true, kind: 'search-index' };
    }
  } catch (error) {
    return { ok: false, why: `the output is not this target's artifact (${(error as Error).message})` };
  }
}

/** Why downloaded bytes are not the blob the entry names, or null when they are. */
export function blobMismatch(file: InspectedFile): string | null {
  const actual = createHash('sha256').update(file.bytes).digest('hex');
  if (actual === file.sha256 && file.bytes.length === file.sizeBytes) return null;
  return (
    `blob cas/${file.sha256} has SHA-256 ${actual} and ${file.bytes.length} bytes, ` +
    `not the ${file.sizeBytes} bytes its action-cache entry names`
  );
}

function inspectDocument(bytes: Uint8Array): Inspection {
  const document = parseCheckedArtifact<EvidenceDocument>(bytes, 'document', DOCUMENT_FORMAT_VERSION, 'the cached document').payload;
  if (typeof document?.documentId !== 'string' || typeof document.provenance?.snapshotId !== 'string')
    throw new Error('the cached document has no document id or snapshot');
  if (typeof document.provenance.extractionConfigSha256 !== 'string') throw new Error('the cached document names no extraction config');
  return {
    ok: true,
    kind: 'document',
    documentId: document.documentId,
    snapshotId: document.provenance.snapshotId,
    facts: diagnosticFactsOf(document.diagnostics),
    extractionConfigSha256: document.provenance.extractionConfigSha256,
  };
}

function inspectChunks(
  bytes: Uint8Array,
  partBytes: Uint8Array | undefined,
  chunkOptions: ChunksPayload['chunkOptions'] | undefined,
): Inspection {
  const label = 'the cached chunks';
  const { artifact, text } = parseCheckedArtifactWithText<ChunksPayload>(bytes, 'document-chunks', CHUNKS_FORMAT_VERSION, label);
  const { documentId, chunks } = artifact.payload;
  if (typeof documentId !== 'string') throw new Error(`${label} name no document`);
  if (!Array.isArray(chunks)) throw new Error(`${label} hold no chunk list`);
  // Exactly, as a document's extractionConfigSha256: chunks cut with other options are another
  // workspace's, however well they would pass for this one's.
  if (chunkOptions !== undefined) {
    const recorded = canonicalJson(artifact.payload.chunkOptions ?? null);
    if (recorded !== canonicalJson(chunkOptions))
      throw new Error(`${label} were cut with chunk options ${recorded}, not this workspace's ${canonicalJson(chunkOptions)}`);
  }
  const cited = chunks[0]?.citation?.snapshotId ?? null;
  for (const chunk of chunks) {
    if (typeof chunk?.citation?.snapshotId !== 'string' || chunk.citation.snapshotId !== cited)
      throw new Error(`${label} cite more than one snapshot`);
    if (chunk.documentId !== documentId || chunk.citation.documentId !== documentId)
      throw new Error(`${label} hold another document's chunk`);
  }
  const contentHash = chunksContentHashOfText(text, artifact.payload, cited ?? '') ?? chunksContentHash(documentId, chunks);
  const inspection: Inspection = { ok: true, kind: 'document-chunks', documentId, citedSnapshotId: cited, chunksContentHash: contentHash };
  if (partBytes !== undefined) {
    const part = unsealPart(Buffer.from(partBytes.buffer, partBytes.byteOffset, partBytes.byteLength).toString('utf8'), contentHash);
    if (part === null) throw new Error('its index part is not sealed for these chunks');
    const header = parsePart(part).header;
    if (header.documentId !== documentId) throw new Error(`its index part is of document ${JSON.stringify(header.documentId)}`);
    inspection.partChecked = true;
  }
  return inspection;
}

/**
 * A downloaded artifact, parsed once and checked: the envelope (kind, format version) as any reader
 * checks it, the producer (this Episteme's version: another's bytes differ, if only in the producer),
 * the fingerprint over the bytes as written (checkFingerprint), and that those bytes are the canonical
 * file a build writes. The fingerprint alone does not show that: a file pretty-printed, with a key
 * twice, its keys in another order or a number or escape written otherwise, fingerprinted anew, passes
 * it, and committed it would leave the workspace unlike a clean build.
 */
export function parseCheckedArtifact<T>(bytes: Uint8Array, kind: ArtifactKind, format: number, label: string): Artifact<T> {
  return parseCheckedArtifactWithText<T>(bytes, kind, format, label).artifact;
}

function parseCheckedArtifactWithText<T>(
  bytes: Uint8Array,
  kind: ArtifactKind,
  format: number,
  label: string,
): { artifact: Artifact<T>; text: string } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const text = buffer.toString('utf8');
  const artifact = parseArtifactUnverified<T>(text, kind, format, label);
  if (checkFingerprint(buffer, kind, label) !== artifact.fingerprint) throw new Error(`${label} is not a canonical artifact file`);
  const producer = artifact.producer as Partial<Artifact['producer']> | undefined;
  if (producer?.name !== PRODUCER_NAME || producer.version !== PRODUCER_VERSION)
    throw new Error(`${label} was made by ${shortJson(producer)}, not by this Episteme (${PRODUCER_VERSION})`);
  // Re-serialised and compared: exact (whitespace, key order, a key twice, number and escape forms),
  // where a cheaper scan would have to be a JSON parser in JavaScript. It costs about what the parse
  // does: 280 ms of stage-worker CPU for the 400 documents and chunk files (76 MB) of bench/remote-cache.ts.
  if (canonicalJson(artifact) !== text.slice(0, -1)) throw new Error(`${label} is not the canonical artifact file a build writes`);
  return { artifact, text };
}

/** A value from a downloaded file, for a message: JSON, cut short. */
function shortJson(value: unknown): string {
  const text = JSON.stringify(value) ?? 'nothing';
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Checks the fingerprint an artifact file states against its bytes, and returns it. An artifact file is
 * canonical JSON whose second member is the fingerprint, so the fingerprinted body is those same bytes
 * without that member: hashed from the buffer in two pieces, with no string built or re-encoded.
 */
export function checkFingerprint(bytes: Buffer, kind: string, label: string): string {
  const head = `{"artifact":${JSON.stringify(kind)},`;
  const memberStart = `"fingerprint":"sha256:`;
  const memberLength = memberStart.length + 64 + 2; // the hex digits, the closing quote and the comma
  const fingerprintAt = head.length + memberStart.length;
  const stated = bytes.toString('latin1', fingerprintAt, fingerprintAt + 64);
  if (
    bytes.length < head.length + memberLength + 2 ||
    bytes.toString('latin1', 0, fingerprintAt) !== head + memberStart ||
    !/^[0-9a-f]{64}$/.test(stated) ||
    bytes.toString('latin1', fingerprintAt + 64, head.length + memberLength) !== '",' ||
    bytes[bytes.length - 2] !== 0x7d || // '}'
    bytes[bytes.length - 1] !== 0x0a // '\n'
  )
    throw new Error(`${label} is not a canonical artifact file`);
  const actual = createHash('sha256')
    .update(bytes.subarray(0, head.length))
    .update(bytes.subarray(head.length + memberLength, bytes.length - 1))
    .digest('hex');
  if (actual !== stated) throw new Error(`${label} fails its fingerprint check`);
  return `sha256:${stated}`;
}
