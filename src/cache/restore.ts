import * as fs from 'node:fs';
import type { Chunk, EvidenceDocument } from '../document/types.js';
import type { TargetNode } from '../graph/graph.js';
import {
  abs,
  indexPartFile,
  perDocumentPath,
  readDependencyOutput,
  sealPart,
  segmentPlan,
  unsealPart,
  type DepView,
  type RuleEnv,
  type RuleOutput,
} from '../graph/rules.js';
import { readStageIndex } from '../store/stage-index.js';
import { segmentFactsOf, type SegmentFact } from '../graph/segment-facts.js';
import { statStamp, type TargetRecord } from '../graph/state.js';
import { sha256Hex } from '../store/hash.js';
import { writeFileAtomic, writeFileIfChanged } from '../store/atomic-file.js';
import { loadSearchIndex, memorySource } from '../index/index-reader.js';
import { crc32Hex, SEGMENT_ARTIFACT_KIND, SEGMENT_FILE_NAME, type IndexManifest } from '../index/index-layout.js';
import { checkFingerprint, type Inspection, type InspectTask } from './inspect.js';

/**
 * The rules whose outputs the cache may hold, and how a downloaded output is checked before use: its
 * SHA-256 against the action-cache entry (remote-cache.ts), parsed as its artifact (envelope, kind,
 * format, fingerprint over its bytes), bound to this target (document id, cited snapshot, chunk index),
 * and its record facts recomputed from the parsed content, never taken from the cache.
 * Snapshots are not cached (a local capture is a file read; an HTTP capture is an observation, not a
 * function), nor are the stage indexes (cheap lists of what the workspace holds). The search index
 * is: tokenising every document is most of what an assembling build would otherwise do.
 *
 * An action result may name other files beside the output (Bazel's repeated output_files): the chunk
 * target's index part, a segmented search index's segment files. Each is a blob checked against its
 * SHA-256 like the output, then checked with the output as one whole (restore) before any is written
 * (install).
 */
export interface CacheableRule {
  /**
   * The kind of artifact whose byte-only checks (each blob's SHA-256, envelope, fingerprint, content
   * facts: inspect.ts) the build runs on a stage worker before restore binds them to the target.
   */
  inspects?: InspectTask['kind'];
  /**
   * Checks the downloaded output (and the other files) as this target's and returns it with its facts;
   * throws a plain Error naming the defect when they are not. Writes nothing: the uploader runs it too,
   * on what it built, so that it never uploads what a reader would reject.
   */
  restore(env: RuleEnv, node: TargetNode, deps: DepView[], blobs: RestoredBlobs, context: RestoreContext): RuleOutput;
  /** Whether this reader takes the other file at `path` of an action result (another format's it ignores). */
  takes?(env: RuleEnv, path: string): boolean;
  /** Writes the other files of a restored output (after restore passed), completing its facts; throws when they do not fit. */
  install?(env: RuleEnv, node: TargetNode, output: RuleOutput, blobs: RestoredBlobs): void;
  /** The other files to store beside a locally built output, by path (read from what the rule wrote); null when they cannot be. */
  others?(env: RuleEnv, node: TargetNode, output: RuleOutput): Map<string, Buffer> | null;
  /** A workspace file that may already hold the blob at `path`: used instead of a download when its SHA-256 is the one named. */
  localCopy?(env: RuleEnv, path: string): string | null;
}

/** Downloaded bytes whose SHA-256 has been checked against the action-cache entry. */
export interface VerifiedBlob {
  bytes: Buffer;
  sha256: string;
}

/** The blobs of one action result: the output, and the other files this reader takes, by path. */
export interface RestoredBlobs {
  output: VerifiedBlob;
  others: ReadonlyMap<string, VerifiedBlob>;
  /** For a rule that inspects: what inspect.ts found in these blobs (their SHA-256 included). */
  inspection?: Inspection & { ok: true };
}

/**
 * What one build's restores learn and later restores reuse: the snapshot each restored document
 * cites (by the document's SHA-256), so restoring its chunks neither re-reads nor re-parses it.
 */
