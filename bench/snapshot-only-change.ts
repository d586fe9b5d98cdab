/**
 * What a new snapshot with the same extracted content costs (a reflowed paragraph: new bytes, same
 * text and offsets), against what a one-source content edit costs, in the same run on the same
 * workspace of N synthetic sources. Both leave the bytes of a clean build (test/graph/edit-sequences);
 * the snapshot-only change restamps the chunks' and the index part's provenance instead of chunking and
 * tokenising again.
 *
 *   npm run build && node dist/bench/snapshot-only-change.js [--sources 1000] [--runs 7]
 *
 * Whole-process `episteme build` timings (medians) and peak RSS; goal: snapshot-only / content edit
 * at most 1.0x at 1,000 sources.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'bin', 'episteme.cjs');
const RSS_PRELOAD = path.join(REPO, 'test', 'hostile', 'record-peak-rss.cjs');
const WORK = path.join(REPO, 'bench', '.work');

const sources = Number(argument('--sources', '1000'));
const runs = Number(argument('--runs', '7'));

function sourceHtml(i: number, revision: number, reflow: boolean): string {
  const gap = reflow ? '\n' : ' ';
  return `<!DOCTYPE html><html><head><title>Source ${i}</title></head><body>
<h1>Source ${i}</h1>
<p>Synthetic source ${i} talks about topic${i % 97} and theme${i % 13}; revision ${revision}.</p>
<h2 id="part-a">Part A</h2>
<p>The first part of source ${i} says that a server MUST answer${gap}and a client SHOULD retry.</p>
<h2 id="part-b">Part B</h2>
<ul><li>Item one of ${i}</li><li>Item two of ${i}</li></ul>
</body></html>
`;
}

interface Measured {
  ms: number;
  rssMb: number;
  statuses: Record<string, number>;
}

function build(dir: string): Measured {
  const rssFile = path.join(os.tmpdir(), `episteme-bench-rss-${process.pid}`);
  const start = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--require', RSS_PRELOAD, CLI, 'build', '--json'], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, EPISTEME_TEST_RSS_FILE: rssFile },
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`build failed (${result.status}): ${result.stdout}${result.stderr}`);
  const statuses: Record<string, number> = {};
  for (const target of (JSON.parse(result.stdout) as { data: { targets: { status: string }[] } }).data.targets)
    statuses[target.status] = (statuses[target.status] ?? 0) + 1;
  const rssMb = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
  return { ms, rssMb, statuses };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const dir = path.join(WORK, `snapshot-only-${sources}`);
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
const map = [];
const revision = new Array<number>(sources).fill(0);
const reflowed = new Array<boolean>(sources).fill(false);
for (let i = 0; i < sources; i += 1) {
  fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i, 0, false));
  map.push({ sourceUrl: `https://bench.example/s${i}`, localPath: `src/s${i}.html`, contentType: 'text/html' });
}
fs.writeFileSync(path.join(dir, 'map.json'), JSON.stringify(map));
fs.writeFileSync(path.join(dir, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
build(dir);

const edit: Measured[] = [];
const snapshotOnly: Measured[] = [];
// Alternate the two kinds on different sources, so machine drift shifts both alike.
for (let r = 0; r < runs; r += 1) {
  const a = (r * 7919) % sources;
  revision[a]! += 1;
  fs.writeFileSync(path.join(dir, 'src', `s${a}.html`), sourceHtml(a, revision[a]!, reflowed[a]!));
  edit.push(build(dir));
  const b = (r * 104729 + 1) % sources;
  reflowed[b] = !reflowed[b];
  fs.writeFileSync(path.join(dir, 'src', `s${b}.html`), sourceHtml(b, revision[b]!, reflowed[b]!));
  snapshotOnly.push(build(dir));
}
const summary = (list: Measured[]) => ({
  ms: median(list.map((m) => m.ms)),
  rssMb: median(list.map((m) => m.rssMb)),
  statuses: list[0]!.statuses,
});
const result = { sources, runs, contentEdit: summary(edit), snapshotOnly: summary(snapshotOnly) };
const ratio = result.snapshotOnly.ms / result.contentEdit.ms;
console.log(`Snapshot-only change vs one-source content edit, ${sources} sources (median of ${runs} builds each)`);
/** One measured change: median time, peak RSS and the statuses of its targets. */
const measured = (m: typeof result.contentEdit) =>
  `${Math.round(m.ms)} ms, peak RSS ${Math.round(m.rssMb)} MiB, targets ${JSON.stringify(m.statuses)}`;
console.log(`  content edit     ${measured(result.contentEdit)}`);
console.log(`  snapshot only    ${measured(result.snapshotOnly)}`);
console.log(`  snapshot-only / content edit = ${ratio.toFixed(2)}x (goal <= 1.0x)`);
fs.mkdirSync(WORK, { recursive: true });
fs.writeFileSync(path.join(WORK, 'snapshot-only-change-results.json'), JSON.stringify({ ...result, ratio }, null, 1) + '\n');
