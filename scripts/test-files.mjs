// The test files of a tier, one per line, for `node --test` (package.json: test, test:fast).
//
//   node scripts/test-files.mjs all    every compiled test file (`npm test`, what CI runs)
//   node scripts/test-files.mjs fast   all but SLOW (`npm run test:fast`, for every change)
//
// A test file goes in SLOW when it takes more than ~30 s on its own, timed by
// `node scripts/time-tests.mjs` (each file alone, two at a time as `npm test` runs them) on the 2-core
// dev machine under the load of other worktrees' runs (load average ~15; about 4x an idle machine's
// times). Measured 2026-12-02: the 29 files below took 30-188 s each (sum 2721 s), the 64 others
// 0.3-28 s (sum 564 s). They are the builds of many sources, property and fuzz runs, crash, kill and
// lock trials, other runtimes, packaging, the dev corpus. New files are in the fast tier until
// measured otherwise.
import * as fs from 'node:fs';
import * as path from 'node:path';

/** Relative to test/, without the extension. */
export const SLOW = new Set([
  'cache/hostile-cache',
  'cli/dev-corpus',
  'cli/remembered-workspace',
  'graph/crash-and-lock',
  'graph/edit-sequences',
  'graph/forged-state',
  'graph/failures',
  'graph/garbage',
  'graph/incremental',
  'graph/lock-mechanisms',
  'graph/segmented-index',
  'graph/segmented-stage-index',
  'hostile/extraction-bounds',
  'hostile/extraction-fuzz',
  'hostile/extraction-linearity',
  'hostile/input-files',
  'hostile/option-ranges',
  'hostile/query-during-build',
  'hostile/verified-caches',
  'hostile/workspace-boundary',
  'package/jsr-package',
  'package/jsr-remote',
  'package/npm-package',
  'package/readme-install',
  'retrieval/corpus-diff',
  'retrieval/cross-runtime',
  'retrieval/dev-corpus',
  'retrieval/query-properties',
  'retrieval/segmented-index',
  'retrieval/tokenizer',
  'runtimes/whole-pipeline',
  'watch/watch',
  'watch/watch-real-spec',
  'watch/watch-sequences',
]);

function testFiles(dir) {
  const out = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    // Only compiled tests whose source is still there: a test deleted or renamed leaves a stale .js in dist/.
    else if (entry.name.endsWith('.test.js') && fs.existsSync(full.replace(/^dist[\\/]/, '').replace(/\.js$/, '.ts'))) out.push(full);
  }
  return out.sort();
}

const tier = process.argv[2] ?? 'all';
if (tier !== 'all' && tier !== 'fast') {
  console.error('usage: node scripts/test-files.mjs all|fast');
  process.exit(2);
}
const all = testFiles(path.join('dist', 'test'));
const names = new Set(all.map((file) => path.relative(path.join('dist', 'test'), file).replace(/\.test\.js$/, '')));
const stale = [...SLOW].filter((name) => !names.has(name));
if (stale.length > 0) {
  console.error(`scripts/test-files.mjs: SLOW names no test file (renamed? run npm run build first): ${stale.join(', ')}`);
  // Inside $(...) an exit status is lost: a path that does not exist makes `node --test` fail too.
  console.log('scripts/test-files.mjs-failed');
  process.exit(1);
}
const files = testFiles(path.join('dist', 'test')).filter(
  (file) => tier === 'all' || !SLOW.has(path.relative(path.join('dist', 'test'), file).replace(/\.test\.js$/, '')),
);
console.log(files.join('\n'));
