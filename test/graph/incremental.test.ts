import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace, sampleHtml } from '../helpers/rig.js';

type TargetRow = { target: string; rule: string; status: string; reasons: { reason: string; [k: string]: unknown }[] };

function statusOf(targets: TargetRow[]): Record<string, string> {
  return Object.fromEntries(targets.map((t) => [t.target, t.status]));
}

function ran(targets: TargetRow[]): string[] {
  return targets
    .filter((t) => t.status === 'built' || t.status === 'unchanged')
    .map((t) => t.target)
    .sort();
}

async function cleanBuildArtifacts(files: (rig: Rig) => void): Promise<Map<string, string>> {
  const clean = new Rig();
  try {
    files(clean);
    const result = await clean.exec(['build', '--json']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    return clean.artifacts();
  } finally {
    clean.cleanup();
  }
}

test('a second build runs nothing and leaves every artifact byte-identical', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const first = await rig.exec(['build', '--json']);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(first.json!.data.actions, 3 * 3 + 4);
    const before = rig.artifacts();
    const second = await rig.exec(['build', '--json']);
    assert.equal(second.code, 0);
    assert.equal(second.json!.data.actions, 0);
    assert.deepEqual(ran(second.json!.data.targets), []);
    assert.deepEqual(rig.artifacts(), before);
    assert.ok([...before.keys()].some((k) => k === 'chunks/search-index.json'));
  } finally {
    rig.cleanup();
  }
});

test('editing one source rebuilds only its chain and the indexes, and equals a clean build', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    rig.write({ 'src/doc1.html': sampleHtml(1, ' A new sentence about okapi animals.') });
    const edit = await rig.exec(['build', '--json']);
    assert.equal(edit.code, 0, edit.stdout);
    assert.deepEqual(ran(edit.json!.data.targets), [
      'chunks/example-test-doc1.json',
      'chunks/index.json',
      'chunks/search-index.json',
      'snapshots/example-test-doc1.json',
      'snapshots/index.json',
      'specs/example-test-doc1.json',
      'specs/index.json',
    ]);
    const status = statusOf(edit.json!.data.targets);
    assert.equal(status['specs/example-test-doc0.json'], 'up-to-date');
    const extractRow = (edit.json!.data.targets as TargetRow[]).find((t) => t.target === 'specs/example-test-doc1.json')!;
    assert.deepEqual(
      extractRow.reasons.map((r) => r.reason),
      ['upstream-changed'],
    );
    const expected = await cleanBuildArtifacts((clean) => {
      writeSmallWorkspace(clean);
      clean.write({ 'src/doc1.html': sampleHtml(1, ' A new sentence about okapi animals.') });
    });
    assert.deepEqual(rig.artifacts(), expected);
  } finally {
    rig.cleanup();
  }
});

const sameContentReusesWork =
  'a new snapshot with the same extracted content restamps provenance, reuses chunk text and postings, and equals a clean build';
test(sameContentReusesWork, async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const partsBefore = fs.readdirSync(rig.path('.episteme/cache/index-parts')).sort();
    // Reflowing a paragraph (a space becomes a newline): new snapshot bytes, same text and source offsets.
    const edited = sampleHtml(2).replace('mentions zebra2', 'mentions\nzebra2');
    rig.write({ 'src/doc2.html': edited });
    const result = await rig.exec(['build', '--json']);
    assert.equal(result.code, 0);
    const status = statusOf(result.json!.data.targets);
    assert.equal(status['snapshots/example-test-doc2.json'], 'built');
    assert.equal(status['specs/example-test-doc2.json'], 'built');
    assert.equal(status['chunks/example-test-doc2.json'], 'built');
    assert.equal(status['chunks/example-test-doc1.json'], 'up-to-date');
    // Postings depend on chunk content only: no new index part was tokenised.
    assert.deepEqual(fs.readdirSync(rig.path('.episteme/cache/index-parts')).sort(), partsBefore);
    const expected = await cleanBuildArtifacts((clean) => {
      writeSmallWorkspace(clean);
      clean.write({ 'src/doc2.html': edited });
    });
    assert.deepEqual(rig.artifacts(), expected);
    // The hit cites the snapshot of the current bytes.
    const hit = (await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'zebra2', '--json'])).json!.data.hits[0];
    const snapshotIndex = JSON.parse(rig.read('snapshots/index.json')) as {
      payload: { entries: { documentId: string; snapshotId: string }[] };
    };
    assert.equal(hit.citation.snapshotId, snapshotIndex.payload.entries.find((e) => e.documentId === 'example-test-doc2')!.snapshotId);
  } finally {
    rig.cleanup();
  }
});