export class RestoreContext {
  readonly documents = new Map<string, { snapshotId: string }>();
}

/** The chunk target's other file: the document's search-index part (versioned: a reader of another format ignores it). */
const indexPartPath = (env: RuleEnv): string => `index-part.p${env.stages.indexPartFormat}`;
/** A segmented search index's other files: its segments, by the file name the manifest gives them. */
const SEGMENT_PATH_PREFIX = 'segments/';

export const CACHEABLE_RULES: Partial<Record<TargetNode['rule'], CacheableRule>> = {
  extract: {
    inspects: 'document',
    restore: (env, node, deps, blobs, context) => {
      const label = `the cached document of ${node.name}`;
      const document = inspectionOf(blobs, 'document');
      const snapshotId = deps[0]?.record.facts?.snapshotId;
      if (document.documentId !== node.source!.documentId)
        throw new Error(`${label} is of document ${JSON.stringify(document.documentId)}`);
      if (document.snapshotId !== snapshotId) throw new Error(`${label} cites another snapshot`);
      context.documents.set(blobs.output.sha256, { snapshotId });
      return {
        bytes: blobs.output.bytes,
        sha256: blobs.output.sha256,
        outputPath: perDocumentPath(env.ws.outputs.specs, node.source!.documentId),
        facts: document.facts,
      };
    },
  },
  chunk: {
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
      if (chunks.documentId !== node.source!.documentId) throw new Error(`${label} are of document ${JSON.stringify(chunks.documentId)}`);
      if (chunks.citedSnapshotId !== null && chunks.citedSnapshotId !== document.snapshotId)
        throw new Error(`${label} cite another snapshot`);
      return {
        bytes: blobs.output.bytes,
        sha256: blobs.output.sha256,
        outputPath: perDocumentPath(env.ws.outputs.chunks, node.source!.documentId),
        facts: {
          citedSnapshotId: document.snapshotId,
          // No documentContentHash: it only lets a later snapshot with the same extracted content restamp
          // these chunks instead of chunking again (rules.ts reusableChunks), and computing it re-serialises
          // the whole document, about a third of a restore's CPU. Without it that rare case chunks afresh.
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
        const cached = fs.readFileSync(file, 'utf8');
        if (unsealPart(cached, key) !== null) return new Map([[indexPartPath(env), Buffer.from(cached, 'utf8')]]);
      } catch {
        // not cached yet: make it
      }
      const text = typeof output.bytes === 'string' ? output.bytes : output.bytes.toString('utf8');
      const chunks = (JSON.parse(text) as { payload: { chunks: Chunk[] } }).payload.chunks;
      const sealed = sealPart(env.stages.buildDocumentPart(node.source!.documentId, chunks), key);
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
  'search-index': {
    restore: (env, node, deps, blobs) => {
      const label = `the cached search index of ${node.name}`;
      // A segmented index (a manifest) opens each segment it names from the other files of the entry:
      // the blob of the very file it recorded (fingerprint, seal, sizes and counts; loadSearchIndex), whose
      // fingerprint is recomputed over its bytes like any restored artifact's.
      const segments: string[] = [];
      const index = loadSearchIndex(blobs.output.bytes, label, (name) => {
        const blob = blobs.others.get(SEGMENT_PATH_PREFIX + name);
        if (blob === undefined) throw new Error('the cache entry does not hold it');
        checkFingerprint(blob.bytes, SEGMENT_ARTIFACT_KIND, `${label} segment ${name}`);
        segments.push(name);
        return memorySource(blob.bytes);
      });
      if (blobs.others.size !== segments.length) throw new Error(`${label} comes with files its manifest does not name`);
      const dep = deps[0]!;
      const chunkIndexBytes = readDependencyOutput(env, dep.name, dep.record.output, dep.record.sha256);
      // Every segment of a segmented chunk index is checked against its manifest (and that against its fingerprint).
      const chunkIndex = readStageIndex(abs(env.ws, env.ws.outputs.chunks), 'chunk-index', {
        dirLabel: env.ws.outputs.chunks,
        indexBytes: chunkIndexBytes,
      });
      // Bound to this workspace's chunk index: the one it was built from, and not a partial build.
      if (
        index.provenance.chunkIndexFingerprint !== chunkIndex.fingerprint ||
        index.provenance.chunkIndexCrc32 !== crc32Hex(chunkIndexBytes)
      )
        throw new Error(`${label} was built from another chunk index`);
      if (index.provenance.missingSources.length > 0) throw new Error(`${label} is partial`);
      const output: RuleOutput = { bytes: blobs.output.bytes, sha256: blobs.output.sha256, outputPath: () => node.name };
      if (segments.length === 0) return output;
      // Cut as this workspace cuts its documents, so the next build reuses each segment by its key.
      const { ends, keys } = segmentPlan(env, chunkIndex.entries);
      const entries = (JSON.parse(blobs.output.bytes.toString('utf8')) as { payload: { manifest: IndexManifest } }).payload.manifest
        .segments;
      if (ends.length !== entries.length || entries.some((entry, i) => entry[2] !== ends[i]! - (i === 0 ? 0 : ends[i - 1]!)))
        throw new Error(`${label} is not cut into the segments this workspace cuts`);
      const files = entries.map((entry) => `${env.ws.outputs.chunks}/${entry[0]}`);
      const facts: SegmentFact[] = entries.map((entry, i) => [
        keys[i]!,
        entry,
        blobs.others.get(SEGMENT_PATH_PREFIX + entry[0])!.sha256,
        NO_STAMP,
      ]);
      output.facts = { segmentFiles: files.join(' '), segments: JSON.stringify(facts) };
      return output;
    },
    takes: (_env, path) => path.startsWith(SEGMENT_PATH_PREFIX),
    install: (env, _node, output, blobs) => {
      const facts = segmentFactsOf({ facts: output.facts } as TargetRecord);
      // Written durably before the manifest that names them (the scheduler writes it next), as the rule does.
      for (const fact of facts) {
        const file = abs(env.ws, `${env.ws.outputs.chunks}/${fact[1][0]}`);
        writeFileIfChanged(file, blobs.others.get(SEGMENT_PATH_PREFIX + fact[1][0])!.bytes, true);
        fact[3] = statStamp(file)!;
      }
      output.facts = { ...output.facts, segments: JSON.stringify(facts) };
    },
    others: (env, _node, output) => {
      const others = new Map<string, Buffer>();
      const record = { facts: output.facts } as TargetRecord;
      for (const fact of segmentFactsOf(record)) {
        let bytes: Buffer;
        try {
          bytes = fs.readFileSync(abs(env.ws, `${env.ws.outputs.chunks}/${fact[1][0]}`));
        } catch {
          return null;
        }
        if (sha256Hex(bytes) !== fact[2]) return null; // edited since it was built: not uploaded under this key
        others.set(SEGMENT_PATH_PREFIX + fact[1][0], bytes);
      }
      return others;
    },
    // A segment of an earlier build of this workspace (e.g. before one document changed) is not downloaded again.
    localCopy: (env, path) =>
      path.startsWith(SEGMENT_PATH_PREFIX) && SEGMENT_FILE_NAME.test(path.slice(SEGMENT_PATH_PREFIX.length))
        ? abs(env.ws, `${env.ws.outputs.chunks}/${path.slice(SEGMENT_PATH_PREFIX.length)}`)
        : null,
  },
};

/**
 * A restored segment's stamp until install writes its file and stamps it: one no file has, so were it
 * ever recorded, the next check of the segment would fall back to its SHA-256.
 */
const NO_STAMP: SegmentFact[3] = { size: -1, mtimeMs: '', ctimeMs: '', ino: -1 };

/** The inspection of a rule that inspects (its absence or another kind is a bug, not a cache defect). */
function inspectionOf<K extends InspectTask['kind']>(blobs: RestoredBlobs, kind: K): Extract<Inspection, { ok: true; kind: K }> {
  const inspection = blobs.inspection;
  if (inspection?.kind !== kind) throw new Error(`no ${kind} inspection of the restored blobs`);
  return inspection as Extract<Inspection, { ok: true; kind: K }>;
}
