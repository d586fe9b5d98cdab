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
const fullMs: number[] = [];
const incrementalMs: number[] = [];
const incrementalDiskMs: number[] = [];
let fullBytes = '';
let incrementalBytes = '';
let cachedParts: string[] = [];
for (let round = -1; round < rounds; round++) {
  // Full build of the edited corpus: every document's part, then the merge.
  const full = time(() => mergeSearchIndex(editedCorpus.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)), provenance, DEFAULT_INDEX_OPTIONS));
  fullBytes = full.value;
  // Cached parts of the previous generation (what the graph keeps), then the one-document rebuild.
  cachedParts = chunked.map((doc) => buildDocumentPart(doc.documentId, doc.chunks));
  const incremental = time(() => {
    const parts = [...cachedParts];
    parts[target] = buildDocumentPart(editedDoc.documentId, editedChunks);
    return mergeSearchIndex(parts, provenance, DEFAULT_INDEX_OPTIONS);
  });
  incrementalBytes = incremental.value;
  // Same, with the cached parts read from files (as a build graph would).
  cachedParts.forEach((part, i) => writeFileSync(path.join(work, `${i}.part`), part));
  const fromDisk = time(() => {
    const parts = chunked.map((_, i) => (i === target ? buildDocumentPart(editedDoc.documentId, editedChunks) : readFileSync(path.join(work, `${i}.part`), 'utf8')));
    return mergeSearchIndex(parts, provenance, DEFAULT_INDEX_OPTIONS);
  });
  if (round >= 0) {
    fullMs.push(full.ms);
    incrementalMs.push(incremental.ms);
    incrementalDiskMs.push(fromDisk.ms);
  }
  if (fromDisk.value !== fullBytes) throw new Error('incremental (disk) bytes differ from the full build');
}
if (incrementalBytes !== fullBytes) throw new Error('incremental bytes differ from the full build');
const full = median(fullMs);
console.log(`${documents} synthetic sources, ${chunkCount} chunks, ${(textChars / 1e6).toFixed(1)}M chars; index ${(fullBytes.length / 1e6).toFixed(1)} MB; ${rounds} rounds (median)`);
console.log(`full index build (all parts + merge)        ${full.toFixed(0).padStart(6)} ms`);
console.log(`one-document rebuild (1 part + merge)       ${median(incrementalMs).toFixed(0).padStart(6)} ms  = ${((median(incrementalMs) / full) * 100).toFixed(1)}% of full (goal <= 20%)`);
console.log(`  same, cached parts read from files         ${median(incrementalDiskMs).toFixed(0).padStart(6)} ms  = ${((median(incrementalDiskMs) / full) * 100).toFixed(1)}% of full`);
console.log('incremental bytes == full build bytes: yes');
rmSync(work, { recursive: true, force: true });
