import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CLI, Rig, sampleHtml, writeSmallWorkspace } from '../helpers/rig.js';
import { type WatchLine, WatchProcess, watchSmallWorkspace } from '../helpers/watch-process.js';

/**
 * The folders around a watch's inputs and outputs replaced while it runs. Each attack is followed by
 * a save, and the cycle of that save is what the test reads: waits are for events, never for time.
 */

/** A folder outside the workspace, removed after the test. */
function outsideFolder(t: { after: (fn: () => void) => void }): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-watch-outside-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

for (const [folder, field] of [
  ['specs', 'outputs.specs'],
  ['.episteme', '.episteme'],
] as const) {
  test(`${folder} replaced by a symbolic link in a watch: refused as a one-shot build refuses it, nothing written there`, async (t) => {
    const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-outlink-', 3);
    const outside = outsideFolder(t);
    fs.rmSync(rig.path(folder), { recursive: true });
    fs.symlinkSync(outside, rig.path(folder));
    const mark = watch.lines.length;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Saved after the swap.'));
    const cycle = await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), mark);
    assert.equal(cycle.ok, false, watch.dump());
    assert.equal(cycle.error?.code, 'config-invalid', watch.dump());
    assert.equal(cycle.error?.details?.field, field, watch.dump());
    // The loader's own error, word for word: a one-shot build of the same workspace gives it.
    const oneShot = await rig.exec(['build', '--dry-run', '--json']);
    assert.equal(oneShot.code, 2, oneShot.stdout);
    assert.equal(cycle.error?.message, oneShot.json!.error!.message);
    assert.deepEqual(fs.readdirSync(outside), [], 'nothing is written outside the workspace');
    // Once the folder is a real folder again, the next save builds.
    fs.rmSync(rig.path(folder));
    const again = watch.lines.length;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Saved once the folder is back.'));
    const rebuilt = await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), again);
    assert.equal(rebuilt.ok, true, watch.dump());
    assert.deepEqual(fs.readdirSync(outside), []);
  });
}

/** A failed cycle that reports the structured error of a build or a load: not a bug, not a stack. */
function assertStructured(cycle: WatchLine, watch: WatchProcess): void {
  assert.equal(cycle.ok, false, watch.dump());
  assert.notEqual(cycle.error?.code, 'internal-error', watch.dump());
  assert.doesNotMatch(JSON.stringify(cycle), /This is a bug|uv_|\bat .*\.js:\d+/, watch.dump());
}

const unstatable: [string, (rig: Rig) => void, string][] = [
  [
    'a source replaced by a symbolic link to itself',
    (rig) => {
      fs.rmSync(rig.path('src/doc1.html'));
      fs.symlinkSync('doc1.html', rig.path('src/doc1.html'));
    },
    'src/doc1.html',
  ],
  [
    'the sources folder replaced by a symbolic link to itself',
    (rig) => {
      fs.renameSync(rig.path('src'), rig.path('src.away'));
      fs.symlinkSync('src', rig.path('src'));
    },
    'src',
  ],
  [
    'the sources folder replaced by a regular file',
    (rig) => {
      fs.renameSync(rig.path('src'), rig.path('src.away'));
      fs.writeFileSync(rig.path('src'), 'not a folder\n');
    },
    'src',
  ],
];

for (const [label, attack, restore] of unstatable) {
  test(`${label}: a cycle with the loader's structured error, the watch lives on and recovers`, async (t) => {
    const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-unstatable-', 3);
    const mark = watch.lines.length;
    attack(rig);
    assertStructured(await watch.waitFor((l) => l.event === 'cycle' && l.ok === false, mark), watch);
    // Put back as it was, then saved: built.
    fs.rmSync(rig.path(restore));
    if (restore === 'src') fs.renameSync(rig.path('src.away'), rig.path('src'));
    const again = watch.lines.length;
    fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Restored, with a bilby.'));
    await watch.waitFor((l) => l.event === 'cycle' && l.ok === true && (l.ran as string[]).includes('chunks/search-index.json'), again);
    const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'bilby', '--json']);
    assert.equal(query.json!.data.total, 1, query.stdout);
  });
}

/**
 * Permissions bind only a process that is not root: as root, the watch runs as `nobody` (setpriv),
 * which must be able to run the CLI from where the repository is; otherwise these are skipped.
 */
const UNPRIVILEGED = ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'];
function unprivilegedSkip(): string | false {
  if (process.getuid?.() !== 0) return 'not root: cannot both save into a folder of mode 000 and watch it as another user';
  const probe = spawnSync(UNPRIVILEGED[0]!, [...UNPRIVILEGED.slice(1), process.execPath, CLI, '--version'], { encoding: 'utf8' });
  return probe.status === 0 ? false : `setpriv cannot run the CLI as nobody (${probe.error?.message ?? probe.stderr.trim()})`;
}
const PERMISSION_SKIP = unprivilegedSkip();

/** A watch, as nobody, of a fresh small workspace owned by nobody; its first cycle done. */
async function watchAsNobody(t: { after: (fn: () => Promise<void> | void) => void }): Promise<{ rig: Rig; watch: WatchProcess }> {
  const rig = new Rig('episteme-watch-perm-');
  writeSmallWorkspace(rig, 3);
  execFileSync('chown', ['-R', '65534:65534', rig.dir]);
  const watch = new WatchProcess(rig.dir, [], 'watch', UNPRIVILEGED);
  t.after(async () => {
    await watch.stop('SIGKILL');
    fs.chmodSync(rig.dir, 0o755);
    fs.chmodSync(rig.path('src'), 0o755);
    rig.cleanup();
  });
  assert.equal((await watch.nextCycle(0)).ok, true, watch.dump());
  return { rig, watch };
}

