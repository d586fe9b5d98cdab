import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace, sampleHtml } from '../helpers/rig.js';

type TargetRow = { target: string; status: string; error?: { code: string; message: string } };

test('a failing source keeps its previous outputs, does not stop the others, and blocks the index unless --allow-partial', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: 4000 } }) });
    assert.equal((await rig.exec(['build'])).code, 0);
    const committedChunkIndex = rig.read('chunks/index.json');
    // doc1 grows past the byte bound; doc0 changes normally.
    rig.write({ 'src/doc1.html': sampleHtml(1, ' padding'.repeat(1000)), 'src/doc0.html': sampleHtml(0, ' New words about capybara.') });
    const failed = await rig.exec(['build', '--json']);
    assert.equal(failed.code, 1);
    assert.equal(failed.json!.ok, false);
    assert.equal(failed.json!.error!.code, 'target-failed');
    const rows = failed.json!.data.targets as TargetRow[];
    const byName = Object.fromEntries(rows.map((r) => [r.target, r]));
    assert.equal(byName['snapshots/example-test-doc1.json']!.status, 'failed');
    assert.equal(byName['snapshots/example-test-doc1.json']!.error!.code, 'source-failed');
    assert.equal(byName['specs/example-test-doc1.json']!.status, 'skipped');
    assert.equal(byName['specs/example-test-doc0.json']!.status, 'built');
    assert.equal(byName['chunks/example-test-doc0.json']!.status, 'built');
    assert.equal(byName['chunks/index.json']!.status, 'skipped');
    assert.equal(byName['chunks/search-index.json']!.status, 'skipped');
    assert.equal(rig.read('chunks/index.json'), committedChunkIndex, 'committed chunk index untouched');

    // Failures are never cached: the next build tries again (and fails again).
    const again = await rig.exec(['build', '--json']);
    assert.equal(again.code, 1);
    assert.equal((again.json!.data.targets as TargetRow[]).find((r) => r.target === 'snapshots/example-test-doc1.json')!.status, 'failed');
    assert.equal(again.json!.data.actions, 0);

    const partial = await rig.exec(['build', '--allow-partial', '--json']);
    assert.equal(partial.code, 1, 'still reports the failed source');
    const chunkIndex = JSON.parse(rig.read('chunks/index.json'));
    assert.deepEqual(chunkIndex.payload.missingSources, ['example-test-doc1']);
    const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'capybara', '--json']);
    assert.equal(query.code, 0, query.stdout + query.stderr);
    assert.ok(query.json!.warnings.some((w: { code: string }) => w.code === 'partial-index'));
    assert.equal(query.json!.data.hits.length, 1);
  } finally {
    rig.cleanup();
  }
});

test('a source removed from the map disappears from the indexes, its files are removed, and queries no longer find it', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const found = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'giraffe1', '--json']);
    assert.equal(found.json!.data.hits.length, 1);
    const map = JSON.parse(rig.read('map.json')) as { sourceUrl: string }[];
    rig.write({ 'map.json': JSON.stringify(map.filter((e) => !e.sourceUrl.includes('doc1'))) });
    const rebuilt = await rig.exec(['build', '--json']);
    assert.equal(rebuilt.code, 0, rebuilt.stdout);
    assert.ok(rebuilt.json!.data.removed.some((f: string) => f.startsWith('specs/example-test-doc1.')));
    for (const dir of ['specs', 'chunks']) {
      assert.deepEqual(
        fs.readdirSync(rig.path(dir)).filter((f) => f.includes('doc1')),
        [],
        `${dir} still has doc1 files`,
      );
      assert.doesNotMatch(rig.read(`${dir}/index.json`), /example-test-doc1/);
    }
    const gone = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'giraffe1', '--json']);
    assert.equal(gone.code, 0);
    assert.equal(gone.json!.data.hits.length, 0);
    const other = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'giraffe2', '--json']);
    assert.equal(other.json!.data.hits.length, 1);
  } finally {
    rig.cleanup();
  }
});

