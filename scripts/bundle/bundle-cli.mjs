// Bundles the compiled CLI (dist/src) into dist/bundle. A cold process pays about a millisecond per
// ES module file (resolve, read, link) on this kind of machine, and the unbundled CLI loads ~45 for
// a query (clipanion alone is ~25).
// - cli.js (+ stage-worker.js): every command, split into chunks so a run loads its own command only.
// - query-main.cjs: `episteme query` alone in one self-contained CommonJS file (no shared chunks,
//   no ES module loader), because agents run queries from cold processes; bin/episteme.cjs picks
//   it when the first argument is `query`. Each process loads one of the two bundles, never both,
//   so no module exists twice in a process.
// - stage-worker-main.cjs: the stage worker in one self-contained CommonJS file, which the launcher
//   runs in a build's worker threads through a V8 code cache (stage-worker.js serves Deno, Bun and
//   programs that import ./cli).
// Dependencies with their own file layout (pdfjs, got, ajv runtime, ...) stay external; the small
// pure-JS ones on the query path and those every stage worker loads (htmlparser2, domhandler,
// domutils, css-select, css-what, pako: about 40 files, 35 ms of a worker's 155 ms start on Node 20) are
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
const outputs = ['cli.js', 'stage-worker.js', 'query-main.cjs', 'stage-worker-main.cjs', 'cli.d.ts'].map((name) => `dist/bundle/${name}`);
const resolve = (files) => files.map((file) => path.join(root, file));
if (upToDate(resolve(outputs), resolve(inputs))) process.exit(0);
// css-what is ES modules only: a CommonJS bundle that required it would load it through Node 20's
// require(esm), which can abort a worker thread (v8 IsGraphAsync on an uninstantiated module).
const INLINED = new Set(['clipanion', 'stemmer', 'css-select', 'css-what', 'domhandler', 'domutils', 'htmlparser2', 'pako']);
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
// The CommonJS bundles' dynamic imports (of external ES modules: typanion, pdf.js, markdown-it) go
// through the function the launcher passes to them (bin/episteme.cjs, loadThroughCodeCache): an
// import() compiled by vm.Script needs an importModuleDynamically callback, which Node 20 accepts only
// as its experimental USE_MAIN_CONTEXT_DEFAULT_LOADER, and which it loses when the script comes from
// cached data. Loaded with a plain require (Deno, Bun, no cache), the bundle imports for itself.
const cjsBundle = {
  ...common,
  outExtension: { '.js': '.cjs' },
  format: 'cjs',
  splitting: false,
  // "use strict" first: esbuild writes its own after the banner, where it is no directive.
  banner: {
    js: '"use strict";\nconst __bundleImport = typeof __launcherImport === "function" ? __launcherImport : (name) => import(name);',
  },
};
await build({ ...cjsBundle, entryPoints: { 'query-main': 'dist/src/cli/query-main.js' } });

// The stage worker again, as one self-contained CommonJS file that the launcher runs in a worker
// thread through a code cache of its own (bin/episteme.cjs serveStageWorker; stage-pool.ts says when).
// Its few ES module uses: import.meta.url (package-paths.ts finds rules/ from it) is the file's own
// URL; the ES-module-only github-slugger is inlined; pdf.js, ES modules only, stays a dynamic import().
await build({
  ...cjsBundle,
  entryPoints: { 'stage-worker-main': 'dist/src/graph/stage-worker-main.js' },
  external: external.filter((name) => name !== 'github-slugger'),
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: `${cjsBundle.banner.js}\nconst __bundleUrl = require("node:url").pathToFileURL(__filename).href;` },
});
const packageName = (specifier) =>
  specifier
    .split('/')
    .slice(0, specifier.startsWith('@') ? 2 : 1)
    .join('/');
for (const name of ['query-main.cjs', 'stage-worker-main.cjs']) {
  const file = path.join(root, 'dist/bundle', name);
  const source = readFileSync(file, 'utf8');
  const routed = source.replace(/\bimport\(("[^"]+")\)/g, (call, specifier) => {
    if (!external.includes(packageName(JSON.parse(specifier)))) throw new Error(`${name}: unexpected ${call}`);
    return `__bundleImport(${specifier})`;
  });
  // The banner's fallback is the only import() left.
  if (routed.split(/\bimport\(/).length !== 2) throw new Error(`${name}: an import() the launcher cannot serve`);
  // A CommonJS bundle may require CommonJS packages only: an ES-module-only one would go through
  // require(esm), experimental on Node 20. Inline such a package or import() it.
  for (const [, specifier] of routed.matchAll(/\brequire\("([^"]+)"\)/g)) {
    if (specifier.startsWith('node:') || !external.includes(packageName(specifier))) continue;
    const manifest = JSON.parse(readFileSync(path.join(root, 'node_modules', packageName(specifier), 'package.json'), 'utf8'));
    if (manifest.type === 'module') throw new Error(`${name}: requires the ES-module-only ${specifier}; add it to INLINED`);
  }
  writeFileSync(file, routed);
}

// The ./cli entry (npm exports, jsr.json) carries its types: a declaration beside it, named by a
// @ts-self-types directive that Deno and JSR read (TypeScript on npm reads package.json's "types").
copyFileSync(path.join(root, 'types/cli.d.ts'), path.join(root, 'dist/bundle/cli.d.ts'));
const cliEntry = path.join(root, 'dist/bundle/cli.js');
writeFileSync(cliEntry, '/* @ts-self-types="./cli.d.ts" */\n' + readFileSync(cliEntry, 'utf8'));