test('a source saved in a folder watch may not search: a structured cycle, built once it may', { skip: PERMISSION_SKIP }, async (t) => {
  const { rig, watch } = await watchAsNobody(t);
  const mark = watch.lines.length;
  fs.chmodSync(rig.path('src'), 0o000);
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Saved where the watch may not look, with a dunnart.'));
  assertStructured(await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), mark), watch);
  // The permission given back is a change of what the watch can read: built with no further save.
  const again = watch.lines.length;
  fs.chmodSync(rig.path('src'), 0o755);
  await watch.waitFor((l) => l.event === 'cycle' && l.ok === true && (l.ran as string[]).includes('chunks/search-index.json'), again);
  const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'dunnart', '--json']);
  assert.equal(query.json!.data.total, 1, query.stdout);
});

test('the workspace root made unsearchable a while: structured cycles, built again once it is back', {
  skip: PERMISSION_SKIP,
}, async (t) => {
  const { rig, watch } = await watchAsNobody(t);
  const mark = watch.lines.length;
  fs.chmodSync(rig.dir, 0o000);
  // The once-a-second check finds the watched folders gone: their inputs cannot be read.
  assertStructured(await watch.waitFor((l) => l.event === 'cycle', mark), watch);
  fs.chmodSync(rig.dir, 0o755);
  // Back: its inputs are confirmed by content, which differs from "unreadable": built again.
  const back = await watch.waitFor((l) => l.event === 'cycle' && l.ok === true, mark);
  assert.ok(back.changed.length > 0, watch.dump());
  const again = watch.lines.length;
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' Saved after the root came back, with a quoll.'));
  await watch.waitFor((l) => l.event === 'cycle' && l.ok === true && (l.ran as string[]).includes('chunks/search-index.json'), again);
  const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', 'quoll', '--json']);
  assert.equal(query.json!.data.total, 1, query.stdout);
});

/**
 * A restored checkout: the workspace folder replaced by a copy of it and the original deleted. The
 * process stands in the deleted folder; a worker started there fails its own start-up (getcwd), which
 * a change of chunk options needs (new workers), so the folder must be entered again by name.
 */
test('the workspace folder replaced by a copy: a later cycle that starts new workers builds', async (t) => {
  const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-swap-', 3);
  const [copy, aside] = [`${rig.dir}.copy`, `${rig.dir}.aside`];
  t.after(() => {
    for (const dir of [copy, aside]) fs.rmSync(dir, { recursive: true, force: true });
  });
  const mark = watch.lines.length;
  // The copy is complete before it takes the folder's name: the workspace is never seen half copied.
  fs.cpSync(rig.dir, copy, { recursive: true });
  fs.renameSync(rig.dir, aside);
  fs.renameSync(copy, rig.dir);
  fs.rmSync(aside, { recursive: true });
  // Settled: the copy's inputs confirmed as the same bytes (or a cycle, when one was missing as it looked).
  await watch.waitFor((l) => l.event === 'ignored' || l.event === 'cycle', mark);
  const edited = watch.lines.length;
  rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', options: { chunk: { maxChars: 500, overlapChars: 100 } } }) });
  const cycle = await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('episteme.json'), edited);
  assert.equal(cycle.ok, true, watch.dump());
  assert.ok((cycle.ran as string[]).includes('chunks/example-test-doc1.json'), watch.dump());
  assert.doesNotMatch(watch.dump(), /uv_cwd|internal-error/);
});

test('a source linked to a file elsewhere: an edit of its target is a change, also once the link points elsewhere', async (t) => {
  const { rig, watch } = await watchSmallWorkspace(t, 'episteme-watch-symtarget-', 3);
  const outside = outsideFolder(t);
  const [first, second] = [path.join(outside, 'a', 'first.html'), path.join(outside, 'b', 'second.html')];
  fs.mkdirSync(path.dirname(first));
  fs.mkdirSync(path.dirname(second));
  fs.writeFileSync(first, sampleHtml(1, ' The first target.'));
  fs.writeFileSync(second, sampleHtml(1, ' The second target.'));
  const pointAt = async (target: string): Promise<void> => {
    const mark = watch.lines.length;
    fs.symlinkSync(target, rig.path('src/doc1.html.tmp'));
    fs.renameSync(rig.path('src/doc1.html.tmp'), rig.path('src/doc1.html'));
    await watch.waitFor((l) => l.event === 'cycle' && l.ok === true && (l.changed as string[]).includes('src/doc1.html'), mark);
  };
  const editedAndBuilt = async (target: string, word: string): Promise<void> => {
    const mark = watch.lines.length;
    fs.writeFileSync(target, sampleHtml(1, ` Edited through the link, with a ${word}.`));
    const cycle = await watch.waitFor((l) => l.event === 'cycle' && (l.changed as string[]).includes('src/doc1.html'), mark);
    assert.equal(cycle.ok, true, watch.dump());
    const query = await rig.exec(['query', '--index', 'chunks/search-index.json', '--term', word, '--json']);
    assert.equal(query.json!.data.total, 1, query.stdout);
  };
  await pointAt(first);
  await editedAndBuilt(first, 'wallaby');
  await pointAt(second);
  await editedAndBuilt(second, 'pademelon');
  // What watch built is what a clean build of the same inputs builds.
  assert.equal(await watch.stop('SIGINT'), 0);
  const built = rig.artifacts();
  for (const dir of ['.episteme', 'snapshots', 'specs', 'chunks']) fs.rmSync(rig.path(dir), { recursive: true });
  assert.equal((await rig.exec(['build', '--json'])).code, 0);
  assert.deepEqual(rig.artifacts(), built);
});
