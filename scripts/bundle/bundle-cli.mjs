// Bundles the compiled CLI (dist/src) into dist/bundle. A cold process pays about a millisecond per
// ES module file (resolve, read, link) on this kind of machine, and the unbundled CLI loads ~45 for
// a query (clipanion alone is ~25).
// - cli.js (+ stage-worker.js): every command, split into chunks so a run loads its own command only.
// - query-main.cjs: `episteme query` alone in one self-contained CommonJS file (no shared chunks,
//   no ES module loader), because agents run queries from cold processes; bin/episteme.cjs picks
//   it when the first argument is `query`. Each process loads one of the two bundles, never both,
//   so no module exists twice in a process.
// Dependencies with their own file layout (pdfjs, got, ajv runtime, ...) stay external; only the
// small pure-JS ones on the query path are inlined.
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { simplifyMachine } from './clipanion-simplify-machine.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const INLINED = new Set(['clipanion', 'stemmer']);
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
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [
    {
      name: 'clipanion-platform',
      setup(bundle) {
        bundle.onResolve({ filter: /platform\/node\.mjs$/ }, (args) =>
          args.importer.includes(`${path.sep}clipanion${path.sep}`) ? { path: path.join(here, 'clipanion-platform.mjs') } : undefined,
        );
      },
    },
    {
      // clipanion's simplifyMachine with its duplicate checks as set lookups (see
      // clipanion-simplify-machine.mjs). The build fails if clipanion's code changes shape.
      name: 'clipanion-simplify-machine',
      setup(bundle) {
        bundle.onLoad({ filter: /clipanion[\\/]lib[\\/]core\.mjs$/ }, async (args) => {
          const source = await readFile(args.path, 'utf8');
          const original = /\nfunction simplifyMachine\(input\) \{\n[\s\S]*?\n\}\n(?=function debugMachine\()/g;
          const found = source.match(original)?.length ?? 0;
          if (found !== 1) throw new Error(`clipanion-simplify-machine: expected 1 simplifyMachine in ${args.path}, found ${found}`);
          return { contents: source.replace(original, () => `\n${simplifyMachine.toString()}\n`), loader: 'js' };
        });
      },
    },
    {
      // Cli.defaultContext reads process.stdin, stdout and stderr when clipanion loads, and each run
      // spreads it into the command's context: creating them (streams, with net or fs streams
      // behind) was ~5-10 ms of a cold query that reads neither. Make them getters and merge
      // contexts by property descriptors so they stay lazy. The build fails if clipanion's code
      // changes shape.
      name: 'clipanion-lazy-stdin',
      setup(bundle) {
        bundle.onLoad({ filter: /clipanion[\\/]lib[\\/]advanced[\\/]Cli\.mjs$/ }, async (args) => {
          let source = await readFile(args.path, 'utf8');
          const spread = /\{\s*\.\.\.Cli\.defaultContext,\s*\.\.\.userContext,\s*\}/g;
          const patches = [
            [/stdin: process\.stdin,/, 'get stdin() { return process.stdin; },', 1],
            [/stdout: process\.stdout,/, 'get stdout() { return process.stdout; },', 1],
            [/stderr: process\.stderr,/, 'get stderr() { return process.stderr; },', 1],
            [spread, 'mergeContexts(Cli.defaultContext, userContext)', 2],
          ];
          for (const [pattern, replacement, expected] of patches) {
            const found = source.match(new RegExp(pattern.source, 'g'))?.length ?? 0;
            if (found !== expected)
              throw new Error(`clipanion-lazy-stdin: expected ${expected} match(es) of ${pattern} in ${args.path}, found ${found}`);
            source = source.replace(new RegExp(pattern.source, 'g'), replacement);
          }
          source +=
            '\nfunction mergeContexts(base, user) {\n' +
            '  return Object.defineProperties({}, ' +
            '{ ...Object.getOwnPropertyDescriptors(base), ...Object.getOwnPropertyDescriptors(user ?? {}) });\n' +
            '}\n';
          return { contents: source, loader: 'js' };
        });
      },
    },
  ],
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
