/**
 * Save-to-query latency of `episteme watch` on N synthetic sources, against the edited source's own
 * chain measured in the same run.
 *
 *   npm run build && node dist/bench/watch-edit.js [--sizes 1000,10000] [--saves 20] [--quick] [--reuse]
 *   (--quick, or EPISTEME_BENCH_QUICK=1: 1,000 sources only)
 *
 * For each size: one `episteme watch --json` child builds the workspace, then each save rewrites one
 * source with a new word (a different source each time) and the clock runs from just before the write
 * to the arrival of the cycle event that says the build committed; a cold `episteme query` for the new
 * word then confirms the answer changed (its own time is reported apart: it is the same with or
 * without watch). The baseline: the same kind of edit made by one-shot `episteme build --trace`, whose
 * trace gives the source's chain (its snapshot, extract and chunk targets) and the index update (the
 * four aggregates). Goal: median save-to-commit at most chain + 150 ms at 1,000 sources and chain +
 * 400 ms at 10,000.
 *
 * Each save's time is split from the cycle event: the file-event delay (save -> first fs.watch event,
 * plus the event's trip through the child's stdout), the settle time (the debounce window, then hashing
 * the saved input), and the build: the edited source's chain and the index update (from the targets'
 * own times, `ranMs`) and the rest, the graph overhead (workspace, state, pass over the targets,
 * commit, garbage).
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'bin', 'episteme.cjs');
const WORK = path.join(REPO, 'bench', '.work');

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(name);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1]! : fallback;
}

const quick = process.argv.includes('--quick') || process.env.EPISTEME_BENCH_QUICK === '1';
const sizes = quick ? [1000] : argument('--sizes', '1000,10000').split(',').map(Number);
const saves = Math.max(20, Number(argument('--saves', '20')));
const ONE_SHOT_EDITS = 5;
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

/** One JSON line of `episteme watch --json`, as the bench reads it (fields by name, unchecked). */
// biome-ignore lint/suspicious/noExplicitAny: a bench reads whatever event fields it reports
type WatchEvent = Record<string, any>;

/** A watch child whose JSON lines arrive as events, each stamped on arrival. */
class Watch {
  private readonly lines: { at: number; line: WatchEvent }[] = [];
  private readonly waiters: (() => void)[] = [];
  private partial = '';
  private readonly child;

