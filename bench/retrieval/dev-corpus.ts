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

export interface IngestEntry {
  sourceUrl: string;
  localPath: string;
  contentType: string;
}

export function devCorpusEntries(directory: string): IngestEntry[] | undefined {
  const mapPath = path.join(directory, 'manual-ingest.json');
  if (!existsSync(mapPath)) return undefined;
  return JSON.parse(readFileSync(mapPath, 'utf8')) as IngestEntry[];
}

/** Extracts one source from given bytes, as manual ingest + extract would. */
export async function extractBytes(
  documentId: string,
  sourceUrl: string,
  contentType: string,
  body: Uint8Array,
): Promise<EvidenceDocument> {
  const sha256 = sha256Hex(body);
  const snapshot: SnapshotMeta = {
    snapshotId: `sha256-${sha256.slice(0, 32)}`,
    sourceUrl,
    captureMethod: 'manual-ingest',
    contentType,
    charset: null,
    sha256,
    byteLength: body.length,
  };
  return extractDocument({ documentId, source: { url: sourceUrl }, snapshot, body, options: DEFAULT_EXTRACT_OPTIONS });
}

/** Extracts the dev corpus (its first `limit` entries, when given: the benches' quick runs). */
export async function extractDevCorpus(directory: string, limit?: number): Promise<EvidenceDocument[] | undefined> {
  const entries = devCorpusEntries(directory)?.slice(0, limit);
  if (entries === undefined) return undefined;
  const ids = assignDocumentIds(entries.map((entry) => entry.sourceUrl));
  const docs: EvidenceDocument[] = [];
  for (const entry of entries) {
    const body = new Uint8Array(readFileSync(path.join(directory, entry.localPath)));
    docs.push(await extractBytes(ids.get(entry.sourceUrl)!, entry.sourceUrl, entry.contentType, body));
  }
  return docs;
}
