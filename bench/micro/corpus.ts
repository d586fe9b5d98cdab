import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import type { Chunk } from '../../src/document/types.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS } from '../../src/index/search-index.js';
import { syntheticCorpus } from '../retrieval/synthetic-corpus.js';

/** The micro-benchmarks' fixed input: a deterministic synthetic corpus, chunked and indexed. */
export function microCorpus(documents = 40, blocksPerDocument = 60): { chunks: Chunk[]; indexText: string } {
  const chunked = syntheticCorpus(documents, blocksPerDocument).map((doc) => ({
    documentId: doc.documentId,
    chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS),
  }));
  const indexText = buildSearchIndex(chunked, { chunkIndexFingerprint: 'micro', missingSources: [] }, DEFAULT_INDEX_OPTIONS);
  return { chunks: chunked.flatMap((doc) => doc.chunks), indexText };
}
