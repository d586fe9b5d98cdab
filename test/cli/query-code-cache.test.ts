import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { CLI, Rig, writeSmallWorkspace } from '../helpers/rig.js';
import { ensureRuntimes, runtimeBin } from '../helpers/runtimes.js';

/**
 * bin/episteme.cjs turns on Node's compile cache (module.enableCompileCache, Node 22.1+) in the
 * folder NODE_COMPILE_CACHE names; NODE_DISABLE_COMPILE_CACHE=1 turns it off. Node 20 has no compile
 * cache and runs without one. The answer is the same bytes in every case, and stderr stays empty.
 */
test('query: the answer is the same with the compile cache on, warm and off (Node 20 has none)', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_COMPILE_CACHE: rig.path('compile-cache') };
    delete env['NODE_DISABLE_COMPILE_CACHE'];
    const query = ['query', '--index', 'chunks/search-index.json', '--term', 'alpha', '--json'];
    const first = await rig.exec(query, { env });
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr, '');
    const second = await rig.exec(query, { env });
    assert.equal(second.stdout, first.stdout);
    assert.equal(second.stderr, '');
    const off = await rig.exec(query, { env: { ...env, NODE_DISABLE_COMPILE_CACHE: '1' } });
    assert.equal(off.stdout, first.stdout);
  } finally {
    rig.cleanup();
  }
});

test("query on Node 24: the compile cache is written and accepted; the answer is Node 20's, byte for byte", async (t) => {
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
    const node24 = (extra: NodeJS.ProcessEnv = {}) =>
      spawnSync(runtimeBin('node'), [CLI, ...query], { cwd: rig.dir, env: { ...env, ...extra }, encoding: 'utf8' });
    const first = node24();
    assert.equal(first.status, 0, first.stderr);
    assert.equal(first.stderr, '');
    assert.equal(first.stdout, expected.stdout);
    const files = (): string[] => (fs.existsSync(cacheDir) ? fs.readdirSync(cacheDir, { recursive: true }).map(String).sort() : []);
    const written = files();
    assert.ok(written.length > 0, 'no compile cache written');
    for (let run = 0; run < 2; run++) {
      const next = node24({ NODE_DEBUG_NATIVE: 'COMPILE_CACHE' });
      assert.equal(next.status, 0, next.stderr);
      assert.equal(next.stdout, expected.stdout);
      // Node's own debug log says whether the bundle's cache was accepted.
      assert.match(
        next.stderr,
        /query-main\.cjs[^\n]*(accepted|cache hit)|(accepted|cache hit)[^\n]*query-main\.cjs/i,
        next.stderr.slice(0, 2000),
      );
    }
    const off = node24({ NODE_DISABLE_COMPILE_CACHE: '1' });
    assert.equal(off.stdout, expected.stdout);
    assert.equal(off.stderr, '');
  } finally {
    rig.cleanup();
  }
});
