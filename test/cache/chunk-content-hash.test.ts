import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { chunksContentHash, chunksContentHashOfText } from '../../src/chunk/snapshot-provenance.js';
import type { Chunk, ChunksPayload } from '../../src/document/types.js';
import { artifactBytes, makeArtifact } from '../../src/store/artifact.js';
import { CHUNKS_FORMAT_VERSION } from '../../src/rule-versions.js';
import { Rig, runCli, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * The chunk content hash a restore reads off a chunk file's text must equal the one computed from
 * the parsed chunks (it names the document's search-index part), or be null so the caller computes it.
 */
type Payload = ChunksPayload;
const chunkOptions = { maxChars: 1200, overlapChars: 150 };

function fileText(payload: Payload): string {
  return artifactBytes(makeArtifact('document-chunks', CHUNKS_FORMAT_VERSION, payload));
}

test('equals chunksContentHash on the chunk files of a real build', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig, 4);
    const built = await runCli(['build', '--json'], { cwd: rig.dir });
    assert.equal(built.code, 0, built.stdout);
    const files = fs.readdirSync(rig.path('chunks')).filter((name) => /\.[0-9a-f]{16}\.json$/.test(name));
    assert.ok(files.length >= 4);
    for (const name of files) {
      const text = fs.readFileSync(rig.path('chunks', name), 'utf8');
      const payload = (JSON.parse(text) as { payload: Payload }).payload;
      const snapshotId = payload.chunks[0]!.citation.snapshotId;
      assert.equal(chunksContentHashOfText(text, payload, snapshotId), chunksContentHash(payload.documentId, payload.chunks), name);
    }
  } finally {
    rig.cleanup();
  }
});

test('equals chunksContentHash when chunk text imitates the key, with quotes and backslashes', () => {
  const snapshotId = 'snap-0123456789abcdef0123456789abcdef';
  const tricky = [
    `"snapshotId":"${snapshotId}"`,
    `{"snapshotId":"${snapshotId}"}`,
    `a\\",\\"snapshotId\\":\\"${snapshotId}`,
    'ends with a backslash \\',
    '"quoted", {braced}, [listed] – ünïcödé 𝔘',
  ];
  const chunks = tricky.map(
    (text, i) =>
      ({
        chunkId: `d1#c${i}`,
        documentId: 'd1',
        text,
        contentTrust: 'untrusted-source',
        citation: { documentId: 'd1', snapshotId, sectionId: i % 2 ? null : `s${i}` },
        normativity: 'unknown',
        family: 'generic',
        authority: 'unknown',
        documentType: 'spec',
      }) as unknown as Chunk,
  );
  const payload = { chunkOptions, documentId: 'd1', chunks };
  assert.equal(chunksContentHashOfText(fileText(payload), payload, snapshotId), chunksContentHash('d1', chunks));
});

test('is null, never a different hash, for text of another shape', () => {
  const snapshotId = 'snap-0123456789abcdef0123456789abcdef';
  const chunk = {
    chunkId: 'd1#c0',
    documentId: 'd1',
    text: 'x',
    citation: { documentId: 'd1', snapshotId },
    // Another key with the snapshot's value: blanking it would change what is hashed.
    note: { snapshotId },
  } as unknown as Chunk;
  const payload = { chunkOptions, documentId: 'd1', chunks: [chunk] };
  assert.equal(chunksContentHashOfText(fileText(payload), payload, snapshotId), null);
  // Pretty-printed (not canonical) text.
  const pretty = JSON.stringify(JSON.parse(fileText({ chunkOptions, documentId: 'd1', chunks: [] })), null, 1);
  assert.equal(chunksContentHashOfText(pretty, { chunkOptions, documentId: 'd1', chunks: [] }, snapshotId), null);
  // A payload with another key.
  const extra = { chunkOptions, documentId: 'd1', chunks: [], more: 1 } as unknown as Payload;
  assert.equal(chunksContentHashOfText(fileText(extra), extra, snapshotId), null);
});

test('equals chunksContentHash on generated chunk texts made of JSON punctuation and the key itself', () => {
  const snapshotId = 'snap-fedcba9876543210fedcba9876543210';
  const pieces = ['"', '\\', '{', '}', ',', ':', '[', ']', 'snapshotId', snapshotId, '"snapshotId":', ' ', 'é', '𝔘', '\n', 'x'];
  let seed = 12345;
  const next = (n: number): number => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed % n;
  };
  for (let round = 0; round < 200; round++) {
    const chunks = Array.from({ length: 1 + next(4) }, (_, i) => {
      const text = Array.from({ length: next(24) }, () => pieces[next(pieces.length)]).join('');
      return {
        chunkId: `d${round}#c${i}`,
        documentId: `d${round}`,
        text,
        citation: { documentId: `d${round}`, snapshotId, sectionId: text.slice(0, 5) },
        headingPath: [text.slice(0, 3)],
      } as unknown as Chunk;
    });
    const payload = { chunkOptions, documentId: `d${round}`, chunks };
    const expected = chunksContentHash(payload.documentId, chunks);
    assert.equal(chunksContentHashOfText(fileText(payload), payload, snapshotId), expected, `round ${round}`);
  }
});
