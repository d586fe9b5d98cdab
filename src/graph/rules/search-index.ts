import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Chunk } from '../../document/types.js';
import { restampChunks } from '../../chunk/snapshot-provenance.js';
import { CHUNKS_FORMAT_VERSION } from '../../rule-versions.js';
import { parseArtifact } from '../../store/artifact.js';
import { writeFileAtomic } from '../../store/atomic-file.js';
import { readStageIndex } from '../../store/stage-index.js';
import { crc32Hex, SEGMENT_FILE_NAME, type SegmentEntry } from '../../index/index-layout.js';
import { sealPart, unsealPart } from '../../index/index-part-seal.js';
import { loadSearchIndex, memorySource } from '../../index/index-reader.js';
import { abs, readDependencyOutput } from './files.js';
import { inspectionOf } from './extract.js';
import type { DepView, Rule, RuleEnv } from './types.js';
import { readRegularFileSync } from '../../regular-file.js';

/**
 * The search index. Each document's postings (its part) are a pure function of its chunks' content,
 * cached by that content's hash under .episteme/cache/index-parts, so a one-document edit tokenises one
 * document and merges. Unsegmented, the index merges every part into one file; segmented (graph.ts), each
 * segment target merges the parts of its documents into a segment file, and the index is a manifest of
 * the segments. Either way the index depends on the chunk index first: it records that index's
 * fingerprint, which readers compare to refuse a stale index.
 */

export const searchIndexSegmentRule: Rule = {
  rule: 'search-index-segment',
  version: (env) => env.stages.searchIndexRuleVersion,
  options: (env) => env.shared.index,
  dataFiles: (ws) => [[ws.outputs.chunks, (name) => SEGMENT_FILE_NAME.test(name)]],
  run: async (env, _node, deps, missing) => {
    const built = env.stages.buildSegment(
      deps.map((dep) => partOf(env, dep)),
      env.stages.indexOptions(env.ws.options.index),
      snapshotIdsOf(env, deps),
    );
    return {
      bytes: built.bytes,
      outputPath: () => `${env.ws.outputs.chunks}/${built.entry[0]}`,
      facts: { segmentEntry: JSON.stringify(built.entry), ...(missing.length > 0 ? { missingSources: JSON.stringify(missing) } : {}) },
    };
  },
};

export const searchIndexRule: Rule = {
  rule: 'search-index',
  version: (env) => env.stages.searchIndexRuleVersion,
  options: (env) => env.shared.index,
  dataFiles: () => [],
  run: async (env, node, deps, missing) => {
    const [chunkIndex, ...members] = deps;
    const provenance = { ...chunkIndexProvenance(env, chunkIndex!), missingSources: missing };
    const options = env.stages.indexOptions(env.ws.options.index);
    if (node.kind === 'index' && node.segmented) {
      const entries = members.map((dep) => JSON.parse(dep.record.facts?.segmentEntry ?? 'null') as SegmentEntry);
      return { bytes: env.stages.segmentManifest(entries, provenance, options), outputPath: () => node.name };
    }
    const parts = members.map((dep) => partOf(env, dep));
    return { bytes: env.stages.mergeSearchIndex(parts, provenance, options, snapshotIdsOf(env, members)), outputPath: () => node.name };
  },
  cache: {
    // Its envelope, producer and canonical bytes, on a stage worker; the rest is read and bound below.
    inspects: 'search-index',
    restore: (env, node, deps, blobs) => {
      const label = `the cached search index of ${node.name}`;
      inspectionOf(blobs, 'search-index');
      const [chunkIndex, ...members] = deps;
      // A manifest names its segments; here they are this workspace's segment targets, built before it.
      const segments = new Map(members.map((dep) => [path.posix.basename(dep.record.output), dep]));
      const opened: string[] = [];
      const index = loadSearchIndex(blobs.output.bytes, label, (name) => {
        const dep = segments.get(name);
        if (dep === undefined) throw new Error("it is not one of this workspace's segments");
        opened.push(name);
        return memorySource(readDependencyOutput(env, dep.name, dep.record.output, dep.sha256));
      });
      if (node.kind === 'index' && node.segmented && opened.length !== segments.size)
        throw new Error(`${label} does not name every segment of this workspace`);
      // Built with this workspace's BM25 parameters: the index options the key names.
      const options = env.stages.indexOptions(env.ws.options.index);
      if (index.k1Milli !== Math.round(options.k1 * 1000) || index.bMilli !== Math.round(options.b * 1000))
        throw new Error(`${label} was built with other BM25 parameters (k1 ${index.k1Milli / 1000}, b ${index.bMilli / 1000})`);
      const expected = chunkIndexProvenance(env, chunkIndex!);
      // Bound to this workspace's chunk index: the one it was built from, and not a partial build.
      if (
        index.provenance.chunkIndexFingerprint !== expected.chunkIndexFingerprint ||
        index.provenance.chunkIndexCrc32 !== expected.chunkIndexCrc32
      )
        throw new Error(`${label} was built from another chunk index`);
      if (index.provenance.missingSources.length > 0) throw new Error(`${label} is partial`);
      return { bytes: blobs.output.bytes, sha256: blobs.output.sha256, outputPath: () => node.name };
    },
  },
};

