/**
 * Runs every benchmark in sequence, each in its own process (so one's heap and caches do not colour
 * the next), and prints their reports. Each bench measures its baselines in the same run and reports
 * ratios; see bench/README.md for what each one measures and its goal.
 *
 *   npm run bench            # all, with default sizes (tens of minutes)
 *   npm run bench -- --quick # the smoke run CI makes (.ci/run): tiny sizes, one round, a few minutes
 *   npm run bench -- --quick build-graph relevance   # only the named ones
 *
 * The quick run checks that each bench ran, not how fast: exit status 0 and its result line(s) in
 * the output (the `expect` patterns below), and no NaN in the output. A bench whose external
 * baseline is missing (ninja, nginx, Node 24, better-sqlite3, lunr, MiniSearch, ../shared) skips that
 * comparison and says so; that is not a failure. The micro-benchmarks (bench/micro) run last, with
 * MICRO_TIME_MS=20 in the quick run.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '../..');
const quick = process.argv.includes('--quick');
const only = process.argv.slice(2).filter((a) => !a.startsWith('--'));

interface Bench {
  name: string;
  /** The script, from dist/bench (or the repository for .cjs). */
  script: string;
  args: string[];
  quickArgs: string[];
  /** What the output must hold (each pattern) for the run to count. */
  expect: RegExp[];
  env?: NodeJS.ProcessEnv;
}

