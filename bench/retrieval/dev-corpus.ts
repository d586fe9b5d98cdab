import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { EvidenceDocument, SnapshotMeta } from '../../src/document/types.js';
import { assignDocumentIds } from '../../src/config/source-url.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../../src/extract/extract.js';
import { sha256Hex } from '../../src/store/hash.js';

/**
 * The dev corpus (../shared/corpus/dev), extracted in process with the project's own extractor,
 * exactly as manual ingest would record it: one document per manual-ingest.json entry, document ids
 * from the same URL slugs the workspace assigns. Files are read where they lie, never copied.
 */
export function devCorpusDirectory(repoRoot: string): string {
  return path.resolve(repoRoot, '../shared/corpus/dev');
}

interface IngestEntry {
  sourceUrl: string;
  localPath: string;
  contentType: string;
}

export async function extractDevCorpus(directory: string): Promise<EvidenceDocument[] | undefined> {
  const mapPath = path.join(directory, 'manual-ingest.json');
  if (!existsSync(mapPath)) return undefined;
  const entries = JSON.parse(readFileSync(mapPath, 'utf8')) as IngestEntry[];
  const ids = assignDocumentIds(entries.map((entry) => entry.sourceUrl));
  const docs: EvidenceDocument[] = [];
  for (const entry of entries) {
    const body = new Uint8Array(readFileSync(path.join(directory, entry.localPath)));
    const sha256 = sha256Hex(body);
    const snapshot: SnapshotMeta = {
      snapshotId: `sha256-${sha256.slice(0, 32)}`,
      sourceUrl: entry.sourceUrl,
      captureMethod: 'manual-ingest',
      contentType: entry.contentType,
      charset: null,
      sha256,
      byteLength: body.length,
    };
    docs.push(
      await extractDocument({ documentId: ids.get(entry.sourceUrl)!, source: { url: entry.sourceUrl }, snapshot, body, options: DEFAULT_EXTRACT_OPTIONS }),
    );
  }
  return docs;
}
