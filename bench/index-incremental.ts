/**
 * Incremental index rebuild at 1,000 synthetic sources: after one document changes, the graph
 * rebuilds that document's part (buildDocumentPart) and merges it with the cached parts of the
 * others (mergeSearchIndex). Reported next to a full index build (every part + merge) in the
 * same run; the bytes of both must be identical. Goal: rebuild at most 20% of the full build.
 *
 *   npx tsc -p . && node dist/bench/index-incremental.js [documents] [rounds]
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../src/chunk/chunker.js';
import type { Chunk } from '../src/document/types.js';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, mergeSearchIndex } from '../src/index/search-index.js';
import { syntheticCorpus } from './retrieval/synthetic-corpus.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const work = path.join(repoRoot, 'bench/.work/index-incremental');
const provenance = { chunkIndexFingerprint: 'sha256:bench', missingSources: [] };

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function time<T>(run: () => T): { ms: number; value: T } {
  const started = performance.now();
  const value = run();
  return { ms: performance.now() - started, value };
}

const documents = Number(process.argv[2] ?? 1000);
const rounds = Number(process.argv[3] ?? 5);
const docs = syntheticCorpus(documents, Number(process.argv[4] ?? 25));
const chunked = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
const chunkCount = chunked.reduce((n, doc) => n + doc.chunks.length, 0);
const textChars = chunked.reduce((n, doc) => n + doc.chunks.reduce((m, c) => m + c.text.length, 0), 0);

// The edit: one sentence appended to one block of the middle document.
const target = Math.floor(documents / 2);
const editedDoc = structuredClone(docs[target]!);
editedDoc.blocks[3]!.text += ' An edited sentence with a brandnewterm.';
const editedChunks: Chunk[] = chunkDocument(editedDoc, DEFAULT_CHUNK_OPTIONS);
const editedCorpus = chunked.map((doc, i) => (i === target ? { documentId: doc.documentId, chunks: editedChunks } : doc));

rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
// What a build graph keeps on disk: one chunk file per document (the edited one already updated)
// and the cached part of every document from the previous build.
editedCorpus.forEach((doc, i) => {
  writeFileSync(path.join(work, `${i}.chunks.json`), JSON.stringify(doc));
});
chunked.forEach((doc, i) => {
  writeFileSync(path.join(work, `${i}.part`), buildDocumentPart(doc.documentId, doc.chunks));
});
const readChunks = (i: number): { documentId: string; chunks: Chunk[] } =>
  JSON.parse(readFileSync(path.join(work, `${i}.chunks.json`), 'utf8')) as { documentId: string; chunks: Chunk[] };

const timings = { full: [] as number[], incremental: [] as number[], fullFiles: [] as number[], incrementalFiles: [] as number[] };
let reference = '';
for (let round = -1; round < rounds; round++) {
  // In memory: every part + merge, versus one part + merge with the others' parts cached.
  const full = time(() =>
    mergeSearchIndex(
      editedCorpus.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
      provenance,
      DEFAULT_INDEX_OPTIONS,
    ),
  );
  const cachedParts = chunked.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
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
  reference = full.value;
  for (const other of [incremental.value, fullFiles.value, incrementalFiles.value])
    if (other !== reference) throw new Error('an incremental build differs from the full build');
  if (round >= 0) {
    timings.full.push(full.ms);
    timings.incremental.push(incremental.ms);
    timings.fullFiles.push(fullFiles.ms);
    timings.incrementalFiles.push(incrementalFiles.ms);
  }
}
const ratio = (a: number[], b: number[]): string => `${((median(a) / median(b)) * 100).toFixed(1)}%`;
console.log(
  `${documents} synthetic sources, ${chunkCount} chunks, ${(textChars / 1e6).toFixed(1)}M chars; index ${(reference.length / 1e6).toFixed(1)} MB; ${rounds} rounds (median)`,
);
console.log(
  `in memory:  full build (all parts + merge) ${median(timings.full).toFixed(0).padStart(6)} ms; one-document rebuild (1 part + merge) ${median(timings.incremental).toFixed(0).padStart(5)} ms = ${ratio(timings.incremental, timings.full)} (goal <= 20%)`,
);
console.log(
  `with files: full build from chunk files    ${median(timings.fullFiles).toFixed(0).padStart(6)} ms; rebuild from cached part files     ${median(timings.incrementalFiles).toFixed(0).padStart(5)} ms = ${ratio(timings.incrementalFiles, timings.fullFiles)}`,
);
console.log('every rebuild is byte-identical to the full build: yes');
rmSync(work, { recursive: true, force: true });
