/**
 * Runs every micro-benchmark of the hot loops, each in its own process (one suite's JIT state and
 * heap do not colour the next): `npm run bench:micro`, or one alone with
 * `node dist/bench/micro/<suite>.js`. MICRO_TIME_MS sets each task's sampling time (default 500).
 */
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
let failed = 0;
for (const suite of ['tokenizer.js', 'scoring.js', 'canonical-json.js', 'hashing.js', 'snippet.js']) {
  const result = spawnSync(process.execPath, [path.join(here, suite)], { stdio: 'inherit' });
  if (result.status !== 0) failed += 1;
}
process.exitCode = failed ? 1 : 0;
