/**
 * Cold query: whole-process time of one query on the dev-corpus index, next to a Node script that
 * loads MiniSearch's JSON index of the same chunks and runs the same query, and next to SQLite FTS5
 * on a prebuilt database, measured in the same run (interleaved rounds, medians), on Node 20 and on
 * Node 24 (FTS5 through better-sqlite3 on Node 20, through the built-in node:sqlite on Node 24; goal
 * on Node 24: at most 1.6x FTS5, issue 27; agents that need more keep a process open). Also index sizes.
 *
 *   npx tsc -p . && node dist/bench/cold-query.js [rounds]
 *
 * Before/after: COLD_QUERY_BASELINE=<folder with another build's bin/episteme.cjs and dist/bundle>
 * adds that build's query as a contender, interleaved with this one's in every round, and prints
 * the ratio between them (e.g. a `git worktree` of the previous commit, built). The baseline queries
 * an index of the same chunks written by its own code in the layout its build writes (its
 * dist/bench/retrieval/workspace-index.js; one file from its search-index.js when it has none, then
 * compared with this build's one file), so builds with different index formats compare.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type DatabaseClass from 'better-sqlite3';
import type MiniSearchClass from 'minisearch';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../src/chunk/chunker.js';
import type { Chunk } from '../src/document/types.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS } from '../src/index/search-index.js';
import { ensureRuntimes, runtimeBin } from '../test/helpers/runtimes.js';
import { optionalPackage } from './optional.js';
import { devCorpusDirectory, extractDevCorpus } from './retrieval/dev-corpus.js';
import { writeWorkspaceIndex } from './retrieval/workspace-index.js';
import { MINISEARCH_INDEX_ONLY_OPTIONS, MINISEARCH_OPTIONS } from './retrieval/minisearch-options.cjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const work = path.join(repoRoot, 'bench/.work/cold-query');
const QUERY = 'conditional request';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

interface Contender {
  runtime: string;
  name: string;
  node: string;
  args: string[];
  expectedStatus: number;
  env: NodeJS.ProcessEnv;
}

/**
 * CPU time (user + system, all threads) of this process's waited-for children so far, in ms, from
 * /proc/self/stat (Linux; undefined elsewhere). In 10 ms ticks, so only a sum over rounds means
 * anything; on a shared, loaded machine it moves far less than wall time.
 */
function childrenCpuMs(): number | undefined {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8')
      .replace(/^.*\) /s, '')
      .split(' ');
    // After "pid (comm) ", field 16 (cutime) and 17 (cstime) are at 13 and 14.
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return undefined;
  }
}

