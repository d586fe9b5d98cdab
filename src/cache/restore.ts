import * as fs from 'node:fs';
import type { Chunk, EvidenceDocument } from '../document/types.js';
import { chunksContentHash, chunksContentHashOfText } from '../chunk/snapshot-provenance.js';
import { diagnosticFactsOf } from '../graph/diagnostics.js';
import type { TargetNode } from '../graph/graph.js';
import {
  indexPartFile,
  perDocumentPath,
  readDependencyOutput,
  sealPart,
  unsealPart,
  type DepView,
  type RuleEnv,
  type RuleOutput,
} from '../graph/rules.js';
import { parseArtifact } from '../store/artifact.js';
import { parseArtifactUnverified, type Artifact, type ArtifactKind } from '../store/artifact-header.js';
import { sha256Hex } from '../store/hash.js';
import { writeFileAtomic } from '../store/atomic-file.js';
import { CHUNKS_FORMAT_VERSION, DOCUMENT_FORMAT_VERSION, STAGE_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { loadSearchIndex } from '../index/index-reader.js';
import { crc32Hex } from '../index/index-layout.js';
import { parsePart } from '../index/search-index.js';

/**
 * The rules whose outputs the cache may hold, and how a downloaded output is checked before use: its
 * SHA-256 against the action-cache entry (remote-cache.ts), parsed as its artifact (envelope, kind,
 * format, fingerprint over its bytes), bound to this target (document id, cited snapshot, chunk index),
 * and its record facts recomputed from the parsed content, never taken from the cache.
 * Snapshots are not cached (a local capture is a file read; an HTTP capture is an observation, not a
 * function), nor are the stage indexes (cheap lists of what the workspace holds). The search index
 * is: tokenising every document is most of what an assembling build would otherwise do.
 */
export type Restorer = (env: RuleEnv, node: TargetNode, deps: DepView[], blob: VerifiedBlob, context: RestoreContext) => RuleOutput;

/** Downloaded bytes whose SHA-256 has been checked against the action-cache entry. */
export interface VerifiedBlob {
  bytes: Buffer;
  sha256: string;
}

/**
 * What one build's restores learn and later restores reuse: the snapshot each restored document
 * cites (by the document's SHA-256), so restoring its chunks neither re-reads nor re-parses it.
 */
export class RestoreContext {
  readonly documents = new Map<string, { snapshotId: string }>();
}

export const RESTORERS: Partial<Record<TargetNode['rule'], Restorer>> = {
  extract: (env, node, deps, blob, context) => {
    const label = `the cached document of ${node.name}`;
    const document = parseRestoredArtifact<EvidenceDocument>(blob.bytes, 'document', DOCUMENT_FORMAT_VERSION, label).payload;
    const snapshotId = deps[0]?.record.facts?.snapshotId;
    if (document.documentId !== node.source!.documentId) throw new Error(`${label} is of document ${JSON.stringify(document.documentId)}`);
    if (document.provenance.snapshotId !== snapshotId) throw new Error(`${label} cites another snapshot`);
    context.documents.set(blob.sha256, { snapshotId });
    return {
      bytes: blob.bytes,
      outputPath: perDocumentPath(env.ws.outputs.specs, node.source!.documentId),
      facts: diagnosticFactsOf(document.diagnostics),
    };
  },
  chunk: (env, node, deps, blob, context) => {
    const label = `the cached chunks of ${node.name}`;
    const dep = deps[0]!;
    let document = context.documents.get(dep.record.sha256);
    if (document === undefined) {
      const parsed = (
        JSON.parse(readDependencyOutput(env, dep.name, dep.record.output, dep.record.sha256).toString('utf8')) as {
          payload: EvidenceDocument;
        }
      ).payload;
      document = { snapshotId: parsed.provenance.snapshotId };
    }
    const { payload, text } = parseRestoredArtifactWithText<{ documentId: string; chunks: Chunk[] }>(
      blob.bytes,
      'document-chunks',
      CHUNKS_FORMAT_VERSION,
      label,
    );
    const { documentId, chunks } = payload;
    if (documentId !== node.source!.documentId) throw new Error(`${label} are of document ${JSON.stringify(documentId)}`);
    if (!Array.isArray(chunks)) throw new Error(`${label} hold no chunk list`);
    for (const chunk of chunks) {
      if (chunk?.citation?.snapshotId !== document.snapshotId) throw new Error(`${label} cite another snapshot`);
      if (chunk.documentId !== documentId || chunk.citation.documentId !== documentId)
        throw new Error(`${label} hold another document's chunk`);
    }
    return {
      bytes: blob.bytes,
      outputPath: perDocumentPath(env.ws.outputs.chunks, node.source!.documentId),
      facts: {
        citedSnapshotId: document.snapshotId,
        // No documentContentHash: it only lets a later snapshot with the same extracted content restamp
        // these chunks instead of chunking again (rules.ts reusableChunks), and computing it re-serialises
        // the whole document, about a third of a restore's CPU. Without it that rare case chunks afresh.
        chunksContentHash: chunksContentHashOfText(text, payload, document.snapshotId) ?? chunksContentHash(documentId, chunks),
      },
    };
  },
  'search-index': (env, node, deps, blob) => {
    const label = `the cached search index of ${node.name}`;
    const index = loadSearchIndex(blob.bytes, label);
    const dep = deps[0]!;
    const chunkIndexBytes = readDependencyOutput(env, dep.name, dep.record.output, dep.record.sha256);
    const chunkIndex = parseArtifact(chunkIndexBytes.toString('utf8'), 'chunk-index', STAGE_INDEX_FORMAT_VERSION, dep.record.output);
    // Bound to this workspace's chunk index: the one it was built from, and not a partial build.
    if (index.provenance.chunkIndexFingerprint !== chunkIndex.fingerprint || index.provenance.chunkIndexCrc32 !== crc32Hex(chunkIndexBytes))
      throw new Error(`${label} was built from another chunk index`);
    if (index.provenance.missingSources.length > 0) throw new Error(`${label} is partial`);
    return { bytes: blob.bytes, outputPath: () => node.name };
  },
};

/**
 * A downloaded artifact, parsed once and checked without re-serialising it: the envelope (kind, format
 * version) as any reader checks it, and the fingerprint over the bytes as written. An artifact file is
 * canonical JSON whose second member is the fingerprint, so the fingerprinted body is those same bytes
 * without that member. The bytes' SHA-256 was already checked against the action-cache entry.
 */
function parseRestoredArtifact<T>(bytes: Buffer, kind: ArtifactKind, format: number, label: string): Artifact<T> {
  return parseRestoredArtifactWithText<T>(bytes, kind, format, label).artifact;
}

function parseRestoredArtifactWithText<T>(
  bytes: Buffer,
  kind: ArtifactKind,
  format: number,
  label: string,
): { artifact: Artifact<T>; payload: T; text: string } {
  const text = bytes.toString('utf8');
  const artifact = parseArtifactUnverified<T>(text, kind, format, label);
  const head = `{"artifact":${JSON.stringify(kind)},`;
  const member = `"fingerprint":${JSON.stringify(artifact.fingerprint)},`;
  if (!/^sha256:[0-9a-f]{64}$/.test(artifact.fingerprint) || !text.startsWith(head + member) || !text.endsWith('}\n'))
    throw new Error(`${label} is not a canonical artifact file`);
  const body = head + text.slice(head.length + member.length, -1);
  if (`sha256:${sha256Hex(body)}` !== artifact.fingerprint) throw new Error(`${label} fails its fingerprint check`);
  return { artifact, payload: artifact.payload, text };
}

/**
 * A by-product stored in the same action-cache entry as a target's output, so a restored workspace
 * has it too. The chunk target's is the document's search-index part (its postings): without it, the
 * first incremental build after a restore would re-tokenise every document to rebuild the index.
 */
export interface SideOutput {
  /** Its path in the action result (versioned: a reader of another format ignores it). */
  path(env: RuleEnv): string;
  /** Its bytes for upload, from the output the target produced (and kept locally); null when none. */
  make(env: RuleEnv, node: TargetNode, output: RuleOutput): Buffer | null;
  /** Checks downloaded bytes (SHA-256 already verified) against the restored output and installs them; throws when they do not fit. */
  install(env: RuleEnv, node: TargetNode, output: RuleOutput, blob: VerifiedBlob): void;
}

export const SIDE_OUTPUTS: Partial<Record<TargetNode['rule'], SideOutput>> = {
  chunk: {
    path: (env) => `index-part.p${env.stages.indexPartFormat}`,
    make: (env, node, output) => {
      const key = output.facts?.chunksContentHash;
      if (key === undefined) return null;
      const file = indexPartFile(env, key);
      try {
        const cached = fs.readFileSync(file, 'utf8');
        if (unsealPart(cached, key) !== null) return Buffer.from(cached, 'utf8');
      } catch {
        // not cached yet: make it
      }
      const text = typeof output.bytes === 'string' ? output.bytes : output.bytes.toString('utf8');
      const chunks = (JSON.parse(text) as { payload: { chunks: Chunk[] } }).payload.chunks;
      const sealed = sealPart(env.stages.buildDocumentPart(node.source!.documentId, chunks), key);
      // Kept locally too: the search index this build makes next reads it instead of tokenising again.
      writeFileAtomic(file, sealed);
      return Buffer.from(sealed, 'utf8');
    },
    install: (env, node, output, blob) => {
      const key = output.facts!.chunksContentHash!;
      const text = blob.bytes.toString('utf8');
      const part = unsealPart(text, key);
      if (part === null) throw new Error('its index part is not sealed for these chunks');
      const parsed = parsePart(part);
      if (parsed.header.documentId !== node.source!.documentId)
        throw new Error(`its index part is of document ${JSON.stringify(parsed.header.documentId)}`);
      writeFileAtomic(indexPartFile(env, key), text);
    },
  },
};
