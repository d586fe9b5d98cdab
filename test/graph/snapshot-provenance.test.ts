import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from '../helpers/rig.js';
import { seededRandom } from '../helpers/random.js';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { documentContentHash, restampChunks } from '../../src/chunk/snapshot-provenance.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, mergeSearchIndex } from '../../src/index/search-index.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { CHUNKS_FORMAT_VERSION } from '../../src/rule-versions.js';
import type { EvidenceDocument } from '../../src/document/types.js';

/**
 * The incremental build restamps the previous chunks and index part when only the snapshot changed.
 * That is only sound if restamping equals chunking and indexing afresh, for every document: checked
 * here over every golden document and several chunk sizes, with random snapshot ids.
 */
const fixtures = path.join(REPO_ROOT, 'test', 'fixtures', 'extract');
const documents = fs
  .readdirSync(fixtures)
  .filter((name) => name.endsWith('.golden.json'))
  .map((name) => JSON.parse(fs.readFileSync(path.join(fixtures, name), 'utf8')) as EvidenceDocument);

function chunkBytes(document: EvidenceDocument, maxChars: number): string {
  const chunkOptions = { maxChars, overlapChars: Math.floor(maxChars / 8) };
  const chunks = chunkDocument(document, { ...DEFAULT_CHUNK_OPTIONS, ...chunkOptions });
  return artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, { chunkOptions, chunks, documentId: document.documentId }));
}

/** The content hash as the extract worker computes it: off the document's canonical JSON. */
function contentHashOf(document: EvidenceDocument): string {
  return documentContentHash(
    Buffer.from(canonicalJson(document), 'utf8'),
    document.provenance.snapshotId,
    document.provenance.sourceSha256,
  );
}

function withSnapshot(document: EvidenceDocument, snapshotId: string, sourceSha256: string): EvidenceDocument {
  return { ...document, provenance: { ...document.provenance, snapshotId, sourceSha256 } };
}

test('restamped chunks and index parts equal a fresh chunking and indexing of the new snapshot', () => {
  assert.ok(documents.length >= 5, 'golden documents found');
  const random = seededRandom(9);
  const hex = (n: number): string => Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join('');
  for (const document of documents) {
    for (const maxChars of [200, 600, 1200, 4000]) {
      const before = withSnapshot(document, `snap-${hex(32)}`, hex(64));
      const after = withSnapshot(document, `snap-${hex(32)}`, hex(64));
      assert.equal(contentHashOf(before), contentHashOf(after), 'snapshot fields are outside the content hash');
      const fresh = chunkBytes(after, maxChars);
      const restamped = restampChunks(chunkBytes(before, maxChars), after.provenance.snapshotId);
      assert.equal(restamped.bytes, fresh, `${document.documentId} at maxChars ${maxChars}`);
      assert.equal(restamped.contentHash, restampChunks(fresh, after.provenance.snapshotId).contentHash);
      const chunksOf = (bytes: string) => (JSON.parse(bytes) as { payload: { chunks: never[] } }).payload.chunks;
      const oldPart = buildDocumentPart(document.documentId, chunksOf(chunkBytes(before, maxChars)));
      const provenance = { chunkIndexFingerprint: 'sha256:' + '0'.repeat(64), missingSources: [] };
      const reused = mergeSearchIndex(
        [oldPart],
        provenance,
        DEFAULT_INDEX_OPTIONS,
        new Map([[document.documentId, after.provenance.snapshotId]]),
      );
      assert.equal(reused, mergeSearchIndex([buildDocumentPart(document.documentId, chunksOf(fresh))], provenance, DEFAULT_INDEX_OPTIONS));
    }
  }
});

test('any change of content, however small, changes the content hash', () => {
  const random = seededRandom(11);
  for (const document of documents) {
    const base = contentHashOf(document);
    for (let trial = 0; trial < 20; trial += 1) {
      const copy = JSON.parse(JSON.stringify(document)) as EvidenceDocument;
      const block = copy.blocks[Math.floor(random() * copy.blocks.length)]!;
      const at = Math.floor(random() * (block.text.length + 1));
      block.text = block.text.slice(0, at) + 'x' + block.text.slice(at);
      assert.notEqual(contentHashOf(copy), base);
    }
    const retitled = { ...document, title: document.title + ' ' };
    assert.notEqual(contentHashOf(retitled), base);
    const reconfigured = { ...document, provenance: { ...document.provenance, extractionConfigSha256: '0'.repeat(64) } };
    assert.notEqual(contentHashOf(reconfigured), base);
  }
});

test('the document content hash is the SHA-256 of the canonical JSON with both snapshot values blanked', async () => {
  const { sha256Hex } = await import('../../src/store/hash.js');
  const { artifactFileBytes, artifactFileOfPayloadJson } = await import('../../src/store/artifact.js');
  for (const document of documents) {
    // A key that names the snapshot again elsewhere (front matter) is blanked too, as replaceAll does.
    const withEcho = { ...document, metadata: { snapshotId: document.provenance.snapshotId, z: 'é "snapshotId":' } };
    for (const doc of [document, withEcho]) {
      const json = canonicalJson(doc);
      const { snapshotId, sourceSha256 } = doc.provenance;
      const expected = sha256Hex(
        json
          .replaceAll(`"snapshotId":${JSON.stringify(snapshotId)}`, '"snapshotId":""')
          .replaceAll(`"sourceSha256":${JSON.stringify(sourceSha256)}`, '"sourceSha256":""'),
      );
      assert.equal(documentContentHash(Buffer.from(json, 'utf8'), snapshotId, sourceSha256), expected, doc.documentId);
      // The artifact file hashed piece by piece: the bytes makeArtifact writes.
      assert.equal(artifactFileOfPayloadJson('document', 1, json), artifactBytes(makeArtifact('document', 1, doc)));
      // And as the worker makes it: from the payload's UTF-8 bytes, with the file's SHA-256.
      const file = artifactFileBytes('document', 1, Buffer.from(json, 'utf8'));
      assert.equal(file.bytes.toString('utf8'), artifactBytes(makeArtifact('document', 1, doc)));
      assert.equal(file.sha256, sha256Hex(file.bytes));
      assert.equal(file.bytes.byteOffset, 0, 'a buffer of its own (transferable)');
      assert.equal(file.bytes.byteLength, file.bytes.buffer.byteLength, 'a buffer of its own (transferable)');
    }
  }
});
