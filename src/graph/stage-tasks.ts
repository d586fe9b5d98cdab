import type { ExtractInput } from '../extract/extract.js';
import type { ChunkOptions } from '../chunk/chunker.js';
import type { ChunksPayload, EvidenceDocument } from '../document/types.js';
import type { InspectTask } from '../inspect/inspect.js';
import { artifactFileBytes, type Artifact } from '../store/artifact.js';
import { canonicalJson, canonicalJsonBytes } from '../store/canonical-json.js';
import { WorkerMemory } from './worker-memory.js';

/**
 * The pure, CPU-bound work of the build, as messages a worker thread can run: bytes and options in,
 * artifact bytes (and what the main thread would otherwise have to parse them again for) out. A worker
 * serialises each artifact once and derives its facts from the objects it already holds, so the main
 * thread never re-parses a document or its chunks.
 */
export { DOCUMENT_FORMAT_VERSION, CHUNKS_FORMAT_VERSION } from '../rule-versions.js';
import { DOCUMENT_FORMAT_VERSION } from '../rule-versions.js';

export type StageTask =
  | { stage: 'extract'; input: ExtractInput }
  // documentSha256: the SHA-256 of the document's artifact file. The worker that extracted it may still
  // hold it (worker-memory.ts): without documentBytes, a worker that does not answers { missing: 'document' }.
  // previousPart: the document's last index part, whose unchanged row blocks need no compressing again.
  | {
      stage: 'chunk';
      documentId: string;
      documentBytes?: Uint8Array;
      documentSha256?: string;
      options: ChunkOptions;
      previousPart?: string;
    }
  // The checks of artifacts restored from the remote cache that need only their bytes (JSON inspections out).
  | { stage: 'inspect-restored'; tasks: InspectTask[] };

export interface ExtractResult {
  /** The artifact file (UTF-8): a buffer of its own, which the worker transfers instead of copying. */
  bytes: Uint8Array;
  /** SHA-256 of bytes. */
  sha256: string;
  /** Diagnostic counts and codes, the snapshot it cites and the hash of its content without that snapshot. */
  facts: Record<string, string>;
}

export interface ChunkResult {
  /** The chunk file (UTF-8), transferred as ExtractResult's bytes are. */
  bytes: Uint8Array;
  /** SHA-256 of bytes. */
  sha256: string;
  /** SHA-256 of the chunks without the snapshot they cite: the key of their index part. */
  chunksContentHash: string;
  snapshotId: string;
  /** The document's index part (search-index.ts buildDocumentPart), unsealed. */
  part: string;
}

/** A chunk task sent without its document to a worker that does not hold it: send it again with the bytes. */
export interface MissingDocument {
  missing: 'document';
}

export type StageResult<T extends StageTask> = T extends { stage: 'extract' }
  ? ExtractResult
  : T extends { stage: 'chunk' }
    ? ChunkResult | MissingDocument
    : string;

/**
 * What tells two extract tasks apart besides their body's bytes, which the snapshot's SHA-256 names:
 * two tasks with the same key give the same document. Null for a task carrying workspace families,
 * which are not compared.
 */
export function extractTaskKey(input: ExtractInput): string | null {
  if (input.families !== undefined) return null;
  const { documentId, source, snapshot, options } = input;
  return canonicalJson({ documentId, options, snapshot, source });
}

/**
 * Runs one task. `memory` is what the worker keeps between its tasks (worker-memory.ts): it saves
 * work, never changes a result.
 */
export async function runStageTask<T extends StageTask>(task: T, memory = new WorkerMemory()): Promise<StageResult<T>> {
  return (await run(task, memory)) as StageResult<T>;
}

