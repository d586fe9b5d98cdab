/**
 * Save-to-query latency of `episteme watch` on N synthetic sources, against the edited source's own
 * chain timed in the same cycle.
 *
 *   npm run build && node dist/bench/watch-edit.js [--sizes 1000,10000] [--saves 20] [--quick] [--reuse]
 *     [--cpu-prof-dir DIR] [--cli PATH/bin/episteme.cjs --work SUBFOLDER]
 *   (--quick, or EPISTEME_BENCH_QUICK=1: 1,000 sources only; --reuse keeps the workspaces of an earlier
 *   run; --cpu-prof-dir profiles the watch process, e.g. for `node --cpu-prof` analysis)
 *
 * For each size: one `episteme watch --json` child builds the workspace, then each save rewrites one
 * source with a new word (a different source each time) and the clock runs from just before the write
 * to the arrival of the cycle event, which comes after the build committed (a query from then on sees
 * the change); a cold `episteme query` for the new word then confirms the answer changed (its own time
 * is reported apart: it is the same with or without watch). Goal: median save-to-query-ready (the
 * search index committed: a query from then on answers with the change) at most the edited source's
 * own chain + 150 ms at 1,000 sources and + 400 ms at 10,000, the chain being that source's snapshot,
 * extract and chunk targets in the same cycle (`ranMs`: start to commit of each); save-to-commit (the
 * cycle event, after the state commit and garbage collection) is checked against it too. The
 * query-ready moment is the cycle event's arrival less what the child reports it did after the
 * search index committed.
 *
 * Each save's time is split from the cycle event along the way to the query-ready moment (the commit
 * of the search index, `queryReadyMs`): the file-event delay (save -> first fs.watch event, plus the
 * event's trip through the child's stdout), the settle time (the debounce window, then hashing the
 * saved input), the phases before the schedule (workspace, lock, state), the chain, the chunk and
 * search index, and what is left, the graph overhead; then what follows the query-ready moment (state
 * commit, garbage). The snapshot and document indexes run beside the chain and are reported apart.
 * The one-shot baseline (`episteme build --trace` of the same kind of edit) is printed for reference:
 * its chain includes the start-up of a fresh extraction worker, which watch pays once.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WatchChild } from './watch-child.js';
import { indexName } from './trace-split.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** --cli PATH: another build's bin/episteme.cjs (e.g. the base commit's), to compare in the same conditions. */
const CLI = path.resolve(argument('--cli', path.join(REPO, 'bin', 'episteme.cjs')));
const WORK = path.join(REPO, 'bench', '.work', argument('--work', ''));

const quick = process.argv.includes('--quick') || process.env.EPISTEME_BENCH_QUICK === '1';
// --quick (the CI smoke run): 1,000 sources unless --sizes says otherwise, 3 saves and 1 one-shot edit
// unless --saves says otherwise; a full run takes at least 20 saves (the median's sample).
const sizes = argument('--sizes', quick ? '1000' : '1000,10000')
  .split(',')
  .map(Number);
const saves = quick ? Number(argument('--saves', '3')) : Math.max(20, Number(argument('--saves', '20')));
const ONE_SHOT_EDITS = quick ? 1 : 5;
const GOAL_MS: Record<number, number> = { 1000: 150, 10000: 400 };

function sourceHtml(i: number, word = ''): string {
  return `<!DOCTYPE html><html><head><title>Source ${i}</title></head><body>
<h1>Source ${i}</h1>
<p>Synthetic source ${i} talks about topic${i % 97} and theme${i % 13}. ${word}</p>
<h2 id="part-a">Part A</h2>
<p>The first part of source ${i} says that a server MUST answer and a client SHOULD retry.</p>
<h2 id="part-b">Part B</h2>
<ul><li>Item one of ${i}</li><li>Item two of ${i}</li></ul>
</body></html>
`;
}

/** --reuse keeps a workspace from an earlier run (its first build is then nearly a no-op). */
const reuse = process.argv.includes('--reuse');
/** Words unique to this run, so a save never repeats the bytes an earlier run left (that runs nothing). */
const RUN = Date.now().toString(36);

