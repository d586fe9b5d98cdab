/**
 * Whole-process timings of the build graph on N synthetic sources, next to two baselines measured in
 * the same run: an equivalent build.ninja (same targets, cheap shell rules; skipped when `ninja` is not
 * installed) and the floor, a bare Node process that reads Episteme's state folder and stats every
 * input and output.
 *
 * Everything about Episteme is read through its public outputs: `build --json` (action counts),
 * `build --trace` (per-target times) and `graph --format json` (the targets, for the floor's path
 * list). The state folder's files are only read as bytes, never parsed, so a change of the state
 * format cannot break this bench.
 *
 *   npm run build && node dist/bench/build-graph.js [--sizes 1000,10000] [--runs 5] [--cli OTHER/bin/episteme.cjs --work NAME]
 *
 * Reports medians, ratios against the baselines, the action counts (touch-all must be 0 for
 * Episteme; ninja reruns everything), and for a one-source edit how the time splits between graph
 * overhead, the source's own chain and the index rebuild (from `--trace`).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { editSplit, type TracedTarget } from './trace-split.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** --cli PATH: another build's bin/episteme.cjs (e.g. the parent commit's), measured the same way; --work names its folder. */
const CLI = path.resolve(argument('--cli', path.join(REPO, 'bin', 'episteme.cjs')));
const WORK = path.join(REPO, 'bench', '.work', argument('--work', ''));

const sizes = argument('--sizes', '1000,10000').split(',').map(Number);
const runs = Number(argument('--runs', '5'));

function sourceHtml(i: number, edit = 0): string {
  return `<!DOCTYPE html><html><head><title>Source ${i}</title></head><body>
<h1>Source ${i}</h1>
<p>Synthetic source ${i} talks about topic${i % 97} and theme${i % 13}; revision ${edit}.</p>
<h2 id="part-a">Part A</h2>
<p>The first part of source ${i} says that a server MUST answer and a client SHOULD retry.</p>
<h2 id="part-b">Part B</h2>
<ul><li>Item one of ${i}</li><li>Item two of ${i}</li></ul>
</body></html>
`;
}

function generate(n: number): string {
  const dir = path.join(WORK, `graph-${n}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  const map = [];
  for (let i = 0; i < n; i += 1) {
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i));
    map.push({ sourceUrl: `https://bench.example/s${i}`, localPath: `src/s${i}.html`, contentType: 'text/html' });
  }
  fs.writeFileSync(path.join(dir, 'map.json'), JSON.stringify(map));
  fs.writeFileSync(path.join(dir, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
  writeNinja(dir, n);
  return dir;
}

/** The same graph for ninja: snapshot (cp), extract (strip tags), chunk (fold), index (concatenate). */
function writeNinja(dir: string, n: number): void {
  const lines = [
    'rule snapshot',
    '  command = cp $in $out',
    'rule extract',
    "  command = sed -e 's/<[^>]*>//g' $in > $out",
    'rule chunk',
    '  command = fold -w 80 $in > $out',
    'rule index',
    '  command = xargs cat < $out.rsp > $out',
    '  rspfile = $out.rsp',
    '  rspfile_content = $in',
  ];
  const chunks: string[] = [];
  for (let i = 0; i < n; i += 1) {
    lines.push(`build nj/snap/s${i}.html: snapshot src/s${i}.html`);
    lines.push(`build nj/specs/s${i}.txt: extract nj/snap/s${i}.html`);
    lines.push(`build nj/chunks/s${i}.txt: chunk nj/specs/s${i}.txt`);
    chunks.push(`nj/chunks/s${i}.txt`);
  }
  lines.push(`build nj/index.txt: index ${chunks.join(' ')}`);
  fs.writeFileSync(path.join(dir, 'build.ninja'), lines.join('\n') + '\n');
}

const FLOOR_PATHS = 'floor-paths.json';
// The floor: a bare Node process that reads every file of Episteme's state folder (bytes only: the
// format is Episteme's business) and stats every input and output, listed in FLOOR_PATHS.
const FLOOR_SCRIPT = `
const fs = require('fs');
for (const entry of fs.readdirSync('.episteme', { withFileTypes: true }))
  if (entry.isFile()) fs.readFileSync('.episteme/' + entry.name);
for (const file of JSON.parse(fs.readFileSync('${FLOOR_PATHS}', 'utf8'))) fs.statSync(file, { bigint: true });
`;
// A stricter floor: only the stats, reading no state at all.
const STAT_FLOOR_SCRIPT = `
const fs = require('fs');
for (const file of JSON.parse(fs.readFileSync('${FLOOR_PATHS}', 'utf8'))) fs.statSync(file, { bigint: true });
`;

/**
 * Writes FLOOR_PATHS: every input (the config, the map, the sources) and every file the build wrote
 * under its output folders. Returns the number of targets `episteme graph --format json` lists.
 */
function writeFloorPaths(dir: string, n: number): number {
  const graph = JSON.parse(time(process.execPath, [CLI, 'graph', '--format', 'json'], dir).stdout) as {
    targets: { target: string }[];
  };
  if (graph.targets.length < 3 * n) throw new Error(`episteme graph listed ${graph.targets.length} targets for ${n} sources`);
  const outputs = ['snapshots', 'specs', 'chunks'].flatMap((folder) =>
    (fs.readdirSync(path.join(dir, folder), { recursive: true, withFileTypes: true }) as fs.Dirent[])
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name))),
  );
  const sources = Array.from({ length: n }, (_, i) => `src/s${i}.html`);
  fs.writeFileSync(path.join(dir, FLOOR_PATHS), JSON.stringify(['episteme.json', 'map.json', ...sources, ...outputs]));
  return graph.targets.length;
}