async function run(task: StageTask, memory: WorkerMemory): Promise<ExtractResult | ChunkResult | MissingDocument | string> {
  switch (task.stage) {
    case 'extract': {
      const { extractDocument } = await import('../extract/extract.js');
      const { diagnosticFactsOf } = await import('../document/diagnostic-facts.js');
      const { documentContentHash } = await import('../chunk/snapshot-provenance.js');
      const document = await extractDocument(task.input);
      const { snapshotId, sourceSha256 } = document.provenance;
      // Encoded once, in pieces (canonicalJsonBytes): the hashes and the file are of these bytes
      // (artifact.ts artifactFileBytes).
      const documentJson = canonicalJsonBytes(document);
      const facts = {
        ...diagnosticFactsOf(document.diagnostics),
        documentContentHash: documentContentHash(documentJson, snapshotId, sourceSha256),
        snapshotId,
      };
      const { bytes, sha256 } = artifactFileBytes('document', DOCUMENT_FORMAT_VERSION, documentJson);
      memory.documents.set(sha256, document);
      return { bytes, sha256, facts };
    }
    case 'chunk': {
      const { chunkDocument } = await import('../chunk/chunker.js');
      const { encodeChunks, encodeChunksSlowly } = await import('../chunk/chunk-file.js');
      const { buildDocumentPart, partMemoryOf, reusableRowBlocks } = await import('../index/search-index.js');
      const held = task.documentSha256 === undefined ? undefined : memory.documents.take(task.documentSha256);
      if (held === undefined && task.documentBytes === undefined) return { missing: 'document' };
      const document = held ?? parsedDocument(task.documentBytes!);
      const snapshotId = document.provenance.snapshotId;
      const chunking = memory.chunkingOf(task.documentId);
      // The options are recorded as given: a restore from the remote cache compares them with its own.
      const { maxChars, overlapChars } = task.options;
      const payload: ChunksPayload = {
        chunkOptions: { maxChars, overlapChars },
        chunks: chunkDocument(document, task.options, chunking.sections),
        documentId: task.documentId,
      };
      // Each chunk's values serialised once, for the file, its content hash and the index part's rows.
      const encoded = encodeChunks(payload, {
        textJson: (text) => chunking.textJson.get(text),
        recordOf: chunking.recordOf,
      });
      const { bytes, sha256, contentHash } = encoded ?? encodeChunksSlowly(payload);
      // The document's last part, when this worker did not make it (the previous build's, the cache's),
      // is read back as if it had (each row block inflated and checked first): only the chunks the edit
      // changed are tokenised again. One that cannot be read whole still lends the blocks it can.
      if (chunking.part === undefined && task.previousPart !== undefined) chunking.part = partMemoryOf(task.previousPart) ?? undefined;
      const reuse = chunking.part === undefined && task.previousPart !== undefined ? reusableRowBlocks(task.previousPart) : undefined;
      const part = buildDocumentPart(payload.documentId, payload.chunks, reuse, encoded?.members, chunking);
      return { bytes, sha256, chunksContentHash: contentHash, snapshotId, part };
    }
    case 'inspect-restored': {
      const { inspectRestored } = await import('../inspect/inspect.js');
      return JSON.stringify(task.tasks.map(inspectRestored));
    }
  }
}

/**
 * What a worker can transfer of a result instead of copying it: the artifact bytes, when they are a
 * buffer of their own (artifactFileBytes makes them so; a view of a shared pool must be copied).
 */
export function transferablesOf(result: unknown): ArrayBuffer[] {
  return ownBuffer((result as { bytes?: unknown } | null)?.bytes);
}

/**
 * What the main thread can transfer of a task: the bytes it read for it (a snapshot body, a document
 * file), which it does not use again once the task is sent.
 */
export function taskTransferables(task: StageTask): ArrayBuffer[] {
  if (task.stage === 'extract') return ownBuffer(task.input.body);
  if (task.stage === 'chunk') return ownBuffer(task.documentBytes);
  return [];
}

/**
 * The buffer of `bytes` when it is all theirs (not a view of a shared pool, whose transfer would
 * detach the rest) and not empty. An empty one stays out: a buffer already transferred (detached) in
 * a transfer list makes Node drop the message without a word, where cloning it throws.
 */
function ownBuffer(bytes: unknown): ArrayBuffer[] {
  if (!(bytes instanceof Uint8Array) || bytes.byteLength === 0) return [];
  const { buffer } = bytes;
  return buffer instanceof ArrayBuffer && bytes.byteOffset === 0 && bytes.byteLength === buffer.byteLength ? [buffer] : [];
}

/** A task result's bytes as a Buffer (a transferred result arrives as a plain Uint8Array): a view, not a copy. */
export function bufferOf(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The evidence document in an artifact file's bytes. */
function parsedDocument(bytes: Uint8Array): EvidenceDocument {
  // A view of the bytes (Buffer.from of a Uint8Array would copy the whole document first).
  const { buffer, byteOffset, byteLength } = bytes;
  return (JSON.parse(Buffer.from(buffer, byteOffset, byteLength).toString('utf8')) as Artifact<EvidenceDocument>).payload;
}
