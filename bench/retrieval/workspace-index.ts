import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Chunk } from '../../src/document/types.js';
import { crc32Hex } from '../../src/index/index-layout.js';
import { buildDocumentPart, buildSearchIndex, DEFAULT_INDEX_OPTIONS, mergeSegmentedIndex } from '../../src/index/search-index.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../../src/rule-versions.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { sha256Hex } from '../../src/store/hash.js';

/**
 * Writes a search index into `chunksDir` as a workspace holds it: beside the chunk index it records,
 * which a query verifies (CRC-32 of its bytes against the search index's record) and compares (the
 * stale check), in the layout a build writes for these documents (index-layout.ts planSearchSegments:
 * from 17 documents on, a manifest and its segment files), or as one file with `singleFile`. Returns
 * the chunk index's bytes and fingerprint, for another index beside the same one.
 */
export function writeWorkspaceIndex(
  chunksDir: string,
  chunked: { documentId: string; chunks: Chunk[] }[],
  layout: { singleFile?: boolean } = {},
): { indexFile: string; chunkIndexBytes: string; fingerprint: string; segments: number } {
  mkdirSync(chunksDir, { recursive: true });
  const chunkIndexBytes = artifactBytes(
    makeArtifact('chunk-index', STAGE_INDEX_FORMAT_VERSION, {
      entries: chunked.map((doc) => ({
        documentId: doc.documentId,
        file: `${doc.documentId}.json`,
        sha256: sha256Hex(JSON.stringify(doc.chunks)),
        sourceUrl: doc.chunks[0]?.citation.sourceUrl ?? '',
      })),
      missingSources: [],
    }),
  );
  writeFileSync(path.join(chunksDir, 'index.json'), chunkIndexBytes);
  const fingerprint = (JSON.parse(chunkIndexBytes) as { fingerprint: string }).fingerprint;
  const indexFile = path.join(chunksDir, 'search-index.json');
  const provenance = { chunkIndexFingerprint: fingerprint, chunkIndexCrc32: crc32Hex(chunkIndexBytes), missingSources: [] };
  if (layout.singleFile === true) {
    writeFileSync(indexFile, buildSearchIndex(chunked, provenance, DEFAULT_INDEX_OPTIONS));
    return { indexFile, chunkIndexBytes, fingerprint, segments: 1 };
  }
  const built = mergeSegmentedIndex(
    chunked.map((doc) => buildDocumentPart(doc.documentId, doc.chunks)),
    provenance,
    DEFAULT_INDEX_OPTIONS,
  );
  for (const segment of built.segments) writeFileSync(path.join(chunksDir, segment.file), segment.bytes);
  writeFileSync(indexFile, built.index);
  return { indexFile, chunkIndexBytes, fingerprint, segments: Math.max(1, built.segments.length) };
}
