import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT, Rig, sampleHtml, writeSmallWorkspace } from '../helpers/rig.js';
import { WatchProcess, watchSmallWorkspace } from '../helpers/watch-process.js';
import { tablePdf } from '../helpers/table-pdf.js';

/**
 * `episteme watch` as a user runs it: a real child process over a real workspace, edited on disk the
 * way editors do. Every wait is for an event (generous deadlines bound only a hung process); nothing
 * asserts on elapsed time.
 */

async function started(t: { after: (fn: () => Promise<void> | void) => void }, count = 3): Promise<{ rig: Rig; watch: WatchProcess }> {
  const { rig, watch, first } = await watchSmallWorkspace(t, 'episteme-watch-', count);
  assert.equal(first.trigger, 'start');
  return { rig, watch };
}

async function queryHits(rig: Rig, term: string): Promise<string[]> {
  const result = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', term, '--json']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  return (result.json!.data.hits as { chunkId: string }[]).map((h) => h.chunkId);
}

/** The workspace's committed files equal, byte for byte, those of one build from nothing of the same inputs. */
async function assertEqualsCleanBuild(rig: Rig, sources: string[], message?: string): Promise<void> {
  const clean = new Rig('episteme-watch-clean-');
  try {
    for (const file of ['episteme.json', 'map.json', ...sources]) clean.write({ [file]: fs.readFileSync(rig.path(file)) });
    assert.equal((await clean.exec(['build'])).code, 0);
    assert.deepEqual([...rig.artifacts()], [...clean.artifacts()], message);
  } finally {
    clean.cleanup();
  }
}

test('an edited source is rebuilt and the next query sees it; the workspace equals a clean build', async (t) => {
  const { rig, watch } = await started(t);
  assert.deepEqual(await queryHits(rig, 'quokka'), []);
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A quokka appears.'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.deepEqual(cycle.changed, ['src/doc1.html']);
  // Only the edited source's chain and the aggregates ran.
  assert.ok(
    cycle.ran.every((t: string) => !/doc0|doc2/.test(t)),
    JSON.stringify(cycle.ran),
  );
  assert.ok(cycle.ran.includes('chunks/search-index.json'));
  assert.equal(typeof cycle.queryReadyMs, 'number');
  const hits = await queryHits(rig, 'quokka');
  assert.equal(hits.length, 1);
  assert.match(hits[0]!, /doc1/);

  // Same inputs, built once from nothing: the same committed files, byte for byte.
  await assertEqualsCleanBuild(rig, ['src/doc0.html', 'src/doc1.html', 'src/doc2.html']);
});

test('a save is extracted while it settles, and its build takes that extraction; the workspace equals a clean build', async (t) => {
  // A long debounce window: the extraction starts once the file has been quiet a moment, well inside it.
  const rig = new Rig('episteme-watch-speculate-');
  writeSmallWorkspace(rig, 3);
  const watch = new WatchProcess(rig.dir, ['--debounce', '1000']);
  t.after(async () => {
    await watch.stop('SIGKILL');
    rig.cleanup();
  });
  assert.equal((await watch.nextCycle(0)).ok, true, watch.dump());
  for (const word of ['echidna', 'platypus']) {
    const mark = watch.lines.length;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ` A ${word} appears.`));
    const cycle = await watch.nextCycle(mark);
    assert.equal(cycle.ok, true, watch.dump());
    assert.deepEqual(Object.keys(cycle.speculatedMs ?? {}), ['specs/example-test-doc1.json'], watch.dump());
    assert.ok(cycle.ran.includes('specs/example-test-doc1.json'));
    assert.match((await queryHits(rig, word))[0] ?? '', /doc1/);
  }
  await assertEqualsCleanBuild(rig, ['src/doc0.html', 'src/doc1.html', 'src/doc2.html']);
});

