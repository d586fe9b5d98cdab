// Bundles the compiled CLI (dist/src) into dist/bundle. A cold process pays about a millisecond per
// ES module file (resolve, read, link) on this kind of machine, and the unbundled CLI loads ~45 for
// a query (clipanion alone is ~25).
// - cli.js (+ stage-worker.js): every command, split into chunks so a run loads its own command only.
// - query-main.cjs: `episteme query` alone in one self-contained CommonJS file (no shared chunks,
//   no ES module loader), because agents run queries from cold processes; bin/episteme.cjs picks
//   it when the first argument is `query`. Each process loads one of the two bundles, never both,
//   so no module exists twice in a process.
// Dependencies with their own file layout (pdfjs, got, ajv runtime, ...) stay external; the small
// pure-JS ones on the query path and those every stage worker loads (htmlparser2, domhandler,
// domutils, css-select, pako: about 40 files, 35 ms of a worker's 155 ms start on Node 20) are
// inlined, as their published code: the bundle never swaps or rewrites a dependency's modules.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { upToDate } from '../up-to-date.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
// The inputs: the compiled CLI, its types, the inlined dependencies' versions (the lockfile), the
// externals list (package.json) and this script.
const inputs = ['dist/src', 'types/cli.d.ts', 'package.json', 'package-lock.json', 'scripts/bundle/bundle-cli.mjs'];
const outputs = ['cli.js', 'stage-worker.js', 'query-main.cjs', 'cli.d.ts'].map((name) => `dist/bundle/${name}`);
const resolve = (files) => files.map((file) => path.join(root, file));
if (upToDate(resolve(outputs), resolve(inputs))) process.exit(0);
const INLINED = new Set(['clipanion', 'stemmer', 'css-select', 'domhandler', 'domutils', 'htmlparser2', 'pako']);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !INLINED.has(name));
external.push('typanion'); // clipanion imports it lazily; it is a dependency of its own

const common = {
  absWorkingDir: root,
  outdir: 'dist/bundle',
  entryNames: '[name]',
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  // clipanion's Node platform module requires the builtin by its bare name; Deno, running the bundle
  // from a URL, resolves only the node: form. Resolution config, not a change to clipanion's code.
  alias: { tty: 'node:tty' },
  legalComments: 'none',
  logLevel: 'warning',
};

// Chunk names are content hashes: clear the old ones rather than let them pile up.
rmSync(path.join(root, 'dist/bundle'), { recursive: true, force: true });
await build({
  ...common,
  // The stage worker is an entry of its own: stage-pool starts it as ./stage-worker.js beside itself.
  entryPoints: { cli: 'dist/src/cli/main.js', 'stage-worker': 'dist/src/graph/stage-worker.js' },
  chunkNames: 'chunk-[hash]',
  splitting: true,
});
await build({
  ...common,
  entryPoints: { 'query-main': 'dist/src/cli/query-main.js' },
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  splitting: false,
});

// The ./cli entry (npm exports, jsr.json) carries its types: a declaration beside it, named by a
// @ts-self-types directive that Deno and JSR read (TypeScript on npm reads package.json's "types").
copyFileSync(path.join(root, 'types/cli.d.ts'), path.join(root, 'dist/bundle/cli.d.ts'));
const cliEntry = path.join(root, 'dist/bundle/cli.js');
writeFileSync(cliEntry, '/* @ts-self-types="./cli.d.ts" */\n' + readFileSync(cliEntry, 'utf8'));
