import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { chunksContentHash } from '../../src/chunk/snapshot-provenance.js';
import type { Chunk } from '../../src/document/types.js';
import { inspectRestored, type InspectedFile } from '../../src/inspect/inspect.js';
import { sealPart } from '../../src/index/index-part-seal.js';
import { buildDocumentPart } from '../../src/index/search-index.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { sha256Hex } from '../../src/store/hash.js';
import { CHUNKS_FORMAT_VERSION, DOCUMENT_FORMAT_VERSION } from '../../src/rule-versions.js';
import { HTTP_DOC } from '../retrieval/fixtures.js';
import { refingerprinted } from '../helpers/forged-artifact.js';

/**
 * The byte-only checks of a restored blob, which run on a stage worker (inspect.ts): each one must
 * refuse what the target binding in restore.ts relies on it to refuse.
 */
function file(bytes: string | Buffer, sha256?: string): InspectedFile {
  const buffer = typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : bytes;
  return { bytes: buffer, sha256: sha256 ?? sha256Hex(buffer), sizeBytes: buffer.length };
}

const chunks = chunkDocument(HTTP_DOC, DEFAULT_CHUNK_OPTIONS);
const chunkOptions = { maxChars: DEFAULT_CHUNK_OPTIONS.maxChars, overlapChars: DEFAULT_CHUNK_OPTIONS.overlapChars };
const chunkFile = (list: Chunk[], options: Record<string, unknown> = chunkOptions): string =>
  artifactBytes(
    makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, { chunkOptions: options, chunks: list, documentId: HTTP_DOC.documentId }),
  );

test('a document: its id, snapshot and diagnostic facts, once its SHA-256 and fingerprint hold', () => {
  const bytes = artifactBytes(makeArtifact('document', DOCUMENT_FORMAT_VERSION, HTTP_DOC));
  const inspection = inspectRestored({ kind: 'document', output: file(bytes) });
  assert.ok(inspection.ok && inspection.kind === 'document', JSON.stringify(inspection));
  assert.equal(inspection.documentId, HTTP_DOC.documentId);
  assert.equal(inspection.snapshotId, HTTP_DOC.provenance.snapshotId);

  const wrongDigest = inspectRestored({ kind: 'document', output: file(bytes, 'f'.repeat(64)) });
  assert.ok(!wrongDigest.ok && /has SHA-256/.test(wrongDigest.why));
  const forged = bytes.replace(/"sha256:[0-9a-f]{4}/, '"sha256:0000');
  const badFingerprint = inspectRestored({ kind: 'document', output: file(forged) });
  assert.ok(!badFingerprint.ok && /fingerprint/.test(badFingerprint.why), JSON.stringify(badFingerprint));
  const chunksAsDocument = inspectRestored({ kind: 'document', output: file(chunkFile(chunks)) });
  assert.ok(!chunksAsDocument.ok, 'a chunk file passed as a document');
});

test('chunks: the snapshot they cite and their content hash; mixed snapshots, another document and a foreign part are refused', () => {
  const inspection = inspectRestored({ kind: 'document-chunks', output: file(chunkFile(chunks)) });
  assert.ok(inspection.ok && inspection.kind === 'document-chunks', JSON.stringify(inspection));
  assert.equal(inspection.citedSnapshotId, HTTP_DOC.provenance.snapshotId);
  assert.equal(inspection.chunksContentHash, chunksContentHash(HTTP_DOC.documentId, chunks));

  assert.ok(chunks.length >= 2);
  const mixed = structuredClone(chunks);
  mixed[1]!.citation.snapshotId = 'snap-other';
  assert.ok(!inspectRestored({ kind: 'document-chunks', output: file(chunkFile(mixed)) }).ok, 'chunks citing two snapshots passed');
  const foreign = structuredClone(chunks);
  foreign[0]!.documentId = 'another-document';
  assert.ok(!inspectRestored({ kind: 'document-chunks', output: file(chunkFile(foreign)) }).ok, "another document's chunk passed");

  const key = chunksContentHash(HTTP_DOC.documentId, chunks);
  const part = buildDocumentPart(HTTP_DOC.documentId, chunks);
  const withPart = inspectRestored({ kind: 'document-chunks', output: file(chunkFile(chunks)), part: file(sealPart(part, key)) });
  assert.ok(withPart.ok && withPart.kind === 'document-chunks' && withPart.partChecked === true, JSON.stringify(withPart));
  const sealedForOther = inspectRestored({
    kind: 'document-chunks',
    output: file(chunkFile(chunks)),
    part: file(sealPart(part, 'f'.repeat(64))),
  });
  assert.ok(!sealedForOther.ok && /not sealed/.test(sealedForOther.why), JSON.stringify(sealedForOther));
});

test("chunks: the options they were cut with must be exactly the workspace's", () => {
  const task = (options: Record<string, unknown>) => ({
    kind: 'document-chunks' as const,
    output: file(chunkFile(chunks, options)),
    chunkOptions,
  });
  const same = inspectRestored(task(chunkOptions));
  assert.ok(same.ok, JSON.stringify(same));
  // The same chunks, as another workspace's: another overlap, another maxChars, a missing, extra or
  // mistyped option. Each is refused however well the chunks would pass for this workspace's.
  const others: Record<string, unknown>[] = [
    { ...chunkOptions, overlapChars: 0 },
    { ...chunkOptions, maxChars: 3000 },
    { maxChars: chunkOptions.maxChars },
    { ...chunkOptions, minChars: 1 },
    { ...chunkOptions, maxChars: String(chunkOptions.maxChars) },
  ];
  for (const options of others) {
    const inspection = inspectRestored(task(options));
    assert.ok(!inspection.ok && /cut with chunk options/.test(inspection.why), `${JSON.stringify(options)}: ${JSON.stringify(inspection)}`);
  }
  const withoutOptions = artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, { chunks, documentId: HTTP_DOC.documentId }));
  assert.ok(!inspectRestored({ kind: 'document-chunks', output: file(withoutOptions), chunkOptions }).ok, 'chunks without options passed');
});