test('saves of a PDF and of HTML sources, together and apart, are built on their workers; each cycle equals a clean build', async () => {
  // A worker that extracted a PDF takes PDF work only (stage-pool.ts): HTML saves after a PDF save
  // still build, on clean workers, with one or two workers.
  const report = (words: string) => tablePdf([{ texts: [{ x: 72, top: 72, size: 12, text: `The annual report mentions ${words}.` }] }]);
  for (const jobs of ['1', '2']) {
    const rig = new Rig(`episteme-watch-pdf-${jobs}-`);
    writeSmallWorkspace(rig, 2);
    const map = JSON.parse(fs.readFileSync(rig.path('map.json'), 'utf8')) as object[];
    map.push({ sourceUrl: 'https://example.test/report.pdf', localPath: 'src/report.pdf', contentType: 'application/pdf' });
    rig.write({ 'map.json': JSON.stringify(map), 'src/report.pdf': Buffer.from(report('kiwis')) });
    const watch = new WatchProcess(rig.dir, ['--jobs', jobs]);
    try {
      assert.equal((await watch.nextCycle(0)).ok, true, watch.dump());
      const saves: [string, string | Uint8Array][][] = [
        [
          ['src/report.pdf', report('kakapo parrots')],
          ['src/doc0.html', sampleHtml(0, ' A takahe walks.')],
        ],
        [['src/doc1.html', sampleHtml(1, ' A weka runs.')]],
        [['src/report.pdf', report('tuatara lizards')]],
        [['src/doc0.html', sampleHtml(0, ' A kea flies.')]],
      ];
      for (const save of saves) {
        const mark = watch.lines.length;
        for (const [file, bytes] of save) fs.writeFileSync(rig.path(file), bytes);
        // Usually one cycle; a stall between the two writes may split them into two.
        const seen = new Set<string>();
        for (let from = mark; !save.every(([file]) => seen.has(file)); ) {
          const cycle = await watch.nextCycle(from);
          assert.equal(cycle.ok, true, watch.dump());
          for (const file of cycle.changed as string[]) seen.add(file);
          from = watch.lines.indexOf(cycle) + 1;
        }
        await assertEqualsCleanBuild(
          rig,
          ['src/doc0.html', 'src/doc1.html', 'src/report.pdf'],
          `jobs ${jobs}, after ${save.map(([file]) => file).join(' + ')}`,
        );
      }
      assert.match((await queryHits(rig, 'tuatara'))[0] ?? '', /report/);
      assert.match((await queryHits(rig, 'kea'))[0] ?? '', /doc0/);
    } finally {
      await watch.stop('SIGKILL');
      rig.cleanup();
    }
  }
});

