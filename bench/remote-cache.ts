/**
 * The remote cache on N synthetic sources (default 1,000), whole-process CLI timings, with the
 * baseline measured in the same run:
 *   - full local build of a fresh checkout, no cache (the baseline);
 *   - the same build uploading to the cache (what a CI writer pays);
 *   - a fresh checkout in another folder building from the warm cache (goal: at most 0.2x the baseline);
 *   - the floor of any build of a fresh checkout: capturing the snapshots alone (start-up, workspace,
 *     a file read per source), which a cache cannot save;
 *   - per-hit overhead: (cache build - floor) / hits, and the median wall time of one restored
 *     target (GET ac + GET cas + verify + parse, from --trace, concurrent).
 * The cache is nginx with WebDAV on 127.0.0.1 when it is installed, otherwise a file:// folder.
 *
 *   npm run build && node dist/bench/remote-cache.js [--sources 1000] [--runs 3] [--sections spec|N]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { NGINX_SKIP, startNginx, type NginxCache } from '../test/helpers/nginx.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.join(REPO, 'bin', 'episteme.cjs');
const WORK = path.join(REPO, 'bench', '.work', 'remote-cache');

const sources = Number(argument('--sources', '1000'));
const runs = Number(argument('--runs', '3'));
/**
 * Sections per source. `spec` (the default): from 8 to 400, spread deterministically over the sources so
 * sizes run from 4 KB to 223 KB, median 59 KB (75 MB for 1,000 sources), the order of the spec documents
 * of ../shared/corpus/dev (W3C, WHATWG, RFC: 34 KB to 1.9 MB, median 120 KB). A number gives every source that many sections
 * (`--sections 2`: 600-byte sources, the worst case for a cache, whose per-hit cost then dominates).
 */
const sectionsArgument = argument('--sections', 'spec');

function sectionCount(i: number): number {
  if (sectionsArgument !== 'spec') return Number(sectionsArgument);
  // A skewed spread (many mid-sized documents, a few large ones), the same for every run.
  const u = ((i * 2654435761) % 4294967296) / 4294967296;
  return Math.round(8 + 392 * u * u);
}

function sourceHtml(i: number): string {
  const parts = Array.from(
    { length: sectionCount(i) },
    (_, s) =>
      `<h2 id="part-${s}">${s + 1}. Part ${s} of source ${i}</h2>
<p>Part ${s} of source ${i} says that a server MUST answer request ${s} with the representation it selected, ` +
      `and a client SHOULD retry after topic${(i + s) % 97} when the answer is a temporary failure.</p>
<p>When the request carries conditions, the server evaluates them in the order of section ${s % 7}, ` +
      `and a recipient MAY ignore theme${(i * s) % 13} if it does not understand it; ` +
      `see <a href="#part-${(s + 1) % 3}">part ${(s + 1) % 3}</a>.</p>
<ul><li>Item one of ${i}.${s}: the field value is a list of tokens.</li>` +
      `<li>Item two of ${i}.${s} about theme${(i * s) % 13} and its parameters.</li></ul>`,
  );
  return `<!DOCTYPE html><html><head><title>Source ${i}</title></head><body>
<h1>Source ${i}</h1>
<p>Synthetic source ${i} talks about topic${i % 97} and theme${i % 13}.</p>
${parts.join('\n')}
</body></html>
`;
}