test('a query on a stale index fails with stale-index and the exact rebuild command; after a build it succeeds', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    rig.write({ 'src/doc0.html': sampleHtml(0, ' Fresh text about narwhals.') });
    assert.equal((await rig.exec(['build', 'chunks/index.json'])).code, 0);
    const stale = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'narwhals', '--json']);
    assert.equal(stale.code, 2);
    assert.equal(stale.json!.error!.code, 'stale-index');
    assert.equal(stale.json!.error!.hint, 'Rebuild it: episteme build chunks/search-index.json');
    const human = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'narwhals']);
    assert.match(human.stderr, /error \[stale-index\]/);
    assert.equal((await rig.exec(['build', 'chunks/search-index.json'])).code, 0);
    const fresh = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'narwhals', '--json']);
    assert.equal(fresh.code, 0);
    assert.equal(fresh.json!.data.hits.length, 1);
    assert.equal(fresh.json!.data.hits[0].citation.sourceUrl, 'https://example.test/doc0/');
  } finally {
    rig.cleanup();
  }
});

test('a tampered data file is a clear error naming it, and the build repairs it', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const index = JSON.parse(rig.read('specs/index.json'));
    const file = `specs/${index.payload.entries[0].file}`;
    fs.writeFileSync(rig.path(file), rig.read(file).replace('Document', 'Dokument'));
    fs.writeFileSync(rig.path('chunks/search-index.json'), rig.read('chunks/search-index.json').slice(0, 200));
    const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'alpha', '--json']);
    assert.equal(query.code, 2);
    assert.equal(query.json!.error!.code, 'artifact-invalid');
    assert.match(query.json!.error!.message, /search-index\.json/);
    const rebuilt = await rig.exec(['build', '--json']);
    assert.equal(rebuilt.code, 0);
    const rows = rebuilt.json!.data.targets as { target: string; status: string; reasons: { reason: string }[] }[];
    const repaired = rows.find((r) => r.target === 'specs/example-test-doc0.json')!;
    assert.equal(repaired.reasons[0]!.reason, 'output-modified');
    assert.equal((await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'alpha'])).code, 0);
  } finally {
    rig.cleanup();
  }
});

test('a query checks the index blocks it reads: a damaged row block fails the queries that need it, and the build repairs it', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const text = rig.read('chunks/search-index.json');
    const rows = (JSON.parse(text) as { payload: { rows: string[] } }).payload.rows;
    assert.equal(rows.length, 3, 'one row block per document');
    // Flip one base64 digit of doc1's block: same length, so only the block's CRC-32 can tell.
    const block = rows[1]!;
    const damaged = block.slice(0, 20) + (block[20] === 'A' ? 'B' : 'A') + block.slice(21);
    fs.writeFileSync(rig.path('chunks/search-index.json'), text.replace(block, damaged));
    const untouched = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra0', '--json']);
    assert.equal(untouched.code, 0, 'doc0 is answered from its own, intact block');
    assert.equal((untouched.json!.data.hits as unknown[]).length, 1);
    const touched = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1', '--json']);
    assert.equal(touched.code, 2);
    assert.equal(touched.json!.error!.code, 'artifact-invalid');
    assert.match(touched.json!.error!.message, /search-index\.json has a row block \(#1\) that fails its CRC-32 check/);
    const rebuilt = await rig.exec(['build', '--json']);
    assert.equal(rebuilt.code, 0);
    const targets = rebuilt.json!.data.targets as { target: string; reasons: { reason: string }[] }[];
    assert.equal(targets.find((t) => t.target === 'chunks/search-index.json')!.reasons[0]!.reason, 'output-modified');
    assert.equal(rig.read('chunks/search-index.json'), text, 'rebuilt byte for byte');
    assert.equal((await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra1', '--json'])).code, 0);
  } finally {
    rig.cleanup();
  }
});
