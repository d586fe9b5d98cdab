import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, REPO_ROOT, Rig, sampleHtml, writeSmallWorkspace } from '../helpers/rig.js';
import { ensureRuntimes, runtimeBin } from '../helpers/runtimes.js';

/**
 * bin/episteme.cjs runs a build's stage workers from the stage worker's CommonJS bundle, loaded
 * through a V8 code cache that a worker writes after its tasks (NODE_COMPILE_CACHE names its folder).
 * Its first line is the bundle's key and a tag: the stages its writer ran and how many tasks. The next
 * build, whose worker runs fewer tasks, keeps it; damaged cache bytes are rejected by V8 and rewritten,
 * and so is a cache whose key is another bundle's; NODE_DISABLE_COMPILE_CACHE=1 writes none and runs
 * the ES module worker. After every step the workspace equals the one built without the cache.
 */
const BUNDLE = path.join(REPO_ROOT, 'dist', 'bundle', 'stage-worker-main.cjs');

function cacheFileIn(dir: string): string | undefined {
  const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.startsWith('stage-worker-main-')) : [];
  assert.ok(names.length <= 1, names.join(', '));
  assert.ok(
    names.every((name) => name.endsWith('.v8cache')),
    `a half-written file is left: ${names.join(', ')}`,
  );
  return names[0] === undefined ? undefined : path.join(dir, names[0]);
}

function headerOf(file: string | undefined): string {
  assert.ok(file !== undefined, 'no stage worker code cache written');
  const bytes = fs.readFileSync(file);
  return bytes.subarray(0, bytes.indexOf(10)).toString('latin1');
}

/** The key a cache of the current bundle starts with (bin/episteme.cjs loadThroughCodeCache). */
function bundleKey(): string {
  const stat = fs.statSync(BUNDLE);
  return `${stat.size} ${Math.trunc(stat.mtimeMs)} ${stat.ino} `;
}

test('build: the stage worker code cache is written, kept, replaced when stale or damaged, and never changes the output', async () => {
  const cached = new Rig();
  const plain = new Rig();
  try {
    writeSmallWorkspace(cached);
    writeSmallWorkspace(plain);
    const cacheDir = cached.path('compile-cache');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cacheDir };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    const offDir = plain.path('no-cache');
    const offEnv: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: offDir, NODE_DISABLE_COMPILE_CACHE: '1' };
    let edits = 0;
    // One worker (--jobs 1), so the tag's task count is this build's.
    const step = async (label: string, edit: boolean): Promise<void> => {
      if (edit) {
        edits++;
        for (const rig of [cached, plain]) rig.write({ 'src/doc1.html': sampleHtml(1, ` Edit ${edits}.`) });
      }
      for (const [rig, runEnv] of [
        [cached, env],
        [plain, offEnv],
      ] as const) {
        const build = await rig.exec(['build', '--jobs', '1', '--json'], { env: runEnv });
        assert.equal(build.code, 0, `${label}: ${build.stdout}${build.stderr}`);
        assert.equal(build.stderr, '', label);
      }
      assert.deepEqual([...cached.artifacts()], [...plain.artifacts()], `${label}: the output does not depend on the cache`);
    };

    await step('first build', false);
    const written = cacheFileIn(cacheDir)!;
    const key = bundleKey();
    assert.ok(headerOf(written).startsWith(key), headerOf(written));
    // Three extractions and three chunkings: written after 1, 2 and 4 tasks, or after 1, 2, 3 (the
    // first chunking) and 6.
    assert.match(headerOf(written).slice(key.length), /^chunk,extract [46]$/);
    const writtenBytes = fs.readFileSync(written);
    assert.ok(writtenBytes.length > 100_000, `only ${writtenBytes.length} bytes of code cache`);

    await step('an edit', true);
    assert.deepEqual(fs.readFileSync(cacheFileIn(cacheDir)!), writtenBytes, 'a build of fewer tasks keeps the cache as it is');

    // Same key, damaged code: V8 rejects it, the worker compiles from source and writes a new one.
    const damaged = Buffer.from(writtenBytes);
    for (let i = damaged.indexOf(10) + 1; i < damaged.length; i += 7) damaged[i] = damaged[i]! ^ 0x5a;
    fs.writeFileSync(written, damaged);
    await step('a damaged cache', true);
    assert.notDeepEqual(fs.readFileSync(cacheFileIn(cacheDir)!), damaged);
    assert.equal(headerOf(cacheFileIn(cacheDir)), `${key}chunk,extract 2`);

    // Another bundle's key (a rebuilt bundle): not even handed to V8, and written again.
    fs.writeFileSync(written, Buffer.concat([Buffer.from(`1${key.slice(key.indexOf(' '))}chunk,extract 99\n`), writtenBytes]));
    await step('a stale cache', true);
    assert.equal(headerOf(cacheFileIn(cacheDir)), `${key}chunk,extract 2`);

    assert.equal(cacheFileIn(offDir), undefined, 'NODE_DISABLE_COMPILE_CACHE=1 writes no cache');

    // And the workspace equals a clean build's, made with the cache.
    const clean = new Rig();
    try {
      writeSmallWorkspace(clean);
      clean.write({ 'src/doc1.html': sampleHtml(1, ` Edit ${edits}.`) });
      const build = await clean.exec(['build', '--json'], { env });
      assert.equal(build.code, 0, build.stdout + build.stderr);
      assert.deepEqual([...cached.artifacts()], [...clean.artifacts()]);
    } finally {
      clean.cleanup();
    }
  } finally {
    cached.cleanup();
    plain.cleanup();
  }
});

/**
 * On Node 24 too the cache one build writes is accepted by the next (a rejected cache is written
 * again: a new file by rename, so a new inode), stderr stays empty and the output is Node 20's.
 */
test('Node 24: the stage worker code cache of one build is accepted by the next', async (t) => {
  const skipReason = ensureRuntimes();
  if (skipReason !== undefined) {
    t.skip(skipReason);
    return;
  }
  const node24 = new Rig();
  const node20 = new Rig();
  try {
    const cacheDir = node24.path('compile-cache-24');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cacheDir };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    const build = (rig: Rig) =>
      spawnSync(runtimeBin('node'), [CLI, 'build', '--jobs', '1', '--json'], { cwd: rig.dir, env, encoding: 'utf8' });
    writeSmallWorkspace(node24);
    writeSmallWorkspace(node20);
    const first = build(node24);
    assert.equal(first.status, 0, first.stdout + first.stderr);
    assert.equal(first.stderr, '');
    const written = fs.statSync(cacheFileIn(cacheDir)!).ino;
    for (let edit = 1; edit <= 2; edit++) {
      for (const rig of [node24, node20]) rig.write({ 'src/doc1.html': sampleHtml(1, ` Edit ${edit}.`) });
      const next = build(node24);
      assert.equal(next.status, 0, next.stdout + next.stderr);
      assert.equal(next.stderr, '');
      assert.equal(fs.statSync(cacheFileIn(cacheDir)!).ino, written, 'the next build rejected the cache and wrote it again');
    }
    const reference = await node20.exec(['build', '--json']);
    assert.equal(reference.code, 0, reference.stdout + reference.stderr);
    assert.deepEqual([...node24.artifacts()], [...node20.artifacts()]);
  } finally {
    node24.cleanup();
    node20.cleanup();
  }
});
