import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, assertBounded, assertFailure, type MeasuredResult } from './harness.js';
import { CLI } from '../helpers/rig.js';
import { acquireWorkspaceLock } from '../../src/store/workspace-lock.js';
import { childHasOpen, waitUntil } from '../helpers/wait.js';
import { scaled } from '../helpers/scale.js';
import { pauseAtFirstOpen } from '../helpers/pause-at-open.js';

/**
 * Section 7 of issue 9: a query during a build answers from the last complete generation and never
 * fails with stale-index only because a build is in flight; a really stale index still does.
 */
const QUERY_BOUNDS = { maxMs: 30_000, maxRssMb: 300 };
const DOCS = 8;

/** One marker paragraph naming the generation, and filler text that makes indexing take a while (the window). */
function html(doc: number, generation: number): string {
  let filler = '';
  for (let p = 0; p < 120; p++)
    filler +=
      `<p>Filler paragraph ${p} of document ${doc}, revision ${generation}: alpha${p} beta${doc} gamma${p + doc} ` +
      `delta words for the tokenizer and the compressor to chew on.</p>`;
  return (
    `<!DOCTYPE html><html><head><title>Doc ${doc}</title></head><body><h1>Doc ${doc}</h1>` +
    `<p>The marker paragraph of doc ${doc} belongs to gen${generation} and nothing else.</p>${filler}</body></html>\n`
  );
}