function generate(n: number): string {
  const dir = path.join(WORK, `watch-${n}`);
  if (reuse && fs.existsSync(path.join(dir, 'map.json'))) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  const map = [];
  for (let i = 0; i < n; i += 1) {
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i));
    map.push({ sourceUrl: `https://bench.example/s${i}`, localPath: `src/s${i}.html`, contentType: 'text/html' });
  }
  fs.writeFileSync(path.join(dir, 'map.json'), JSON.stringify(map));
  fs.writeFileSync(path.join(dir, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
  return dir;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function query(dir: string, word: string): { ms: number; hits: number } {
  const start = performance.now();
  const result = spawnSync(process.execPath, [CLI, 'query', '--index', 'chunks/search-index.json', '--term', word, '--json'], {
    cwd: dir,
    encoding: 'utf8',
  });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`query failed: ${result.stdout}${result.stderr}`);
  return { ms, hits: (JSON.parse(result.stdout) as { data: { hits: unknown[] } }).data.hits.length };
}

async function measure(n: number): Promise<void> {
  const dir = generate(n);
  const profile = argument('--cpu-prof-dir', '');
  const watch = new WatchChild(CLI, dir, [], profile === '' ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`]);
  const first = await watch.nextCycle(0);
  if (!first.line.ok) throw new Error(`first build failed: ${JSON.stringify(first.line.error)}`);
  console.log(`${n} sources: first build ${Math.round(first.line.buildMs)} ms`);
  const split = new Map<string, number[]>();
  const note = (name: string, ms: number): void => void split.set(name, [...(split.get(name) ?? []), ms]);
  const phases = new Map<string, number[]>();
  const queries: number[] = [];
  for (let k = 0; k < saves; k += 1) {
    const i = Math.floor(((k + 0.5) * n) / saves);
    const word = `watchword${k}x${n}r${RUN}`;
    const mark = watch.count;
    const start = performance.now();
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i, word));
    const cycle = await watch.nextSaveCycle(mark);
    if (!cycle.line.ok) throw new Error(`cycle failed: ${JSON.stringify(cycle.line.error)}`);
    const line = cycle.line;
    const buildMs = line.buildMs as number;
    const settleMs = line.settleMs as number;
    // From the build's start to the commit of the search index (from then on a query sees the save).
    const readyMs = (line.queryReadyMs as number) - settleMs;
    const ran = line.ranMs as Record<string, number>;
    const phase = line.phasesMs as Record<string, number>;
    const ms = (pred: (t: string) => boolean): number =>
      Object.entries(ran)
        .filter(([t]) => pred(t))
        .reduce((a, [, v]) => a + v, 0);
    // The edited source's own chain (its snapshot, extract and chunk targets, which run one after another).
    const chain = ms((t) => t.endsWith(`-s${i}.json`));
    // On the way to a query: the chunk index, then the search index (the other two stage indexes run beside the chain).
    const queryIndexes = ms((t) => indexName(t).endsWith('chunks/index.json') || indexName(t).endsWith('search-index.json'));
    const before = ['workspace', 'load-stages', 'graph', 'lock', 'state'].reduce((a, name) => a + (phase[name] ?? 0), 0);
    note('save -> commit', cycle.at - start);
    // The file event's delay after the save, plus the cycle event's trip through the child's stdout.
    const eventMs = cycle.at - start - settleMs - buildMs;
    note('save -> query-ready', eventMs + settleMs + readyMs);
    note('file event + report', eventMs);
    note('settle', settleMs);
    note('build', buildMs);
    note('before the schedule', before);
    note('chain', chain);
    note('chunk + search index', queryIndexes);
    note('graph overhead', readyMs - before - chain - queryIndexes);
    note(
      'other stage indexes',
      ms((t) => indexName(t).endsWith('snapshots/index.json') || indexName(t).endsWith('specs/index.json')),
    );
    note('after ready (commit, garbage)', buildMs - readyMs);
    for (const [name, value] of Object.entries(phase)) phases.set(name, [...(phases.get(name) ?? []), value]);
    const q = query(dir, word);
    if (q.hits !== 1) throw new Error(`the query after save ${k} did not see ${word}`);
    queries.push(q.ms);
  }
  await watch.stop();
  const m = (name: string): number => median(split.get(name)!);
  const commit = m('save -> commit');
  const all = split.get('save -> commit')!;
  console.log(
    [
      `  save -> commit (cycle event; a query from then on sees it): median ${commit.toFixed(0)} ms over ${saves} saves ` +
        `(min ${Math.min(...all).toFixed(0)}, max ${Math.max(...all).toFixed(0)}); ` +
        `save -> query-ready (search index committed) ${m('save -> query-ready').toFixed(0)} ms`,
      `  split (median ms): file event + report ${m('file event + report').toFixed(0)}, ` +
        `settle (debounce + hash) ${m('settle').toFixed(0)}, ` +
        `before the schedule (workspace, lock, state) ${m('before the schedule').toFixed(0)}, ` +
        `graph overhead ${m('graph overhead').toFixed(0)}, ` +
        `source chain ${m('chain').toFixed(0)}, chunk + search index ${m('chunk + search index').toFixed(0)}, ` +
        `after ready (commit, garbage) ${m('after ready (commit, garbage)').toFixed(0)}; ` +
        `beside the chain: snapshot + document index ${m('other stage indexes').toFixed(0)}`,
      `  watch build phases (median ms): ${[...phases].map(([name, v]) => `${name} ${median(v).toFixed(0)}`).join(', ')}`,
      `  confirming cold query: median ${median(queries).toFixed(0)} ms (save -> answered: ${(commit + median(queries)).toFixed(0)} ms)`,
    ].join('\n'),
  );
  const goal = GOAL_MS[n];
  const verdict = (over: number): string => (goal === undefined ? '' : ` (goal <= ${goal} ms: ${over <= goal ? 'met' : 'NOT met'})`);
  const overReady = m('save -> query-ready') - m('chain');
  console.log(
    `  over the edited source's own chain (${m('chain').toFixed(0)} ms, timed in the same cycle): ` +
      `save -> query-ready ${overReady.toFixed(0)} ms${verdict(overReady)}; ` +
      `save -> commit (state and garbage included) ${(commit - m('chain')).toFixed(0)} ms${verdict(commit - m('chain'))}`,
  );

  // The baseline: the same kind of edit through one-shot builds, split by --trace.
  const chains: number[] = [];
  const indexes: number[] = [];
  const oneShot: number[] = [];
  const traceFile = path.join(dir, 'trace.json');
  for (let k = 0; k < ONE_SHOT_EDITS; k += 1) {
    const i = Math.floor(((k + 0.25) * n) / ONE_SHOT_EDITS);
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i, `oneshotword${k}r${RUN}`));
    const start = performance.now();
    const result = spawnSync(process.execPath, [CLI, 'build', '--trace', traceFile], { cwd: dir, encoding: 'utf8', maxBuffer: 1 << 28 });
    oneShot.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`one-shot build failed (${result.status}): ${result.stderr.slice(0, 2000)}`);
    const trace = JSON.parse(fs.readFileSync(traceFile, 'utf8')) as { targets: { target: string; ms: number }[] };
    const sum = (pred: (t: string) => boolean) => trace.targets.filter((t) => pred(t.target)).reduce((a, t) => a + t.ms, 0);
    chains.push(sum((t) => t.endsWith(`/bench-example-s${i}.json`)));
    indexes.push(sum((t) => indexName(t).endsWith('index.json')));
  }
  console.log(
    `  baseline, one-shot edit (median of ${ONE_SHOT_EDITS}): whole process ${median(oneShot).toFixed(0)} ms; ` +
      `the source's chain ${median(chains).toFixed(0)} ms (worker start-up included), index update ${median(indexes).toFixed(0)} ms; ` +
      `ratio save->commit / one-shot edit ${(commit / median(oneShot)).toFixed(2)}`,
  );
}

fs.mkdirSync(WORK, { recursive: true });
for (const n of sizes) await measure(n);