/** A fresh checkout: sources, map and config only, in its own folder. */
function checkout(name: string): string {
  const dir = path.join(WORK, name);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
  const map = [];
  for (let i = 0; i < sources; i += 1) {
    fs.writeFileSync(path.join(dir, 'src', `s${i}.html`), sourceHtml(i));
    map.push({ sourceUrl: `https://bench.example/s${i}`, localPath: `src/s${i}.html`, contentType: 'text/html' });
  }
  fs.writeFileSync(path.join(dir, 'map.json'), JSON.stringify(map));
  fs.writeFileSync(path.join(dir, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
  return dir;
}

/** Preloaded into each CLI process: writes its CPU time (all threads, user + system) at exit. */
const CPU_PRELOAD = path.join(WORK, 'cpu-usage.cjs');
const CPU_FILE = path.join(WORK, 'cpu-usage.json');

interface Timed {
  ms: number;
  cpuMs: number;
  data: { actions: number; remoteCache?: { hits: number; misses: number; uploaded: number } };
  warnings: { code: string; message: string }[];
}

function build(dir: string, args: string[]): Timed {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, ['--require', CPU_PRELOAD, CLI, 'build', '--json', '--progress', 'never', ...args], {
    cwd: dir,
    encoding: 'utf8',
    maxBuffer: 1 << 28,
    env: { ...process.env, EPISTEME_BENCH_CPU_FILE: CPU_FILE },
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0)
    throw new Error(`build ${args.join(' ')} exited ${result.status}: ${result.stdout.slice(0, 2000)}${result.stderr.slice(0, 2000)}`);
  const cpu = JSON.parse(fs.readFileSync(CPU_FILE, 'utf8')) as { user: number; system: number };
  const envelope = JSON.parse(result.stdout) as { data: Timed['data']; warnings?: Timed['warnings'] };
  return { ms, cpuMs: (cpu.user + cpu.system) / 1000, data: envelope.data, warnings: envelope.warnings ?? [] };
}

function sizeText(): string {
  const sizes = Array.from({ length: sources }, (_, i) => Buffer.byteLength(sourceHtml(i)));
  const kb = (bytes: number): string => `${Math.round(bytes / 1024)} KB`;
  const shape = sectionsArgument === 'spec' ? 'spec-sized' : `${sectionsArgument} sections each`;
  const total = sizes.reduce((a, b) => a + b, 0);
  return `${shape}: ${kb(Math.min(...sizes))} to ${kb(Math.max(...sizes))}, median ${kb(median(sizes))}, ${kb(total)} in all`;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function main(): Promise<void> {
  fs.mkdirSync(WORK, { recursive: true });
  fs.writeFileSync(
    CPU_PRELOAD,
    "'use strict';\nconst file = process.env.EPISTEME_BENCH_CPU_FILE;\n" +
      "if (file) process.on('exit', () => require('node:fs').writeFileSync(file, JSON.stringify(process.cpuUsage())));\n",
  );
  let nginx: NginxCache | null = null;
  let url: string;
  if (NGINX_SKIP) {
    console.log(`${NGINX_SKIP}; measuring a file:// cache folder instead`);
    const folder = path.join(WORK, 'cache-folder');
    fs.rmSync(folder, { recursive: true, force: true });
    url = pathToFileURL(folder).href;
  } else {
    nginx = await startNginx();
    url = nginx.url;
  }
  try {
    const local: Timed[] = [];
    const upload: Timed[] = [];
    const remote: Timed[] = [];
    const floor: Timed[] = [];
    const perHit: number[] = [];
    let hits = 0;
    // Every document and chunk target, and the search index (one file, or above 256 documents a
    // manifest and its segment files in one action result).
    const cacheable = 2 * sources + 1;
    for (let run = 0; run < runs; run += 1) {
      local.push(build(checkout('local'), []));
      floor.push(build(checkout('floor'), ['snapshots/index.json']));
      if (nginx) for (const area of ['ac', 'cas']) fs.rmSync(path.join(nginx.dataDir, area), { recursive: true, force: true });
      else fs.rmSync(new URL(url), { recursive: true, force: true });
      const writer = build(checkout('writer'), ['--remote-cache', url, '--remote-cache-upload']);
      if (writer.data.remoteCache!.uploaded !== cacheable)
        throw new Error(`the writer uploaded ${JSON.stringify(writer.data.remoteCache)}: ${JSON.stringify(writer.warnings)}`);
      upload.push(writer);
      const clone = checkout('clone');
      const trace = path.join(WORK, 'clone-trace.json');
      const restored = build(clone, ['--remote-cache', url, '--trace', trace]);
      remote.push(restored);
      hits = restored.data.remoteCache!.hits;
      const { misses } = restored.data.remoteCache!;
      if (misses !== 2 * sources + 1 - cacheable) throw new Error(`the warm cache missed ${misses} targets`);
      const targets = (JSON.parse(fs.readFileSync(trace, 'utf8')) as { targets: { target: string; ms: number }[] }).targets;
      perHit.push(median(targets.filter((t) => /^(specs|chunks)\/(?!index|search-index)/.test(t.target)).map((t) => t.ms)));
    }
    const wall = (timed: Timed[]): number => median(timed.map((t) => t.ms));
    const cpu = (timed: Timed[]): number => median(timed.map((t) => t.cpuMs));
    const row = (label: string, timed: Timed[], extra = ''): string =>
      `${label.padEnd(44)} wall ${Math.round(wall(timed)).toString().padStart(6)} ms ${(wall(timed) / wall(local)).toFixed(3)}x   ` +
      `cpu ${Math.round(cpu(timed)).toString().padStart(6)} ms ${(cpu(timed) / cpu(local)).toFixed(3)}x${extra}`;
    console.log(
      `remote cache, ${sources} sources (${sizeText()}; ${cacheable} cacheable targets), ${runs} run(s), medians; ` +
        `cache: ${nginx ? 'nginx WebDAV on 127.0.0.1' : 'file:// folder'}`,
    );
    console.log(row('full local build, fresh checkout (baseline)', local));
    console.log(row('floor: snapshots only, fresh checkout', floor));
    console.log(row('full local build + upload (CI writer)', upload));
    console.log(
      row('fresh checkout from the warm cache', remote, `  (goal <= 0.2x wall: ${wall(remote) / wall(local) <= 0.2 ? 'met' : 'NOT met'})`),
    );
    console.log(
      `per hit: (cache build - floor) / hits: wall ${((wall(remote) - wall(floor)) / hits).toFixed(2)} ms, ` +
        `cpu ${((cpu(remote) - cpu(floor)) / hits).toFixed(2)} ms; ` +
        `median restored-target latency ${median(perHit).toFixed(2)} ms (concurrent)`,
    );
  } finally {
    await nginx?.stop();
  }
}

await main();