const HAVE_NINJA = spawnSync('ninja', ['--version'], { encoding: 'utf8' }).status === 0;
if (!HAVE_NINJA) console.log('ninja not found (Debian package ninja-build): skipping the ninja comparison');

/** Runs ninja when it is installed; NaN times otherwise (printed as "n/a"). */
function ninja(dir: string): Timed {
  return HAVE_NINJA ? time('ninja', ['-j', '2'], dir) : { ms: Number.NaN, stdout: '' };
}

interface Timed {
  ms: number;
  stdout: string;
}

function time(command: string, args: string[], cwd: string): Timed {
  const start = process.hrtime.bigint();
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', maxBuffer: 1 << 28 });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status}): ${result.stderr}`);
  return { ms, stdout: result.stdout };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function episteme(dir: string, extra: string[] = []): { ms: number; actions: number } {
  const result = time(process.execPath, [CLI, 'build', '--json', ...extra], dir);
  return { ms: result.ms, actions: (JSON.parse(result.stdout) as { data: { actions: number } }).data.actions };
}

function ninjaActions(stdout: string): number {
  const match = /\[(\d+)\/(\d+)\]/g;
  let last = 0;
  for (const m of stdout.matchAll(match)) last = Number(m[1]);
  return stdout.includes('no work to do') ? 0 : last;
}

function touchAll(dir: string, n: number): void {
  const when = new Date(Date.now() + 1000 * (1 + Math.random()));
  for (let i = 0; i < n; i += 1) fs.utimesSync(path.join(dir, 'src', `s${i}.html`), when, when);
}

function benchSize(n: number): Record<string, unknown> {
  const dir = generate(n);
  const fullRuns = n >= 10000 ? 1 : Math.min(3, runs);
  const full: number[] = [];
  const ninjaFull: number[] = [];
  for (let r = 0; r < fullRuns; r += 1) {
    fs.rmSync(path.join(dir, '.episteme'), { recursive: true, force: true });
    for (const out of ['snapshots', 'specs', 'chunks', 'nj', '.ninja_log', '.ninja_deps'])
      fs.rmSync(path.join(dir, out), { recursive: true, force: true });
    full.push(episteme(dir).ms);
    ninjaFull.push(ninja(dir).ms);
  }
  const targets = writeFloorPaths(dir, n);
  const noop: number[] = [];
  const ninjaNoop: number[] = [];
  const floor: number[] = [];
  const statFloor: number[] = [];
  for (let r = 0; r < runs; r += 1) {
    const result = episteme(dir);
    if (result.actions !== 0) throw new Error(`no-op build ran ${result.actions} actions`);
    noop.push(result.ms);
    ninjaNoop.push(ninja(dir).ms);
    floor.push(time(process.execPath, ['-e', FLOOR_SCRIPT], dir).ms);
    statFloor.push(time(process.execPath, ['-e', STAT_FLOOR_SCRIPT], dir).ms);
  }
  const touch: number[] = [];
  const ninjaTouch: number[] = [];
  let touchActions = -1;
  let ninjaTouchActions = -1;
  // ninja reruns everything on touch, which at 10k sources takes minutes: fewer rounds there.
  const touchRuns = n >= 10000 ? 1 : runs;
  for (let r = 0; r < touchRuns; r += 1) {
    touchAll(dir, n);
    const result = episteme(dir);
    touchActions = result.actions;
    touch.push(result.ms);
    const nj = ninja(dir);
    ninjaTouchActions = HAVE_NINJA ? ninjaActions(nj.stdout) : -1;
    ninjaTouch.push(nj.ms);
  }
  const edit: number[] = [];
  const split: { graph: number[]; chain: number[]; index: number[] } = { graph: [], chain: [], index: [] };
  const traceFile = path.join(dir, 'trace.json');
  for (let r = 0; r < runs; r += 1) {
    const i = (r * 7919) % n;
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i, r + 1));
    const result = episteme(dir, ['--trace', traceFile]);
    if (result.actions === 0) throw new Error(`the edit of src/s${i}.html ran no action`);
    edit.push(result.ms);
    const trace = JSON.parse(fs.readFileSync(traceFile, 'utf8')) as { targets: TracedTarget[] };
    // By the intervals targets ran in, not their sums (they overlap): trace-split.ts.
    const { chain, indexes, graph } = editSplit(result.ms, trace.targets);
    split.chain.push(chain);
    split.index.push(indexes);
    split.graph.push(graph);
  }
  const m = {
    full: median(full),
    ninjaFull: median(ninjaFull),
    noop: median(noop),
    ninjaNoop: median(ninjaNoop),
    floor: median(floor),
    statFloor: median(statFloor),
    touch: median(touch),
    ninjaTouch: median(ninjaTouch),
    edit: median(edit),
    editGraph: median(split.graph),
    editChain: median(split.chain),
    editIndex: median(split.index),
  };
  return {
    n,
    targets,
    ...m,
    touchActions,
    ninjaTouchActions,
    noopVsFloor: m.noop / m.floor,
    noopVsStatFloor: m.noop / m.statFloor,
    noopVsNinja: m.noop / m.ninjaNoop,
  };
}