test('an artifact is taken only as the canonical file this producer writes, however well it is fingerprinted', () => {
  const documentBytes = artifactBytes(makeArtifact('document', DOCUMENT_FORMAT_VERSION, HTTP_DOC));
  const chunkBytes = chunkFile(chunks);
  assert.ok(inspectRestored({ kind: 'document', output: file(refingerprinted(documentBytes, (rest) => rest)) }).ok, 'the control');
  const forgeries: [string, 'document' | 'document-chunks', Buffer, RegExp][] = [
    [
      'another producer',
      'document',
      refingerprinted(documentBytes, (rest) => rest.replace(/"version":"[^"]*"\}\}\n$/, '"version":"0.0.9"}}\n')),
      /made by/,
    ],
    [
      'a payload key twice',
      'document',
      refingerprinted(documentBytes, (rest) =>
        rest.replace('"payload":{', `"payload":{"documentId":${JSON.stringify(HTTP_DOC.documentId)},`),
      ),
      /canonical/,
    ],
    ['whitespace', 'document', refingerprinted(documentBytes, (rest) => rest.replace('"payload":{', '"payload": {')), /canonical/],
    [
      'a number written otherwise',
      'document',
      refingerprinted(documentBytes, (rest) => rest.replace(/^"formatVersion":(\d+)/, '"formatVersion":$1.0')),
      /canonical/,
    ],
    [
      'keys in another order',
      'document-chunks',
      refingerprinted(chunkBytes, (rest) => {
        const { payload } = JSON.parse(`{${rest}`) as { payload: Record<string, unknown> };
        const reversed = Object.fromEntries(Object.entries(payload).reverse());
        return rest.replace(JSON.stringify(payload), JSON.stringify(reversed));
      }),
      /canonical/,
    ],
    [
      'an escape written otherwise',
      'document-chunks',
      refingerprinted(chunkBytes, (rest) =>
        rest.replace(/"documentId":"(.)/, (_, c: string) => `"documentId":"\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
      ),
      /canonical/,
    ],
  ];
  for (const [label, kind, bytes, why] of forgeries) {
    const inspection = inspectRestored({ kind, output: file(bytes) });
    assert.ok(!inspection.ok && why.test(inspection.why), `${label}: ${JSON.stringify(inspection)}`);
  }
});
