// Bundles the compiled CLI (dist/src) into dist/bundle: a cold `episteme query` otherwise spends
// ~25 ms resolving and compiling ~45 ES modules one by one (clipanion alone is ~25 files), which is
// most of the gap to a native FTS5 query. Splitting keeps each command's code in its own chunk, so
// a query still loads only the query path. Dependencies with their own file layout (pdfjs, got, ajv
// runtime, ...) stay external; only the small pure-JS ones on the query path are inlined.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const INLINED = new Set(['clipanion', 'stemmer']);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
const external = Object.keys(pkg.dependencies).filter((name) => !INLINED.has(name));
external.push('typanion'); // clipanion imports it lazily; it is a dependency of its own

// Chunk names are content hashes: clear the old ones rather than let them pile up.
rmSync(path.join(root, 'dist/bundle'), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  // The stage worker is an entry of its own: stage-pool starts it as ./stage-worker.js beside itself.
  entryPoints: { cli: 'dist/src/cli/main.js', 'stage-worker': 'dist/src/graph/stage-worker.js' },
  outdir: 'dist/bundle',
  entryNames: '[name]',
  chunkNames: 'chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external,
  legalComments: 'none',
  plugins: [
    {
      name: 'clipanion-platform',
      setup(bundle) {
        bundle.onResolve({ filter: /platform\/node\.mjs$/ }, (args) =>
          args.importer.includes(`${path.sep}clipanion${path.sep}`) ? { path: path.join(here, 'clipanion-platform.mjs') } : undefined,
        );
      },
    },
  ],
  logLevel: 'warning',
});
