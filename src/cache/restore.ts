import type { Chunk, EvidenceDocument } from '../document/types.js';
import { documentContentHash, restampChunks } from '../chunk/snapshot-provenance.js';
import { diagnosticFacts } from '../graph/diagnostics.js';
import type { TargetNode } from '../graph/graph.js';
import { perDocumentPath, readDependencyOutput, type DepView, type RuleEnv, type RuleOutput } from '../graph/rules.js';
import { parseArtifact } from '../store/artifact.js';
import { CHUNKS_FORMAT_VERSION, DOCUMENT_FORMAT_VERSION, STAGE_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { loadSearchIndex } from '../index/index-reader.js';
import { crc32Hex } from '../index/index-layout.js';

/**
 * The rules whose outputs the cache may hold, and how a downloaded output is checked before use: parsed
 * as its artifact (envelope, kind, format, fingerprint), bound to this target (document id, cited
 * snapshot, chunk index), and its record facts recomputed from the bytes, never taken from the cache.
 * Snapshots are not cached (a local capture is a file read; an HTTP capture is an observation, not a
 * function), nor are the stage indexes (cheap lists of what the workspace holds). The search index
 * is: tokenising every document is most of what an assembling build would otherwise do.
 */
export type Restorer = (env: RuleEnv, node: TargetNode, deps: DepView[], bytes: Buffer) => RuleOutput;

export const RESTORERS: Partial<Record<TargetNode['rule'], Restorer>> = {
  extract: (env, node, deps, bytes) => {
    const label = `the cached document of ${node.name}`;
    const document = parseArtifact<EvidenceDocument>(bytes.toString('utf8'), 'document', DOCUMENT_FORMAT_VERSION, label).payload;
    const snapshotId = deps[0]?.record.facts?.snapshotId;
    if (document.documentId !== node.source!.documentId) throw new Error(`${label} is of document ${JSON.stringify(document.documentId)}`);
    if (document.provenance.snapshotId !== snapshotId) throw new Error(`${label} cites another snapshot`);
    return { bytes, outputPath: perDocumentPath(env.ws.outputs.specs, node.source!.documentId), facts: diagnosticFacts(bytes) };
  },
  chunk: (env, node, deps, bytes) => {
    const label = `the cached chunks of ${node.name}`;
    const chunks = parseArtifact<{ documentId: string; chunks: Chunk[] }>(
      bytes.toString('utf8'),
      'document-chunks',
      CHUNKS_FORMAT_VERSION,
      label,
    ).payload;
    if (chunks.documentId !== node.source!.documentId) throw new Error(`${label} are of document ${JSON.stringify(chunks.documentId)}`);
    const dep = deps[0]!;
    const document = (
      JSON.parse(readDependencyOutput(env, dep.name, dep.record.output, dep.record.sha256).toString('utf8')) as {
        payload: EvidenceDocument;
      }
    ).payload;
    // Restamping with the document's snapshot must give back the same bytes: the chunks cite it.
    const stamped = restampChunks(bytes, document.provenance.snapshotId);
    if (stamped.bytes !== bytes.toString('utf8')) throw new Error(`${label} cite another snapshot`);
    return {
      bytes,
      outputPath: perDocumentPath(env.ws.outputs.chunks, node.source!.documentId),
      facts: {
        citedSnapshotId: stamped.snapshotId,
        documentContentHash: documentContentHash(document),
        chunksContentHash: stamped.contentHash,
      },
    };
  },
  'search-index': (env, node, deps, bytes) => {
    const label = `the cached search index of ${node.name}`;
    const index = loadSearchIndex(bytes, label);
    const dep = deps[0]!;
    const chunkIndexBytes = readDependencyOutput(env, dep.name, dep.record.output, dep.record.sha256);
    const chunkIndex = parseArtifact(chunkIndexBytes.toString('utf8'), 'chunk-index', STAGE_INDEX_FORMAT_VERSION, dep.record.output);
    // Bound to this workspace's chunk index: the one it was built from, and not a partial build.
    if (index.provenance.chunkIndexFingerprint !== chunkIndex.fingerprint || index.provenance.chunkIndexCrc32 !== crc32Hex(chunkIndexBytes))
      throw new Error(`${label} was built from another chunk index`);
    if (index.provenance.missingSources.length > 0) throw new Error(`${label} is partial`);
    return { bytes, outputPath: () => node.name };
  },
};