function timeProcess(contender: Contender): { ms: number; cpuMs: number | undefined; ok: boolean; stdout: string; stderr: string } {
  const env = { ...process.env, ...contender.env };
  const cpuBefore = childrenCpuMs();
  const started = performance.now();
  const result = spawnSync(contender.node, contender.args, { cwd: repoRoot, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - started;
  const cpuAfter = childrenCpuMs();
  const cpuMs = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
  return { ms, cpuMs, ok: result.status === contender.expectedStatus, stdout: result.stdout, stderr: result.stderr };
}

function writeFts5(Database: typeof DatabaseClass, file: string, chunks: Chunk[]): void {
  const db = new Database(file);
  db.exec("CREATE VIRTUAL TABLE chunks USING fts5(chunk_id UNINDEXED, text, citation UNINDEXED, tokenize = 'porter unicode61')");
  const insert = db.prepare('INSERT INTO chunks(chunk_id, text, citation) VALUES (?, ?, ?)');
  db.transaction(() => {
    for (const chunk of chunks) insert.run(chunk.chunkId, chunk.text, JSON.stringify(chunk.citation));
  })();
  db.exec("INSERT INTO chunks(chunks) VALUES ('optimize')");
  db.close();
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 15);
  // --quick (the CI smoke run): the first 5 dev-corpus documents and one warm-up round.
  const quick = process.argv.includes('--quick');
  const docs = await extractDevCorpus(devCorpusDirectory(repoRoot), quick ? 5 : undefined);
  if (docs === undefined) {
    console.log(`SKIP: dev corpus not found at ${devCorpusDirectory(repoRoot)} (../shared is absent).`);
    return;
  }
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const chunked = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
  const chunks: Chunk[] = chunked.flatMap((doc) => doc.chunks);
  const files = {
    episteme: path.join(work, 'search-index.json'),
    minisearch: path.join(work, 'minisearch.json'),
    minisearchIndexOnly: path.join(work, 'minisearch-index-only.json'),
    fts5: path.join(work, 'fts5.sqlite'),
  };
  writeFileSync(files.episteme, buildSearchIndex(chunked, { chunkIndexFingerprint: 'bench', missingSources: [] }, DEFAULT_INDEX_OPTIONS));
  // As in a workspace: the search index beside the chunk index it records, which the query verifies.
  const inWorkspace = path.join(work, 'chunks');
  const { chunkIndexBytes, fingerprint, segments } = writeWorkspaceIndex(inWorkspace, chunked);
  // The same chunks as one file beside the same chunk index: the layout before the search index was
  // cut below 256 documents (issue 28), for a before/after of the plan in the same rounds.
  const singleFile = path.join(work, 'single-chunks');
  writeWorkspaceIndex(singleFile, chunked, { singleFile: true });
  console.log(`search index as a build writes it: ${segments === 1 ? 'one file' : `${segments} segments`}`);
  const MiniSearch = optionalPackage<typeof MiniSearchClass>('minisearch', 'the MiniSearch contender');
  const Database = optionalPackage<typeof DatabaseClass>('better-sqlite3', 'the FTS5 contender on this Node');
  if (MiniSearch) {
    const mini = new MiniSearch<Chunk>(MINISEARCH_OPTIONS);
    mini.addAll(chunks);
    writeFileSync(files.minisearch, JSON.stringify(mini));
    const miniOnly = new MiniSearch<Chunk>(MINISEARCH_INDEX_ONLY_OPTIONS);
    miniOnly.addAll(chunks);
    writeFileSync(files.minisearchIndexOnly, JSON.stringify(miniOnly));
  }
  // The FTS5 database is written by better-sqlite3 (Node 24 reads it through node:sqlite).
  if (Database) writeFts5(Database, files.fts5, chunks);

  // A CommonJS script that only writes a line: the floor for every contender below (each runs as
  // CommonJS, without Node's ES module loader, except the library script).
  const scriptFloor = path.join(work, 'floor.cjs');
  writeFileSync(scriptFloor, "process.stdout.write('{}\\n');\n");
  // Node 20 (this process) and Node 24 (installed as the cross-runtime tests install it). FTS5 runs
  // through better-sqlite3 on Node 20 (built for this Node's ABI) and through Node 24's built-in
  // node:sqlite there. Each runtime's compile cache goes to a folder of this run, warmed by the
  // warm-up rounds; "compile cache off" shows what it saves.
  const runtimes: { label: string; node: string; fts5Script: string }[] = [
    { label: `node ${process.version}`, node: process.execPath, fts5Script: 'fts5-query.cjs' },
  ];
  const skipNode24 = ensureRuntimes();
  if (skipNode24 === undefined) {
    const version = spawnSync(runtimeBin('node'), ['--version'], { encoding: 'utf8' }).stdout.trim();
    runtimes.push({ label: `node ${version}`, node: runtimeBin('node'), fts5Script: 'fts5-node-sqlite-query.cjs' });
  } else console.log(`Node 24 skipped: ${skipNode24}`);
  const compileCache = path.join(work, 'compile-cache');
  const baseline = process.env['COLD_QUERY_BASELINE'];
  // The baseline's own index format, in the layout its own build writes (segmented where it cuts the
  // corpus), beside the same chunk index: compared with this build's index as a build writes it.
  // A baseline older than the bench's workspace writer writes one file, compared with this build's one file.
  const baselineIndex = path.join(work, 'baseline-chunks/search-index.json');
  let baselineLayout: 'as a build writes it' | 'one file' = 'as a build writes it';
  if (baseline !== undefined) {
    const baselineModule = async <T>(file: string): Promise<T> =>
      (await import(pathToFileURL(path.join(path.resolve(baseline), 'dist', file)).href)) as T;
    rmSync(path.dirname(baselineIndex), { recursive: true, force: true });
    const workspaceWriter = await baselineModule<typeof import('./retrieval/workspace-index.js')>(
      'bench/retrieval/workspace-index.js',
    ).catch(() => undefined);
    if (workspaceWriter !== undefined) workspaceWriter.writeWorkspaceIndex(path.dirname(baselineIndex), chunked);
    else {
      baselineLayout = 'one file';
      const writer = await baselineModule<typeof import('../src/index/search-index.js')>('src/index/search-index.js');
      const layout = await baselineModule<typeof import('../src/index/index-layout.js')>('src/index/index-layout.js');
      mkdirSync(path.dirname(baselineIndex), { recursive: true });
      writeFileSync(path.join(path.dirname(baselineIndex), 'index.json'), chunkIndexBytes);
      writeFileSync(
        baselineIndex,
        writer.buildSearchIndex(
          chunked,
          { chunkIndexFingerprint: fingerprint, chunkIndexCrc32: layout.crc32Hex(chunkIndexBytes), missingSources: [] },
          writer.DEFAULT_INDEX_OPTIONS,
        ),
      );
    }
  }
  const query = (index: string, root = repoRoot) => [
    path.join(root, 'bin/episteme.cjs'),
    'query',
    '--index',
    index,
    '--term',
    QUERY,
    '--limit',
    '10',
    '--json',
  ];
  // [runtime, name, node, arguments, expected exit status, extra environment]
  const contenders: Contender[] = [];
  for (const runtime of runtimes) {
    const add = (name: string, args: string[], expectedStatus = 0, env: NodeJS.ProcessEnv = {}) =>
      contenders.push({
        runtime: runtime.label,
        name,
        node: runtime.node,
        args,
        expectedStatus,
        env: { NODE_COMPILE_CACHE: path.join(compileCache, runtime.label), ...env },
      });
    add('node -e 0 (process floor)', ['-e', '0']);
    add('script writing a line', [scriptFloor]);
    // Start, load the CLI bundle, parse the command line with clipanion, fail on a missing index:
    // the CLI's fixed cost, before any index work.
    add('episteme query, parse only', query(path.join(work, 'missing.json')), 2);
    add('episteme query (CLI)', query(files.episteme));
    add('episteme query, chunk index', query(path.join(work, 'chunks/search-index.json')));
    add('episteme query, chunk index, one file', query(path.join(singleFile, 'search-index.json')));
    // The baseline keeps its code cache apart: the launcher keys its one cache file by the bundle, so
    // two builds sharing a folder would each find the other's cache and recompile on every run.
    if (baseline !== undefined)
      add('baseline query, chunk index', query(baselineIndex, path.resolve(baseline)), 0, {
        NODE_COMPILE_CACHE: path.join(compileCache, `${runtime.label} baseline`),
      });
    add('episteme query, no compile cache', query(path.join(work, 'chunks/search-index.json')), 0, { NODE_DISABLE_COMPILE_CACHE: '1' });
    add('episteme library script', [path.join(here, 'retrieval/episteme-query.js'), files.episteme, QUERY]);
    // The reads of a query (head, 10 row blocks) and nothing else: a lower bound for this format.
    add('episteme index reads only', [path.join(here, 'retrieval/read-skeleton.cjs'), files.episteme]);
    if (existsSync(files.minisearch))
      add('minisearch JSON script', [path.join(here, 'retrieval/minisearch-query.cjs'), files.minisearch, QUERY]);
    if (existsSync(files.fts5)) add('sqlite fts5 script', [path.join(here, 'retrieval', runtime.fts5Script), files.fts5, QUERY]);
  }
  const key = (c: Contender) => `${c.runtime}: ${c.name}`;
  const times = new Map<string, number[]>(contenders.map((c) => [key(c), []]));
  const cpu = new Map<string, number>(contenders.map((c) => [key(c), 0]));
  const failures = new Map<string, string>();
  for (let round = quick ? -1 : -2; round < rounds; round++) {
    for (const contender of contenders) {
      if (failures.has(key(contender))) continue;
      const run = timeProcess(contender);
      if (!run.ok) {
        failures.set(key(contender), (run.stderr.trim() || run.stdout.trim()).split('\n').slice(-2).join(' | ').slice(0, 300));
        continue;
      }
      if (round >= 0) {
        times.get(key(contender))!.push(run.ms);
        cpu.set(key(contender), run.cpuMs === undefined ? Number.NaN : cpu.get(key(contender))! + run.cpuMs);
      }
    }
  }
  const size = (file: string): number => statSync(file).size;
  console.log(
    `Dev corpus: ${docs.length} documents, ${chunks.length} chunks, ` +
      `${chunks.reduce((n, c) => n + c.text.length, 0)} chars of chunk text; ` +
      `query "${QUERY}"; ${rounds} interleaved rounds (median)`,
  );
  for (const runtime of runtimes) {
    console.log(`${runtime.label}:`);
    const medians = new Map<string, number>();
    const cpuMeans = new Map<string, number>();
    for (const contender of contenders.filter((c) => c.runtime === runtime.label)) {
      const failure = failures.get(key(contender));
      if (failure !== undefined) {
        console.log(`  ${contender.name.padEnd(38)} FAILED: ${failure}`);
        continue;
      }
      const ms = median(times.get(key(contender))!);
      medians.set(contender.name, ms);
      const cpuMean = cpu.get(key(contender))! / rounds;
      if (Number.isFinite(cpuMean)) cpuMeans.set(contender.name, cpuMean);
      const cpuText = Number.isFinite(cpuMean) ? `, ${cpuMean.toFixed(1).padStart(6)} ms CPU` : '';
      console.log(`  ${contender.name.padEnd(38)} ${ms.toFixed(1).padStart(8)} ms wall${cpuText}`);
    }
    const fts = medians.get('sqlite fts5 script');
    const ms = medians.get('minisearch JSON script');
    const goal = runtime.node === process.execPath ? '' : ', goal <= 1.6';
    for (const ours of [
      'episteme query (CLI)',
      'episteme query, chunk index',
      'episteme query, chunk index, one file',
      'baseline query, chunk index',
      'episteme library script',
    ]) {
      const value = medians.get(ours);
      if (value === undefined || fts === undefined || ms === undefined) continue;
      const cpuOurs = cpuMeans.get(ours);
      const cpuFts = cpuMeans.get('sqlite fts5 script');
      const cpuRatio = cpuOurs === undefined || cpuFts === undefined ? '' : ` (CPU ${(cpuOurs / cpuFts).toFixed(2)}x)`;
      console.log(`  ${ours}: ${(value / fts).toFixed(2)}x FTS5${cpuRatio}${goal}; ${(value / ms).toFixed(2)}x MiniSearch (goal <= 0.4)`);
    }
    const before = medians.get('baseline query, chunk index');
    const after = medians.get('episteme query, chunk index');
    // Like with like: the baseline's layout against the same layout of this build.
    const compared = baselineLayout === 'one file' ? 'episteme query, chunk index, one file' : 'episteme query, chunk index';
    const afterSameLayout = medians.get(compared);
    if (before !== undefined && afterSameLayout !== undefined) {
      const cpuBefore = cpuMeans.get('baseline query, chunk index');
      const cpuAfter = cpuMeans.get(compared);
      const cpuRatio = cpuBefore === undefined || cpuAfter === undefined ? '' : ` (CPU ${(cpuAfter / cpuBefore).toFixed(2)}x)`;
      console.log(`  This build / baseline (chunk index, ${baselineLayout}): ${(afterSameLayout / before).toFixed(2)}x wall${cpuRatio}`);
    }
    const oneFile = medians.get('episteme query, chunk index, one file');
    if (oneFile !== undefined && after !== undefined && segments > 1)
      console.log(`  ${segments} segments / one file (chunk index, same chunks): ${(after / oneFile).toFixed(2)}x wall`);
    const floor = medians.get('script writing a line');
    const parseOnly = medians.get('episteme query, parse only');
    const cli = medians.get('episteme query (CLI)');
    if (floor !== undefined && parseOnly !== undefined && cli !== undefined && fts !== undefined) {
      const skeleton = medians.get('episteme index reads only');
      console.log(
        `  Above the script floor: FTS5 script ${(fts - floor).toFixed(1)} ms; ` +
          `episteme CLI fixed cost (load the bundle, parse with clipanion) ${(parseOnly - floor).toFixed(1)} ms ` +
          `+ index and query work ${(cli - parseOnly).toFixed(1)} ms` +
          (skeleton === undefined ? '' : `; the index reads alone ${(skeleton - floor).toFixed(1)} ms`),
      );
    }
  }
  console.log('Index files:');
  for (const [name, file] of Object.entries(files))
    if (existsSync(file)) console.log(`  ${name.padEnd(22)} ${(size(file) / 1e6).toFixed(2).padStart(7)} MB`);
  if (baseline !== undefined) {
    // The manifest and its segment files, or the one file.
    const folder = path.dirname(baselineIndex);
    const bytes = readdirSync(folder)
      .filter((name) => name.startsWith('search-index'))
      .reduce((n, name) => n + size(path.join(folder, name)), 0);
    console.log(`  ${'baseline episteme'.padEnd(22)} ${(bytes / 1e6).toFixed(2).padStart(7)} MB`);
  }
  if (existsSync(files.minisearch))
    console.log(
      `Episteme index / MiniSearch JSON with stored text+citations: ${(size(files.episteme) / size(files.minisearch)).toFixed(2)}x ` +
        `(goal <= 0.4); / MiniSearch index-only JSON (no text, so no snippets): ` +
        `${(size(files.episteme) / size(files.minisearchIndexOnly)).toFixed(2)}x`,
    );
  if (!existsSync(files.episteme)) throw new Error('index missing');
  // A contender of ours that failed fails the bench (a baseline's failure is only reported).
  const ours = [...failures.keys()].filter((name) => /: episteme /.test(name));
  if (ours.length > 0) throw new Error(`episteme contenders failed: ${ours.join('; ')}`);
}

await main();
