import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { type Rig, writeSmallWorkspace } from '../helpers/rig.js';
import { type WatchProcess, watchSmallWorkspace } from '../helpers/watch-process.js';

/**
 * Watch reads its inputs the way a build does (store/bounded-read.ts): an input replaced by a FIFO, a
 * link to /dev/zero, a huge sparse file or a FIFO dropped into the rules folder never blocks the
 * watcher or fills its memory; each is a cycle that reports the input with the structured error a
 * build gives it (the map names a file that is not a regular file, or one past its bound), and
 * SIGINT still ends the watch cleanly (exit 0, a `stopped` event). A workspace folder deleted and
 * created again is built again, not failed with ENOENT from getcwd. Waits are for events; the only
 * bound on time is the wait for the exit, which a blocked watcher would never reach.
 */

/** A watch of a fresh small workspace, its first cycle done. */
async function started(t: { after: (fn: () => Promise<void> | void) => void }, config?: Record<string, unknown>) {
  const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-hostile-', 3, (rig) => {
    if (!config) return;
    fs.mkdirSync(rig.path('my-rules'), { recursive: true });
    rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', ...config }) });
  });
  return { rig, watch };
}

/** SIGINT ends the watcher: a `stopped` event and exit 0, within the bound a blocked process never meets. */
async function stopsOnSigint(watch: WatchProcess): Promise<void> {
  const exit = watch.stop('SIGINT');
  const bound = new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 5_000).unref());
  assert.equal(await Promise.race([exit, bound]), 0, `watch did not end on SIGINT:\n${watch.dump()}`);
  assert.ok(
    watch.lines.some((line) => line.event === 'stopped' && line.signal === 'SIGINT'),
    watch.dump(),
  );
}

const cases: [string, (rig: Rig) => void][] = [
  [
    'an input replaced by a FIFO',
    (rig) => {
      fs.rmSync(rig.path('src/doc0.html'));
      execFileSync('mkfifo', [rig.path('src/doc0.html')]);
    },
  ],
  [
    'an input replaced by a link to /dev/zero',
    (rig) => {
      fs.rmSync(rig.path('src/doc0.html'));
      fs.symlinkSync('/dev/zero', rig.path('src/doc0.html'));
    },
  ],
  [
    'an input grown into a 1.5 GB sparse file',
    (rig) => {
      fs.truncateSync(rig.path('src/doc0.html'), 1.5 * 1024 * 1024 * 1024);
    },
  ],
];

for (const [label, attack] of cases) {
  test(`${label}: a cycle reports the input with a structured error, and SIGINT still ends the watch`, async (t) => {
    const { rig, watch } = await started(t);
    const mark = watch.lines.length;
    attack(rig);
    const cycle = await watch.nextCycle(mark);
    assert.deepEqual(cycle.changed, ['src/doc0.html'], watch.dump());
    // Refused as a build refuses it: the map names a file that is not a regular file, or is too large.
    assert.equal(cycle.ok, false, watch.dump());
    const refusal = JSON.stringify(cycle.error ?? cycle.failed);
    assert.ok(cycle.error?.code === 'map-invalid' || cycle.failed.includes('snapshots/example-test-doc0.json'), watch.dump());
    assert.doesNotMatch(refusal, /internal-error/);
    // The other sources still built, and the watcher still answers edits.
    const again = watch.lines.length;
    rig.write({ 'src/doc1.html': '<!DOCTYPE html><html><body><p>Edited after the attack: quokka.</p></body></html>\n' });
    // The attack may reach the watcher as two changes (removed, then created) a loaded machine
    // delivers in two cycles: wait for the cycle of this edit, not merely the next one.
    await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), again);
    await stopsOnSigint(watch);
  });
}

test('a FIFO dropped into the rules folder is a config-invalid cycle, and SIGINT still ends the watch', async (t) => {
  const { rig, watch } = await started(t, { rules: 'my-rules' });
  const mark = watch.lines.length;
  execFileSync('mkfifo', [rig.path('my-rules/evil.json')]);
  const cycle = await watch.nextCycle(mark);
  assert.equal(cycle.ok, false, watch.dump());
  assert.equal(cycle.error?.code, 'config-invalid', watch.dump());
  assert.match(cycle.error?.message ?? '', /evil\.json/);
  await stopsOnSigint(watch);
});

test('the workspace folder deleted and created again is built again', async (t) => {
  const { rig, watch } = await started(t);
  const mark = watch.lines.length;
  fs.rmSync(rig.dir, { recursive: true, force: true });
  // Its loss is a cycle of its own (a missing workspace); its return, the cycle that matters.
  fs.mkdirSync(rig.dir);
  writeSmallWorkspace(rig, 3);
  rig.write({ 'src/doc1.html': '<!DOCTYPE html><html><body><p>Re-created with a wombat.</p></body></html>\n' });
  const rebuilt = await watch.waitFor((line) => line.event === 'cycle' && line.ok === true, mark);
  assert.doesNotMatch(watch.dump(), /uv_cwd|internal-error/);
  assert.ok(rebuilt.ran.includes('chunks/search-index.json'), watch.dump());
  const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'wombat', '--json']);
  assert.equal(query.code, 0, query.stdout);
  assert.equal(query.json!.data.total, 1, query.stdout);
  await stopsOnSigint(watch);
});

/**
 * The same, but the folder comes back with the very files it had, and one is edited only after the
 * watch has settled on that (nothing changed, or the workspace was missing for a cycle). A folder
 * created again at once often gets the inode number of the one deleted; a watch that took the number
 * for the folder kept its dead watch on `src/`, and the edit was never seen (FolderWatches pins each
 * watched folder open, so that the number cannot come back while it is watched, and checks them).
 */
test('the workspace folder created again with its own files, then edited once the watch settled, is built again', async (t) => {
  const { rig, watch } = await started(t);
  const mark = watch.lines.length;
  fs.rmSync(rig.dir, { recursive: true, force: true });
  fs.mkdirSync(rig.dir);
  writeSmallWorkspace(rig, 3);
  // Settled: the events confirmed as no change, or a cycle (the workspace was missing when it looked).
  await watch.waitFor((line) => line.event === 'ignored' || line.event === 'cycle', mark);
  const edited = watch.lines.length;
  rig.write({ 'src/doc1.html': '<!DOCTYPE html><html><body><p>Edited after the return, with a numbat.</p></body></html>\n' });
  const rebuilt = await watch.waitFor(
    (line) => line.event === 'cycle' && line.ok === true && (line.ran as string[]).includes('chunks/search-index.json'),
    edited,
  );
  assert.ok(rebuilt.ran.includes('specs/example-test-doc1.json'), watch.dump());
  const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'numbat', '--json']);
  assert.equal(query.code, 0, query.stdout);
  assert.equal(query.json!.data.total, 1, query.stdout);
  await stopsOnSigint(watch);
});