test('an atomic save (temp file renamed over the source) is one change of that source', async (t) => {
  const { rig, watch } = await started(t);
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc2.html.swp'), sampleHtml(2, ' The wombat burrows.'));
  fs.renameSync(rig.path('src/doc2.html.swp'), rig.path('src/doc2.html'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.deepEqual(cycle.changed, ['src/doc2.html']);
  assert.match((await queryHits(rig, 'wombat'))[0]!, /doc2/);
});

test('a deleted source is reported, watching goes on, and its re-creation is built', async (t) => {
  const { rig, watch } = await started(t);
  let mark = watch.lines.length;
  fs.rmSync(rig.path('src/doc0.html'));
  const broken = await watch.nextCycle(mark);
  assert.equal(broken.ok, false, watch.dump());
  assert.deepEqual(broken.changed, ['src/doc0.html']);
  assert.equal(typeof broken.error.code, 'string');
  assert.match(broken.error.message, /doc0\.html/);
  // The last complete generation still answers.
  assert.equal((await queryHits(rig, 'zebra0')).length, 1);

  mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc0.html'), sampleHtml(0, ' A platypus returns.'));
  const fixed = await watch.nextCycle(mark);
  assert.equal(fixed.ok, true, watch.dump());
  assert.match((await queryHits(rig, 'platypus'))[0]!, /doc0/);

  // The whole folder of sources removed, then restored (a branch switch, a restore from backup): the
  // folder's watch is gone with it, and comes back with it.
  const saved = new Map([0, 1, 2].map((i) => [i, fs.readFileSync(rig.path(`src/doc${i}.html`))]));
  mark = watch.lines.length;
  fs.rmSync(rig.path('src'), { recursive: true });
  assert.equal((await watch.nextCycle(mark)).ok, false, watch.dump());
  mark = watch.lines.length;
  fs.mkdirSync(rig.path('src'));
  for (const [i, bytes] of saved) fs.writeFileSync(rig.path(`src/doc${i}.html`), i === 1 ? sampleHtml(1, ' A dingo returns.') : bytes);
  await watch.waitFor((l) => l.event === 'cycle' && l.ok === true, mark);
  assert.match((await queryHits(rig, 'dingo'))[0]!, /doc1/);
});

test('a touch or a save of the same bytes runs nothing, and outputs never trigger a build', async (t) => {
  const { rig, watch } = await started(t);
  // Right after the first build wrote every output: the next event must be this save, ignored. Had
  // the build's own writes been watched, they would have started a cycle first (or with it).
  let mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc0.html'), fs.readFileSync(rig.path('src/doc0.html')));
  const ignored = await watch.waitFor(() => true, mark);
  assert.equal(ignored.event, 'ignored', watch.dump());
  assert.deepEqual(ignored.paths, ['src/doc0.html']);

  // The same after a cycle that rewrote the aggregates; and a touch (stat change only) is ignored too.
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Echidna.'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true);
  mark = watch.lines.length;
  const now = new Date();
  fs.utimesSync(rig.path('map.json'), now, now);
  const next = await watch.waitFor(() => true, mark);
  assert.equal(next.event, 'ignored', watch.dump());
  assert.deepEqual(next.paths, ['map.json']);
  assert.equal(watch.cycles.length, 2, watch.dump());
});

test('a broken config is reported with its structured error; the next valid save recovers', async (t) => {
  const { rig, watch } = await started(t);
  let mark = watch.lines.length;
  fs.writeFileSync(rig.path('episteme.json'), '{"manualIngest": "map.json",');
  const broken = await watch.nextCycle(mark);
  assert.equal(broken.ok, false);
  assert.deepEqual(broken.changed, ['episteme.json']);
  assert.equal(broken.error.code, 'config-invalid', watch.dump());
  assert.equal((await queryHits(rig, 'zebra1')).length, 1);

  mark = watch.lines.length;
  fs.writeFileSync(rig.path('episteme.json'), JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: 700 } } }));
  const fixed = await watch.nextCycle(mark);
  assert.equal(fixed.ok, true, watch.dump());
  // The new option reshapes every chunk target: the config really was read again.
  assert.ok(fixed.ran.filter((t: string) => t.startsWith('chunks/example-test-doc')).length === 3, JSON.stringify(fixed.ran));

  // A broken map, too, and a source added by fixing it is watched from then on.
  mark = watch.lines.length;
  fs.writeFileSync(rig.path('map.json'), '[{"sourceUrl": 1}]');
  assert.equal((await watch.nextCycle(mark)).error.code, 'map-invalid');
  rig.write({ 'src/doc9.html': sampleHtml(9) });
  const map = [0, 1, 2, 9].map((i) => ({
    sourceUrl: `https://example.test/doc${i}/`,
    localPath: `src/doc${i}.html`,
    contentType: 'text/html',
  }));
  mark = watch.lines.length;
  fs.writeFileSync(rig.path('map.json'), JSON.stringify(map));
  assert.equal((await watch.nextCycle(mark)).ok, true, watch.dump());
  mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc9.html'), sampleHtml(9, ' Numbat.'));
  const added = await watch.nextCycle(mark);
  assert.deepEqual(added.changed, ['src/doc9.html']);
  assert.match((await queryHits(rig, 'numbat'))[0]!, /doc9/);
});

test('a burst of 50 saves runs at most 2 builds, and the last save wins', async (t) => {
  const { rig, watch } = await started(t);
  const mark = watch.lines.length;
  for (let i = 0; i < 50; i += 1) fs.writeFileSync(rig.path('src/doc0.html'), sampleHtml(0, ` burstword${i}`));
  await watch.nextCycle(mark);
  // A sentinel edit of another source, after the first burst build was seen: every build the burst
  // caused comes before or with the sentinel's.
  fs.writeFileSync(rig.path('src/doc2.html'), sampleHtml(2, ' Sentinel.'));
  const sentinel = await watch.waitFor((l) => l.event === 'cycle' && l.changed.includes('src/doc2.html'), mark);
  const upTo = watch.lines.indexOf(sentinel);
  const burstBuilds = watch.lines.slice(mark, upTo + 1).filter((l) => l.event === 'cycle' && l.changed.includes('src/doc0.html'));
  assert.ok(burstBuilds.length >= 1 && burstBuilds.length <= 2, watch.dump());
  assert.equal((await queryHits(rig, 'burstword49')).length, 1);
  assert.equal((await queryHits(rig, 'burstword48')).length, 0);
});

