import type { Chunk, EvidenceDocument } from '../../document/types.js';
import { writeFileAtomic } from '../../store/atomic-file.js';
import { sealPart, unsealPart } from '../../index/index-part-seal.js';
import { inspectionOf } from './extract.js';
import { indexPartFile } from './search-index.js';
import { restampChunks, type StampedChunks } from '../../chunk/snapshot-provenance.js';
import { PRODUCER_VERSION } from '../../version.js';
import { canonicalJson } from '../../store/canonical-json.js';
import type { TargetNode } from '../graph.js';
import { isPerDocumentFile, perDocumentPath, readDependencyOutput, readVerified } from './files.js';
import { src } from './snapshot.js';
import type { Rule, RuleEnv } from './types.js';
import { bufferOf } from '../stage-tasks.js';
import { readRegularFileSync } from '../../regular-file.js';

/** An evidence document cut, on a stage worker, into bounded, overlapping, attributable chunks. */
export const chunkRule: Rule = {
  rule: 'chunk',
  dataFiles: (ws) => [[ws.outputs.chunks, isPerDocumentFile]],
  version: (env) => env.stages.chunkRuleVersion,
  options: (env) => env.shared.chunk,
  run: async (env, node, deps) => {
    const { chunkOptions } = env.stages;
    const dep = deps[0]!;
    const documentId = src(node).documentId;
    const outputPath = perDocumentPath(env.ws.outputs.chunks, documentId);
    // The document's facts (from the worker that extracted it) say what it cites and what its content
    // is, so the main thread never parses the document. A document restored from the remote cache has
    // no content hash: it is chunked afresh.
    const documentContent = dep.record.facts?.documentContentHash;
    const citedSnapshot = dep.record.facts?.snapshotId;
    // A new snapshot with the same extracted content (a reflowed paragraph, a new charset label with the
    // same text) only changes which snapshot the chunks cite: restamp the previous chunks instead of
    // chunking again. The bytes equal a fresh chunking's, so the workspace still equals a clean build.
    if (documentContent !== undefined && citedSnapshot !== undefined) {
      const reused = reusableChunks(env, node, documentContent, citedSnapshot);
      if (reused !== null) {
        return {
          bytes: reused.bytes,
          outputPath,
          facts: { citedSnapshotId: reused.snapshotId, documentContentHash: documentContent, chunksContentHash: reused.contentHash },
        };
      }
    }
    const previousPart = previousIndexPart(env, node);
    // The worker that extracted the document may still hold it (by its hash), and the pool sends the
    // task to that worker when it is free: the document is read and sent only when the worker has it not.
    const task = {
      stage: 'chunk' as const,
      documentId,
      documentSha256: dep.record.sha256,
      options: chunkOptions(env.ws.options.chunk),
      ...(previousPart === undefined ? {} : { previousPart }),
    };
    const bounds = { label: documentId, affinity: documentId };
    let chunked = await env.pool.run(task, bounds);
    if ('missing' in chunked) {
      const documentBytes = readDependencyOutput(env, dep.name, dep.record.output, dep.record.sha256);
      chunked = await env.pool.run({ ...task, documentBytes }, { ...bounds, handOverBytes: true });
      if ('missing' in chunked) throw new Error(`the chunk task of ${documentId} was sent its document and still lacks it`);
    }
    // The worker tokenised the chunks it cut: the search index merges this part instead of reading the
    // chunks back (a cache entry, verified by its seal when read).
    const partFile = indexPartFile(env, chunked.chunksContentHash);
    writeFileAtomic(partFile, sealPart(chunked.part, chunked.chunksContentHash));
    env.memory.rememberIndexPart(documentId, partFile, chunked.part);
    return {
      bytes: bufferOf(chunked.bytes),
      sha256: chunked.sha256,
      outputPath,
      facts: {
        citedSnapshotId: chunked.snapshotId,
        ...(documentContent === undefined ? {} : { documentContentHash: documentContent }),
        chunksContentHash: chunked.chunksContentHash,
      },
    };
  },
  cache: {
    inspects: 'document-chunks',
    restore: (env, node, deps, blobs, context) => {
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
      const chunks = inspectionOf(blobs, 'document-chunks');
      if (chunks.documentId !== src(node).documentId) throw new Error(`${label} are of document ${JSON.stringify(chunks.documentId)}`);
      if (chunks.citedSnapshotId !== null && chunks.citedSnapshotId !== document.snapshotId)
        throw new Error(`${label} cite another snapshot`);
      return {
        bytes: blobs.output.bytes,
        sha256: blobs.output.sha256,
        outputPath: perDocumentPath(env.ws.outputs.chunks, src(node).documentId),
        facts: {
          citedSnapshotId: document.snapshotId,
          // No documentContentHash: it only lets a later snapshot with the same extracted content restamp
          // these chunks instead of chunking again (reusableChunks), and computing it re-serialises the
          // whole document, about a third of a restore's CPU. Without it that rare case chunks afresh.
          chunksContentHash: chunks.chunksContentHash,
        },
      };
    },
    // The document's index part (its postings): without it, the first incremental build after a restore
    // would re-tokenise every document to rebuild the index.
    takes: (env, path) => path === indexPartPath(env),
    others: (env, node, output) => {
      const key = output.facts?.chunksContentHash;
      if (key === undefined) return new Map();
      const file = indexPartFile(env, key);
      try {
        const cached = readRegularFileSync(file, 'utf8');
        if (unsealPart(cached, key) !== null) return new Map([[indexPartPath(env), Buffer.from(cached, 'utf8')]]);
      } catch {
        // not cached yet: make it
      }
      const text = typeof output.bytes === 'string' ? output.bytes : output.bytes.toString('utf8');
      const chunks = (JSON.parse(text) as { payload: { chunks: Chunk[] } }).payload.chunks;
      const sealed = sealPart(env.stages.buildDocumentPart(src(node).documentId, chunks), key);
      // Kept locally too: the search index this build makes next reads it instead of tokenising again.
      writeFileAtomic(file, sealed);
      return new Map([[indexPartPath(env), Buffer.from(sealed, 'utf8')]]);
    },
    install: (env, _node, output, blobs) => {
      const blob = blobs.others.get(indexPartPath(env));
      if (blob === undefined) return; // an entry without it (written before parts were cached) restores the chunks alone
      // Sealed for these chunks and of this document: checked by the inspection.
      if (inspectionOf(blobs, 'document-chunks').partChecked !== true) throw new Error('its index part was not checked');
      writeFileAtomic(indexPartFile(env, output.facts!.chunksContentHash!), blob.bytes);
    },
  },
};

