/**
 * One-shot edit split: whole-process `episteme build` after one source changes, split into graph
 * overhead (the wall time in which no target ran: everything but the edited source's chain and the
 * index updates), the chain (the time in which a target of the chain ran: snapshot, extract, chunk of
 * that source) and the indexes (the time in which only index targets ran: stage indexes and search
 * index), which add up to the wall time; each as a ratio to a no-op build of the same workspace
 * measured in the same run (no-op and edit alternate).
 *
 *   npm run build && node dist/bench/one-shot-edit.js [--sizes 1000,10000] [--runs 7] [--quick] [--cli OTHER]
 *
 * --cli OTHER/bin/episteme.cjs: also measures another build of Episteme (e.g. the parent commit's) on
 * its own copy of the workspace, interleaved with this one, to report before/after under one load.
 * --quick: 1,000 sources and 3 runs. Goal (issue 12): at 10,000 sources the edit's graph overhead at
 * most 2x the no-op, and an index update that does not grow with the corpus. The split comes from
 * `--trace` (per-target milliseconds); the no-op runs without it (a trace turns off the no-op proof).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { coveredMs, editSplit, indexName, isIndexTarget, type TracedTarget } from './trace-split.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'bin', 'episteme.cjs');
const OTHER_CLI = process.argv.includes('--cli') ? path.resolve(argument('--cli', '')) : null;
const WORK = path.join(REPO, 'bench', '.work');

const quick = process.argv.includes('--quick');
const sizes = argument('--sizes', quick ? '1000' : '1000,10000')
  .split(',')
  .map(Number);
const runs = Number(argument('--runs', quick ? '3' : '7'));
const profileDir = process.argv.includes('--cpu-prof') ? path.join(WORK, 'profiles') : null;

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

/** A workspace of n manual-ingest sources, built once by `cli`. */
function workspace(n: number, cli: string, name: string): string {
  const dir = path.join(WORK, `one-shot-${name}-${n}`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  const map = [];
  for (let i = 0; i < n; i += 1) {
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i));
    map.push({ sourceUrl: `https://bench.example/s${i}`, localPath: `src/s${i}.html`, contentType: 'text/html' });
  }
  fs.writeFileSync(path.join(dir, 'map.json'), JSON.stringify(map));
  fs.writeFileSync(path.join(dir, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
  build(cli, dir, []);
  return dir;
}

function build(cli: string, dir: string, extra: string[], label?: string): { ms: number; actions: number } {
  const nodeArgs = profileDir && label ? ['--cpu-prof', '--cpu-prof-dir', profileDir, '--cpu-prof-name', `${label}.cpuprofile`] : [];
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, [...nodeArgs, cli, 'build', '--json', ...extra], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`episteme build failed (${result.status}): ${result.stderr}`);
  return { ms, actions: (JSON.parse(result.stdout) as { data: { actions: number } }).data.actions };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const isIndex = isIndexTarget;

type Sample = {
  noop: number[];
  edit: number[];
  graph: number[];
  chain: number[];
  indexes: number[];
  indexSum: number[];
  searchIndex: number[];
};

/** One no-op, then one edit of a source (a different one each round), on the workspace `dir`. */
function round(cli: string, name: string, dir: string, n: number, r: number, split: Sample): void {
  const traceFile = path.join(dir, 'trace.json');
  const quiet = build(cli, dir, [], r === 0 ? `noop-${name}-${n}` : undefined);
  if (quiet.actions !== 0) throw new Error(`the no-op build ran ${quiet.actions} actions`);
  split.noop.push(quiet.ms);
  const i = (r * 7919 + 13) % n;
  fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i, r + 1));
  {
    const edited = build(cli, dir, ['--trace', traceFile], r === 0 ? `edit-${name}-${n}` : undefined);
    const trace = JSON.parse(fs.readFileSync(traceFile, 'utf8')) as { targets: TracedTarget[] };
    // Split by the intervals in which targets ran (trace-split.ts), not by summing their times: the
    // snapshot and document indexes run on the main thread while the chain's extract and chunk run in
    // a worker, so a sum counted the overlap twice.
    const { chain, indexes, graph } = editSplit(edited.ms, trace.targets);
    split.edit.push(edited.ms);
    split.chain.push(chain);
    split.indexes.push(indexes);
    split.indexSum.push(trace.targets.filter((t) => isIndex(t.target)).reduce((a, t) => a + t.ms, 0));
    split.searchIndex.push(coveredMs(trace.targets.filter((t) => indexName(t.target).endsWith('/search-index.json'))));
    split.graph.push(graph);
  }
}

function benchSize(n: number): Record<string, number | string>[] {
  const clis: [string, string][] = [['this', CLI], ...(OTHER_CLI ? [['other', OTHER_CLI] as [string, string]] : [])];
  const dirs = clis.map(([name, cli]) => workspace(n, cli, name));
  const samples: Sample[] = clis.map(() => ({ noop: [], edit: [], graph: [], chain: [], indexes: [], indexSum: [], searchIndex: [] }));
  for (let r = 0; r < runs; r += 1) {
    clis.forEach(([name, cli], k) => {
      round(cli, name, dirs[k]!, n, r, samples[k]!);
    });
  }
  return clis.map(([name, cli], k) => {
    const s = samples[k]!;
    return {
      n,
      cli: name === 'this' ? 'this build' : cli,
      noop: median(s.noop),
      edit: median(s.edit),
      graph: median(s.graph),
      chain: median(s.chain),
      indexes: median(s.indexes),
      indexSum: median(s.indexSum),
      searchIndex: median(s.searchIndex),
    };
  });
}

const results = sizes.flatMap(benchSize) as (Record<string, number> & { cli: string })[];
const ms = (value: number): string => `${Math.round(value)} ms`;
console.log(`One-shot edit vs no-op (whole-process episteme build, median of ${runs} alternating runs)`);
for (const r of results) {
  const x = (value: number): string => `${(value / r.noop!).toFixed(2)}x`;
  console.log(`\nN = ${r.n} sources (${r.cli})`);
  console.log(`  no-op build                ${ms(r.noop!)}   (baseline)`);
  console.log(`  one-source edit            ${ms(r.edit!)}   ${x(r.edit!)}`);
  console.log(`    graph overhead           ${ms(r.graph!)}   ${x(r.graph!)}${r.n! >= 10000 ? '   (goal <= 2x)' : ''}`);
  console.log(`    source chain             ${ms(r.chain!)}   ${x(r.chain!)}`);
  console.log(
    `    indexes beside no chain  ${ms(r.indexes!)}   ${x(r.indexes!)}   (search index ${ms(r.searchIndex!)}; ` +
      `index targets summed ${ms(r.indexSum!)})`,
  );
}
fs.mkdirSync(WORK, { recursive: true });
fs.writeFileSync(path.join(WORK, 'one-shot-edit-results.json'), JSON.stringify(results, null, 1) + '\n');
if (profileDir) console.log(`\nCPU profiles of the first no-op and edit at each size: ${profileDir}`);