test('touching every input and output causes zero actions', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const future = new Date(Date.now() + 60_000);
    for (const file of [...rig.artifacts().keys(), 'src/doc0.html', 'src/doc1.html', 'src/doc2.html', 'map.json', 'episteme.json']) {
      fs.utimesSync(rig.path(file), future, future);
    }
    const result = await rig.exec(['build', '--json']);
    assert.equal(result.code, 0);
    assert.equal(result.json!.data.actions, 0);
  } finally {
    rig.cleanup();
  }
});

test('building one target builds only its closure', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const doc = await rig.exec(['build', 'specs/example-test-doc0.json', '--json']);
    assert.equal(doc.code, 0, doc.stdout);
    assert.deepEqual(ran(doc.json!.data.targets), ['snapshots/example-test-doc0.json', 'specs/example-test-doc0.json']);
    assert.ok(!fs.existsSync(rig.path('specs/index.json')));

    const search = await rig.exec(['build', 'chunks/search-index.json', '--json']);
    assert.equal(search.code, 0);
    const names = (search.json!.data.targets as TargetRow[]).map((t) => t.target);
    assert.ok(!names.includes('specs/index.json') && !names.includes('snapshots/index.json'), names.join());
    assert.ok(ran(search.json!.data.targets).includes('chunks/search-index.json'));
    assert.equal(statusOf(search.json!.data.targets)['specs/example-test-doc0.json'], 'up-to-date');

    const unknown = await rig.exec(['build', 'specs/nope.json', '--json']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.json!.error!.code, 'unknown-target');
  } finally {
    rig.cleanup();
  }
});

test('dry run and explain say why a target is dirty, naming the changed option or input', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const fresh = await rig.exec(['explain', 'specs/example-test-doc0.json', '--json']);
    assert.equal(fresh.code, 0);
    const freshRow = fresh.json!.data.targets.find((t: TargetRow) => t.target === 'specs/example-test-doc0.json');
    assert.equal(freshRow.status, 'dirty');
    assert.equal(freshRow.reasons[0].reason, 'no-record');
    assert.equal((await rig.exec(['build'])).code, 0);
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: 500 } } }) });
    const dry = await rig.exec(['build', '--dry-run', '--json']);
    assert.equal(dry.code, 0);
    const chunkRow = (dry.json!.data.targets as TargetRow[]).find((t) => t.target === 'chunks/example-test-doc0.json')!;
    assert.equal(chunkRow.status, 'dirty');
    assert.equal(chunkRow.reasons[0]!.reason, 'option-changed');
    assert.equal(chunkRow.reasons[0]!.name, 'chunk.maxChars');
    assert.equal(chunkRow.reasons[0]!.after, '500');
    // The dry run wrote nothing: a real build still has the work to do.
    const explain = await rig.exec(['explain', 'chunks/example-test-doc0.json']);
    assert.match(explain.stdout, /option chunk\.maxChars changed \d+ -> 500/);
    fs.rmSync(rig.path('chunks/search-index.json'));
    const missing = await rig.exec(['explain', 'chunks/search-index.json', '--json']);
    const row = missing.json!.data.targets.find((t: TargetRow) => t.target === 'chunks/search-index.json');
    assert.ok(row.reasons.some((r: { reason: string }) => r.reason === 'upstream-dirty'));
  } finally {
    rig.cleanup();
  }
});

test('a modified output is detected and rebuilt', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    const before = rig.artifacts();
    fs.appendFileSync(rig.path('chunks/index.json'), ' ');
    const explain = await rig.exec(['explain', 'chunks/index.json', '--json']);
    assert.equal(explain.json!.data.targets[0].reasons[0].reason, 'output-modified');
    const rebuilt = await rig.exec(['build', '--json']);
    assert.deepEqual(ran(rebuilt.json!.data.targets), ['chunks/index.json']);
    assert.deepEqual(rig.artifacts(), before);
  } finally {
    rig.cleanup();
  }
});

