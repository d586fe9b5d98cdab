import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, assertFailure, assertBounded, treeChecksum, type MeasuredResult } from './harness.js';
import { sampleHtml } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';

/**
 * Section 1 of issue 9: writes stay inside what the workspace owns. Each attack plants something in
 * or around a built workspace (symlinked or nested output folders, a symlinked .episteme, symlinks and
 * special files inside output folders, special files as --out, overlapping workspaces) and checks the
 * exact failure, that nothing outside the workspace changed, and that the previous commit is intact.
 */

const BOUNDS = { maxMs: 30_000, maxRssMb: 400 };
const CONFIG_INVALID = { code: 'config-invalid', exit: 2, ...BOUNDS };
const USAGE_ERROR = { code: 'usage-error', exit: 2, ...BOUNDS };

/** A workspace of three local HTML sources, built once; `outside/` beside it holds bait files. */
async function builtSandbox(): Promise<Sandbox> {
  const box = new Sandbox();
  const map = [0, 1, 2].map((i) => ({
    sourceUrl: `https://example.test/doc${i}/`,
    localPath: `src/doc${i}.html`,
    contentType: 'text/html',
  }));
  box.write({
    'map.json': JSON.stringify(map),
    'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    ...Object.fromEntries([0, 1, 2].map((i) => [`src/doc${i}.html`, sampleHtml(i)])),
  });
  const outside = path.join(box.parent, 'outside');
  fs.mkdirSync(path.join(outside, 'specs'), { recursive: true });
  fs.mkdirSync(path.join(outside, 'bodies'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'victim.json'), '{"precious":true}\n');
  // Bait named exactly like garbage Episteme would delete.
  fs.writeFileSync(path.join(outside, 'specs', 'example-test-gone.0123456789abcdef.json'), '{}');
  fs.writeFileSync(path.join(outside, 'specs', '.episteme-tmp-1-1-x.json'), 'temp-looking bait');
  fs.writeFileSync(path.join(outside, 'bodies', 'a'.repeat(64)), 'body-looking bait');
  const built = await box.run(['build', '--json']);
  assert.equal(built.code, 0, built.stdout + built.stderr);
  return box;
}

/** What must not change: everything outside the workspace, and the committed generation inside it. */
function snapshotOf(box: Sandbox): { outside: string; committed: string; files: number } {
  return {
    outside: box.outside(),
    committed: treeChecksum(box.ws, { skip: (relative) => !/^(snapshots|specs|chunks)(\/|$)/.test(relative) }),
    files: verifyCommittedGeneration(box.ws),
  };
}

function assertUntouched(box: Sandbox, before: ReturnType<typeof snapshotOf>, label: string): void {
  assert.equal(box.outside(), before.outside, `${label}: something outside the workspace changed`);
  assert.equal(verifyCommittedGeneration(box.ws), before.files, `${label}: committed generation`);
  assert.equal(snapshotOf(box).committed, before.committed, `${label}: committed outputs changed`);
}