const ms = String.raw`\d+ ms`;
const benches: Bench[] = [
  {
    name: 'build-graph',
    script: 'build-graph.js',
    args: ['--sizes', '1000,10000', '--runs', '5'],
    quickArgs: ['--sizes', '100', '--runs', '1'],
    expect: [new RegExp(`no-op build +episteme ${ms}`), new RegExp(`one-source edit +episteme ${ms} = graph overhead`)],
  },
  {
    // Its quick size is above 256 sources, so the build writes a segmented search index, which
    // cold-query-segmented below queries.
    name: 'one-shot-edit',
    script: 'one-shot-edit.js',
    args: ['--sizes', '1000,10000', '--runs', '7'],
    quickArgs: ['--sizes', '300', '--runs', '1'],
    expect: [/N = 300/, /one-source edit +\d+ ms/],
  },
  {
    name: 'cold-query-segmented',
    script: path.join(repo, 'bench/cold-query-segmented.cjs'),
    args: [],
    quickArgs: [
      ...[path.join(repo, 'bin/episteme.cjs'), path.join(repo, 'bench/.work/one-shot-this-300')],
      ...[path.join(repo, 'bin/episteme.cjs'), path.join(repo, 'bench/.work/one-shot-this-300'), '1'],
    ],
    expect: [/same hits and scores: true/],
  },
  {
    name: 'extract-throughput',
    script: 'extract-throughput.js',
    args: ['--rounds', '5'],
    quickArgs: ['--rounds', '1', '--quick'],
    expect: [/MB\/s|SKIP/],
  },
  { name: 'relevance', script: 'relevance.js', args: [], quickArgs: ['--quick'], expect: [/nDCG@10 \d\.\d{4}|SKIP/] },
  {
    name: 'cold-query',
    script: 'cold-query.js',
    args: ['15'],
    quickArgs: ['1', '--quick'],
    expect: [/episteme query \(CLI\) +[\d.]+ ms wall|SKIP/],
  },
  {
    name: 'serve',
    script: 'serve.js',
    args: ['--queries', '200'],
    quickArgs: ['--quick'],
    expect: [/warm MCP search +p50 [\d.]+ ms|SKIP/, /query --batch +[\d.]+ ms per query|SKIP/],
  },
  {
    name: 'segment-plans',
    script: 'segment-plans.js',
    args: ['--rounds', '15'],
    quickArgs: ['--quick'],
    expect: [/single file \(plan 1\): merge of every cached part \d+ ms|segment-plans: skipped/],
  },
  {
    name: 'index-incremental',
    script: 'index-incremental.js',
    args: ['1000', '5'],
    quickArgs: ['300', '1', '5'],
    expect: [/byte-identical to the full build: yes/],
  },
  {
    name: 'snapshot-only-change',
    script: 'snapshot-only-change.js',
    args: ['--sources', '1000', '--runs', '7'],
    quickArgs: ['--sources', '100', '--runs', '1'],
    expect: [/snapshot only +\d+ ms/],
  },
  {
    name: 'watch-edit',
    script: 'watch-edit.js',
    args: ['--sizes', '1000,10000'],
    quickArgs: ['--quick', '--sizes', '100', '--saves', '2'],
    expect: [/save -> commit .*median \d+ ms/],
  },
  {
    name: 'chunk-stage',
    script: 'chunk-stage.js',
    args: [],
    quickArgs: ['--quick'],
    expect: [/chunk stage with the worker's memory \d+\.\d ms|SKIP/],
  },
  {
    // Without ../shared it builds only the generated document (the dev-corpus part says it skipped).
    name: 'watch-real-specs',
    script: 'watch-real-specs.js',
    args: [],
    quickArgs: ['--quick'],
    expect: [/generated spec-like document .* save -> query-ready \d+ ms/],
  },
  {
    name: 'pdf-tables',
    script: 'pdf-tables.js',
    args: ['--rounds', '3'],
    quickArgs: ['--rounds', '1', '--quick'],
    expect: [/overall: .*F1/],
  },
  {
    name: 'pdf-linearity',
    script: 'pdf-linearity.js',
    args: [],
    quickArgs: ['--quick'],
    expect: [/2,000,000 text runs .*extract-bound-exceeded/],
  },
  {
    name: 'hostile-extraction',
    script: 'hostile-extraction.js',
    args: ['--runs', '3'],
    quickArgs: ['--runs', '1', '--quick'],
    expect: [/PDF Flate bomb/, /linearity: \d+ of \d+ constructs within the ratio bound/],
  },
  {
    name: 'remote-cache',
    script: 'remote-cache.js',
    args: ['--sources', '1000', '--runs', '3'],
    quickArgs: ['--sources', '50', '--runs', '1'],
    expect: [/fresh checkout from the warm cache +wall +\d+ ms/],
  },
  {
    name: 'micro',
    script: 'micro/run-all.js',
    args: [],
    quickArgs: [],
    expect: [/tokenizer/i, /scoring|bm25/i, /canonical/i, /sha-?256/i, /snippet/i],
    env: quick ? { MICRO_TIME_MS: '20' } : {},
  },
];

/** Runs one bench, echoing its output, and returns that output and its exit status. */
function run(bench: Bench, args: string[]): Promise<{ status: number | null; output: string }> {
  const script = path.isAbsolute(bench.script) ? bench.script : path.join(here, bench.script);
  const child = spawn(process.execPath, [script, ...args], {
    cwd: repo,
    env: { ...process.env, ...bench.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => {
    process.stdout.write(d);
    output += d.toString('utf8');
  });
  child.stderr.on('data', (d: Buffer) => {
    process.stderr.write(d);
    output += d.toString('utf8');
  });
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })));
}

const failures: string[] = [];
const times: string[] = [];
const started = performance.now();
for (const bench of benches.filter((b) => only.length === 0 || only.includes(b.name))) {
  if (!quick && bench.script.endsWith('.cjs')) {
    console.log(`\n=== ${bench.name}: run by hand (see bench/README.md)`);
    continue;
  }
  const args = quick ? bench.quickArgs : bench.args;
  console.log(`\n=== ${bench.name} ${args.map((a) => path.relative(repo, a) || a).join(' ')}`);
  const start = performance.now();
  const { status, output } = await run(bench, args);
  const seconds = (performance.now() - start) / 1000;
  times.push(`${bench.name} ${seconds.toFixed(1)} s`);
  const missing = bench.expect.filter((pattern) => !pattern.test(output));
  if (status !== 0) failures.push(`${bench.name} exited with ${status}`);
  else if (missing.length > 0) failures.push(`${bench.name} printed no ${missing.map(String).join(', ')}`);
  else if (/\bNaN\b/.test(output)) failures.push(`${bench.name} printed NaN`);
}
console.log(`\nBench times: ${times.join(', ')}; total ${((performance.now() - started) / 1000).toFixed(0)} s`);
if (failures.length > 0) {
  console.log(`FAILED: ${failures.join('; ')}`);
  process.exitCode = 1;
}
