#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build`. `query` has a one-file bundle of its own (see
// scripts/bundle/bundle-cli.mjs): agents run it from cold processes.
const entry = process.argv[2] === 'query' ? '../dist/bundle/query-main.js' : '../dist/bundle/cli.js';
const { main } = await import(entry);

process.exitCode = await main(process.argv.slice(2));
