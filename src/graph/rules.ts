import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import type { Chunk, EvidenceDocument, SnapshotMeta } from '../document/types.js';
import { documentContentHash, restampChunks, type StampedChunks } from '../chunk/snapshot-provenance.js';
import { CHUNKS_FORMAT_VERSION } from '../rule-versions.js';
import { PRODUCER_NAME, PRODUCER_VERSION } from '../version.js';
import { EpistemeError, type Warning } from '../failure.js';
import { canonicalJson, canonicalJsonFile, compareCodeUnits } from '../store/canonical-json.js';
import { fastHash, sha256Hex } from '../store/hash.js';
import { parseArtifact } from '../store/artifact.js';
import { readBoundedFile } from '../store/bounded-read.js';
import { writeFileAtomic, writeFileIfChanged } from '../store/atomic-file.js';
import { crc32Hex, planSegments } from '../index/index-layout.js';
import {
  parseStageIndex,
  readStageIndex,
  readStageSegment,
  stageIndexBytes,
  stageManifestBytes,
  stageSegmentBytes,
  stageSegmentFileName,
  type ParsedStageIndex,
  type StageIndexEntry,
  type StageIndexKind,
  type StageIndexPayload,
  type StageSegmentRef,
} from '../store/stage-index.js';
import { namedOptions, type DirtyReason } from './key.js';
import { diagnosticFacts } from './diagnostics.js';
import type { CaptureRun } from '../capture/run.js';
import { snapshotFacts, snapshotMetaFromFacts } from '../capture/snapshot-facts.js';
import { targetNames, type RuleId, type TargetNode } from './graph.js';
import type { BuildState, TargetRecord } from './state.js';
import { sameStamp, stampOf, statStamp } from './state.js';
import { segmentFactsOf, type SegmentFact, type StageSegmentTuple } from './segment-facts.js';
import type { StagePool } from './stage-pool.js';
import type { StageModules } from './stage-modules.js';
import type { TargetCache } from '../cache/target-cache.js';

/**
 * One rule per kind of target: which options shape it, which source files it reads, and how it turns
 * its inputs into bytes. Rules never write their own outputs: the scheduler hashes, stores and records
 * what `run` returns, so every rule gets content addressing, early cutoff and crash safety.
 */
export { STAGE_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../rule-versions.js';

export interface RuleEnv {
  ws: Workspace;
  state: BuildState;
  pool: StagePool;
  /** Loaded once per build, so keys are computed synchronously. */
  stages: StageModules;
  /** Named options shared by every target of a rule, computed once per build. */
  shared: { chunk: Record<string, string>; index: Record<string, string> };
  /** Refresh policy, clock reading, source budget and fetch limit of this run's HTTP captures. */
  capture: CaptureRun;
  /** Diagnostics for the build summary (e.g. a damaged cache entry that was dropped and rebuilt). */
  warnings: Warning[];
  /** The action cache (--remote-cache), consulted before a rule runs. */
  cache?: TargetCache;
}

export interface DepView {
  name: string;
  /** The SHA-256 of the dependency's output, as its record holds it (known without reading the record). */
  sha256: string;
  /** The dependency's record, read when first used. */
  record: TargetRecord;
  source: TargetNode['source'];
}

export interface RuleOutput {
  bytes: string | Buffer;
  /** Workspace-relative output path for these bytes (content-addressed for per-document targets). */
  outputPath(sha256: string): string;
  facts?: Record<string, string>;
  /** The SHA-256 of `bytes` when already computed from them (a restored output, checked on download). */
  sha256?: string;
}

export interface Rule {
  version(env: RuleEnv): number;
  /** Named options; the result may be shared between targets and must not be mutated. */
  options(env: RuleEnv, node: TargetNode, deps: DepView[]): Record<string, string>;
  sourceInputs?(env: RuleEnv, node: TargetNode): Record<string, string>;
  run(env: RuleEnv, node: TargetNode, deps: DepView[], missing: string[]): Promise<RuleOutput>;
  /**
   * For a target whose key and output are current: a reason to run it anyway (an HTTP snapshot asked to
   * be refreshed). Keys stay free of the clock; only this decision may read it.
   */
  refreshReason?(env: RuleEnv, node: TargetNode, record: TargetRecord): DirtyReason | null;
}

export function abs(ws: Workspace, relative: string): string {
  return path.join(ws.root, relative);
}

/** Reads a file named by a record or index and checks its SHA-256; a mismatch names the file. */
export function readVerified(ws: Workspace, relative: string, sha256: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(abs(ws, relative));
  } catch {
    throw new EpistemeError('artifact-invalid', `${relative} is missing.`, {
      hint: 'Rebuild with `episteme build`.',
      details: { file: relative },
    });
  }
  if (sha256Hex(bytes) !== sha256) {
    throw new EpistemeError('artifact-invalid', `${relative} does not match its recorded SHA-256 (tampered or truncated).`, {
      hint: 'Rebuild with `episteme build`.',
      details: { file: relative },
    });
  }
  return bytes;
}

/**
 * Reads a dependency's recorded output, verified. A file that fails its hash although its stat stamp
 * did not change (bit rot, an edit that forged the stamp) is never used: the producing target's record
 * is dropped, so the next build rebuilds it instead of failing on it forever, and this target fails.
 */
export function readDependencyOutput(env: RuleEnv, producer: string, relative: string, sha256: string): Buffer {
  try {
    return readVerified(env.ws, relative, sha256);
  } catch (error) {
    env.state.recordTarget(producer, null);
    if (error instanceof EpistemeError) {
      throw new EpistemeError(error.code, `${error.message} It was dropped from the build state.`, {
        hint: 'Run `episteme build` again: it rebuilds the damaged file.',
        details: { file: relative, target: producer },
      });
    }
    throw error;
  }
}

function isIntact(absolutePath: string, sha256: string): boolean {
  try {
    return sha256Hex(fs.readFileSync(absolutePath)) === sha256;
  } catch {
    return false;
  }
}