/** The chunk index the search index is built from: its fingerprint and the CRC-32 of its bytes. */
function chunkIndexProvenance(env: RuleEnv, dep: DepView): { chunkIndexFingerprint: string; chunkIndexCrc32: string } {
  const bytes = readDependencyOutput(env, dep.name, dep.record.output, dep.sha256);
  // Its bytes are the ones the build recorded (checked against their SHA-256 above): the fingerprint is
  // the one their envelope names, without re-serialising the index to check it again.
  let fingerprint = /^\{"artifact":"chunk-index","fingerprint":"(sha256:[0-9a-f]{64})"/.exec(bytes.toString('latin1', 0, 128))?.[1];
  if (fingerprint === undefined) {
    const dir = path.posix.dirname(dep.record.output);
    fingerprint = readStageIndex(abs(env.ws, dir), 'chunk-index', { dirLabel: dir, indexBytes: bytes, verified: true }).fingerprint;
  }
  return { chunkIndexFingerprint: fingerprint, chunkIndexCrc32: crc32Hex(bytes) };
}

/** Document id -> the snapshot its chunks cite, for these chunk targets. */
function snapshotIdsOf(env: RuleEnv, deps: readonly DepView[]): Map<string, string> {
  return new Map(deps.map((dep) => [dep.source!.documentId, chunkFactsOf(env, dep).snapshotId]));
}

/**
 * A chunk target's part: from the part cache when an intact entry for its content is there, else made
 * from its chunk file (verified) and cached. A new snapshot with the same content only changes the
 * snapshot its document row cites, which the merge takes from snapshotIdsOf.
 */
function partOf(env: RuleEnv, dep: DepView): string {
  const { chunksContentHash } = chunkFactsOf(env, dep);
  const file = indexPartFile(env, chunksContentHash);
  const known = env.memory.indexPart(file);
  if (known !== undefined) return known;
  let part = readCachedPart(env, file, chunksContentHash);
  if (part === null) {
    const chunks = parseArtifact<{ documentId: string; chunks: Chunk[] }>(
      readDependencyOutput(env, dep.name, dep.record.output, dep.sha256).toString('utf8'),
      'document-chunks',
      CHUNKS_FORMAT_VERSION,
      dep.record.output,
    );
    part = env.stages.buildDocumentPart(dep.source!.documentId, chunks.payload.chunks);
    writeFileAtomic(file, sealPart(part, chunksContentHash));
  }
  env.memory.rememberIndexPart(dep.source!.documentId, file, part);
  return part;
}

/** The content hash and cited snapshot of a chunk target: from its record, else from its file (verified). */
function chunkFactsOf(env: RuleEnv, dep: DepView): { chunksContentHash: string; snapshotId: string } {
  const facts = dep.record.facts;
  if (facts?.chunksContentHash && facts.citedSnapshotId !== undefined)
    return { chunksContentHash: facts.chunksContentHash, snapshotId: facts.citedSnapshotId };
  const bytes = readDependencyOutput(env, dep.name, dep.record.output, dep.sha256);
  const cited = (JSON.parse(bytes.toString('utf8')) as { payload: { chunks: Chunk[] } }).payload.chunks[0]?.citation.snapshotId ?? '';
  return { chunksContentHash: restampChunks(bytes, cited).contentHash, snapshotId: cited };
}

/** Where the index part of chunks with this content hash is cached (also filled by the remote cache). */
export function indexPartFile(env: RuleEnv, chunksContentHash: string): string {
  return path.join(env.ws.stateDir, 'cache', 'index-parts', `${chunksContentHash}.p${env.stages.indexPartFormat}.part`);
}

/** A cached part, verified; a damaged entry is removed with a warning (a miss: it is rebuilt). */
function readCachedPart(env: RuleEnv, file: string, key: string): string | null {
  let text: string;
  try {
    text = readRegularFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const part = unsealPart(text, key);
  if (part !== null) return part;
  fs.rmSync(file, { force: true });
  env.warnings.push({
    code: 'cache-entry-dropped',
    message:
      `Cached index part .episteme/cache/index-parts/${path.basename(file)} failed its checksum (damaged or truncated); ` +
      'it was dropped and rebuilt from its chunk file.',
  });
  return null;
}