const results = sizes.map(benchSize);
const f = (ms: unknown) => (Number.isNaN(Number(ms)) ? 'n/a' : `${Math.round(Number(ms))} ms`);
const x = (ratio: unknown) => (Number.isNaN(Number(ratio)) ? 'n/a' : `${Number(ratio).toFixed(2)}x`);
console.log(`Build graph benchmark (median of ${runs} runs; full builds: 3 runs at 1k, 1 at 10k; touch-all: 1 run at 10k)`);
for (const r of results) {
  console.log(`\nN = ${r.n} sources (${r.targets} targets)`);
  console.log(`  full build        episteme ${f(r.full)}   ninja ${f(r.ninjaFull)}`);
  console.log(
    `  no-op build       episteme ${f(r.noop)}   ninja ${f(r.ninjaNoop)}   ` +
      `node floor ${f(r.floor)} (state read + stats)   ${f(r.statFloor)} (stats only)`,
  );
  console.log(
    `                    no-op / floor = ${x(r.noopVsFloor)}, ` +
      `/ stricter floor = ${x(r.noopVsStatFloor)} (goal <= 1.5x at 1k)   ` +
      `no-op / ninja = ${x(r.noopVsNinja)} (goal <= 8x at 1k)`,
  );
  console.log(
    `  touch-all         episteme ${f(r.touch)} with ${r.touchActions} actions   ` +
      (HAVE_NINJA ? `ninja ${f(r.ninjaTouch)} with ${r.ninjaTouchActions} actions` : 'ninja n/a'),
  );
  console.log(
    `  one-source edit   episteme ${f(r.edit)} = graph overhead ${f(r.editGraph)} + ` +
      `source chain ${f(r.editChain)} + indexes ${f(r.editIndex)}`,
  );
}
fs.mkdirSync(WORK, { recursive: true });
fs.writeFileSync(path.join(WORK, 'build-graph-results.json'), JSON.stringify(results, null, 1) + '\n');
