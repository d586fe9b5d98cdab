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

/**
 * Relative to test/, without the extension; slowest first (2026-12-02 times, and the 2026-12-03 CI
 * log for the files added since). `all` starts these first, in this order: with two files at a time,
 * a long file started last would run alone at the end while the other core idles.
 */
export const SLOW_ORDER = [
  'graph/segmented-stage-index',
  'graph/lock-mechanisms',
  'retrieval/query-properties',
  'retrieval/cross-runtime',
  'package/npm-package',
  'hostile/extraction-bounds',
  'cli/remembered-workspace',
  'watch/watch-sequences',
  'runtimes/whole-pipeline',
  'hostile/verified-caches',
  'graph/edit-sequences',
  'retrieval/dev-corpus',
  'hostile/option-ranges',
  'graph/segmented-index',
  'hostile/workspace-boundary',
  'hostile/query-during-build',
  'hostile/input-files',
  'cache/hostile-cache',
  'graph/forged-state',
  'cache/large-blob',
  'watch/watch-real-spec',
  'graph/incremental',
  'retrieval/corpus-diff',
  'cli/dev-corpus',
  'graph/failures',
  'graph/crash-and-lock',
  'watch/watch',
  'retrieval/segmented-index',
  'hostile/extraction-linearity',
  'retrieval/tokenizer',
  'graph/garbage',
  'package/jsr-package',
  'package/readme-install',
  'package/jsr-remote',
  'hostile/extraction-fuzz',
];
export const SLOW = new Set(SLOW_ORDER);

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
const nameOf = (file) => path.relative(path.join('dist', 'test'), file).replace(/\.test\.js$/, '');
const names = new Set(all.map(nameOf));
const stale = SLOW_ORDER.filter((name) => !names.has(name));
if (stale.length > 0) {
  console.error(`scripts/test-files.mjs: SLOW names no test file (renamed? run npm run build first): ${stale.join(', ')}`);
  // Inside $(...) an exit status is lost: a path that does not exist makes `node --test` fail too.
  console.log('scripts/test-files.mjs-failed');
  process.exit(1);
}
const fast = all.filter((file) => !SLOW.has(nameOf(file)));
const slow = SLOW_ORDER.map((name) => all.find((file) => nameOf(file) === name));
console.log((tier === 'all' ? [...slow, ...fast] : fast).join('\n'));
