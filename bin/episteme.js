#!/usr/bin/env node
// Thin launcher: the CLI is compiled to dist/ and bundled into dist/bundle by `npm install`
// (prepare) or `npm run build`.
import { main } from '../dist/bundle/cli.js';

process.exitCode = await main(process.argv.slice(2));
