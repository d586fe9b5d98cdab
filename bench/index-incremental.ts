/**
 * Incremental index rebuild at 1,000 synthetic sources: after one document changes, the graph
 * rebuilds that document's part (buildDocumentPart) and merges it with the cached parts of the
 * others (mergeSearchIndex). Reported next to a full index build (every part + merge) in the
 * same run; the bytes of both must be identical. Goal: rebuild at most 20% of the full build.
 * Also the segmented rebuild a build makes from 17 documents on (index-layout.ts planSearchSegments):
 * the edited document's part, its one segment and the manifest, the other segments reused as they
 * are; it must equal a clean segmented build, and should not grow with the corpus (compare 1,000 and
 * 10,000).
 *
 * --segmented-only (issue 28's goal, search-index update at most 0.05x a full search-index build, at
 * 10,000 sources in bounded time): only the segmented rebuild, against a full build of the same
 * layout (every part made from its chunks, then every segment and the manifest); the single-file
 * variants, four passes over the corpus per round, are left out.
 *
 *   npx tsc -p . && node dist/bench/index-incremental.js [documents] [rounds] [blocks] [--segmented-only]
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../src/chunk/chunker.js';
import type { Chunk } from '../src/document/types.js';
import {
  buildDocumentPart,
  buildSegment,
  DEFAULT_INDEX_OPTIONS,
  mergeSearchIndex,
  mergeSegmentedIndex,
  planSearchSegments,
  segmentManifest,
} from '../src/index/search-index.js';
import type { SegmentEntry } from '../src/index/index-layout.js';
import { syntheticCorpus } from './retrieval/synthetic-corpus.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = path.join(repoRoot, 'bench/.work/index-incremental');
const provenance = { chunkIndexFingerprint: 'sha256:bench', missingSources: [] };

/** A segment's manifest entry, read back from its file (what the previous build recorded). */
function entryOf(segment: { file: string; bytes: string }): SegmentEntry {
  const head = JSON.parse(segment.bytes) as {
    fingerprint: string;
    payload: { head: { documents: unknown[]; chunkCounts: number[]; totalLength: number } };
  };
  const h = head.payload.head;
  return [segment.file, head.fingerprint, h.documents.length, h.chunkCounts.reduce((n, count) => n + count, 0), h.totalLength];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function time<T>(run: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = run();
  return { ms: performance.now() - started, value };
}

const segmentedOnly = process.argv.includes('--segmented-only');
const positional = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
const documents = Number(positional[0] ?? 1000);
const rounds = Number(positional[1] ?? 5);
const docs = syntheticCorpus(documents, Number(positional[2] ?? 25));
const chunked = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
const chunkCount = chunked.reduce((n, doc) => n + doc.chunks.length, 0);
const textChars = chunked.reduce((n, doc) => n + doc.chunks.reduce((m, c) => m + c.text.length, 0), 0);

// The edit: one sentence appended to one block of the middle document.
const target = Math.floor(documents / 2);
const editedDoc = structuredClone(docs[target]!);
editedDoc.blocks[3]!.text += ' An edited sentence with a brandnewterm.';
const editedChunks: Chunk[] = chunkDocument(editedDoc, DEFAULT_CHUNK_OPTIONS);
const editedCorpus = chunked.map((doc, i) => (i === target ? { documentId: doc.documentId, chunks: editedChunks } : doc));

const cachedParts = chunked.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
// What a build graph keeps on disk: one chunk file per document (the edited one already updated)
// and the cached part of every document from the previous build.
if (!segmentedOnly) {
  editedCorpus.forEach((doc, i) => {
    writeFileSync(path.join(work, `${i}.chunks.json`), JSON.stringify(doc));
  });
  cachedParts.forEach((part, i) => {
    writeFileSync(path.join(work, `${i}.part`), part);
  });
}
const readChunks = (i: number): { documentId: string; chunks: Chunk[] } =>
  JSON.parse(readFileSync(path.join(work, `${i}.chunks.json`), 'utf8')) as { documentId: string; chunks: Chunk[] };

const timings = {
  full: [] as number[],
  incremental: [] as number[],
  fullFiles: [] as number[],
  incrementalFiles: [] as number[],
  segmented: [] as number[],
};
// The segments of the previous build (kept on disk by a build; in memory here), and the edited one's range.
const ids = chunked.map((doc) => doc.documentId).sort();
const ends = planSearchSegments(ids);
const partById = new Map(chunked.map((doc, i) => [doc.documentId, cachedParts[i]!]));
const previousSegments = mergeSegmentedIndex(cachedParts, provenance, DEFAULT_INDEX_OPTIONS);
const editedAt = ids.indexOf(editedDoc.documentId);
const segmentOf = ends.findIndex((end) => end > editedAt);
const editedPart = buildDocumentPart(editedDoc.documentId, editedChunks);
const cleanSegmented = mergeSegmentedIndex(
  cachedParts.map((part, i) => (i === target ? editedPart : part)),
  provenance,
  DEFAULT_INDEX_OPTIONS,
);
let reference = '';
if (segmentedOnly) {
  const fullSegmented: number[] = [];
  // The warm-up round runs only the rebuild: a full build of a large corpus warms itself up.
  for (let round = -1; round < rounds; round++) {
    const segmented = time(() => segmentedRebuild());
    if (JSON.stringify(segmented.value) !== JSON.stringify(cleanSegmented))
      throw new Error('the segmented rebuild differs from a clean segmented build');
    if (round < 0) continue;
    const full = time(() =>
      mergeSegmentedIndex(
        editedCorpus.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
        provenance,
        DEFAULT_INDEX_OPTIONS,
      ),
    );
    if (JSON.stringify(full.value) !== JSON.stringify(cleanSegmented))
      throw new Error('the full build differs from a clean segmented build');
    fullSegmented.push(full.ms);
    timings.segmented.push(segmented.ms);
  }
  const start = segmentOf === 0 ? 0 : ends[segmentOf - 1]!;
  console.log(
    `${documents} synthetic sources, ${chunkCount} chunks, ${(textChars / 1e6).toFixed(1)}M chars; ${ends.length} segment(s), ` +
      `the edited one of ${ends[segmentOf]! - start} documents; ${rounds} rounds (median)`,
  );
  console.log(
    `segmented: full build (all parts + every segment + manifest) ${median(fullSegmented).toFixed(0)} ms; ` +
      `one-document rebuild (1 part + its segment + manifest) ${median(timings.segmented).toFixed(0)} ms = ` +
      `${(median(timings.segmented) / median(fullSegmented)).toFixed(3)}x (goal <= 0.05x); byte-identical to a clean build: yes`,
  );
  rmSync(work, { recursive: true, force: true });
  process.exit(0);
}

/** The segmented rebuild: the edited document's part, its segment, and the manifest over every segment's entry. */
function segmentedRebuild(): { index: string; segments: { file: string; bytes: string }[] } {
  if (ends.length === 1)
    return mergeSegmentedIndex(
      [...cachedParts.slice(0, target), buildDocumentPart(editedDoc.documentId, editedChunks), ...cachedParts.slice(target + 1)],
      provenance,
      DEFAULT_INDEX_OPTIONS,
    );
  const start = segmentOf === 0 ? 0 : ends[segmentOf - 1]!;
  const parts = ids
    .slice(start, ends[segmentOf])
    .map((id) => (id === editedDoc.documentId ? buildDocumentPart(id, editedChunks) : partById.get(id)!));
  const rebuilt = buildSegment(parts, DEFAULT_INDEX_OPTIONS);
  const entries = previousSegments.segments.map((segment, k) => (k === segmentOf ? rebuilt.entry : entryOf(segment)));
  return {
    index: segmentManifest(entries, provenance, DEFAULT_INDEX_OPTIONS),
    segments: previousSegments.segments.map((s, k) => (k === segmentOf ? { file: rebuilt.entry[0], bytes: rebuilt.bytes } : s)),
  };
}

for (let round = -1; round < rounds; round++) {
  // In memory: every part + merge, versus one part + merge with the others' parts cached.
  const full = time(() =>
    mergeSearchIndex(
      editedCorpus.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
      provenance,
      DEFAULT_INDEX_OPTIONS,
    ),
  );
  const incremental = time(() => {
    const parts = [...cachedParts];
    parts[target] = buildDocumentPart(editedDoc.documentId, editedChunks);
    return mergeSearchIndex(parts, provenance, DEFAULT_INDEX_OPTIONS);
  });
  // As a build graph runs them: a full build reads and parses every chunk file; a rebuild reads
  // the cached parts of unchanged documents and the chunk file of the changed one.
  const fullFiles = time(() =>
    mergeSearchIndex(
      editedCorpus.map((_, i) => {
        const doc = readChunks(i);
        return buildDocumentPart(doc.documentId, doc.chunks);
      }),
      provenance,
      DEFAULT_INDEX_OPTIONS,
    ),
  );
  const incrementalFiles = time(() =>
    mergeSearchIndex(
      editedCorpus.map((_, i) => {
        if (i !== target) return readFileSync(path.join(work, `${i}.part`), 'utf8');
        const doc = readChunks(i);
        return buildDocumentPart(doc.documentId, doc.chunks);
      }),
      provenance,
      DEFAULT_INDEX_OPTIONS,
    ),
  );
  // Segmented: the edited document's part, its segment, and the manifest over every segment's entry.
  const segmented = time(() => segmentedRebuild());
  if (JSON.stringify(segmented.value) !== JSON.stringify(cleanSegmented))
    throw new Error('the segmented rebuild differs from a clean segmented build');
  reference = full.value;
  for (const other of [incremental.value, fullFiles.value, incrementalFiles.value])
    if (other !== reference) throw new Error('an incremental build differs from the full build');
  if (round >= 0) {
    timings.full.push(full.ms);
    timings.incremental.push(incremental.ms);
    timings.fullFiles.push(fullFiles.ms);
    timings.incrementalFiles.push(incrementalFiles.ms);
    timings.segmented.push(segmented.ms);
  }
}
const ratio = (a: number[], b: number[]): string => `${((median(a) / median(b)) * 100).toFixed(1)}%`;
console.log(
  `${documents} synthetic sources, ${chunkCount} chunks, ${(textChars / 1e6).toFixed(1)}M chars; ` +
    `index ${(reference.length / 1e6).toFixed(1)} MB; ${rounds} rounds (median)`,
);
console.log(
  `in memory:  full build (all parts + merge) ${median(timings.full).toFixed(0).padStart(6)} ms; ` +
    `one-document rebuild (1 part + merge) ${median(timings.incremental).toFixed(0).padStart(5)} ms = ` +
    `${ratio(timings.incremental, timings.full)} (goal <= 20%)`,
);
console.log(
  `with files: full build from chunk files    ${median(timings.fullFiles).toFixed(0).padStart(6)} ms; ` +
    `rebuild from cached part files     ${median(timings.incrementalFiles).toFixed(0).padStart(5)} ms = ` +
    `${ratio(timings.incrementalFiles, timings.fullFiles)}`,
);
console.log(
  `segmented:  ${ends.length} segment(s); ` +
    `one-document rebuild (1 part + its segment + manifest) ${median(timings.segmented).toFixed(0).padStart(5)} ms = ` +
    `${ratio(timings.segmented, timings.full)} of the full build, ` +
    `${ratio(timings.segmented, timings.incremental)} of the single-file rebuild`,
);
console.log('every rebuild is byte-identical to the full build: yes');
rmSync(work, { recursive: true, force: true });