test('parallel and one-worker builds give identical bytes', async () => {
  const one = new Rig();
  const many = new Rig();
  try {
    writeSmallWorkspace(one, 6);
    writeSmallWorkspace(many, 6);
    assert.equal((await one.exec(['build', '--jobs', '1'])).code, 0);
    assert.equal((await many.exec(['build', '--jobs', '4'])).code, 0);
    assert.deepEqual(many.artifacts(), one.artifacts());
  } finally {
    one.cleanup();
    many.cleanup();
  }
});

const noopProofNeverHidesWork =
  'the stat-only no-op proof never hides work: after a partial build, a config edit or a failure, ' +
  'the full build still runs what is stale';
test(noopProofNeverHidesWork, async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build'])).code, 0);
    // A partial build after an edit leaves the indexes stale; the next full build must see that.
    rig.write({ 'src/doc0.html': sampleHtml(0, ' Partial build words: pangolin.') });
    assert.equal((await rig.exec(['build', 'chunks/example-test-doc0.json'])).code, 0);
    const full = await rig.exec(['build', '--json']);
    assert.deepEqual(ran(full.json!.data.targets), [
      'chunks/index.json',
      'chunks/search-index.json',
      'snapshots/index.json',
      'specs/index.json',
    ]);
    // An option edit in the config is seen even though no source changed.
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: 600 } } }) });
    const edited = await rig.exec(['build', '--json']);
    assert.ok(ran(edited.json!.data.targets).includes('chunks/example-test-doc1.json'));
    // Another map given on the command line is another graph, even though no recorded file changed.
    const map = JSON.parse(rig.read('map.json')) as unknown[];
    rig.write({ 'two.json': JSON.stringify(map.slice(0, 2)) });
    const viaMap = await rig.exec(['build', '--map', 'two.json', '--json']);
    assert.equal(viaMap.code, 0);
    assert.ok(ran(viaMap.json!.data.targets).includes('chunks/search-index.json'), 'a different map is a different graph');
    assert.equal(viaMap.json!.data.targets.length, 2 * 3 + 4);
    // After a failure, nothing is proven clean: the failing source is retried.
    // (The edit makes doc0 reread; doc2, back from the one-off map, keeps its retained snapshot.)
    rig.write({
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: 300 } }),
      'src/doc0.html': sampleHtml(0, ' Over the bound now.'),
    });
    assert.equal((await rig.exec(['build'])).code, 1);
    assert.equal((await rig.exec(['build'])).code, 1);
  } finally {
    rig.cleanup();
  }
});

test('a file-size bound lowered under an unchanged source fails it, as a clean build does; raised again, it builds', async () => {
  const rig = new Rig();
  const clean = new Rig();
  try {
    for (const r of [rig, clean]) {
      writeSmallWorkspace(r, 2);
      r.write({ 'src/doc1.html': sampleHtml(1, ' A longer paragraph than doc0 has.') });
    }
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const size = fs.statSync(rig.path('src/doc1.html')).size;
    const bounded = JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: size - 1 } });
    // doc0 is shorter than doc1: only doc1 is over the bound.
    assert.ok(fs.statSync(rig.path('src/doc0.html')).size < size);
    rig.write({ 'episteme.json': bounded });
    clean.write({ 'episteme.json': bounded });
    const failed = async (r: Rig) => {
      const result = await r.exec(['build', '--json']);
      assert.equal(result.code, 1, result.stdout);
      return (result.json!.data.targets as TargetRow[])
        .filter((t) => t.status === 'failed')
        .map((t) => `${t.target} ${(t as { error?: { code: string } }).error?.code}`);
    };
    const incremental = await failed(rig);
    assert.deepEqual(incremental, await failed(clean), 'the incremental build fails what a clean build fails');
    assert.ok(
      incremental.some((t) => t.startsWith('snapshots/example-test-doc1.json ')),
      incremental.join(', '),
    );
    // The bound raised again: the source builds, and the workspace equals a clean build's.
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
    clean.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
    assert.equal((await rig.exec(['build'])).code, 0);
    assert.equal((await clean.exec(['build'])).code, 0);
    assert.deepEqual(rig.artifacts(), clean.artifacts());
  } finally {
    rig.cleanup();
    clean.cleanup();
  }
});
