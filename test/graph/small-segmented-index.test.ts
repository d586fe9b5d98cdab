import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { Chunk } from '../../src/document/types.js';
import { crc32Hex, SEARCH_SINGLE_FILE_MAX_DOCUMENTS } from '../../src/index/index-layout.js';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, mergeSearchIndex } from '../../src/index/search-index.js';
import { readStageIndex } from '../../src/store/stage-index.js';
import { Rig, sampleHtml } from '../helpers/rig.js';
import { segmentFiles } from '../helpers/segment-files.js';

/**
 * A small corpus's search index is cut into segments too (index-layout.ts planSearchSegments: from 17
 * documents on, while the stage indexes stay one file up to 256): an edit, an addition that changes
 * the cut number (32 -> 33 documents) and removals down to one file each leave the bytes of a clean
 * build, an edit rewrites one segment file, and a query answers as the single file of the same chunks.
 */

function writeWorkspace(rig: Rig, count: number, edits: Record<number, string> = {}): void {
  const files: Record<string, string> = {};
  const map: { sourceUrl: string; localPath: string; contentType: string }[] = [];
  for (let i = 0; i < count; i++) {
    files[`src/doc${i}.html`] = sampleHtml(i, edits[i] ?? '');
    map.push({ sourceUrl: `https://small-seg.test/doc${i}/`, localPath: `src/doc${i}.html`, contentType: 'text/html' });
  }
  files['map.json'] = JSON.stringify(map);
  files['episteme.json'] = JSON.stringify({ manualIngest: 'map.json' });
  if (fs.existsSync(rig.path('src')))
    for (const name of fs.readdirSync(rig.path('src'))) if (!(`src/${name}` in files)) fs.rmSync(rig.path('src', name));
  rig.write(files);
}

/** Everything a build derives (the snapshot records and bodies name capture times; their index does not). */
function derived(rig: Rig): Map<string, string> {
  const files = rig.artifacts(['specs', 'chunks']);
  for (const [file, hash] of rig.artifacts(['snapshots'])) if (/^snapshots\/index/.test(file)) files.set(file, hash);
  return files;
}

async function build(rig: Rig): Promise<void> {
  const result = await rig.exec(['build', '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
}

async function assertEqualsCleanBuild(rig: Rig, count: number, edits: Record<number, string>, step: string): Promise<void> {
  const clean = new Rig('episteme-small-seg-clean-');
  try {
    writeWorkspace(clean, count, edits);
    await build(clean);
    assert.deepEqual(derived(rig), derived(clean), `${step}: the workspace equals a clean build`);
  } finally {
    clean.cleanup();
  }
  const noop = await rig.exec(['build', '--json']);
  assert.equal(noop.json!.data.actions, 0, `${step}: the next build is a no-op`);
}

/** The search index's manifest: its segment count, or 1 for a single file. */
function segmentCount(rig: Rig): number {
  const payload = (JSON.parse(rig.read('chunks/search-index.json')) as { payload: { manifest?: { segments: unknown[] } } }).payload;
  return payload.manifest === undefined ? 1 : payload.manifest.segments.length;
}

/**
 * The same chunks as one file, beside a copy of the same chunk index (in `single/chunks`): the layout
 * of search-index plan 1, which a query must answer exactly as the segments do.
 */
function writeSingleFile(rig: Rig): string {
  const dir = rig.path('single', 'chunks');
  fs.mkdirSync(dir, { recursive: true });
  const chunkIndexBytes = fs.readFileSync(rig.path('chunks/index.json'));
  fs.writeFileSync(`${dir}/index.json`, chunkIndexBytes);
  const chunkIndex = readStageIndex(rig.path('chunks'), 'chunk-index');
  const parts = chunkIndex.entries.map((entry) => {
    const chunks = (JSON.parse(rig.read(`chunks/${entry.file}`)) as { payload: { chunks: Chunk[] } }).payload.chunks;
    return buildDocumentPart(entry.documentId, chunks);
  });
  const provenance = { chunkIndexFingerprint: chunkIndex.fingerprint, chunkIndexCrc32: crc32Hex(chunkIndexBytes), missingSources: [] };
  fs.writeFileSync(`${dir}/search-index.json`, mergeSearchIndex(parts, provenance, DEFAULT_INDEX_OPTIONS));
  return `${dir}/search-index.json`;
}

async function hits(rig: Rig, index: string, term: string): Promise<unknown> {
  const result = await rig.exec(['query', '--index', index, '--term', term, '--limit', '40', '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return result.json!.data.hits;
}

test('a small segmented search index: edits, a new cut number and a return to one file equal a clean build', {
  timeout: 600_000,
}, async () => {
  const rig = new Rig('episteme-small-seg-');
  try {
    let count = 24;
    let edits: Record<number, string> = {};
    writeWorkspace(rig, count);
    await build(rig);
    const first = segmentCount(rig);
    assert.ok(first >= 2, `${count} documents: ${first} segment(s)`);
    assert.equal(segmentFiles(rig).length, first);
    // The stage indexes stay one file each (planSegments: up to 256 entries).
    assert.ok(fs.readdirSync(rig.path('chunks')).every((name) => !/^index\.seg-/.test(name)));
    await assertEqualsCleanBuild(rig, count, edits, 'first build');

    // Answers across the plan: the segments and the single file of the same chunks, hit for hit.
    const single = writeSingleFile(rig);
    for (const term of ['conditional requests', 'giraffe7', 'alpha section', 'shared words document'])
      assert.deepEqual(await hits(rig, 'chunks/search-index.json', term), await hits(rig, single, term), term);
    fs.rmSync(rig.path('single'), { recursive: true });

    // One document's edit rewrites one segment file; the others stay as they were (same inode).
    const before = new Map(segmentFiles(rig).map((name) => [name, fs.statSync(rig.path('chunks', name)).ino]));
    edits = { 7: ' An edited sentence about okapi.' };
    writeWorkspace(rig, count, edits);
    await build(rig);
    const after = segmentFiles(rig);
    assert.equal(after.length, first);
    assert.equal(after.filter((name) => !before.has(name)).length, 1, 'one segment file replaced');
    for (const name of after.filter((n) => before.has(n))) assert.equal(fs.statSync(rig.path('chunks', name)).ino, before.get(name));
    await assertEqualsCleanBuild(rig, count, edits, 'an edit');
    const okapi = (await hits(rig, 'chunks/search-index.json', 'okapi')) as { citation: { sourceUrl: string } }[];
    assert.equal(okapi[0]!.citation.sourceUrl, 'https://small-seg.test/doc7/');

    // 33 documents: the cut number doubles (1 in 8), the whole index is cut anew.
    count = 33;
    writeWorkspace(rig, count, edits);
    await build(rig);
    await assertEqualsCleanBuild(rig, count, edits, '33 documents');
    // Down to SEARCH_SINGLE_FILE_MAX_DOCUMENTS: one file, and no segment file left behind.
    count = SEARCH_SINGLE_FILE_MAX_DOCUMENTS;
    writeWorkspace(rig, count, edits);
    await build(rig);
    assert.equal(segmentCount(rig), 1);
    assert.deepEqual(segmentFiles(rig), []);
    await assertEqualsCleanBuild(rig, count, edits, `${count} documents`);
    // And back above it: segments again.
    count = SEARCH_SINGLE_FILE_MAX_DOCUMENTS + 1;
    writeWorkspace(rig, count, edits);
    await build(rig);
    assert.ok(segmentCount(rig) >= 2);
    await assertEqualsCleanBuild(rig, count, edits, `${count} documents`);
  } finally {
    rig.cleanup();
  }
});
