import { createHash } from 'node:crypto';
import type { Chunk, ChunksPayload } from '../document/types.js';
import { artifactBytes, makeArtifact, type Artifact } from '../store/artifact.js';
import { canonicalJson } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';
import { CHUNKS_FORMAT_VERSION } from '../rule-versions.js';

/**
 * The snapshot a derived artifact came from is named in it (a document's provenance, every chunk's
 * citation), so a new snapshot whose extraction is otherwise the same still changes those bytes: a
 * clean build would cite the new snapshot. These helpers let an incremental build rewrite just that
 * provenance, and reuse the work that depends only on content (chunking, postings), while producing
 * the exact bytes a clean build produces.
 */

/**
 * SHA-256 of a document without the snapshot it came from, read off its canonical JSON (as UTF-8): the
 * values of its snapshot id and source SHA-256 blanked. In canonical JSON a quote inside a string is escaped, so
 * `"snapshotId":"<id>"` can only be a key and its value. Only compared with itself (a record fact), so
 * it needs to be a function of the content, not of any other serialisation.
 */
export function documentContentHash(documentJson: Uint8Array, snapshotId: string, sourceSha256: string): string {
  // The hash of the text with both replaced (replaceAll of each), fed piece by piece instead of
  // copying a multi-megabyte document twice: matches are keys, so they never overlap one another.
  // Searched in the UTF-8 bytes (the worker's encoding of the artifact): a pattern that starts with an
  // ASCII quote matches there exactly where it matches in the text.
  const bytes = Buffer.from(documentJson.buffer, documentJson.byteOffset, documentJson.byteLength);
  const hits: [at: number, length: number, blank: string][] = [];
  const find = (text: string, blank: string): void => {
    const pattern = Buffer.from(text, 'utf8');
    for (let at = bytes.indexOf(pattern); at !== -1; at = bytes.indexOf(pattern, at + pattern.length))
      hits.push([at, pattern.length, blank]);
  };
  find(`"snapshotId":${JSON.stringify(snapshotId)}`, '"snapshotId":""');
  find(`"sourceSha256":${JSON.stringify(sourceSha256)}`, '"sourceSha256":""');
  hits.sort((a, b) => a[0] - b[0]);
  const hash = createHash('sha256');
  let from = 0;
  for (const [at, length, blank] of hits) {
    hash.update(bytes.subarray(from, at)).update(blank);
    from = at + length;
  }
  return hash.update(bytes.subarray(from)).digest('hex');
}

export interface StampedChunks {
  /** The chunk artifact's exact bytes, citing `snapshotId`. */
  bytes: string;
  /** SHA-256 of the chunks with the snapshot id left out: what their search-index postings depend on. */
  contentHash: string;
  snapshotId: string;
}

/** SHA-256 of a document's chunks with the snapshot id left out: what their search-index postings depend on. */
export function chunksContentHash(documentId: string, chunks: Chunk[]): string {
  return sha256Hex(
    canonicalJson({ documentId, chunks: chunks.map((chunk) => ({ ...chunk, citation: { ...chunk.citation, snapshotId: '' } })) }),
  );
}

/**
 * chunksContentHash read off a chunk artifact file's text instead of re-serialising its chunks (a
 * restore did that for every document): in a canonical file the payload is exactly
 * `canonicalJson({chunkOptions, chunks, documentId})`; without its `chunkOptions` member, and with each
 * citation's snapshot id blanked in place, it is the bytes chunksContentHash hashes. A key in canonical
 * JSON follows a raw `{` or `,`, and a quote inside a string is always escaped, so the pattern below
 * matches keys only. Null when the text does not have that exact shape (one blanked snapshot id per
 * chunk, payload keys `chunkOptions`, `chunks` and `documentId`): the caller then computes the hash the
 * long way, so a non-canonical file only costs time.
 */
export function chunksContentHashOfText(text: string, payload: ChunksPayload, snapshotId: string): string | null {
  const payloadKeys = Object.keys(payload);
  if (payloadKeys.length !== 3 || !('chunkOptions' in payload) || !('chunks' in payload) || !('documentId' in payload)) return null;
  const head = `,"payload":{"chunkOptions":${canonicalJson(payload.chunkOptions)},"chunks":[`;
  const start = text.indexOf(head);
  const end = text.lastIndexOf('},"producer":{');
  if (start < 0 || end < start) return null;
  const payloadText = `{"chunks":[${text.slice(start + head.length, end + 1)}`;
  if (!payloadText.endsWith(`],"documentId":${JSON.stringify(payload.documentId)}}`)) return null;
  const citedKey = `"snapshotId":${JSON.stringify(snapshotId)}`;
  let blanked = 0;
  const content = payloadText.replace(new RegExp(`(?<=[{,])${escapeRegExp(citedKey)}(?=[,}])`, 'g'), () => {
    blanked += 1;
    return '"snapshotId":""';
  });
  if (blanked !== payload.chunks.length) return null;
  return sha256Hex(content);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Parses a chunk artifact (already verified by the caller) and restamps every citation with `snapshotId`. */
export function restampChunks(chunkArtifactBytes: string | Uint8Array, snapshotId: string): StampedChunks {
  const text = typeof chunkArtifactBytes === 'string' ? chunkArtifactBytes : Buffer.from(chunkArtifactBytes).toString('utf8');
  const artifact = JSON.parse(text) as Artifact<ChunksPayload>;
  const { chunkOptions, documentId, chunks } = artifact.payload;
  const contentHash = chunksContentHash(documentId, chunks);
  for (const chunk of chunks) chunk.citation.snapshotId = snapshotId;
  const payload: ChunksPayload = { chunkOptions, chunks, documentId };
  return { bytes: artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, payload)), contentHash, snapshotId };
}
