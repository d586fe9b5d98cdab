import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, sampleHtml, sha256, writeSmallWorkspace } from '../helpers/rig.js';
import { loadWorkspace } from '../../src/config/workspace.js';
import { runBuild } from '../../src/graph/build.js';
import { invocationId } from '../../src/graph/clean-build.js';

/**
 * Garbage collection after an edit checks only the files of the records the build replaced (O(changed))
 * when the build before it was complete and clean; every other case sweeps the output folders. Either
 * way the workspace ends with exactly the files a clean build of the same inputs has.
 */
/** Every file (not folder) in the output folders, workspace-relative. */
function listing(rig: Rig): string[] {
  return ['specs', 'chunks', 'snapshots', 'snapshots/records', 'snapshots/bodies']
    .flatMap((dir) => fs.readdirSync(rig.path(dir)).map((name) => `${dir}/${name}`))
    .filter((file) => !file.endsWith('.episteme-owner') && fs.statSync(rig.path(file)).isFile())
    .sort();
}

async function cleanListing(rig: Rig, count: number): Promise<string[]> {
  const clean = new Rig('episteme-garbage-clean-');
  try {
    const files: Record<string, Buffer> = {};
    for (const file of ['episteme.json', 'map.json', ...Array.from({ length: count }, (_, i) => `src/doc${i}.html`)])
      files[file] = fs.readFileSync(rig.path(file));
    clean.write(files);
    assert.equal((await clean.exec(['build'])).code, 0);
    return listing(clean);
  } finally {
    clean.cleanup();
  }
}

const filesOf = listing;

test('an edit after a clean build removes exactly the replaced files of that source', async () => {
  const rig = new Rig('episteme-garbage-');
  try {
    writeSmallWorkspace(rig, 3);
    assert.equal((await rig.exec(['build'])).code, 0);
    const before = filesOf(rig);
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A numbat digs.'));
    const edited = await rig.exec(['build', '--json']);
    assert.equal(edited.code, 0, edited.stdout + edited.stderr);
    const removed = edited.json!.data.removed as string[];
    // The old extraction, chunks, snapshot record and body of doc1, and nothing of the others.
    assert.ok(
      removed.some((f) => /^specs\/example-test-doc1\./.test(f)),
      JSON.stringify(removed),
    );
    assert.ok(
      removed.some((f) => /^chunks\/example-test-doc1\./.test(f)),
      JSON.stringify(removed),
    );
    assert.ok(
      removed.some((f) => f.startsWith('snapshots/bodies/')),
      JSON.stringify(removed),
    );
    assert.ok(removed.every((f) => before.includes(f) && !fs.existsSync(rig.path(f))));
    assert.ok(!removed.some((f) => /doc[02]/.test(f)), JSON.stringify(removed));
    assert.deepEqual(
      filesOf(rig).filter((f) => !f.startsWith('snapshots/records/') && !f.startsWith('snapshots/bodies/')),
      (await cleanListing(rig, 3)).filter((f) => !f.startsWith('snapshots/records/') && !f.startsWith('snapshots/bodies/')),
    );
  } finally {
    rig.cleanup();
  }
});