test('SIGTERM ends watch cleanly: exit 0, the lock released, a following build runs without --wait-lock', async (t) => {
  const { rig, watch } = await started(t);
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Bilby.'));
  await watch.nextCycle(mark);
  const code = await watch.stop('SIGTERM');
  assert.equal(code, 0, watch.dump());
  const last = watch.lines.at(-1)!;
  assert.equal(last.command, 'watch');
  assert.equal(last.ok, true);
  assert.equal(watch.lines.at(-2)!.event, 'stopped');
  const build = await rig.exec(['build', '--json']);
  assert.equal(build.code, 0, build.stdout + build.stderr);
  assert.equal(build.json!.data.actions, 0);
  assert.equal((await queryHits(rig, 'bilby')).length, 1);
});

test('SIGKILL mid-watch leaves the last commit readable and the next build recovers', async (t) => {
  const { rig, watch } = await started(t);
  // Killed right after a save, before its build or during it, whichever the scheduler gives.
  fs.writeFileSync(rig.path('src/doc2.html'), sampleHtml(2, ' Quoll.'));
  assert.equal(await watch.stop('SIGKILL'), null);
  assert.equal((await queryHits(rig, 'zebra0')).length, 1);
  const build = await rig.exec(['build', '--json']);
  assert.equal(build.code, 0, build.stdout + build.stderr);
  assert.match((await queryHits(rig, 'quoll'))[0]!, /doc2/);
});

test('watch outside a workspace is a usage error, at once', async () => {
  const rig = new Rig('episteme-watch-none-');
  try {
    const result = await rig.exec(['watch', '--json']);
    assert.equal(result.code, 2);
    assert.equal(result.json!.error!.code, 'config-not-found');
  } finally {
    rig.cleanup();
  }
});

test("a workspace's own family rules file is watched: editing it re-extracts that family's documents", async (t) => {
  const { rig, watch } = await started(t);
  const rules = (description: string): string => {
    const generic = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'rules/generic.json'), 'utf8')) as Record<string, unknown>;
    return JSON.stringify({ ...generic, id: 'acme', description, match: { hosts: ['example.test'], hostSuffixes: [] } });
  };
  let mark = watch.lines.length;
  rig.write({ 'my-rules/acme.json': rules('Acme, first') });
  rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'my-rules' }) });
  let cycle = await watch.nextCycle(mark);
  while (!cycle.ran.some((target: string) => target.startsWith('specs/'))) cycle = await watch.nextCycle(watch.lines.indexOf(cycle) + 1);
  assert.equal(cycle.ok, true, watch.dump());

  mark = watch.lines.length;
  fs.writeFileSync(rig.path('my-rules/acme.json'), rules('Acme, edited'));
  cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.deepEqual(cycle.changed, ['my-rules/acme.json']);
  for (const doc of ['doc0', 'doc1', 'doc2']) assert.ok(cycle.ran.includes(`specs/example-test-${doc}.json`), JSON.stringify(cycle.ran));
});

test("a file added to the workspace's rules folder is noticed at once (the folder itself is watched)", async (t) => {
  const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-', 3, (rig) => {
    // The rules folder starts empty: no rules file is an input yet, only the folder can tell.
    fs.mkdirSync(rig.path('my-rules'));
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', rules: 'my-rules' }) });
  });
  const generic = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'rules/generic.json'), 'utf8')) as Record<string, unknown>;
  const rules = JSON.stringify({ ...generic, id: 'acme', description: 'Acme', match: { hosts: ['example.test'], hostSuffixes: [] } });

  // Nothing else changes: the new file alone must start the cycle, and it re-extracts every document.
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('my-rules/acme.json'), rules);
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.deepEqual(cycle.changed, ['my-rules/acme.json']);
  for (const doc of ['doc0', 'doc1', 'doc2']) assert.ok(cycle.ran.includes(`specs/example-test-${doc}.json`), JSON.stringify(cycle.ran));
  // A temp file an editor leaves beside it is not a rules file: it runs nothing.
  const quiet = watch.lines.length;
  fs.writeFileSync(rig.path('my-rules/.acme.json.swp'), 'partial');
  fs.writeFileSync(rig.path('src/doc0.html'), sampleHtml(0, ' A dingo howls.'));
  const next = await watch.nextCycle(quiet);
  assert.deepEqual(next.changed, ['src/doc0.html']);
});

