#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build` (scripts/bundle/bundle-cli.mjs). CommonJS on purpose: `query`, which
// agents run from cold processes, is one CommonJS file, and a process that never starts Node's ES
// module loader saves ~10 ms. Every other command is the ES module bundle, loaded with import().
const argv = process.argv.slice(2);
// `query` loads its one bundle through a code cache of its own (requireQueryBundle), not Node's.
const run = argv[0] === 'query' ? requireQueryBundle().main(argv) : startCli(argv);

function startCli(argv) {
  enableCompileCache();
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
 * Node 22.1+ can keep the code V8 compiled from the bundle on disk, so the next cold process skips
 * compiling it again (a few ms of every query). The cache lives in the user's cache folder, never
 * in a workspace; NODE_COMPILE_CACHE overrides it and NODE_DISABLE_COMPILE_CACHE=1 turns it off (both
 * Node's own). It serves the ES module bundle of every other command; `query` loads its bundle
 * through a fuller V8 code cache of its own (requireQueryBundle), on Node 20 too, which has no
 * compile cache. Bun's module.enableCompileCache does nothing useful, and Deno does not run this file
 * (it runs the ./cli entry): all three skip this.
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
 * The query bundle, through a V8 code cache written after a query ran. Compiling the ~170 kB bundle
 * from source was the largest single cost of a cold query on Node 20, which has no
 * module.enableCompileCache; Node 22+'s compile cache has that cache, but it is made when the file
 * is compiled, so it holds only the code V8 compiles eagerly (~70 kB of cache) and every function
 * the query calls is still parsed and compiled in every process. This cache is created after the
 * query ran (~200 kB: the functions it called), so a cold query compiles almost nothing. The file
 * is keyed by the Node version and the bundle's size, mtime and inode (a rebuild writes a new one;
 * V8 also rejects data that does not fit) and says whether the run that wrote it answered a query
 * (exit code 0): a cache written by a failed run (a usage error) holds little of the query's code,
 * so the first query that succeeds writes it again. Written by rename, so concurrent processes
 * never read half a file. It lives beside Node 22+'s compile cache; NODE_DISABLE_COMPILE_CACHE=1
 * turns it off too. Any failure falls back to a plain require.
 */
function requireQueryBundle() {
  const file = require('node:path').join(__dirname, '../dist/bundle/query-main.cjs');
  const moduleApi = require('node:module');
  if (process.versions.bun !== undefined || process.versions.deno !== undefined || process.env.NODE_DISABLE_COMPILE_CACHE)
    return require(file);
  const fs = require('node:fs');
  const path = require('node:path');
  const vm = require('node:vm');
  let script;
  let cacheFile;
  try {
    tierUpLaterInAShortProcess();
    const stat = fs.statSync(file);
    cacheFile = path.join(process.env.NODE_COMPILE_CACHE || userCacheDir(), `query-main-${process.version}-${process.arch}.v8cache`);
    const key = `${stat.size} ${Math.trunc(stat.mtimeMs)} ${stat.ino}`;
    // The first line: the key, then "answered" when the run that wrote it answered a query.
    const answered = Buffer.from(`${key} answered\n`);
    const failed = Buffer.from(`${key} failed\n`);
    let cachedData;
    let fromAnswer = false;
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
    script = new vm.Script(moduleApi.wrap(fs.readFileSync(file, 'utf8')), {
      filename: file,
      cachedData,
      // The bundle never imports dynamically on the query path (clipanion only for a command with a
      // schema), but must be able to. Node's own loader (20.12+) saves registering a callback, which
      // loads vm's module internals (~0.5 ms); older runtimes get the callback.
      importModuleDynamically: vm.constants?.USE_MAIN_CONTEXT_DEFAULT_LOADER ?? ((specifier) => import(specifier)),
    });
    const bundle = new moduleApi.Module(file, module);
    bundle.filename = file;
    bundle.paths = moduleApi._nodeModulePaths(path.dirname(file));
    script.runInThisContext()(bundle.exports, moduleApi.createRequire(file), bundle, file, path.dirname(file));
    bundle.loaded = true;
    if (cachedData === undefined || script.cachedDataRejected || !fromAnswer)
      process.once('exit', (code) => {
        if (code === 0 || cachedData === undefined || script.cachedDataRejected)
          writeCodeCache(script, cacheFile, code === 0 ? answered : failed);
      });
    return bundle.exports;
  } catch {
    return require(file);
  }
}

/**
 * V8's tiering budgets for a process that lives tens of milliseconds. With the defaults, a cold
 * query on the dev corpus sends ~20 functions to Maglev within its first milliseconds: ~9 ms of
 * compiling on the machine's other core, finished when the query is nearly done. Budgets ten times
 * V8 13's defaults keep such a query in the interpreter and Sparkplug (2 compiles), while a query
 * over a corpus twenty times larger still tiers up its scoring loops (bench/README.md, "Tiering").
 * Set before the bundle is compiled: V8 checks a code cache against the flags it was made under, so
 * the cache is written and read under these. Node's own modules are cached under the default
 * flags, so node:zlib (and node:stream with it), which every answered query loads, is loaded
 * first. V8 prints unknown flags to stderr, so only the V8 majors these names were checked on
 * (12: Node 22, 13: Node 24) take them; the answer is the same bytes either way.
 */
function tierUpLaterInAShortProcess() {
  const major = Number(process.versions.v8.split('.')[0]);
  if (major !== 12 && major !== 13) return;
  require('node:zlib');
  require('node:v8').setFlagsFromString(
    '--invocation-count-for-maglev=4000 --invocation-count-for-maglev-osr=1000 ' +
      '--invocation-count-for-turbofan=30000 --invocation-count-for-osr=5000',
  );
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