test('garbage a targeted build had to keep (the committed index still named it) goes with the next full build', async () => {
  const rig = new Rig('episteme-garbage-');
  try {
    writeSmallWorkspace(rig, 3);
    assert.equal((await rig.exec(['build'])).code, 0);
    const oldSpec = filesOf(rig).find((f) => /^specs\/example-test-doc1\./.test(f))!;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A bilby hops.'));
    // Only doc1's chain: the committed document index still names the old extraction, so it stays.
    const targeted = await rig.exec(['build', '--json', `chunks/${'example-test-doc1'}.json`]);
    assert.equal(targeted.code, 0, targeted.stdout + targeted.stderr);
    assert.ok(fs.existsSync(rig.path(oldSpec)), 'kept while the committed index names it');
    // An edit of another source, then a full build: the indexes move on, and the old file must go too,
    // though this build did not replace its record.
    fs.writeFileSync(rig.path('src/doc2.html'), sampleHtml(2, ' A quoll hunts.'));
    const full = await rig.exec(['build', '--json']);
    assert.equal(full.code, 0, full.stdout + full.stderr);
    assert.ok(!fs.existsSync(rig.path(oldSpec)), `${oldSpec} is unreachable and removed`);
    const derived = (files: string[]) => files.filter((f) => /^(specs|chunks)\//.test(f));
    assert.deepEqual(derived(filesOf(rig)), derived(await cleanListing(rig, 3)));
  } finally {
    rig.cleanup();
  }
});

test('an edit keeps a body another source still names (same bytes); it goes when no record names it', async () => {
  const rig = new Rig('episteme-garbage-');
  try {
    writeSmallWorkspace(rig, 3);
    // doc2 is a byte copy of doc1: one content-addressed body for both.
    fs.copyFileSync(rig.path('src/doc1.html'), rig.path('src/doc2.html'));
    assert.equal((await rig.exec(['build'])).code, 0);
    const sharedBody = `snapshots/bodies/${sha256(fs.readFileSync(rig.path('src/doc1.html')))}`;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A numbat digs.'));
    const edited = await rig.exec(['build', '--json']);
    assert.equal(edited.code, 0, edited.stdout + edited.stderr);
    assert.ok(fs.existsSync(rig.path(sharedBody)), 'doc2 still names the old body of doc1');
    assert.ok(!(edited.json!.data.removed as string[]).includes(sharedBody));
    // And the next edit, of the copy, releases the body no record names any more.
    fs.writeFileSync(rig.path('src/doc2.html'), sampleHtml(2, ' A quoll hunts.'));
    const second = await rig.exec(['build', '--json']);
    assert.equal(second.code, 0);
    assert.ok(!fs.existsSync(rig.path(sharedBody)), 'no record names it now');
    assert.deepEqual(filesOf(rig), await cleanListing(rig, 3));
  } finally {
    rig.cleanup();
  }
});

test('a build that dies after its commit, before it collects its garbage, leaves that garbage to the next build', async () => {
  const rig = new Rig('episteme-garbage-');
  try {
    writeSmallWorkspace(rig, 3);
    assert.equal((await rig.exec(['build'])).code, 0);
    const before = filesOf(rig);
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' A quokka smiles.'));
    // The build of that edit, stopped where the 'garbage' phase begins: its commit is on disk, as a
    // SIGKILL at that moment leaves it (the crash tests hit this window only by chance).
    const ws = await loadWorkspace(rig.dir, {});
    const died = new Error('died before collecting garbage');
    await assert.rejects(
      runBuild(ws, {
        targets: [],
        dryRun: false,
        allowPartial: false,
        jobs: 1,
        waitLockMs: 0,
        command: 'build',
        invocation: invocationId(rig.dir, {}),
        onPhase: (phase) => {
          if (phase === 'garbage') throw died;
        },
      }),
      (error) => error === died,
    );
    const stale = before.filter((file) => /^(specs|chunks)\/example-test-doc1\./.test(file));
    assert.ok(stale.length >= 2 && stale.every((file) => fs.existsSync(rig.path(file))), JSON.stringify(stale));
    // Nothing is left to build, and the next builds (the second one takes the no-op path) end with a
    // clean build's files.
    const next = await rig.exec(['build', '--json']);
    assert.equal(next.code, 0, next.stdout + next.stderr);
    assert.deepEqual(next.json!.data.actions, 0);
    assert.ok(
      stale.every((file) => (next.json!.data.removed as string[]).includes(file)),
      JSON.stringify(next.json!.data.removed),
    );
    const expected = await cleanListing(rig, 3);
    assert.deepEqual(filesOf(rig), expected);
    assert.equal((await rig.exec(['build'])).code, 0);
    assert.deepEqual(filesOf(rig), expected);
  } finally {
    rig.cleanup();
  }
});
