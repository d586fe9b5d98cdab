import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';
import { assignDocumentIds } from '../../src/config/source-url.js';
import { SEARCH_SINGLE_FILE_MAX_DOCUMENTS, SEGMENT_CUT_ONE_IN, SEGMENT_FILE_NAME } from '../../src/index/index-layout.js';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, mergeSegmentedIndex } from '../../src/index/search-index.js';
import type { Chunk } from '../../src/document/types.js';
import { crc32Hex } from '../../src/index/index-layout.js';
import { assertNoStackTrace, Rig, sampleHtml } from '../helpers/rig.js';
import { readStageIndex } from '../../src/store/stage-index.js';
import { segmentFiles } from '../helpers/segment-files.js';

const url = (name: string) => `https://seg.test/${name}`;
const idOf = (name: string) => assignDocumentIds([url(name)]).get(url(name))!;
const isCut = (name: string) => zlib.crc32(idOf(name)) % SEGMENT_CUT_ONE_IN === 0;

/** Names whose document id ends a segment (index-layout.ts planSegments). */
function cutNames(count: number, prefix: string): string[] {
  const names: string[] = [];
  for (let k = 0; names.length < count; k++) if (isCut(`${prefix}${k}`)) names.push(`${prefix}${k}`);
  return names;
}

function writeWorkspace(rig: Rig, names: string[], edits: Record<string, string> = {}): void {
  const files: Record<string, string> = {};
  for (const [i, name] of names.entries()) files[`src/${name}.html`] = sampleHtml(i, edits[name] ?? '');
  files['map.json'] = JSON.stringify(
    names.map((name) => ({ sourceUrl: url(name), localPath: `src/${name}.html`, contentType: 'text/html' })),
  );
  files['episteme.json'] = JSON.stringify({ manualIngest: 'map.json' });
  for (const file of fs.readdirSync(rig.path('src'), { withFileTypes: true }).filter((e) => e.isFile()))
    if (!(`src/${file.name}` in files)) fs.rmSync(rig.path('src', file.name));
  rig.write(files);
}

/**
 * The index files a clean build makes from the workspace's chunk files (the writer, in process),
 * compared with what the build left: the same manifest bytes, the same segment files, and nothing else.
 */
function assertEqualsCleanIndex(rig: Rig): number {
  const chunkIndexBytes = fs.readFileSync(rig.path('chunks/index.json'));
  // Read as every reader does: a manifest's segments each verified against it.
  const chunkIndex = readStageIndex(rig.path('chunks'), 'chunk-index');
  const parts = chunkIndex.entries.map((entry) => {
    const chunks = (JSON.parse(rig.read(`chunks/${entry.file}`)) as { payload: { chunks: Chunk[] } }).payload.chunks;
    return buildDocumentPart(entry.documentId, chunks);
  });
  const clean = mergeSegmentedIndex(
    parts,
    { chunkIndexFingerprint: chunkIndex.fingerprint, chunkIndexCrc32: crc32Hex(chunkIndexBytes), missingSources: [] },
    DEFAULT_INDEX_OPTIONS,
  );
  assert.equal(rig.read('chunks/search-index.json'), clean.index, 'the manifest equals a clean build');
  assert.deepEqual(segmentFiles(rig), clean.segments.map((s) => s.file).sort(), 'exactly the segment files of a clean build');
  for (const segment of clean.segments) assert.equal(rig.read(`chunks/${segment.file}`), segment.bytes, segment.file);
  return clean.segments.length;
}

async function build(rig: Rig, args: string[] = []): Promise<void> {
  const result = await rig.exec(['build', '--json', ...args]);
  assert.equal(result.code, 0, result.stdout + result.stderr);
}

async function query(rig: Rig, term: string) {
  return rig.exec(['query', '--index', 'chunks/search-index.json', '--term', term, '--limit', '3', '--json']);
}