function setConfig(box: Sandbox, config: Record<string, unknown>): void {
  fs.writeFileSync(path.join(box.ws, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json', ...config }));
}

function assertNamesField(result: MeasuredResult, field: string): void {
  const details = result.json?.error?.details as { field?: string; fields?: string[] } | undefined;
  assert.ok(details?.field === field || details?.fields?.includes(field), `error names ${field}: ${JSON.stringify(result.json?.error)}`);
}

test('an output folder that is a symlink, goes through one, or climbs out with .. is config-invalid naming the field', async () => {
  const box = await builtSandbox();
  try {
    fs.symlinkSync('../outside/specs', path.join(box.ws, 'linked'));
    fs.symlinkSync('../outside', path.join(box.ws, 'via'));
    fs.writeFileSync(path.join(box.ws, 'plain-file'), 'not a folder');
    const before = snapshotOf(box);
    const attacks: [string, Record<string, unknown>, string][] = [
      ['symlinked output folder', { outputs: { specs: 'linked' } }, 'outputs.specs'],
      ['symlink in a leading component', { outputs: { chunks: 'via/chunks' } }, 'outputs.chunks'],
      ['.. out of the workspace', { outputs: { specs: '../outside/specs' } }, 'outputs.specs'],
      ['.. inside a longer path', { outputs: { snapshots: 'a/../../outside' } }, 'outputs.snapshots'],
      ['a file where the folder should be', { outputs: { diffs: 'plain-file' } }, 'outputs.diffs'],
      ['the workspace root itself', { outputs: { chunks: '.' } }, 'outputs.chunks'],
    ];
    for (const [label, config, field] of attacks) {
      setConfig(box, config);
      for (const command of [
        ['build', '--json'],
        ['build', '--dry-run', '--json'],
        ['index', '--json'],
      ]) {
        const result = await box.run(command);
        assertFailure(result, CONFIG_INVALID);
        assertNamesField(result, field);
        assertUntouched(box, before, `${label} (${command[0]})`);
      }
    }
  } finally {
    box.cleanup();
  }
});

const symlinkedStateFoldersAreRefused =
  'a symlinked .episteme, or a symlink planted for snapshots/bodies or the index cache, ' +
  'is config-invalid and nothing is written through it';
test(symlinkedStateFoldersAreRefused, async () => {
  const box = await builtSandbox();
  try {
    const before = snapshotOf(box);
    const plant = (relative: string, target: string): (() => void) => {
      const full = path.join(box.ws, relative);
      const aside = `${full}.aside`;
      fs.renameSync(full, aside);
      fs.symlinkSync(target, full);
      return () => {
        fs.unlinkSync(full);
        fs.renameSync(aside, full);
      };
    };
    const cases: [string, string, string][] = [
      ['.episteme', path.join(box.parent, 'outside'), '.episteme'],
      ['snapshots/bodies', '../../outside/bodies', 'outputs.snapshots'],
      ['snapshots/records', '../../outside/specs', 'outputs.snapshots'],
      ['.episteme/cache', '../../outside/specs', '.episteme'],
    ];
    for (const [relative, target, field] of cases) {
      const restore = plant(relative, target);
      // An edit, so the build would have work to do and garbage to collect.
      fs.writeFileSync(path.join(box.ws, 'src/doc1.html'), sampleHtml(1, ` edit for ${relative}`));
      const result = await box.run(['build', '--json']);
      assertFailure(result, CONFIG_INVALID);
      assertNamesField(result, field);
      assert.equal(box.outside(), before.outside, `${relative}: something outside the workspace changed`);
      restore();
      fs.writeFileSync(path.join(box.ws, 'src/doc1.html'), sampleHtml(1));
      assertUntouched(box, before, relative);
    }
    // State files opened for appending or read as state: a symlink in their place is refused too.
    // (lock-holder.json is written only while the lock is held, by rename: a symlink there is replaced,
    // never written through, so that build succeeds; the others are refused at load.)
    for (const file of ['state.log', 'state.json', 'noop.json', 'noop.patch.json', 'lock-holder.json']) {
      const full = path.join(box.ws, '.episteme', file);
      const saved = fs.existsSync(full) ? fs.readFileSync(full) : null;
      fs.rmSync(full, { force: true });
      fs.symlinkSync(path.join(box.parent, 'outside', 'victim.json'), full);
      fs.writeFileSync(path.join(box.ws, 'src/doc1.html'), sampleHtml(1, ` edit for ${file}`));
      const result = await box.run(['build', '--json']);
      assert.equal(box.outside(), before.outside, `${file}: something outside the workspace changed`);
      if (file === 'lock-holder.json') {
        assert.equal(result.code, 0, result.stdout);
        assert.equal(fs.lstatSync(full, { throwIfNoEntry: false }), undefined, 'the planted link is gone');
        continue;
      }
      assertFailure(result, CONFIG_INVALID);
      assertNamesField(result, '.episteme');
      fs.unlinkSync(full);
      if (saved !== null) fs.writeFileSync(full, saved);
      fs.writeFileSync(path.join(box.ws, 'src/doc1.html'), sampleHtml(1));
      assertUntouched(box, before, file);
    }
    // With everything real again, the workspace builds.
    const healed = await box.run(['build', '--json']);
    assert.equal(healed.code, 0, healed.stdout);
    verifyCommittedGeneration(box.ws);
  } finally {
    box.cleanup();
  }
});

test('garbage collection and temp sweeps never follow what is planted inside an output folder', async () => {
  const box = await builtSandbox();
  try {
    const specs = path.join(box.ws, 'specs');
    // Symlinks named like garbage (a data file and a temp file) pointing outside, a FIFO and a folder
    // named like data, and a folder named like a temp file.
    fs.symlinkSync(path.join(box.parent, 'outside', 'victim.json'), path.join(specs, 'example-test-evil.0123456789abcdef.json'));
    fs.symlinkSync(path.join(box.parent, 'outside', 'victim.json'), path.join(specs, '.episteme-tmp-9-9-evil.json'));
    execFileSync('mkfifo', [path.join(specs, 'example-test-fifo.0123456789abcdef.json')]);
    fs.mkdirSync(path.join(specs, 'example-test-dir.0123456789abcdef.json'));
    fs.writeFileSync(path.join(specs, 'example-test-dir.0123456789abcdef.json', 'inner'), 'kept');
    fs.mkdirSync(path.join(box.ws, 'snapshots', 'bodies', '.episteme-tmp-1-1-dir'));
    const outside = box.outside();
    fs.writeFileSync(path.join(box.ws, 'src/doc1.html'), sampleHtml(1, ' an edit, so garbage is collected'));
    // A one-source edit after a clean build checks only the files of the records it replaced (what was
    // planted here was never one); the map saved again (a new stamp) makes this build sweep every folder.
    fs.writeFileSync(path.join(box.ws, 'map.json'), fs.readFileSync(path.join(box.ws, 'map.json')));
    const result = await box.run(['build', '--json']);
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assertBounded(result, BOUNDS);
    assert.equal(box.outside(), outside, 'something outside the workspace changed');
    assert.equal(fs.readFileSync(path.join(box.parent, 'outside', 'victim.json'), 'utf8'), '{"precious":true}\n');
    // The symlinks themselves are gone (unlinked, never followed); the FIFO and folders are left alone.
    assert.equal(fs.lstatSync(path.join(specs, 'example-test-evil.0123456789abcdef.json'), { throwIfNoEntry: false }), undefined);
    assert.equal(fs.lstatSync(path.join(specs, '.episteme-tmp-9-9-evil.json'), { throwIfNoEntry: false }), undefined);
    assert.ok(fs.lstatSync(path.join(specs, 'example-test-fifo.0123456789abcdef.json')).isFIFO());
    assert.equal(fs.readFileSync(path.join(specs, 'example-test-dir.0123456789abcdef.json', 'inner'), 'utf8'), 'kept');
    verifyCommittedGeneration(box.ws);
  } finally {
    box.cleanup();
  }
});

test('output folders that coincide or nest, or lie in .episteme, are config-invalid naming both fields', async () => {
  const box = await builtSandbox();
  try {
    const before = snapshotOf(box);
    const attacks: [Record<string, string>, string[]][] = [
      [{ specs: 'chunks' }, ['outputs.specs', 'outputs.chunks']],
      [{ chunks: 'snapshots/chunks' }, ['outputs.snapshots', 'outputs.chunks']],
      [{ diffs: 'specs/diffs' }, ['outputs.specs', 'outputs.diffs']],
      [{ specs: '.episteme/specs' }, ['outputs.specs', '.episteme']],
      [{ snapshots: '.episteme' }, ['outputs.snapshots', '.episteme']],
      [{ snapshots: 'out', specs: 'out/./' }, ['outputs.snapshots', 'outputs.specs']],
    ];
    for (const [outputs, fields] of attacks) {
      setConfig(box, { outputs });
      const result = await box.run(['build', '--json']);
      assertFailure(result, CONFIG_INVALID);
      const named = (result.json!.error!.details as { fields?: string[] }).fields ?? [];
      assert.deepEqual([...named].sort(), [...fields].sort(), JSON.stringify(outputs));
      assertUntouched(box, before, JSON.stringify(outputs));
    }
  } finally {
    box.cleanup();
  }
});

const outputFoldersAreNeverShared =
  'two workspaces never share an output folder: nested in the other workspace, in its output folder, or in a folder it marked';
test(outputFoldersAreNeverShared, async () => {
  const a = await builtSandbox();
  try {
    // B lives inside A's folder tree, as its own workspace.
    const bRoot = path.join(a.ws, 'b');
    fs.mkdirSync(path.join(bRoot, 'src'), { recursive: true });
    fs.writeFileSync(path.join(bRoot, 'src', 'one.html'), sampleHtml(7));
    fs.writeFileSync(path.join(bRoot, 'map.json'), JSON.stringify([{ sourceUrl: 'https://b.test/one/', localPath: 'src/one.html' }]));
    fs.writeFileSync(path.join(bRoot, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
    const builtB = await a.run(['build', '--json'], { cwd: bRoot });
    assert.equal(builtB.code, 0, builtB.stdout);
    const bTree = treeChecksum(bRoot);
    const before = snapshotOf(a);

    // A's specs inside B's workspace, and inside B's own output folder.
    for (const specs of ['b/specs', 'b/specs/nested', 'b/elsewhere']) {
      setConfig(a, { outputs: { specs } });
      const result = await a.run(['build', '--json']);
      assertFailure(result, CONFIG_INVALID);
      assertNamesField(result, 'outputs.specs');
      assert.equal(treeChecksum(bRoot), bTree, `B changed (${specs})`);
      assertUntouched(a, before, specs);
    }
    setConfig(a, {});

    // C, created inside A's chunks folder: everything it would write is A's.
    const cRoot = path.join(a.ws, 'chunks', 'c');
    fs.mkdirSync(path.join(cRoot, 'src'), { recursive: true });
    fs.writeFileSync(path.join(cRoot, 'src', 'one.html'), sampleHtml(8));
    fs.writeFileSync(path.join(cRoot, 'map.json'), JSON.stringify([{ sourceUrl: 'https://c.test/one/', localPath: 'src/one.html' }]));
    fs.writeFileSync(path.join(cRoot, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
    const aChunks = treeChecksum(path.join(a.ws, 'chunks'));
    const nested = await a.run(['build', '--json'], { cwd: cRoot });
    assertFailure(nested, CONFIG_INVALID);
    assert.match(nested.json!.error!.message, /another workspace/);
    assert.equal(treeChecksum(path.join(a.ws, 'chunks')), aChunks, "A's chunks folder changed");
    fs.rmSync(cRoot, { recursive: true });

    // D beside A claims a folder that A's marker names as A's (a copied or shared folder).
    const dRoot = path.join(a.parent, 'd');
    fs.mkdirSync(path.join(dRoot, 'src'), { recursive: true });
    fs.writeFileSync(path.join(dRoot, 'src', 'one.html'), sampleHtml(9));
    fs.writeFileSync(path.join(dRoot, 'map.json'), JSON.stringify([{ sourceUrl: 'https://d.test/one/', localPath: 'src/one.html' }]));
    fs.mkdirSync(path.join(dRoot, 'shared'));
    fs.writeFileSync(path.join(dRoot, 'shared', '.episteme-owner'), JSON.stringify({ workspaceRoot: '../../ws' }));
    fs.writeFileSync(path.join(dRoot, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json', outputs: { specs: 'shared' } }));
    const dTree = treeChecksum(dRoot);
    const beforeD = snapshotOf(a);
    const claimed = await a.run(['build', '--json'], { cwd: dRoot });
    assertFailure(claimed, CONFIG_INVALID);
    assertNamesField(claimed, 'outputs.specs');
    assert.equal(treeChecksum(dRoot), dTree, 'D wrote although it was refused');
    assertUntouched(a, beforeD, 'marker');
    // B and A each still build on their own.
    assert.equal((await a.run(['build', '--json'], { cwd: bRoot })).code, 0);
    assert.equal((await a.run(['build', '--json'])).code, 0);
  } finally {
    a.cleanup();
  }
});

const outFilesAreOnlyRegularFiles =
  'index --out and diff --out write only regular files, never into a workspace folder, never through a symlink or special file';
test(outFilesAreOnlyRegularFiles, async () => {
  const box = await builtSandbox();
  try {
    fs.mkdirSync(path.join(box.ws, 'a-folder'));
    execFileSync('mkfifo', [path.join(box.ws, 'a-fifo')]);
    fs.symlinkSync(path.join(box.parent, 'outside', 'victim.json'), path.join(box.ws, 'link-out.json'));
    fs.symlinkSync(path.join(box.parent, 'outside', 'nothing-yet.json'), path.join(box.ws, 'dangling.json'));
    fs.symlinkSync('specs', path.join(box.ws, 'specs-link'));
    const before = snapshotOf(box);
    const targets: [string, RegExp][] = [
      ['a-folder', /folder/],
      ['a-folder/', /folder/],
      ['a-fifo', /FIFO/],
      ['/dev/null', /character device/],
      ['link-out.json', /symbolic link/],
      ['dangling.json', /symbolic link/],
      ['specs/copy.json', /workspace/],
      ['specs/index.json', /workspace/],
      ['chunks/search-index.json', /workspace/],
      ['snapshots/bodies/x', /workspace/],
      ['.episteme/state.json', /workspace/],
      ['specs-link/copy.json', /workspace/],
      ['no-such-folder/x.json', /does not exist/],
    ];
    for (const [out, why] of targets) {
      for (const args of [
        ['index', '--out', out, '--json'],
        ['diff', '--before', 'specs', '--out', out, '--json'],
        ['diff', '--before', 'specs', '--after', 'specs', '--out', out, '--json'],
      ]) {
        const result = await box.run(args, { timeoutMs: 20_000 });
        assertFailure(result, USAGE_ERROR);
        assert.match(result.json!.error!.message, why, `${args.join(' ')}: ${result.json!.error!.message}`);
        assertUntouched(box, before, args.join(' '));
        assert.ok(fs.lstatSync(path.join(box.ws, 'a-fifo')).isFIFO(), 'the FIFO was replaced');
        assert.ok(fs.lstatSync(path.join(box.ws, 'link-out.json')).isSymbolicLink(), 'the symlink was replaced');
      }
    }
    assert.deepEqual(
      fs.readdirSync(box.ws).filter((name) => name.startsWith('.episteme-out-')),
      [],
      'temp files left behind',
    );
    // A regular file (new, then replaced) is fine, and holds exactly the artifact.
    for (const round of [1, 2]) {
      const index = await box.run(['index', '--out', 'copy-of-index.json', '--json']);
      assert.equal(index.code, 0, `round ${round}: ${index.stdout}`);
      assert.equal(
        fs.readFileSync(path.join(box.ws, 'copy-of-index.json'), 'utf8'),
        fs.readFileSync(path.join(box.ws, 'chunks', 'search-index.json'), 'utf8'),
      );
      const diff = await box.run(['diff', '--before', 'specs', '--out', 'report.json', '--json']);
      assert.equal(diff.code, 0, `round ${round}: ${diff.stdout}`);
      assert.equal(JSON.parse(fs.readFileSync(path.join(box.ws, 'report.json'), 'utf8')).artifact, 'diff');
    }
    assert.equal(box.outside(), before.outside);
  } finally {
    box.cleanup();
  }
});

const noopPathRefusesSymlinks =
  'the no-op fast path proves nothing through a symlink: a workspace whose .episteme or output folder was moved out and linked back is ' +
  'refused';
test(noopPathRefusesSymlinks, async () => {
  const box = await builtSandbox();
  try {
    // A clean no-op build first, so the stat-only proof exists.
    const noop = await box.run(['build', '--json']);
    assert.equal(noop.json!.data.actions, 0);
    for (const folder of ['.episteme', 'specs']) {
      const moved = path.join(box.parent, 'outside', `moved-${folder}`);
      fs.renameSync(path.join(box.ws, folder), moved);
      fs.symlinkSync(moved, path.join(box.ws, folder));
      const outside = box.outside();
      const movedTree = treeChecksum(moved);
      const result = await box.run(['build', '--json']);
      assertFailure(result, CONFIG_INVALID);
      assertNamesField(result, folder === '.episteme' ? '.episteme' : 'outputs.specs');
      assert.equal(treeChecksum(moved), movedTree, `${folder}: written through the symlink`);
      assert.equal(box.outside(), outside);
      fs.unlinkSync(path.join(box.ws, folder));
      fs.renameSync(moved, path.join(box.ws, folder));
    }
    const back = await box.run(['build', '--json']);
    assert.equal(back.code, 0);
    assert.equal(back.json!.data.actions, 0);
  } finally {
    box.cleanup();
  }
});
