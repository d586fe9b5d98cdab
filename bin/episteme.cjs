#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build` (scripts/bundle/bundle-cli.mjs). CommonJS on purpose: `query`, which
// agents run from cold processes, is one CommonJS file, and a process that never starts Node's ES
// module loader saves ~10 ms. Every other command is the ES module bundle, loaded with import().
const argv = process.argv.slice(2);
enableCompileCache();
// `query` loads its one bundle through a V8 code cache of its own (requireQueryBundle).
const run = argv[0] === 'query' ? Promise.resolve().then(() => requireQueryBundle().main(argv)) : startCli(argv);

function startCli(argv) {
  return import('../dist/bundle/cli.js').then((cli) => cli.main(argv));
}
run.then(
  (code) => {
    process.exitCode = code;
  },
  // The CLI could not even load (e.g. dist/ missing): one structured line, no stack unless --debug.
  (error) => {
    const message = `Episteme could not start: ${error?.message ? error.message : String(error)}`;
    const hint = 'Run `npm run build` (or reinstall), then retry; rerun with --debug for the stack.';
    if (argv.includes('--json')) {
      const failure = { code: 'internal-error', message, hint };
      if (argv.includes('--debug')) failure.debug = String(error?.stack);
      process.stdout.write(
        JSON.stringify({
          schemaVersion: 1,
          command: argv.find((a) => !a.startsWith('-')) || 'episteme',
          ok: false,
          error: failure,
          warnings: [],
        }) + '\n',
      );
    } else {
      process.stderr.write(
        `error [internal-error]: ${message}\nhint: ${hint}\n${argv.includes('--debug') ? String(error?.stack) + '\n' : ''}`,
      );
    }
    process.exitCode = 1;
  },
);

/**
 * Node 22.1+ can keep the code V8 compiled from the bundles on disk (module.enableCompileCache,
 * public API), so the next cold process skips compiling them again (a few ms of every query). The
 * cache lives in the user's cache folder, never in a workspace; NODE_COMPILE_CACHE overrides it and
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off (both Node's own). It serves the ES module bundle of
 * every other command (`query` has a fuller cache of its own, requireQueryBundle). Node 20 has no
 * such API; Bun's module.enableCompileCache does nothing useful, and Deno does not run this file (it
 * runs the ./cli entry): all three skip this.
 */
function enableCompileCache() {
  const moduleApi = require('node:module');
  if (typeof moduleApi.enableCompileCache !== 'function' || process.versions.bun !== undefined || process.versions.deno !== undefined)
    return;
  try {
    moduleApi.enableCompileCache(process.env.NODE_COMPILE_CACHE || userCacheDir());
  } catch {
    // A cache that cannot be set up only costs speed.
  }
}

/**
 * The query bundle, through a V8 code cache written after a query ran, with public APIs only
 * (vm.Script's cachedData and createCachedData, module.createRequire). Node 22+'s compile cache is
 * made when a file is compiled, so it holds only the code V8 compiles eagerly (~70 kB for this
 * bundle) and every function the query calls is still compiled in every process; Node 20 has no
 * compile cache at all. This cache is created after the query ran (~200 kB: the functions it
 * called), so a cold query compiles almost nothing. The bundle is a self-contained CommonJS file:
 * it is run in the standard CommonJS wrapper with a require made for its own path by
 * module.createRequire, so its few external dependencies resolve as from the file itself. The cache
 * file is keyed by the Node version and the bundle's size, mtime and inode (a rebuild writes a new
 * one; V8 also rejects data that does not fit) and says whether the run that wrote it answered a
 * query (exit code 0): a cache written by a failed run (a usage error) holds little of the query's
 * code, so the first query that succeeds writes it again. Written by rename, so concurrent
 * processes never read half a file. It lives beside the compile cache; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off too. Deno and Bun load the bundle with a plain require, and any failure before the
 * bundle ran falls back to one.
 */
function requireQueryBundle() {
  const path = require('node:path');
  const file = path.join(__dirname, '../dist/bundle/query-main.cjs');
  if (process.versions.bun !== undefined || process.versions.deno !== undefined || process.env.NODE_DISABLE_COMPILE_CACHE)
    return require(file);
  const fs = require('node:fs');
  const vm = require('node:vm');
  const { createRequire } = require('node:module');
  let run;
  let script;
  let cacheFile;
  let cachedData;
  let fromAnswer = false;
  let answered;
  let failed;
  try {
    const stat = fs.statSync(file);
    cacheFile = path.join(process.env.NODE_COMPILE_CACHE || userCacheDir(), `query-main-${process.version}-${process.arch}.v8cache`);
    const key = `${stat.size} ${Math.trunc(stat.mtimeMs)} ${stat.ino}`;
    // The first line: the key, then "answered" when the run that wrote it answered a query.
    answered = Buffer.from(`${key} answered\n`);
    failed = Buffer.from(`${key} failed\n`);
    try {
      const held = fs.readFileSync(cacheFile);
      for (const header of [answered, failed]) {
        if (!held.subarray(0, header.length).equals(header)) continue;
        cachedData = held.subarray(header.length);
        fromAnswer = header === answered;
      }
    } catch {
      // No cache yet: compile from source and write one below.
    }
    const source = fs.readFileSync(file, 'utf8');
    script = new vm.Script(`(function (exports, require, module, __filename, __dirname) { ${source}\n})`, {
      filename: file,
      cachedData,
      // The bundle never imports dynamically on the query path (clipanion only for a command with a
      // schema), but must be able to: with the main context's own loader.
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ?? ((specifier) => import(specifier)),
    });
    run = script.runInThisContext();
  } catch {
    return require(file);
  }
  const bundle = { exports: {} };
  run.call(bundle.exports, bundle.exports, createRequire(file), bundle, file, path.dirname(file));
  if (cachedData === undefined || script.cachedDataRejected || !fromAnswer)
    process.once('exit', (code) => {
      if (code === 0 || cachedData === undefined || script.cachedDataRejected)
        writeCodeCache(script, cacheFile, code === 0 ? answered : failed);
    });
  return bundle.exports;
}

function writeCodeCache(script, cacheFile, header) {
  const fs = require('node:fs');
  const path = require('node:path');
  try {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    const temporary = `${cacheFile}.${process.pid}.tmp`;
    fs.writeFileSync(temporary, Buffer.concat([header, script.createCachedData()]));
    fs.renameSync(temporary, cacheFile);
  } catch {
    // A cache that cannot be written only costs speed.
  }
}

function userCacheDir() {
  const path = require('node:path');
  const home = require('node:os').homedir();
  const base =
    process.platform === 'win32'
      ? process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local')
      : process.platform === 'darwin'
        ? path.join(home, 'Library', 'Caches')
        : process.env.XDG_CACHE_HOME || path.join(home, '.cache');
  return path.join(base, 'episteme', 'compile-cache');
}