/** Content hash of a source file, trusting the recorded hash while size, mtime and inode are unchanged. */
export function sourceFileHash(env: RuleEnv, relative: string, absolutePath: string, knownStat?: fs.Stats): string {
  const stamp = knownStat ? stampOf(knownStat) : statStamp(absolutePath);
  if (stamp === null) return 'missing';
  const known = env.state.files.get(relative);
  if (known && sameStamp(known, stamp)) return known.hash;
  // Never hash what the snapshot rule will refuse: a file past limits.maxFileBytes (a 2 GB sparse
  // file costs one stat, not a 2 GB read) or one that is not a regular file. The key still changes
  // with the file's size, and the rule's run() fails the target with the reason.
  if (stamp.size > env.ws.limits.maxFileBytes) return `over-bound:${stamp.size}`;
  let bytes: Buffer;
  try {
    bytes = readBoundedFile(absolutePath, { label: 'Source file', maxBytes: env.ws.limits.maxFileBytes });
  } catch (error) {
    if (error instanceof EpistemeError) return `unreadable:${error.code}`;
    throw error;
  }
  const hash = fastHash(bytes);
  env.state.recordFile(relative, { ...stamp, hash });
  return hash;
}

export function perDocumentPath(dir: string, documentId: string): (sha256: string) => string {
  return (sha256) => `${dir}/${documentId}.${sha256.slice(0, 16)}.json`;
}

const snapshot: Rule = {
  version: () => 1,
  options: (_env, node) => {
    const capture = node.source!.capture;
    // HTTP: nothing but the URL shapes the key; the recorded snapshot pins it until a refresh is asked for.
    if (capture.method === 'http') return namedOptions('snapshot', { sourceUrl: node.source!.spec.url, method: capture.method });
    return namedOptions('snapshot', {
      sourceUrl: node.source!.spec.url,
      method: capture.method,
      contentType: capture.contentType,
      charset: capture.charset,
    });
  },
  sourceInputs: (env, node) => {
    const capture = node.source!.capture;
    if (capture.method === 'http') return {};
    return { [capture.relativePath]: sourceFileHash(env, capture.relativePath, capture.absolutePath, capture.stat) };
  },
  refreshReason: (env, node, record) => {
    if (node.source!.capture.method !== 'http') return null;
    const due = env.capture.refreshDue(record.facts?.observedAt);
    return due ? { reason: 'refresh-requested', ...due } : null;
  },
  run: async (env, node) => {
    const capture = node.source!.capture;
    if (capture.method === 'http') {
      // A damaged body of a recorded HTTP snapshot cannot be recomputed, and a plain build does not
      // fetch what it has recorded: say exactly how to recapture it.
      const previous = env.state.targets.get(node.name);
      const body = previous?.facts?.body;
      if (
        previous &&
        body &&
        previous.facts?.sha256 &&
        !isIntact(abs(env.ws, body), previous.facts.sha256) &&
        !env.capture.refreshDue(previous.facts.observedAt)
      ) {
        throw new EpistemeError(
          'artifact-invalid',
          `${body}, the captured body of ${node.source!.spec.url}, is missing or fails its SHA-256 (damaged); ` +
            'an HTTP capture cannot be rebuilt offline.',
          {
            hint: `Recapture it: episteme build --refresh ${node.name}`,
            details: { file: body, target: node.name, url: node.source!.spec.url },
          },
        );
      }
      if (env.capture.request.offline) {
        // Offline, an intact recorded snapshot is kept as it is (its key may have moved with the
        // producer version); only a source never captured, or whose capture is gone, is an error.
        const { usablePrevious } = await import('../capture/http-snapshot.js');
        const kept = usablePrevious({ root: env.ws.root, url: node.source!.spec.url, previous });
        if (kept) return { bytes: kept.bytes, outputPath: () => kept.output, facts: kept.facts };
        throw new EpistemeError('snapshot-missing', `${node.source!.spec.url} has no recorded snapshot, and this command runs offline.`, {
          hint: 'Capture it first with `episteme snapshot` (or `episteme build`, which captures what is missing, then extracts).',
          details: { url: node.source!.spec.url, target: node.name },
        });
      }
      // Loaded on first use: got is not needed by builds that capture nothing over HTTP.
      const { captureHttpSnapshot } = await import('../capture/http-snapshot.js');
      const captured = await captureHttpSnapshot({
        snapshotsDir: env.ws.outputs.snapshots,
        root: env.ws.root,
        documentId: node.source!.documentId,
        url: node.source!.spec.url,
        run: env.capture,
        previous: env.state.targets.get(node.name),
        metaFor: snapshotMetaFor,
      });
      return { bytes: captured.bytes, outputPath: () => captured.output, facts: captured.facts };
    }
    let body: Buffer;
    try {
      // Size and kind are checked on the opened descriptor before the first byte is read.
      body = readBoundedFile(capture.absolutePath, { label: 'Source file', maxBytes: env.ws.limits.maxFileBytes });
    } catch (error) {
      if (!(error instanceof EpistemeError)) throw error;
      const details = {
        file: capture.relativePath,
        reason: error.code,
        ...(error.code === 'input-too-large' ? { size: error.details?.size, maxBytes: env.ws.limits.maxFileBytes } : {}),
      };
      if (error.code === 'input-too-large') {
        throw new EpistemeError(
          'source-failed',
          `${capture.relativePath} is ${String(error.details?.size)} bytes, over the ${env.ws.limits.maxFileBytes}-byte bound.`,
          {
            hint: 'Raise limits.maxFileBytes in the workspace config if the file is trusted.',
            details,
          },
        );
      }
      throw new EpistemeError(
        'source-failed',
        `Cannot read ${capture.relativePath}: it ${String(error.details?.problem ?? 'cannot be read')}.`,
        { details, cause: error },
      );
    }
    const meta = snapshotMetaFor(node.source!.spec.url, capture.method, capture.contentType, capture.charset, body);
    const bodyPath = `${env.ws.outputs.snapshots}/bodies/${meta.sha256}`;
    // Content-addressed, so the file's bytes are known: a damaged or truncated body is rewritten.
    const existed = fs.existsSync(abs(env.ws, bodyPath));
    if (writeFileIfChanged(abs(env.ws, bodyPath), body) && existed) {
      env.warnings.push({
        code: 'snapshot-repaired',
        target: node.name,
        message: `${bodyPath} was damaged; rewritten from ${capture.relativePath}, which still has the recorded SHA-256.`,
      });
    }
    return {
      bytes: canonicalJsonFile(meta),
      outputPath: () => `${env.ws.outputs.snapshots}/records/${meta.snapshotId}.json`,
      facts: snapshotFacts(meta, bodyPath),
    };
  },
};

