#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build` (scripts/bundle/bundle-cli.mjs). CommonJS on purpose: `query`, which
// agents run from cold processes, is one CommonJS file, and a process that never starts Node's ES
// module loader saves ~10 ms. Every other command is the ES module bundle, loaded with import().
// A build's stage workers are worker threads on this file too (serveStageWorker).
const argv = process.argv.slice(2);
if (argv[0] === '--stage-worker' && !require('node:worker_threads').isMainThread) serveStageWorker();
else startProcess();

function startProcess() {
  enableCompileCache();
  // `query` loads its one bundle through a V8 code cache of its own (requireQueryBundle).
  const run = argv[0] === 'query' ? Promise.resolve().then(() => requireQueryBundle().main(argv)) : startCli(argv);
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
}

function startCli(argv) {
  // A stage worker of this build can be this file, running the stage worker's bundle from its own
  // code cache (serveStageWorker; stage-pool.ts reads this).
  if (process.versions.bun === undefined && process.versions.deno === undefined && !process.env.NODE_DISABLE_COMPILE_CACHE)
    globalThis[Symbol.for('episteme.stageWorkerLauncher')] = __filename;
  return import('../dist/bundle/cli.js').then((cli) => cli.main(argv));
}

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
 * The query bundle, through a V8 code cache written after a query ran (loadThroughCodeCache). Node
 * 22+'s compile cache is made when a file is compiled, so it holds only the code V8 compiles eagerly
 * (~70 kB for this bundle) and every function the query calls is still compiled in every process;
 * Node 20 has no compile cache at all. This cache is created after the query ran (~200 kB: the
 * functions it called), so a cold query compiles almost nothing. Its tag says whether the run that
 * wrote it answered a query (exit code 0): a cache written by a failed run (a usage error) holds
 * little of the query's code, so the first query that succeeds writes it again.
 */
function requireQueryBundle() {
  const loaded = loadThroughCodeCache('query-main');
  if (loaded.write !== undefined && loaded.tag !== 'answered')
    process.once('exit', (code) => {
      if (code === 0 || loaded.tag === undefined) loaded.write(code === 0 ? 'answered' : 'failed');
    });
  return loaded.exports;
}

/**
 * A stage worker (a worker thread StagePool started on this file with --stage-worker): the stage
 * worker's bundle, through a V8 code cache written by an earlier worker after it had run tasks, so
 * the functions a build's extraction and chunking call are not compiled again in every worker of
 * every build. Its tag is `<stages the writer ran> <tasks it ran>`. A worker writes the cache again
 * after a task (before its result is posted) when there was none, when it has run a stage the cache's
 * writer had not, or when it has run twice as many tasks: a first full build leaves the cache of its
 * busiest worker (written after 1, 2, 4, ... tasks), and the worker of a one-shot build, which runs
 * one document's extraction and chunking, writes nothing. A cache written in a worker that had loaded
 * one holds the functions of both.
 */
function serveStageWorker() {
  const loaded = loadThroughCodeCache('stage-worker-main');
  const [stages, count] = loaded.tag === undefined ? [] : loaded.tag.split(' ');
  const covered = new Set(stages === undefined ? [] : stages.split(','));
  let writtenAfter = Number(count) || 0;
  let tasks = 0;
  loaded.exports.serveStageTasks((stage) => {
    tasks++;
    if (loaded.write === undefined || (covered.has(stage) && tasks < 2 * writtenAfter)) return;
    covered.add(stage);
    writtenAfter = tasks;
    loaded.write(`${[...covered].sort().join(',')} ${tasks}`);
  });
}

/**
 * One of the CommonJS bundles of dist/bundle (`name`.cjs), through a V8 code cache of its own, with
 * public APIs only (vm.Script's cachedData and createCachedData, module.createRequire). The bundle is
 * a self-contained CommonJS file: it is run in the standard CommonJS wrapper with a require made for
 * its own path by module.createRequire, so its few external dependencies resolve as from the file
 * itself. The cache file is keyed by the Node version and the bundle's size, mtime and inode (a
 * rebuild writes a new one; V8 also rejects data that does not fit); its first line also carries a
 * tag, which says what the run that wrote it did. Returns the bundle's exports, the tag of the cache
 * it was loaded with (undefined: none, or rejected) and write(tag), which writes the cache from the
 * code compiled so far (undefined when there is no cache). Written by rename, so concurrent processes
 * never read half a file. It lives beside the compile cache; NODE_DISABLE_COMPILE_CACHE=1 turns it
 * off too. Deno and Bun load the bundle with a plain require, and any failure before the bundle ran
 * falls back to one.
 */
function loadThroughCodeCache(name) {
  const path = require('node:path');
  const file = path.join(__dirname, `../dist/bundle/${name}.cjs`);
  const plain = () => ({ exports: require(file), tag: undefined, write: undefined });
  if (process.versions.bun !== undefined || process.versions.deno !== undefined || process.env.NODE_DISABLE_COMPILE_CACHE) return plain();
  const fs = require('node:fs');
  const vm = require('node:vm');
  const { createRequire } = require('node:module');
  let run;
  let script;
  let cacheFile;
  let key;
  let cachedData;
  let tag;
  try {
    const stat = fs.statSync(file);
    cacheFile = path.join(process.env.NODE_COMPILE_CACHE || userCacheDir(), `${name}-${process.version}-${process.arch}.v8cache`);
    key = `${stat.size} ${Math.trunc(stat.mtimeMs)} ${stat.ino} `;
    try {
      const held = fs.readFileSync(cacheFile);
      const end = held.indexOf(10);
      if (end > key.length && held.subarray(0, key.length).toString('latin1') === key) {
        tag = held.subarray(key.length, end).toString('latin1');
        cachedData = held.subarray(end + 1);
      }
    } catch {
      // No cache yet: compile from source; the caller writes one.
    }
    const source = fs.readFileSync(file, 'utf8');
    // The CommonJS wrapper, plus the import() the bundle's dynamic imports of external ES modules go
    // through (scripts/bundle/bundle-cli.mjs): code compiled by vm.Script cannot import on Node 20
    // without experimental APIs, nor on cached data. Bare specifiers resolve here as beside the bundle.
    script = new vm.Script(`(function (exports, require, module, __filename, __dirname, __launcherImport) { ${source}\n})`, {
      filename: file,
      cachedData,
    });
    run = script.runInThisContext();
  } catch {
    return plain();
  }
  const bundle = { exports: {} };
  run.call(bundle.exports, bundle.exports, createRequire(file), bundle, file, path.dirname(file), (specifier) => import(specifier));
  if (script.cachedDataRejected) tag = undefined;
  const write = (newTag) => writeCodeCache(script, cacheFile, Buffer.from(`${key}${newTag}\n`, 'latin1'));
  return { exports: bundle.exports, tag, write };
}

function writeCodeCache(script, cacheFile, header) {
  const fs = require('node:fs');
  const path = require('node:path');
  try {
    fs.mkdirSync(path.dirname(cacheFile), { recursive: true });
    // Named by process and thread: the stage workers of one build are threads of one process.
    const temporary = `${cacheFile}.${process.pid}-${require('node:worker_threads').threadId}.tmp`;
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
