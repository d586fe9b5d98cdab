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
run.then((code) => {
  process.exitCode = code;
});