/** The snapshot id is derived from the representation (URL, bytes, content type, charset), never the clock. */
export function snapshotMetaFor(
  sourceUrl: string,
  captureMethod: SnapshotMeta['captureMethod'],
  contentType: string,
  charset: string | null,
  body: Uint8Array,
): SnapshotMeta {
  const sha256 = sha256Hex(body);
  const snapshotId = 'snap-' + sha256Hex(canonicalJson({ sourceUrl, sha256, contentType, charset })).slice(0, 32);
  return { snapshotId, sourceUrl, captureMethod, contentType, charset, sha256, byteLength: body.byteLength };
}

/**
 * A snapshot's body, verified. A damaged body of a local source is repaired on the spot when the local
 * file still has the recorded SHA-256 (the snapshot is the same representation); otherwise the
 * snapshot's record is dropped so the next build captures the source again (a changed local file is
 * then a new snapshot; an HTTP source needs `--refresh`).
 */
function readSnapshotBody(env: RuleEnv, node: TargetNode, snapshotTarget: string, bodyPath: string, sha256: string): Buffer {
  const capture = node.source!.capture;
  try {
    return readVerified(env.ws, bodyPath, sha256);
  } catch (error) {
    if (capture.method !== 'http') {
      let local: Buffer | null = null;
      try {
        if (fs.statSync(capture.absolutePath).size <= env.ws.limits.maxFileBytes) local = fs.readFileSync(capture.absolutePath);
      } catch {
        local = null;
      }
      if (local !== null && sha256Hex(local) === sha256) {
        writeFileAtomic(abs(env.ws, bodyPath), local);
        env.warnings.push({
          code: 'snapshot-repaired',
          target: snapshotTarget,
          message: `${bodyPath} was damaged; rewritten from ${capture.relativePath}, which still has the recorded SHA-256.`,
        });
        return local;
      }
    }
    env.state.recordTarget(snapshotTarget, null);
    throw new EpistemeError(
      'artifact-invalid',
      `${bodyPath}, the captured body of ${node.source!.spec.url}, is missing or fails its SHA-256 (damaged).`,
      {
        hint:
          capture.method === 'http'
            ? `Recapture it: episteme build --refresh ${snapshotTarget}`
            : 'Run `episteme build` again: the source is captured again from its local file.',
        details: { file: bodyPath, target: snapshotTarget, cause: error instanceof Error ? error.message : String(error) },
      },
    );
  }
}

const extract: Rule = {
  version: (env) => env.stages.extractRuleVersion,
  options: (env, node, deps) => {
    const { extractionConfig, extractOptions } = env.stages;
    const meta = snapshotMetaFromFacts(deps[0]!.record.facts ?? {});
    return namedOptions('extract', extractionConfig(node.source!.spec, meta, extractOptions(env.ws.options.extract), env.ws.families));
  },
  run: async (env, node, deps) => {
    const { extractOptions, extractionConfig, extractTimeoutMs } = env.stages;
    const facts = deps[0]!.record.facts ?? {};
    const meta = snapshotMetaFromFacts(facts);
    const body = readSnapshotBody(env, node, deps[0]!.name, facts.body!, meta.sha256);
    const options = extractOptions(env.ws.options.extract);
    const extractor = extractionConfig(node.source!.spec, meta, options, env.ws.families)['extractor'] as Parameters<
      typeof extractTimeoutMs
    >[1];
    // Workspace families travel with the task: a worker knows only the built-in rules.
    const families = env.ws.families.length > 0 ? { families: env.ws.families } : {};
    const bytes = await env.pool.run(
      {
        stage: 'extract',
        input: { documentId: node.source!.documentId, source: node.source!.spec, snapshot: meta, body, options, ...families },
      },
      { timeoutMs: extractTimeoutMs(options, extractor), label: node.source!.documentId },
    );
    return { bytes, outputPath: perDocumentPath(env.ws.outputs.specs, node.source!.documentId), facts: diagnosticFacts(bytes) };
  },
};

