#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build` (scripts/bundle/bundle-cli.mjs). CommonJS on purpose: `query`, which
// agents run from cold processes, is one CommonJS file, and a process that never starts Node's ES
// module loader saves ~10 ms. Every other command is the ES module bundle, loaded with import().
const argv = process.argv.slice(2);
enableCompileCache();
// Each bundle is loaded from its real path with the runtime's own loader, so its dependencies
// resolve as for any installed file.
const run = argv[0] === 'query' ? Promise.resolve().then(() => require('../dist/bundle/query-main.cjs').main(argv)) : startCli(argv);

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
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off (both Node's own). Node 20 has no such API; Bun's
 * module.enableCompileCache does nothing useful, and Deno does not run this file (it runs the ./cli
 * entry): all three skip this.
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