/**
 * The previous chunks of this target restamped with `snapshotId`, when they were cut from a document
 * with the same content under the same chunk rule and options; null when the chunker must run.
 */
function reusableChunks(env: RuleEnv, node: TargetNode, documentContent: string, snapshotId: string): StampedChunks | null {
  const previous = env.state.targets.get(node.name);
  if (previous?.facts?.documentContentHash !== documentContent) return null;
  const { components } = previous;
  if (components.ruleVersion !== env.stages.chunkRuleVersion || components.producerVersion !== PRODUCER_VERSION) return null;
  if (canonicalJson(components.options) !== canonicalJson(env.shared.chunk)) return null;
  let bytes: Buffer;
  try {
    bytes = readVerified(env.ws, previous.output, previous.sha256);
  } catch {
    return null; // gone or damaged: chunk afresh
  }
  return restampChunks(bytes, snapshotId);
}

/**
 * The index part of this target's previous chunks (from this process's memory, else the part cache),
 * for the worker to take unchanged row blocks from; undefined when there is none. Only a shortcut:
 * the worker checks every block it takes.
 */
function previousIndexPart(env: RuleEnv, node: TargetNode): string | undefined {
  const key = env.state.targets.get(node.name)?.facts?.chunksContentHash;
  if (key === undefined) return undefined;
  const file = indexPartFile(env, key);
  const known = env.memory.indexPart(file);
  if (known !== undefined) return known;
  try {
    return unsealPart(readRegularFileSync(file, 'utf8'), key) ?? undefined;
  } catch {
    return undefined;
  }
}

/** The chunk target's other file in the action cache: its index part (versioned: a reader of another format ignores it). */
const indexPartPath = (env: RuleEnv): string => `index-part.p${env.stages.indexPartFormat}`;
