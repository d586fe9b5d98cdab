import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * What a cold `episteme query` loads before it reads an index is its fixed cost. node:zlib is
 * loaded on first use (src/node-builtins.ts): a query that fails before reading a row block (usage
 * error, missing index) or asks for --help does not load it, in JSON or human mode. (node:stream is
 * loaded regardless: clipanion's Cli.defaultContext reads process.stdin, stdout and stderr when it
 * loads.) Runs the real CLI with a preload (NODE_OPTIONS=--require) that records the built-in
 * modules the process loaded, at exit.
 */
test('query: a run that never reads a row block does not load node:zlib, in JSON or human mode', async () => {
  const rig = new Rig();
  try {
    writeSmallWorkspace(rig);
    const build = await rig.exec(['build', '--json']);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const preload = rig.path('record-modules.cjs');
    fs.writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_OUT, process.moduleLoadList.join('\\n')));\n",
    );
    const loaded = async (args: string[], expectedCode: number): Promise<string[]> => {
      const out = rig.path(`modules-${args.join('-').replace(/[^a-z]+/gi, '-')}.txt`);
      const env = { ...process.env, NODE_OPTIONS: `--require ${preload}`, MODULES_OUT: out, NODE_COMPILE_CACHE: rig.path('cache') };
      const run = await rig.exec(args, { env });
      assert.equal(run.code, expectedCode, run.stdout + run.stderr);
      return fs.readFileSync(out, 'utf8').split('\n');
    };
    const zlibModules = (modules: string[]) => modules.filter((name) => /^NativeModule zlib$/.test(name));

    // The recorder sees what it should: an answered query reads row blocks, which need zlib today.
    const answered = await loaded(['query', '--index', 'chunks/search-index.json', '--term', 'alpha', '--json'], 0);
    assert.ok(answered.includes('NativeModule fs'), 'the recorder saw no modules');
    assert.deepEqual(zlibModules(answered), ['NativeModule zlib'], 'an answered query loads zlib');

    for (const [args, code] of [
      [['query', '--index', 'missing.json', '--term', 'alpha', '--json'], 2],
      [['query', '--index', 'chunks/search-index.json', '--json'], 2],
      [['query', '--index', 'chunks/search-index.json', '--term', 'alpha', '--limit', '0', '--json'], 2],
      [['query', '--help'], 0],
      // Human mode: the error and hint lines go to stderr.
      [['query', '--index', 'missing.json', '--term', 'alpha'], 2],
      [['query', '--index', 'chunks/search-index.json', '--term', 'alpha', '--limit', '0'], 2],
    ] as const)
      assert.deepEqual(zlibModules(await loaded([...args], code)), [], args.join(' '));
  } finally {
    rig.cleanup();
  }
});
