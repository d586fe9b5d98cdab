#!/usr/bin/env node
'use strict';
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build` (scripts/bundle/bundle-cli.mjs). CommonJS on purpose: `query`, which
// agents run from cold processes, is one CommonJS file, and a process that never starts Node's ES
// module loader saves ~10 ms. Every other command is the ES module bundle, loaded with import().
const argv = process.argv.slice(2);
const run =
  argv[0] === 'query'
    ? require('../dist/bundle/query-main.cjs').main(argv)
    : import('../dist/bundle/cli.js').then((cli) => cli.main(argv));
run.then(
  (code) => {
    process.exitCode = code;
  },
  // The CLI could not even load (e.g. dist/ missing): one structured line, no stack unless --debug.
  (error) => {
    const message = `Episteme could not start: ${error && error.message ? error.message : String(error)}`;
    const hint = 'Run `npm run build` (or reinstall), then retry; rerun with --debug for the stack.';
    if (argv.includes('--json')) {
      const failure = { code: 'internal-error', message, hint };
      if (argv.includes('--debug')) failure.debug = String(error && error.stack);
      process.stdout.write(JSON.stringify({ schemaVersion: 1, command: argv.find((a) => !a.startsWith('-')) || 'episteme', ok: false, error: failure, warnings: [] }) + '\n');
    } else {
      process.stderr.write(`error [internal-error]: ${message}\nhint: ${hint}\n${argv.includes('--debug') ? String(error && error.stack) + '\n' : ''}`);
    }
    process.exitCode = 1;
  },
);