function writeWorkspace(box: Sandbox, generation: number, docs = DOCS): void {
  const map = [];
  for (let i = 0; i < docs; i++) {
    box.write({ [`src/doc${i}.html`]: html(i, generation) });
    map.push({ sourceUrl: `https://example.test/doc${i}/`, localPath: `src/doc${i}.html`, contentType: 'text/html' });
  }
  box.write({ 'map.json': JSON.stringify(map), 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
}

/** Snapshot id of each document in the committed snapshot index. */
function committedSnapshots(box: Sandbox): Record<string, string> {
  const index = JSON.parse(fs.readFileSync(path.join(box.ws, 'snapshots/index.json'), 'utf8')) as {
    payload: { entries: { documentId: string; snapshotId: string }[] };
  };
  return Object.fromEntries(index.payload.entries.map((entry) => [entry.documentId, entry.snapshotId]));
}

/** A builder in its own process: rewrites every source for generation g, builds, logs the snapshot ids. */
const BUILDER = `
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const [cli, rounds, docs] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4])];
${html.toString()}
for (let g = 1; g <= rounds; g++) {
  for (let i = 0; i < docs; i++) fs.writeFileSync('src/doc' + i + '.html', html(i, g));
  const run = spawnSync(process.execPath, [cli, 'build', '--json'], { encoding: 'utf8' });
  if (run.status !== 0) { process.stderr.write(run.stdout + run.stderr); process.exit(1); }
  const entries = JSON.parse(fs.readFileSync('snapshots/index.json', 'utf8')).payload.entries;
  const snapshots = Object.fromEntries(entries.map((e) => [e.documentId, e.snapshotId]));
  fs.appendFileSync('log/generations.jsonl', JSON.stringify({ g, snapshots }) + '\\n');
}
`;

type Hit = { chunkId: string; snippet: { text: string }; citation: { documentId: string; snapshotId: string } };

test('queries run while another process rebuilds the workspace with edits all answer, each from one complete generation', async (t) => {
  const box = new Sandbox('episteme-during-build-');
  try {
    writeWorkspace(box, 0);
    box.write({ 'tools/builder.cjs': BUILDER, 'log/.keep': '' });
    const initial = await box.run(['build', '--json']);
    assert.equal(initial.code, 0, initial.stdout);
    fs.writeFileSync(path.join(box.ws, 'log/generations.jsonl'), JSON.stringify({ g: 0, snapshots: committedSnapshots(box) }) + '\n');
    const outside = box.outside();

    // Each round is a full rebuild of every source, queried two at a time throughout; more with EPISTEME_TEST_SCALE.
    const rounds = scaled(4);
    const builder = spawn(process.execPath, ['tools/builder.cjs', CLI, String(rounds), String(DOCS)], {
      cwd: box.ws,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let builderErr = '';
    builder.stderr.on('data', (d: Buffer) => (builderErr += d.toString()));
    const exited = new Promise<number>((resolve) => builder.on('close', (code) => resolve(code ?? -1)));
    let running = true;
    void exited.then(() => (running = false));

    const results: MeasuredResult[] = [];
    const query = (): Promise<MeasuredResult> =>
      box.run([
        'query',
        '--index',
        'chunks/search-index.json',
        '--term',
        'marker',
        '--limit',
        '50',
        '--max-snippet-chars',
        '2000',
        '--max-chars',
        '100000',
        '--json',
      ]);
    while (running) results.push(...(await Promise.all([query(), query()])));
    assert.equal(await exited, 0, `the builder failed: ${builderErr}`);
    results.push(await query());

    const generations = new Map<number, Record<string, string>>();
    for (const line of fs.readFileSync(path.join(box.ws, 'log/generations.jsonl'), 'utf8').trim().split('\n')) {
      const entry = JSON.parse(line) as { g: number; snapshots: Record<string, string> };
      generations.set(entry.g, entry.snapshots);
    }
    assert.equal(generations.size, rounds + 1);
    let duringBuild = 0;
    const seen = new Set<number>();
    for (const result of results) {
      assert.equal(result.code, 0, `a query failed during a build: ${result.stdout.slice(0, 1000)}`);
      assertBounded(result, QUERY_BOUNDS);
      const hits = result.json!.data.hits as Hit[];
      assert.equal(hits.length, DOCS, 'every document answers');
      const inGeneration = new Set(hits.map((hit) => Number(/gen(\d+)/.exec(hit.snippet.text)![1])));
      assert.equal(inGeneration.size, 1, `one answer mixes generations ${[...inGeneration].join(', ')}`);
      const g = [...inGeneration][0]!;
      seen.add(g);
      for (const hit of hits)
        assert.equal(
          hit.citation.snapshotId,
          generations.get(g)![hit.citation.documentId],
          `citation of ${hit.chunkId} is from generation ${g}`,
        );
      if (result.json!.warnings.some((w: { code: string }) => w.code === 'build-in-progress')) duringBuild += 1;
    }
    assert.ok(seen.has(rounds), 'the last query sees the last generation');
    const generationsSeen = [...seen].sort((a, b) => a - b).join(',');
    t.diagnostic(
      `${results.length} queries during ${rounds} builds; ${duringBuild} answered from the previous generation ` +
        `while a newer chunk index was committed; generations seen: ${generationsSeen}`,
    );
    assert.equal(box.outside(), outside);

    // A genuinely stale index, with no build running, still fails with the rebuild hint.
    box.write({ 'src/doc3.html': html(3, 99) });
    assert.equal((await box.run(['build', 'chunks/index.json', '--json'])).code, 0);
    const stale = await query();
    assertFailure(stale, { code: 'stale-index', exit: 2, ...QUERY_BOUNDS });
    assert.equal(stale.json!.error!.hint, 'Rebuild it: episteme build chunks/search-index.json');
  } finally {
    box.cleanup();
  }
});

/**
 * Pauses the command it is preloaded into (NODE_OPTIONS=--require) at its first open of a search-index
 * segment, after it has read the manifest: it writes <ws>/log/paused and waits for <ws>/log/go, so a
 * test can commit another generation in between, which removes the segments that manifest names.
 */
const PAUSE_AT_SEGMENT = pauseAtFirstOpen('.seg-');

test('a query that read the manifest of a generation a build then replaced answers from the new one', async () => {
  const box = new Sandbox('episteme-during-build-');
  try {
    // More documents than one search-index file holds: the index is a manifest and its segments.
    const docs = 20;
    writeWorkspace(box, 0, docs);
    box.write({ 'tools/pause.cjs': PAUSE_AT_SEGMENT, 'log/.keep': '' });
    assert.equal((await box.run(['build', '--json'])).code, 0);
    const segments = (): string[] => fs.readdirSync(path.join(box.ws, 'chunks')).filter((name) => name.includes('.seg-'));
    const before = segments();
    assert.ok(before.length > 1, `a segmented index: ${before.join(', ')}`);

    const env = { ...process.env, NODE_OPTIONS: `--require ${path.join(box.ws, 'tools/pause.cjs')}` };
    const query = box.run(['query', '--term', 'marker', '--limit', '50', '--json'], { env });
    await waitUntil(() => fs.existsSync(path.join(box.ws, 'log/paused')), 'the query has read the manifest');
    const awaited = fs.readFileSync(path.join(box.ws, 'log/paused'), 'utf8');
    writeWorkspace(box, 1, docs);
    assert.equal((await box.run(['build', '--json'])).code, 0);
    assert.ok(!fs.existsSync(awaited), 'the build removed the segment the query was about to open');
    fs.writeFileSync(path.join(box.ws, 'log/go'), '');

    const answer = await query;
    assert.equal(answer.code, 0, answer.stdout + answer.stderr);
    const hits = answer.json!.data.hits as Hit[];
    assert.equal(hits.length, docs);
    for (const hit of hits) assert.match(hit.snippet.text, /gen1/, 'answered from the generation committed meanwhile');

    // A segment missing under the manifest still at the path is damage: artifact-invalid, not a retry.
    fs.rmSync(path.join(box.ws, 'chunks', segments()[0]!));
    const damaged = await box.run(['query', '--term', 'marker', '--json']);
    assertFailure(damaged, { code: 'artifact-invalid', exit: 2, ...QUERY_BOUNDS });
  } finally {
    box.cleanup();
  }
});

const newerIndexUnderLockIsBuildInFlight =
  'a newer chunk index while a writer holds the lock is a build in flight (answered from the opened index, ' +
  'or after the build with --wait-build); without the writer it is stale-index';
test(newerIndexUnderLockIsBuildInFlight, async () => {
  const box = new Sandbox('episteme-during-build-');
  try {
    writeWorkspace(box, 0);
    assert.equal((await box.run(['build', '--json'])).code, 0);
    const before = committedSnapshots(box);
    const outside = box.outside();
    const query = (): Promise<MeasuredResult> =>
      box.run(['query', '--index', 'chunks/search-index.json', '--term', 'marker', '--limit', '50', '--json']);
    // The state a build leaves between its two commits: chunks/index.json newer than the search index.
    box.write({ 'src/doc5.html': html(5, 1) });
    assert.equal((await box.run(['build', 'chunks/index.json', '--json'])).code, 0);
    const stale = await query();
    assertFailure(stale, { code: 'stale-index', exit: 2, ...QUERY_BOUNDS });

    const lock = await acquireWorkspaceLock(box.ws, path.join(box.ws, '.episteme'), { waitMs: 0, command: 'test: a build in flight' });
    try {
      const during = await query();
      assert.equal(during.code, 0, during.stdout);
      assertBounded(during, QUERY_BOUNDS);
      assert.deepEqual(
        during.json!.warnings.map((w: { code: string }) => w.code),
        ['build-in-progress'],
      );
      for (const hit of during.json!.data.hits as Hit[])
        assert.equal(hit.citation.snapshotId, before[hit.citation.documentId], 'answered from the generation the search index holds');
      // A damaged chunk index is still refused, build or not.
      const chunkIndex = path.join(box.ws, 'chunks/index.json');
      const bytes = fs.readFileSync(chunkIndex, 'utf8');
      fs.writeFileSync(chunkIndex, bytes.replace('"documentId":"example-test-doc5"', '"documentId":"example-test-doc6"'));
      assertFailure(await query(), { code: 'artifact-invalid', exit: 2, ...QUERY_BOUNDS });
      fs.writeFileSync(chunkIndex, bytes);
    } finally {
      await lock.release();
    }
    assertFailure(await query(), { code: 'stale-index', exit: 2, ...QUERY_BOUNDS });

    // --wait-build: the query waits for the writer and answers from what it committed. The "build" here
    // is the test holding the lock while it puts the search index a clean build of the same inputs
    // makes (byte-identical by determinism) in place, then letting go.
    const copy = new Sandbox('episteme-during-build-copy-');
    let freshIndex: Buffer;
    try {
      for (const name of ['src', 'map.json', 'episteme.json'])
        fs.cpSync(path.join(box.ws, name), path.join(copy.ws, name), { recursive: true });
      assert.equal((await copy.run(['build', '--json'])).code, 0);
      freshIndex = fs.readFileSync(path.join(copy.ws, 'chunks/search-index.json'));
    } finally {
      copy.cleanup();
    }
    const held = await acquireWorkspaceLock(box.ws, path.join(box.ws, '.episteme'), { waitMs: 0, command: 'test: a build in flight' });
    let waited: Promise<MeasuredResult>;
    try {
      waited = box.run([
        'query',
        '--index',
        'chunks/search-index.json',
        '--term',
        'marker',
        '--limit',
        '50',
        '--wait-build',
        '60',
        '--json',
      ]);
      // Until the query has opened the old search index (it then sees the build in flight and waits).
      await waitUntil(() => childHasOpen(path.join(box.ws, 'chunks/search-index.json')), 'the query opened the search index', {
        timeoutMs: 60_000,
      });
      fs.writeFileSync(path.join(box.ws, 'chunks/.next-search-index'), freshIndex);
      fs.renameSync(path.join(box.ws, 'chunks/.next-search-index'), path.join(box.ws, 'chunks/search-index.json'));
    } finally {
      await held.release();
    }
    const afterWait = await waited;
    assert.equal(afterWait.code, 0, afterWait.stdout);
    assert.deepEqual(afterWait.json!.warnings, [], 'answered from the new generation, not the old one');
    const doc5 = (afterWait.json!.data.hits as Hit[]).find((hit) => hit.citation.documentId === 'example-test-doc5')!;
    assert.match(doc5.snippet.text, /gen1/);

    assert.equal((await box.run(['build', '--json'])).code, 0);
    const fresh = await query();
    assert.equal(fresh.code, 0);
    assert.deepEqual(fresh.json!.warnings, []);
    assert.equal(box.outside(), outside);
  } finally {
    box.cleanup();
  }
});