test('build --watch is watch, with the same options in any order', async (t) => {
  const rig = new Rig('episteme-watch-');
  writeSmallWorkspace(rig, 2);
  const watch = new WatchProcess(rig.dir, ['--debounce', '70', '--watch'], 'build');
  t.after(async () => {
    await watch.stop('SIGKILL');
    rig.cleanup();
  });
  const watching = await watch.waitFor((l) => l.event === 'watching');
  assert.equal(watching.debounceMs, 70);
  const first = await watch.nextCycle(0);
  assert.equal(first.ok, true, watch.dump());
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A potoroo forages.'));
  const cycle = await watch.nextCycle(mark);
  assert.deepEqual(cycle.changed, ['src/doc1.html']);
  const stopped = await watch.stop('SIGTERM');
  assert.equal(stopped, 0);
});

test('state changed by another process between cycles is read from disk, not trusted from memory', async (t) => {
  const { rig, watch } = await started(t);
  // Another process removes the build state while watch is idle (memory now disagrees with the disk).
  fs.rmSync(rig.path('.episteme/state.json'), { force: true });
  fs.rmSync(rig.path('.episteme/state.log'), { force: true });
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc0.html'), sampleHtml(0, ' A bandicoot digs.'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  // Read from disk: no records, so every target was checked and ran (same bytes: unchanged).
  assert.ok(cycle.ran.includes('specs/example-test-doc1.json'), JSON.stringify(cycle.ran));
  await watch.stop('SIGTERM');
  // What watch committed is a complete state: a one-shot build finds nothing to do.
  const after = await rig.exec(['build', '--json']);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.equal(after.json!.data.actions, 0, JSON.stringify(after.json!.data.counts));
});

test('a one-shot build between two cycles is seen: the next cycle starts from its commit', async (t) => {
  const { rig, watch } = await started(t);
  // A one-shot build with another map (doc2 left out) commits while watch is idle.
  rig.write({ 'other-map.json': JSON.stringify(JSON.parse(rig.read('map.json')).slice(0, 2)) });
  const oneShot = await rig.exec(['build', '--map', 'other-map.json', '--wait-lock', '30', '--json']);
  assert.equal(oneShot.code, 0, oneShot.stdout + oneShot.stderr);
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A wallaby hops.'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  // doc2's chain was dropped by the one-shot build: watch (whose map still has doc2) rebuilds it.
  assert.ok(cycle.ran.includes('chunks/example-test-doc2.json'), JSON.stringify(cycle.ran));
  await watch.stop('SIGTERM');
  const after = await rig.exec(['build', '--json']);
  assert.equal(after.json!.data.actions, 0, JSON.stringify(after.json!.data.counts));
});

test('an output changed by another process while watch is idle is checked and rebuilt by the next cycle', async (t) => {
  const { rig, watch } = await started(t);
  // While idle, another process deletes one document's chunks and corrupts another's extracted document.
  // Neither starts a build (outputs never do), but the next cycle must not take them as current.
  const chunkIndex = JSON.parse(rig.read('chunks/index.json')) as { payload: { entries: { documentId: string; file: string }[] } };
  const doc0Chunks = chunkIndex.payload.entries.find((e) => e.documentId.endsWith('doc0'))!.file;
  fs.rmSync(rig.path(`chunks/${doc0Chunks}`));
  const docIndex = JSON.parse(rig.read('specs/index.json')) as { payload: { entries: { documentId: string; file: string }[] } };
  const doc2Spec = docIndex.payload.entries.find((e) => e.documentId.endsWith('doc2'))!.file;
  fs.appendFileSync(rig.path(`specs/${doc2Spec}`), ' ');
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A platypus swims.'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.deepEqual(cycle.changed, ['src/doc1.html']);
  assert.ok(cycle.ran.includes('chunks/example-test-doc0.json'), JSON.stringify(cycle.ran));
  assert.ok(cycle.ran.includes('specs/example-test-doc2.json'), JSON.stringify(cycle.ran));
  assert.match((await queryHits(rig, 'platypus'))[0]!, /doc1/);
  await watch.stop('SIGTERM');
  // The workspace is what a one-shot build leaves: it finds nothing to do.
  const after = await rig.exec(['build', '--json']);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.equal(after.json!.data.actions, 0, JSON.stringify(after.json!.data.counts));
});