const chunk: Rule = {
  version: (env) => env.stages.chunkRuleVersion,
  options: (env) => env.shared.chunk,
  run: async (env, node, deps) => {
    const { chunkOptions } = env.stages;
    const documentBytes = readDependencyOutput(env, deps[0]!.name, deps[0]!.record.output, deps[0]!.record.sha256);
    const document = (JSON.parse(documentBytes.toString('utf8')) as { payload: EvidenceDocument }).payload;
    const documentContent = documentContentHash(document);
    // A new snapshot with the same extracted content (a reflowed paragraph, a new charset label with the
    // same text) only changes which snapshot the chunks cite: restamp the previous chunks instead of
    // chunking again. The bytes equal a fresh chunking's, so the workspace still equals a clean build.
    const stamped =
      reusableChunks(env, node, documentContent, document.provenance.snapshotId) ??
      restampChunks(
        await env.pool.run({
          stage: 'chunk',
          documentId: node.source!.documentId,
          documentBytes,
          options: chunkOptions(env.ws.options.chunk),
        }),
        document.provenance.snapshotId,
      );
    return {
      bytes: stamped.bytes,
      outputPath: perDocumentPath(env.ws.outputs.chunks, node.source!.documentId),
      facts: { citedSnapshotId: stamped.snapshotId, documentContentHash: documentContent, chunksContentHash: stamped.contentHash },
    };
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

const NO_OPTIONS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/**
 * Records whose output file this process wrote from the very bytes whose SHA-256 the record holds (the
 * scheduler adds them). A stage index needs not read such a file back to vouch for its hash; a record
 * read from the state, or replaced since, is not in the set and is read and checked as before.
 */
export const WRITTEN_FROM_HASHED_BYTES = new WeakSet<TargetRecord>();

/**
 * Stage indexes: the atomic commit point of a stage, naming each document's file and its SHA-256. Above
 * SINGLE_FILE_MAX_DOCUMENTS entries, a manifest naming segment files (store/stage-index.ts): an edit
 * serialises, hashes and writes only the segments whose entries changed.
 */
function stageIndex(kind: StageIndexKind, dirOf: (ws: Workspace) => string): Rule {
  return {
    // The format shapes the bytes: a workspace committed in another format is rebuilt, not reused.
    version: () => STAGE_INDEX_FORMAT_VERSION,
    options: () => NO_OPTIONS,
    run: async (env, node, deps, missing) => {
      const dir = dirOf(env.ws);
      // The index vouches for the SHA-256 of every file it names: a file is checked the first time an
      // index names it with that hash (unchanged entries were checked when first committed). A record
      // whose hash does not match its file (bit rot under an unchanged stamp, a forged state) fails
      // this commit once and is dropped, so the next build rebuilds it rather than committing it.
      const previous = env.state.targets.get(node.name);
      const committed = previous?.components.inputs ?? {};
      // An output this process wrote from bytes it hashed (WRITTEN_FROM_HASHED_BYTES) is not read back.
      for (const dep of deps)
        if (committed[dep.name] !== dep.sha256 && !WRITTEN_FROM_HASHED_BYTES.has(dep.record))
          readDependencyOutput(env, dep.name, dep.record.output, dep.sha256);
      // An entry is a function of the source and the dependency's output bytes (its path and facts
      // follow from them). It comes from this process's memory (a watch), else from the committed index
      // for an output that index already names, else from the dependency's record: an edit reads the
      // records of the dependencies that changed, not of all of them, and serialises only their entries.
      let committedEntries: CommittedEntries | null = null;
      const memo = rememberedFor(kind, dir);
      const segmentMemo = rememberedSegmentsFor(kind, dir);
      const items = inDocumentIdOrder(node, deps).map((dep): Item => {
        const documentId = dep.source!.documentId;
        const sourceUrl = dep.source!.spec.url;
        return { dep, documentId, sourceUrl, memo: rememberedEntry(memo, documentId, sourceUrl, dep.sha256) };
      });
      const entryOf = (item: Item): MemoEntry => {
        if (item.memo !== undefined) return item.memo;
        const { dep, documentId, sourceUrl } = item;
        if (committed[dep.name] === dep.sha256) {
          committedEntries ??= previous ? committedEntriesOf(env, previous, kind, dir, segmentMemo) : NO_COMMITTED_ENTRIES;
          const kept = committedEntries.get(documentId);
          if (kept !== undefined && kept.entry.sha256 === dep.sha256 && kept.entry.sourceUrl === sourceUrl) {
            memo.set(documentId, kept);
            item.memo = kept;
            return kept;
          }
        }
        item.memo = rememberEntry(memo, stageIndexEntry(kind, dir, dep));
        return item.memo;
      };
      const missingSources = [...missing].sort(compareCodeUnits);
      const ends = planSegments(items.map((item) => item.documentId));
      if (ends.length === 1) {
        segmentMemo.clear();
        const entries = items.map(entryOf);
        const bytes = stageIndexBytes(
          kind,
          entries.map((entry) => entry.text),
          missingSources,
        );
        // The search index reads this chunk index back: it takes these entries instead of parsing it.
        if (kind === 'chunk-index') builtChunkIndex = { bytes, entries: () => entries.map((entry) => entry.entry), missingSources };
        return { bytes, outputPath: () => node.name };
      }
      // Segmented. A segment is reused as it is on disk (when still intact: stat, else SHA-256) when its
      // key, the document id, source URL and output SHA-256 of each entry (which determine the entries,
      // as rememberedEntry assumes too), is a recorded segment's: compared field by field with a segment
      // this process remembers (a watch: no hashing), else hashed and looked up in the record (a one-shot
      // edit: the unchanged segments are not even read). Only the others are serialised, hashed and
      // written, durably, before the manifest that names them is committed (the scheduler writes it),
      // each from its entries: remembered, else from the committed index, else from records.
      const recorded = new Map<string, SegmentFact<StageSegmentTuple>>();
      for (const fact of segmentFactsOf<StageSegmentTuple>(previous)) recorded.set(fact[0], fact);
      const intact = (fact: SegmentFact<StageSegmentTuple> | undefined): boolean =>
        fact !== undefined && segmentIntact(env, `${dir}/${fact[1][0]}`, fact);
      const facts: SegmentFact<StageSegmentTuple>[] = [];
      const kept = new Map<string, RememberedSegment>();
      let start = 0;
      for (const end of ends) {
        const members = items.slice(start, end);
        start = end;
        const firstId = members[0]!.documentId;
        let fact: SegmentFact<StageSegmentTuple> | undefined;
        let remembered = segmentMemo.get(firstId);
        if (remembered !== undefined && sameTriples(remembered.triples, members)) {
          fact = recorded.get(remembered.key) ?? [remembered.key, remembered.tuple, remembered.sha256, NO_STAMP];
          if (fact[2] !== remembered.sha256 || !intact(fact)) fact = undefined;
        } else remembered = undefined;
        const triples = remembered?.triples ?? members.map((item): Triple => [item.documentId, item.sourceUrl, item.dep.sha256]);
        const key = remembered?.key ?? segmentKeyOf(kind, dir, triples);
        if (fact === undefined) {
          const known = recorded.get(key);
          if (intact(known)) fact = known;
        }
        if (fact === undefined) {
          const entries = members.map(entryOf);
          const bytes = stageSegmentBytes(
            kind,
            entries.map((entry) => entry.text),
          );
          const sha256 = sha256Hex(bytes);
          const tuple: StageSegmentTuple = [stageSegmentFileName(sha256), entries.length, firstId, members.at(-1)!.documentId];
          const file = abs(env.ws, `${dir}/${tuple[0]}`);
          writeFileIfChanged(file, bytes, true);
          fact = [key, tuple, sha256, statStamp(file)!];
        }
        kept.set(firstId, { triples, key, tuple: fact[1], sha256: fact[2] });
        facts.push(fact);
      }
      // Only this build's segments stay remembered: the memory stays the size of the corpus.
      segmentMemo.clear();
      for (const [first, segment] of kept) segmentMemo.set(first, segment);
      const refs = facts.map(
        ([, [file, entries, firstDocumentId, lastDocumentId], sha256]): StageSegmentRef => ({
          entries,
          file,
          firstDocumentId,
          lastDocumentId,
          sha256,
        }),
      );
      const bytes = stageManifestBytes(kind, refs, missingSources);
      // Entries of segments reused unread come from the records, read only if the search index asks.
      if (kind === 'chunk-index')
        builtChunkIndex = {
          bytes,
          entries: () => items.map((item) => item.memo?.entry ?? stageIndexEntry(kind, dir, item.dep)),
          missingSources,
        };
      return {
        bytes,
        outputPath: () => node.name,
        facts: {
          segmentFiles: refs.map((ref) => `${dir}/${ref.file}`).join(' '),
          segments: JSON.stringify(facts),
        },
      };
    },
  };
}

/** Per stage-index target: its dependencies' sources in the order last given, and their document-id order. */
const documentIdOrders = new WeakMap<TargetNode, { sources: TargetNode['source'][]; order: number[] }>();

/**
 * The dependencies sorted by document id (code units). The order is a function of their sources, which
 * a watch keeps from build to build with the graph: sorted once, then checked by identity.
 */
function inDocumentIdOrder(node: TargetNode, deps: readonly DepView[]): DepView[] {
  let known = documentIdOrders.get(node);
  if (known === undefined || known.sources.length !== deps.length || deps.some((dep, i) => dep.source !== known!.sources[i])) {
    const sources = deps.map((dep) => dep.source);
    const order = sources.map((_, i) => i).sort((x, y) => compareCodeUnits(sources[x]!.documentId, sources[y]!.documentId));
    known = { sources, order };
    documentIdOrders.set(node, known);
  }
  return known.order.map((i) => deps[i]!);
}

/** A dependency of a stage index, with its remembered entry when there is one. */
interface Item {
  dep: DepView;
  documentId: string;
  sourceUrl: string;
  memo: MemoEntry | undefined;
}

/**
 * A segment's key: what its entries are a function of (as rememberedEntry assumes too: an entry follows
 * from its source and its dependency's output bytes), with the stage, format and producer its bytes
 * name. Strings and numbers in arrays only: JSON.stringify writes their canonical JSON.
 */
function segmentKeyOf(kind: StageIndexKind, dir: string, triples: readonly Triple[]): string {
  return sha256Hex(JSON.stringify([kind, dir, STAGE_INDEX_FORMAT_VERSION, PRODUCER_VERSION, triples]));
}

/** A stamp no file has: a segment recorded with it is checked by its SHA-256. */
const NO_STAMP: SegmentFact[3] = { size: -1, mtimeMs: '', ctimeMs: '', ino: -1 };

/** [document id, source URL, output SHA-256]: what a stage-index entry is a function of. */
type Triple = [documentId: string, sourceUrl: string, sha256: string];

/** Whether the items are exactly these, in order. */
function sameTriples(triples: readonly Triple[], items: readonly Item[]): boolean {
  if (triples.length !== items.length) return false;
  for (let i = 0; i < items.length; i++) {
    const [documentId, sourceUrl, sha256] = triples[i]!;
    const item = items[i]!;
    if (item.documentId !== documentId || item.sourceUrl !== sourceUrl || item.dep.sha256 !== sha256) return false;
  }
  return true;
}

/** A committed index's entries by document id, read on demand (a manifest's segments one at a time). */
interface CommittedEntries {
  get(documentId: string): MemoEntry | undefined;
}

const NO_COMMITTED_ENTRIES: CommittedEntries = { get: () => undefined };

/**
 * The entries of a committed stage index, or none when its file is gone, damaged or of another format.
 * A manifest's segment is read (verified against the manifest) when one of its documents is first asked
 * for; its entries become remembered entries, and the segment a remembered segment when this producer
 * wrote it (its bytes are then those this build would write for the same entries).
 */
function committedEntriesOf(
  env: RuleEnv,
  record: TargetRecord,
  kind: StageIndexKind,
  dir: string,
  segmentMemo: Map<string, RememberedSegment>,
): CommittedEntries {
  let index: ParsedStageIndex;
  try {
    const bytes = readVerified(env.ws, record.output, record.sha256);
    index = parseStageIndex(bytes.toString('utf8'), kind, record.output, true);
  } catch {
    return NO_COMMITTED_ENTRIES;
  }
  const byId = new Map<string, MemoEntry>();
  const asMemo = (entry: StageIndexEntry): MemoEntry => ({ entry, text: canonicalJson(entry) });
  if (index.entries !== null) {
    for (const entry of index.entries) byId.set(entry.documentId, asMemo(entry));
    return byId;
  }
  const segments = index.segments!;
  const loaded = new Set<number>();
  return {
    get: (documentId) => {
      const known = byId.get(documentId);
      if (known !== undefined) return known;
      // The segment whose first document id is the last one not after this id.
      let low = 0;
      let high = segments.length - 1;
      let at = -1;
      while (low <= high) {
        const mid = (low + high) >> 1;
        if (compareCodeUnits(segments[mid]!.firstDocumentId, documentId) <= 0) {
          at = mid;
          low = mid + 1;
        } else high = mid - 1;
      }
      if (at < 0 || loaded.has(at)) return undefined;
      loaded.add(at);
      const ref = segments[at]!;
      let read: { entries: StageIndexEntry[]; producer: { name: string; version: string } };
      try {
        read = readStageSegment(abs(env.ws, dir), dir, kind, ref);
      } catch {
        return undefined; // gone or damaged: its entries come from the records, and it is written again
      }
      const members = read.entries.map(asMemo);
      for (const member of members) byId.set(member.entry.documentId, member);
      if (read.producer.name === PRODUCER_NAME && read.producer.version === PRODUCER_VERSION) {
        const triples = read.entries.map((e): Triple => [e.documentId, e.sourceUrl, e.sha256]);
        const tuple: StageSegmentTuple = [ref.file, ref.entries, ref.firstDocumentId, ref.lastDocumentId];
        segmentMemo.set(ref.firstDocumentId, { triples, key: segmentKeyOf(kind, dir, triples), tuple, sha256: ref.sha256 });
      }
      return byId.get(documentId);
    },
  };
}

/**
 * Each entry's canonical JSON, remembered per index and document for the output it describes (a
 * long-running watch keeps them), so an edit serialises the entries it changed rather than the whole
 * corpus. One per index and document: the memory stays the size of the corpus however long it runs.
 * An entry is never mutated: a segment made of the same entry objects has the same bytes.
 */
interface MemoEntry {
  readonly entry: StageIndexEntry;
  readonly text: string;
}
const rememberedEntries = new Map<string, Map<string, MemoEntry>>();

/** The entries remembered for one stage index (by its kind and folder), by document id. */
function rememberedFor(kind: string, dir: string): Map<string, MemoEntry> {
  const scope = `${kind}\0${dir}`;
  let entries = rememberedEntries.get(scope);
  if (entries === undefined) {
    entries = new Map();
    rememberedEntries.set(scope, entries);
  }
  return entries;
}

/** A segment this process wrote, reused or read verified: what its entries are a function of, its key, what its record keeps. */
interface RememberedSegment {
  triples: readonly Triple[];
  key: string;
  tuple: StageSegmentTuple;
  sha256: string;
}
const rememberedSegments = new Map<string, Map<string, RememberedSegment>>();

/** The segments remembered for one stage index, by their first document id. */
function rememberedSegmentsFor(kind: string, dir: string): Map<string, RememberedSegment> {
  const scope = `${kind}\0${dir}`;
  let segments = rememberedSegments.get(scope);
  if (segments === undefined) {
    segments = new Map();
    rememberedSegments.set(scope, segments);
  }
  return segments;
}

function rememberedEntry(memo: Map<string, MemoEntry>, documentId: string, sourceUrl: string, sha256: string): MemoEntry | undefined {
  const known = memo.get(documentId);
  return known !== undefined && known.entry.sourceUrl === sourceUrl && known.entry.sha256 === sha256 ? known : undefined;
}

function rememberEntry(memo: Map<string, MemoEntry>, entry: StageIndexEntry): MemoEntry {
  const remembered = { entry, text: canonicalJson(entry) };
  memo.set(entry.documentId, remembered);
  return remembered;
}

function stageIndexEntry(kind: StageIndexKind, dir: string, dep: DepView): StageIndexEntry {
  const entry: StageIndexEntry & Record<string, string> = {
    documentId: dep.source!.documentId,
    sourceUrl: dep.source!.spec.url,
    file: dep.record.output.slice(dir.length + 1),
    sha256: dep.record.sha256,
  };
  if (kind === 'snapshot-index') {
    entry.snapshotId = dep.record.facts?.snapshotId ?? '';
    entry.body = (dep.record.facts?.body ?? '').slice(dir.length + 1);
    entry.captureMethod = dep.record.facts?.captureMethod ?? '';
  }
  return entry;
}

/** The chunk index this process built last: its exact bytes (a manifest's, when segmented) and what they hold. */
let builtChunkIndex: { bytes: string; entries: () => StageIndexEntry[]; missingSources: string[] } | null = null;

/**
 * The chunk index in these bytes (verified against its build record), from the build that wrote them
 * when it is this process, else read: a manifest's segments each verified against it. A damaged
 * segment drops the chunk index's record (the next build writes it again) and fails this target.
 */
function chunkIndexOf(env: RuleEnv, producer: string, bytes: Buffer, label: string): { fingerprint: string; payload: StageIndexPayload } {
  const text = bytes.toString('utf8');
  const built = builtChunkIndex;
  if (built !== null && built.bytes === text) {
    const fingerprint = /^\{"artifact":"chunk-index","fingerprint":"(sha256:[0-9a-f]{64})"/.exec(text)?.[1];
    if (fingerprint !== undefined) return { fingerprint, payload: { entries: built.entries(), missingSources: built.missingSources } };
  }
  const dir = path.posix.dirname(label);
  try {
    const index = readStageIndex(abs(env.ws, dir), 'chunk-index', { dirLabel: dir, indexBytes: bytes, verified: true });
    return { fingerprint: index.fingerprint, payload: { entries: index.entries, missingSources: index.missingSources } };
  } catch (error) {
    if (!(error instanceof EpistemeError) || error.details?.file === label) throw error;
    env.state.recordTarget(producer, null);
    throw new EpistemeError(error.code, `${error.message} ${label} was dropped from the build state.`, {
      hint: 'Run `episteme build` again: it rebuilds the chunk index.',
      details: { ...error.details, target: producer },
    });
  }
}

export { stageIndexBytes, type StageIndexEntry, type StageIndexPayload };

const searchIndex: Rule = {
  version: (env) => env.stages.searchIndexRuleVersion,
  options: (env) => env.shared.index,
  run: async (env, node, deps) => {
    const modules = env.stages;
    const chunkIndexPath = deps[0]!.record.output;
    const chunkIndexBytes = readDependencyOutput(env, deps[0]!.name, chunkIndexPath, deps[0]!.record.sha256);
    // Its bytes' SHA-256 is the one the build recorded when it wrote them (readDependencyOutput): re-checking
    // the fingerprint would re-serialise the whole chunk index, a cost that grows with the corpus.
    const chunkIndex = chunkIndexOf(env, deps[0]!.name, chunkIndexBytes, chunkIndexPath);
    const entries = chunkIndex.payload.entries;
    const chunkFacts = chunkFactsOf(env, entries);
    const partOf = (i: number): string => {
      // Per-document postings are a pure function of the chunks' content: cache them by the hash of the
      // chunks without the snapshot they cite, so a one-document change re-tokenises one document and
      // merges, and a new snapshot with the same content only changes the snapshot its document row cites.
      const entry = entries[i]!;
      const { chunksContentHash } = chunkFacts[i]!;
      const partFile = indexPartFile(env, chunksContentHash);
      let part = readCachedPart(env, partFile, chunksContentHash);
      if (part === null) {
        const file = `${env.ws.outputs.chunks}/${entry.file}`;
        const producer = targetNames(env.ws, entry.documentId).chunk;
        const chunks = parseArtifact<{ documentId: string; chunks: Chunk[] }>(
          readDependencyOutput(env, producer, file, entry.sha256).toString('utf8'),
          'document-chunks',
          CHUNKS_FORMAT_VERSION,
          file,
        );
        part = modules.buildDocumentPart(entry.documentId, chunks.payload.chunks);
        writeFileAtomic(partFile, sealPart(part, chunksContentHash));
      }
      return part;
    };
    const snapshotIdsOf = (start: number, end: number): Map<string, string> =>
      new Map(entries.slice(start, end).map((entry, i) => [entry.documentId, chunkFacts[start + i]!.snapshotId]));
    const provenance = {
      chunkIndexFingerprint: chunkIndex.fingerprint,
      chunkIndexCrc32: crc32Hex(chunkIndexBytes),
      missingSources: chunkIndex.payload.missingSources,
    };
    const options = modules.indexOptions(env.ws.options.index);
    // The chunk index lists documents by id, the order segments are cut in (index-layout.ts).
    const { ends, keys } = segmentPlan(env, entries, chunkFacts);
    if (ends.length === 1) {
      const parts = entries.map((_, i) => partOf(i));
      return { bytes: modules.mergeSearchIndex(parts, provenance, options, snapshotIdsOf(0, entries.length)), outputPath: () => node.name };
    }
    // Segmented: a segment whose documents' chunk content, cited snapshots and options are those of a
    // segment of the previous build (its key) is reused as it is on disk; only the others are merged
    // from their parts and written. Segment files are content-addressed and written (durably) before
    // the manifest that names them is committed, so a crash leaves the last commit readable and at most
    // unnamed segment files, which garbage collection removes.
    const previous = new Map<string, SegmentFact>();
    for (const fact of segmentFactsOf(env.state.targets.get(node.name))) previous.set(fact[0], fact);
    const facts: SegmentFact[] = [];
    let start = 0;
    for (const [segment, end] of ends.entries()) {
      const key = keys[segment]!;
      let fact = previous.get(key);
      if (fact === undefined || !segmentIntact(env, `${env.ws.outputs.chunks}/${fact[1][0]}`, fact)) {
        const parts: string[] = [];
        for (let i = start; i < end; i++) parts.push(partOf(i));
        const built = modules.buildSegment(parts, options, snapshotIdsOf(start, end));
        const file = abs(env.ws, `${env.ws.outputs.chunks}/${built.entry[0]}`);
        writeFileIfChanged(file, built.bytes, true);
        fact = [key, built.entry, sha256Hex(built.bytes), statStamp(file)!];
      }
      facts.push(fact);
      start = end;
    }
    const bytes = modules.segmentManifest(
      facts.map((fact) => fact[1]),
      provenance,
      options,
    );
    return {
      bytes,
      outputPath: () => node.name,
      facts: {
        segmentFiles: facts.map((fact) => `${env.ws.outputs.chunks}/${fact[1][0]}`).join(' '),
        segments: JSON.stringify(facts),
      },
    };
  },
};

/**
 * How a chunk index's documents are cut into segments (their ends, exclusive) and each segment's key:
 * everything its bytes depend on (its documents' chunk content and cited snapshots, the options, the
 * format, and the producer its envelope names). Shared by the rule and the remote cache's restore, so a
 * restored segment is reused by the next build as if it had been built here.
 */
export function segmentPlan(
  env: RuleEnv,
  entries: StageIndexEntry[],
  chunkFacts: ChunkFacts[] = chunkFactsOf(env, entries),
): { ends: number[]; keys: string[] } {
  const modules = env.stages;
  const ends = modules.planSegments(entries.map((entry) => entry.documentId));
  if (ends.length === 1) return { ends, keys: [] };
  const options = modules.indexOptions(env.ws.options.index);
  const header = JSON.stringify([modules.searchIndexRuleVersion, PRODUCER_VERSION, options.k1, options.b]);
  const known = header === segmentKeyMemo.header ? segmentKeyMemo.byFirstId : new Map<string, SegmentKeyMemo>();
  const next = new Map<string, SegmentKeyMemo>();
  let start = 0;
  const keys = ends.map((end) => {
    // A segment of the same documents with the same chunk content and cited snapshots as one keyed
    // before has that key (a watch's edit hashes one segment's key, not every segment's).
    const members = entries.slice(start, end);
    const facts = chunkFacts.slice(start, end);
    const memo = known.get(members[0]!.documentId);
    if (memo !== undefined && sameSegmentMembers(memo, members, facts)) {
      next.set(members[0]!.documentId, memo);
      start = end;
      return memo.key;
    }
    const key = sha256Hex(
      // Everything a segment's bytes depend on: its documents' chunk content and cited snapshots, the
      // options, the format, and the producer its envelope names. Strings and numbers in arrays only:
      // JSON.stringify writes the canonical JSON of that, natively.
      JSON.stringify([
        modules.searchIndexRuleVersion,
        PRODUCER_VERSION,
        options.k1,
        options.b,
        entries
          .slice(start, end)
          .map((entry, i) => [entry.documentId, chunkFacts[start + i]!.chunksContentHash, chunkFacts[start + i]!.snapshotId]),
      ]),
    );
    next.set(members[0]!.documentId, { documentIds: members.map((entry) => entry.documentId), facts, key });
    start = end;
    return key;
  });
  segmentKeyMemo = { header, byFirstId: next };
  return { ends, keys };
}

/** A search-index segment's key with what it was computed from (the options apart: the memo's header). */
interface SegmentKeyMemo {
  documentIds: string[];
  facts: ChunkFacts[];
  key: string;
}

/** The segment keys of the last plan, by first document id, for the options (header) they were made with. */
let segmentKeyMemo: { header: string; byFirstId: Map<string, SegmentKeyMemo> } = { header: '', byFirstId: new Map() };

function sameSegmentMembers(memo: SegmentKeyMemo, members: readonly StageIndexEntry[], facts: readonly ChunkFacts[]): boolean {
  if (memo.documentIds.length !== members.length) return false;
  for (let i = 0; i < members.length; i++) {
    const was = memo.facts[i]!;
    const now = facts[i]!;
    if (memo.documentIds[i] !== members[i]!.documentId) return false;
    if (was !== now && (was.chunksContentHash !== now.chunksContentHash || was.snapshotId !== now.snapshotId)) return false;
  }
  return true;
}

type ChunkFacts = { chunksContentHash: string; snapshotId: string };

/** The facts of the chunk files of the last call, by SHA-256: a pure function of the file's bytes. */
let knownChunkFacts = new Map<string, ChunkFacts>();

/** chunkFactsFor each entry, reusing those of files the last call saw (a watch: every file but the edited one). */
function chunkFactsOf(env: RuleEnv, entries: readonly StageIndexEntry[]): ChunkFacts[] {
  const seen = new Map<string, ChunkFacts>();
  const facts = entries.map((entry) => {
    const known = knownChunkFacts.get(entry.sha256) ?? chunkFactsFor(env, entry);
    seen.set(entry.sha256, known);
    return known;
  });
  knownChunkFacts = seen;
  return facts;
}

/** Why a segmented index's record (the search index's or a stage index's) no longer stands (a segment missing or modified), or null. */
export function segmentReason(env: RuleEnv, name: string, record: TargetRecord): DirtyReason | null {
  if (record.facts?.segments === undefined) return null;
  const files = record.facts.segmentFiles?.split(' ') ?? [];
  const facts = segmentFactsOf<readonly unknown[]>(record);
  const stamps = facts.map((fact) => fact[3]);
  for (const [i, fact] of facts.entries()) {
    if (statStamp(abs(env.ws, files[i] ?? '')) === null) return { reason: 'output-missing', output: files[i] ?? '' };
    if (!segmentIntact(env, files[i]!, fact)) return { reason: 'output-modified', output: files[i]! };
  }
  // Touched but intact (same SHA-256): remember the new stamps, so the next check is stat-only again.
  if (facts.some((fact, i) => fact[3] !== stamps[i]))
    env.state.recordTarget(name, { ...record, facts: { ...record.facts, segments: JSON.stringify(facts) } });
  return null;
}

/** A recorded segment file (workspace-relative) is still there unmodified: same stat stamp, or else the same SHA-256. */
function segmentIntact(env: RuleEnv, relative: string, fact: SegmentFact<readonly unknown[]>): boolean {
  const file = abs(env.ws, relative);
  const stamp = statStamp(file);
  if (stamp === null) return false;
  if (sameStamp(stamp, fact[3])) return true;
  try {
    if (sha256Hex(fs.readFileSync(file)) !== fact[2]) return false;
  } catch {
    return false;
  }
  fact[3] = stamp;
  return true;
}

/**
 * The content hash and cited snapshot of a chunk file named by the chunk index: from its build record
 * when the record is of that very file, otherwise read from the file itself (verified).
 */
function chunkFactsFor(env: RuleEnv, entry: StageIndexEntry): { chunksContentHash: string; snapshotId: string } {
  const record = env.state.targets.get(targetNames(env.ws, entry.documentId).chunk);
  const facts = record?.sha256 === entry.sha256 ? record.facts : undefined;
  if (facts?.chunksContentHash && facts.citedSnapshotId)
    return { chunksContentHash: facts.chunksContentHash, snapshotId: facts.citedSnapshotId };
  const bytes = readDependencyOutput(
    env,
    targetNames(env.ws, entry.documentId).chunk,
    `${env.ws.outputs.chunks}/${entry.file}`,
    entry.sha256,
  );
  const cited = (JSON.parse(bytes.toString('utf8')) as { payload: { chunks: Chunk[] } }).payload.chunks[0]?.citation.snapshotId ?? '';
  return { chunksContentHash: restampChunks(bytes, cited).contentHash, snapshotId: cited };
}

/**
 * Cached index parts end with a line holding the SHA-256 of their key (the chunks' content hash) and
 * the part, so an entry is bound to the chunk content it was made from and any damage (truncation, a
 * flipped byte, a part copied under another name) is caught before the merge uses it.
 */
const PART_SEAL = '\n#part-sha256:';

function partSeal(part: string, key: string): string {
  return sha256Hex(`${key}\n${part}`);
}

export function sealPart(part: string, key: string): string {
  return `${part}${PART_SEAL}${partSeal(part, key)}\n`;
}

/** The part inside a sealed entry, when the seal binds it to `key` and it is intact; otherwise null. */
export function unsealPart(text: string, key: string): string | null {
  const at = text.lastIndexOf(PART_SEAL);
  if (at < 0 || !text.endsWith('\n')) return null;
  const part = text.slice(0, at);
  return text.slice(at + PART_SEAL.length, -1) === partSeal(part, key) ? part : null;
}

/** Where the index part of chunks with this content hash is cached (also filled by the remote cache). */
export function indexPartFile(env: RuleEnv, chunksContentHash: string): string {
  return path.join(env.ws.stateDir, 'cache', 'index-parts', `${chunksContentHash}.p${env.stages.indexPartFormat}.part`);
}

/** A cached part, verified; a damaged entry is removed with a warning (a miss: it is rebuilt). */
function readCachedPart(env: RuleEnv, file: string, key: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
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

export const RULES: Record<RuleId, Rule> = {
  snapshot,
  extract,
  chunk,
  'snapshot-index': stageIndex('snapshot-index', (ws) => ws.outputs.snapshots),
  'document-index': stageIndex('document-index', (ws) => ws.outputs.specs),
  'chunk-index': stageIndex('chunk-index', (ws) => ws.outputs.chunks),
  'search-index': searchIndex,
};
