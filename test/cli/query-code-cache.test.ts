import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { CLI, Rig, writeSmallWorkspace } from '../helpers/rig.js';
import { ensureRuntimes, runtimeBin } from '../helpers/runtimes.js';

/**
 * bin/episteme.cjs loads the query bundle through a V8 code cache that it writes after a query ran
 * (NODE_COMPILE_CACHE names its folder). A failed run's cache is marked and replaced by the first
 * query that answers; an answered one is kept; damaged cache bytes are rejected by V8 and rewritten;
 * NODE_DISABLE_COMPILE_CACHE=1 writes none. The answer is the same bytes in every case.
 */
test('query: the code cache is written after an answer, replaced after a failure or damage, and never changes the answer', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const cacheDir = rig.path('compile-cache');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cacheDir };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    const cacheFile = (): string | undefined => {
      const names = fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir).filter((name) => name.endsWith('.v8cache')) : [];
      assert.ok(names.length <= 1, names.join(', '));
      return names[0] === undefined ? undefined : path.join(cacheDir, names[0]);
    };
    const header = (): string => {
      const file = cacheFile();
      assert.ok(file !== undefined, 'no code cache written');
      const bytes = fs.readFileSync(file);
      return bytes.subarray(0, bytes.indexOf(10)).toString('latin1');
    };
    const query = ['query', '--index', 'chunks/search-index.json', '--term', 'alpha', '--json'];

    const failed = await rig.exec(['query', '--index', 'missing.json', '--term', 'alpha', '--json'], { env });
    assert.equal(failed.code, 2, failed.stdout);
    assert.match(header(), / failed$/);

    const first = await rig.exec(query, { env });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.match(header(), / answered$/);
    const answeredBytes = fs.readFileSync(cacheFile()!);

    const second = await rig.exec(query, { env });
    assert.equal(second.stdout, first.stdout);
    assert.deepEqual(fs.readFileSync(cacheFile()!), answeredBytes, 'an answered cache is kept as it is');

    // Same header, damaged code: V8 rejects it, the query answers from source and writes a new one.
    const damaged = Buffer.from(answeredBytes);
    for (let i = damaged.indexOf(10) + 1; i < damaged.length; i += 7) damaged[i] = damaged[i]! ^ 0x5a;
    fs.writeFileSync(cacheFile()!, damaged);
    const third = await rig.exec(query, { env });
    assert.equal(third.stdout, first.stdout);
    assert.equal(third.stderr, '');
    assert.match(header(), / answered$/);
    assert.notDeepEqual(fs.readFileSync(cacheFile()!), damaged);

    const offDir = rig.path('no-cache');
    const off = await rig.exec(query, { env: { ...process.env, NODE_COMPILE_CACHE: offDir, NODE_DISABLE_COMPILE_CACHE: '1' } });
    assert.equal(off.stdout, first.stdout);
    assert.ok(!fs.existsSync(offDir) || fs.readdirSync(offDir).every((name) => !name.endsWith('.v8cache')));
  } finally {
    rig.cleanup();
  }
});

/**
 * On Node 24 the query's own code cache made by one query is accepted by the next (a rejected cache
 * is written again: a new file by rename, so a new inode), and the other commands' ES module bundle
 * goes through Node's compile cache (module.enableCompileCache), which Node's own debug log says it
 * accepted. stderr stays empty and the answer is Node 20's, byte for byte.
 */
test('Node 24: the query code cache is accepted by the next query, the compile cache by the next command', async (t) => {
  const skipReason = ensureRuntimes();
  if (skipReason !== undefined) {
    t.skip(skipReason);
    return;
  }
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const query = ['query', '--index', 'chunks/search-index.json', '--term', 'alpha conditional', '--json'];
    const expected = await rig.exec(query);
    assert.equal(expected.code, 0, expected.stderr);
    const cacheDir = rig.path('compile-cache-24');
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: cacheDir };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    const node24 = () => spawnSync(runtimeBin('node'), [CLI, ...query], { cwd: rig.dir, env, encoding: 'utf8' });
    const cacheInode = (): number => {
      const names = fs.readdirSync(cacheDir).filter((name) => name.endsWith('.v8cache'));
      assert.equal(names.length, 1, names.join(', '));
      return fs.statSync(path.join(cacheDir, names[0]!)).ino;
    };
    const first = node24();
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.equal(first.stdout, expected.stdout);
    const written = cacheInode();
    for (let run = 0; run < 2; run++) {
      const next = node24();
      assert.equal(next.stderr, '');
      assert.equal(next.stdout, expected.stdout);
      assert.equal(cacheInode(), written, 'the next query rejected the cache and wrote it again');
    }
    const help = () =>
      spawnSync(runtimeBin('node'), [CLI, 'explain', '--help'], {
        cwd: rig.dir,
        env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' },
        encoding: 'utf8',
      });
    assert.equal(help().status, 0);
    const again = help();
    assert.equal(again.status, 0, again.stderr);
    assert.match(again.stderr, /cli\.js was accepted/, again.stderr.slice(0, 2000));
  } finally {
    rig.cleanup();
  }
});
