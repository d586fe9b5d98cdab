/**
 * Runs every benchmark in sequence, each in its own process (so one's heap and caches do not colour
 * the next), and prints their reports. Each bench measures its baselines in the same run and reports
 * ratios; see bench/README.md for what each one measures and its goal.
 *
 *   npm run bench            # all, with default sizes
 *   npm run bench -- --quick # smaller sizes, for a smoke run
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const quick = process.argv.includes('--quick');

const benches: [string, string[]][] = [
  ['build-graph.js', quick ? ['--sizes', '1000', '--runs', '3'] : ['--sizes', '1000,10000', '--runs', '5']],
  ['one-shot-edit.js', quick ? ['--quick'] : ['--sizes', '1000,10000', '--runs', '7']],
  ['extract-throughput.js', quick ? ['--rounds', '2'] : ['--rounds', '5']],
  ['relevance.js', []],
  ['cold-query.js', quick ? ['5'] : ['15']],
  ['index-incremental.js', quick ? ['1000', '2'] : ['1000', '5']],
  ['snapshot-only-change.js', quick ? ['--sources', '1000', '--runs', '3'] : ['--sources', '1000', '--runs', '7']],
  ['watch-edit.js', quick ? ['--quick'] : ['--sizes', '1000,10000']],
  ['pdf-tables.js', quick ? ['--rounds', '1'] : ['--rounds', '3']],
  ['hostile-extraction.js', quick ? ['--runs', '1'] : ['--runs', '3']],
  ['remote-cache.js', quick ? ['--sources', '1000', '--runs', '1'] : ['--sources', '1000', '--runs', '3']],
];

let failed = 0;
for (const [file, args] of benches) {
  console.log(`\n=== ${file} ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [path.join(here, file), ...args], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed += 1;
    console.log(`(${file} exited with ${result.status})`);
  }
}
process.exitCode = failed ? 1 : 0;