test('an output folder moved away and replaced while watch is idle: the next cycle checks every target', async (t) => {
  const { rig, watch } = await started(t);
  // Moving the folder reports no event for its files: the watch on it only learns the folder left.
  fs.renameSync(rig.path('specs'), rig.path('specs-old'));
  fs.mkdirSync(rig.path('specs'));
  // Every file back but one document's: only a full check finds it missing.
  for (const name of fs.readdirSync(rig.path('specs-old')))
    if (!/doc0\./.test(name)) fs.copyFileSync(rig.path(`specs-old/${name}`), rig.path(`specs/${name}`));
  const mark = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A numbat forages.'));
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.ok(cycle.ran.includes('specs/example-test-doc0.json'), JSON.stringify(cycle.ran));
  await watch.stop('SIGTERM');
  const after = await rig.exec(['build', '--json']);
  assert.equal(after.json!.data.actions, 0, JSON.stringify(after.json!.data.counts));
});

test('a stage-index segment deleted or modified by another process while watch is idle is noticed and written again', {
  timeout: 600_000,
}, async (t) => {
  // Above 256 sources each stage index is a manifest naming segment files.
  const { rig, watch } = await started(t, 270);
  const segmentsOf = (dir: string) =>
    (JSON.parse(rig.read(`${dir}/index.json`)) as { payload: { segments: { file: string; lastDocumentId: string }[] } }).payload.segments;
  const damage = (): Buffer[] => {
    const snapshotSegment = segmentsOf('snapshots')[0]!.file;
    const chunkSegment = segmentsOf('chunks')[0]!.file;
    const kept = [fs.readFileSync(rig.path('snapshots', snapshotSegment)), fs.readFileSync(rig.path('chunks', chunkSegment))];
    fs.rmSync(rig.path('snapshots', snapshotSegment));
    fs.appendFileSync(rig.path('chunks', chunkSegment), ' ');
    return kept;
  };
  const assertRepaired = (kept: Buffer[], files: string[]) => {
    assert.deepEqual(fs.readFileSync(rig.path('snapshots', files[0]!)), kept[0]);
    assert.deepEqual(fs.readFileSync(rig.path('chunks', files[1]!)), kept[1]);
  };

  // A save of a source in another segment: the stage indexes run, and the segments they would reuse
  // as they are are found deleted or modified, and written again.
  let files = [segmentsOf('snapshots')[0]!.file, segmentsOf('chunks')[0]!.file];
  let kept = damage();
  const last = /doc(\d+)$/.exec(segmentsOf('specs').at(-1)!.lastDocumentId)![1]!;
  let mark = watch.lines.length;
  fs.writeFileSync(rig.path(`src/doc${last}.html`), sampleHtml(Number(last), ' A numbat digs.'));
  let cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  assert.ok(cycle.ran.includes('snapshots/index.json'), JSON.stringify(cycle.ran));
  assertRepaired(kept, files);

  // A map saved with other whitespace: no target's inputs change, but nothing is taken as current.
  files = [segmentsOf('snapshots')[0]!.file, segmentsOf('chunks')[0]!.file];
  kept = damage();
  mark = watch.lines.length;
  fs.writeFileSync(rig.path('map.json'), JSON.stringify(JSON.parse(rig.read('map.json'))));
  cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, true, watch.dump());
  // Each damaged segment is a target of its own (`<index>#<first document id>`): those two run again.
  const ran = (index: string) => cycle.ran.some((target: string) => target === index || target.startsWith(`${index}#`));
  assert.ok(ran('snapshots/index.json'), JSON.stringify(cycle.ran));
  assert.ok(ran('chunks/index.json'), JSON.stringify(cycle.ran));
  assert.ok(!ran('specs/index.json'), JSON.stringify(cycle.ran));
  assertRepaired(kept, files);
  await watch.stop('SIGTERM');
  const after = await rig.exec(['build', '--json']);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.equal(after.json!.data.actions, 0, JSON.stringify(after.json!.data.counts));
});