test('a segmented index after edits that change, add (split) and remove (merge) documents equals a clean build', {
  timeout: 600_000,
}, async () => {
  const rig = new Rig();
  try {
    fs.mkdirSync(rig.path('src'), { recursive: true });
    const cuts = cutNames(3, 'cut');
    const plain = Array.from({ length: 290 }, (_, i) => `doc${i}`).filter((name) => !isCut(name));
    let names = [...plain, cuts[0]!, cuts[1]!];
    writeWorkspace(rig, names);
    await build(rig);
    const first = assertEqualsCleanIndex(rig);
    assert.ok(first >= 2, `${first} segments`);
    const answer = await query(rig, 'giraffe17');
    assert.equal(answer.code, 0, answer.stdout + answer.stderr);
    assert.equal(answer.json!.data.hits[0].citation.documentId, idOf('doc17'));

    // One document changes: one segment file is replaced, the others stay as they were (same inode).
    const before = new Map(segmentFiles(rig).map((name) => [name, fs.statSync(rig.path('chunks', name)).ino]));
    writeWorkspace(rig, names, { doc17: ' An edited sentence about okapi.' });
    await build(rig, ['chunks/search-index.json']);
    assert.equal(assertEqualsCleanIndex(rig), first);
    const after = segmentFiles(rig);
    assert.equal(after.filter((name) => !before.has(name)).length, 1);
    for (const name of after.filter((n) => before.has(n))) assert.equal(fs.statSync(rig.path('chunks', name)).ino, before.get(name));
    assert.equal((await query(rig, 'okapi')).json!.data.hits[0].citation.documentId, idOf('doc17'));

    // A document whose id is a cut: its segment splits in two.
    names = [...names, cuts[2]!];
    writeWorkspace(rig, names);
    await build(rig);
    assert.equal(assertEqualsCleanIndex(rig), first + 1);
    // A cut document leaves: two segments merge (and the unnamed segment files are collected).
    names = names.filter((name) => name !== cuts[0]);
    writeWorkspace(rig, names);
    await build(rig);
    assert.equal(assertEqualsCleanIndex(rig), first);

    // A damaged segment: the query fails with a structured error and a hint; a build repairs it.
    const victim = segmentFiles(rig)[0]!;
    const text = rig.read(`chunks/${victim}`);
    const at = text.lastIndexOf('"],"seal"') - 5;
    fs.writeFileSync(rig.path('chunks', victim), text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1));
    const damaged = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'item', '--limit', '400', '--json']);
    assert.equal(damaged.json?.ok, false, damaged.stdout);
    assert.equal(damaged.json!.error!.code, 'artifact-invalid');
    assert.match(damaged.json!.error!.hint ?? '', /episteme/);
    assertNoStackTrace(damaged);
    const repair = await rig.exec(['build', '--json']);
    assert.equal(repair.code, 0, repair.stdout);
    // The segment is a target of its own (chunks/search-index.json#<first document id>): it is rebuilt.
    assert.ok(
      repair.json!.data.targets.some(
        (t: { target: string; status: string }) => t.target.startsWith('chunks/search-index.json#') && t.status !== 'up-to-date',
      ),
    );
    assertEqualsCleanIndex(rig);
    // A removed segment: the next build notices it (not a no-op) and writes it again.
    fs.rmSync(rig.path('chunks', segmentFiles(rig)[1]!));
    await build(rig);
    assertEqualsCleanIndex(rig);
    const noop = await rig.exec(['build', '--json']);
    assert.equal(noop.json!.data.actions, 0);

    // A copy with --out takes its segments along; a manifest from stdin finds them beside --chunk-index.
    fs.mkdirSync(rig.path('copy'));
    const copied = await rig.exec(['index', '--out', 'copy/idx.json', '--json']);
    assert.equal(copied.code, 0, copied.stdout + copied.stderr);
    assert.deepEqual(
      fs
        .readdirSync(rig.path('copy'))
        .filter((name) => SEGMENT_FILE_NAME.test(name))
        .sort(),
      segmentFiles(rig),
    );
    const fromCopy = await rig.exec([
      'query',
      '--index',
      'copy/idx.json',
      '--chunk-index',
      'chunks/index.json',
      '--term',
      'giraffe17',
      '--json',
    ]);
    assert.equal(fromCopy.json!.data.hits[0].citation.documentId, idOf('doc17'), fromCopy.stdout + fromCopy.stderr);
    const fromStdin = await rig.exec(['query', '--index', '-', '--chunk-index', 'chunks/index.json', '--term', 'giraffe17', '--json'], {
      input: fs.readFileSync(rig.path('chunks/search-index.json')),
    });
    assert.equal(fromStdin.json!.data.hits[0].citation.documentId, idOf('doc17'), fromStdin.stdout + fromStdin.stderr);

    // Back to 200 documents: the small corpus's plan (planSearchSegments: 1 in 32, at most 64).
    names = names.slice(0, 200);
    writeWorkspace(rig, names);
    await build(rig);
    const small = assertEqualsCleanIndex(rig);
    assert.ok(small >= 2, `${small} segments`);
    // And to 16: one file again, and no segment file is left behind.
    names = names.slice(0, SEARCH_SINGLE_FILE_MAX_DOCUMENTS);
    writeWorkspace(rig, names);
    await build(rig);
    assert.equal(assertEqualsCleanIndex(rig), 0);
    assert.deepEqual(segmentFiles(rig), []);
  } finally {
    rig.cleanup();
  }
});

test('a clean build of a segmented workspace writes the same bytes as the incremental one', { timeout: 600_000 }, async () => {
  const names = [...Array.from({ length: 280 }, (_, i) => `doc${i}`), ...cutNames(2, 'cut')];
  const incremental = new Rig();
  const clean = new Rig();
  try {
    fs.mkdirSync(incremental.path('src'), { recursive: true });
    fs.mkdirSync(clean.path('src'), { recursive: true });
    writeWorkspace(incremental, [...names, 'extra']);
    await build(incremental);
    writeWorkspace(incremental, names, { doc3: ' changed' });
    await build(incremental);
    writeWorkspace(clean, names, { doc3: ' changed' });
    await build(clean);
    // Stage indexes too (their manifests and segment files), not only the search index.
    const derived = (rig: Rig) =>
      new Map([...rig.artifacts()].filter(([file]) => !/^snapshots\/(records|bodies|observations)\//.test(file)));
    assert.deepEqual(derived(incremental), derived(clean));
    assert.ok(segmentFiles(clean).length >= 2);
  } finally {
    incremental.cleanup();
    clean.cleanup();
  }
});
