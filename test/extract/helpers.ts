import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SnapshotMeta, SourceSpec } from '../../src/document/types.js';
import { sha256Hex } from '../../src/store/hash.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument, type ExtractOptions } from '../../src/extract/extract.js';
import type { EvidenceDocument } from '../../src/document/types.js';

/** Repository root: test files compile to dist/test/extract/. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const sharedDir = path.resolve(repoRoot, '../shared');
export const corpusDir = path.join(sharedDir, 'corpus/dev');
export const corpusAvailable = existsSync(path.join(corpusDir, 'manual-ingest.json'));
export const SKIP_CORPUS = corpusAvailable ? false : `dev corpus not found at ${corpusDir} (../shared absent)`;
export const fixturesDir = path.join(repoRoot, 'test/fixtures/extract');

export interface IngestEntry {
  sourceUrl: string;
  localPath: string;
  contentType: string;
}

export function ingestMap(): IngestEntry[] {
  return JSON.parse(readFileSync(path.join(corpusDir, 'manual-ingest.json'), 'utf8')) as IngestEntry[];
}

export function snapshotFor(url: string, contentType: string, body: Uint8Array): SnapshotMeta {
  const sha256 = sha256Hex(body);
  return {
    snapshotId: 'snap-' + sha256.slice(0, 16),
    sourceUrl: url,
    captureMethod: 'manual-ingest',
    contentType,
    charset: null,
    sha256,
    byteLength: body.length,
  };
}

export async function extractBytes(
  body: Uint8Array | string,
  url: string,
  contentType: string,
  source: Partial<SourceSpec> = {},
  options: ExtractOptions = DEFAULT_EXTRACT_OPTIONS,
): Promise<EvidenceDocument> {
  const bytes = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  return extractDocument({
    documentId: 'doc-test',
    source: { url, ...source },
    snapshot: snapshotFor(url, contentType, bytes),
    body: bytes,
    options,
  });
}

/** Extracts one corpus file by its local path, using the ingest map's URL and content type. */
export async function extractCorpusFile(localPath: string): Promise<EvidenceDocument> {
  const entry = ingestMap().find((e) => e.localPath === localPath);
  if (!entry) throw new Error(`${localPath} is not in manual-ingest.json`);
  const body = new Uint8Array(readFileSync(path.join(corpusDir, localPath)));
  return extractBytes(body, entry.sourceUrl, entry.contentType);
}