  constructor(dir: string) {
    this.child = spawn(process.execPath, [CLI, 'watch', '--json'], { cwd: dir, stdio: ['ignore', 'pipe', 'inherit'] });
    this.child.stdout.on('data', (chunk: Buffer) => {
      const at = performance.now();
      this.partial += chunk.toString('utf8');
      for (let nl = this.partial.indexOf('\n'); nl >= 0; nl = this.partial.indexOf('\n')) {
        const text = this.partial.slice(0, nl);
        this.partial = this.partial.slice(nl + 1);
        if (text.trim()) this.lines.push({ at, line: JSON.parse(text) as WatchEvent });
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
  }

  async nextCycle(from: number): Promise<{ at: number; line: WatchEvent }> {
    for (;;) {
      const found = this.lines.slice(from).find((l) => l.line.event === 'cycle');
      if (found) return found;
      if (this.child.exitCode !== null) throw new Error('watch exited');
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  get count(): number {
    return this.lines.length;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      this.child.on('exit', () => resolve());
      this.child.kill('SIGTERM');
    });
  }
}

async function measure(n: number): Promise<void> {
  const dir = generate(n);
  const watch = new Watch(dir);
  const first = await watch.nextCycle(0);
  if (!first.line.ok) throw new Error(`first build failed: ${JSON.stringify(first.line.error)}`);
  console.log(`${n} sources: first build ${Math.round(first.line.buildMs)} ms`);
  const toCommit: number[] = [];
  const builds: number[] = [];
  const eventDelays: number[] = [];
  const settles: number[] = [];
  const watchChains: number[] = [];
  const watchIndexes: number[] = [];
  const overheads: number[] = [];
  const phases = new Map<string, number[]>();
  const queries: number[] = [];
  for (let k = 0; k < saves; k += 1) {
    const i = Math.floor(((k + 0.5) * n) / saves);
    const word = `watchword${k}x${n}r${RUN}`;
    const mark = watch.count;
    const start = performance.now();
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i, word));
    const cycle = await watch.nextCycle(mark);
    toCommit.push(cycle.at - start);
    builds.push(cycle.line.buildMs as number);
    eventDelays.push(cycle.at - start - (cycle.line.queryReadyMs as number));
    settles.push(cycle.line.settleMs as number);
    const ran = Object.entries(cycle.line.ranMs as Record<string, number>);
    const chainMs = ran.filter(([t]) => !t.endsWith('index.json')).reduce((a, [, ms]) => a + ms, 0);
    const indexMs = ran.filter(([t]) => t.endsWith('index.json')).reduce((a, [, ms]) => a + ms, 0);
    watchChains.push(chainMs);
    watchIndexes.push(indexMs);
    overheads.push((cycle.line.buildMs as number) - chainMs - indexMs);
    for (const [name, ms] of Object.entries(cycle.line.phasesMs as Record<string, number>))
      phases.set(name, [...(phases.get(name) ?? []), ms]);
    if (!cycle.line.ok) throw new Error(`cycle failed: ${JSON.stringify(cycle.line.error)}`);
    const q = query(dir, word);
    if (q.hits !== 1) throw new Error(`the query after save ${k} did not see ${word}`);
    queries.push(q.ms);
  }
  await watch.stop();
  const commit = median(toCommit);
  console.log(
    [
      `  save -> commit (a query from then on sees it): median ${commit.toFixed(0)} ms over ${saves} saves ` +
        `(min ${Math.min(...toCommit).toFixed(0)}, max ${Math.max(...toCommit).toFixed(0)}); ` +
        `of which the build ${median(builds).toFixed(0)} ms`,
      `  split (median ms): file event + report ${median(eventDelays).toFixed(0)}, ` +
        `settle (debounce + hash) ${median(settles).toFixed(0)}, ` +
        `build ${median(builds).toFixed(0)} = graph overhead ${median(overheads).toFixed(0)} ` +
        `+ source chain ${median(watchChains).toFixed(0)} ` +
        `+ index update ${median(watchIndexes).toFixed(0)}`,
      `  watch build phases (median ms): ${[...phases].map(([name, ms]) => `${name} ${median(ms).toFixed(0)}`).join(', ')}`,
      `  confirming cold query: median ${median(queries).toFixed(0)} ms (save -> answered: ${(commit + median(queries)).toFixed(0)} ms)`,
    ].join('\n'),
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
    indexes.push(sum((t) => t.endsWith('index.json')));
  }
  const chain = median(chains);
  const goal = GOAL_MS[n];
  const goalText = goal === undefined ? '' : ` (goal <= ${goal} ms: ${commit - chain <= goal ? 'met' : 'NOT met'})`;
  console.log(
    [
      `  baseline, one-shot edit (median of ${ONE_SHOT_EDITS}): whole process ${median(oneShot).toFixed(0)} ms; ` +
        `the source's chain ${chain.toFixed(0)} ms, index update ${median(indexes).toFixed(0)} ms`,
      `  watch overhead over the chain: ${(commit - chain).toFixed(0)} ms${goalText}; ` +
        `ratio save->commit / one-shot edit ${(commit / median(oneShot)).toFixed(2)}`,
      `  of which the index update ${median(watchIndexes).toFixed(0)} ms (src/index/); ` +
        `all the rest over the watch's own chain: ${(commit - median(watchChains) - median(watchIndexes)).toFixed(0)} ms`,
    ].join('\n'),
  );
}

fs.mkdirSync(WORK, { recursive: true });
for (const n of sizes) await measure(n);
