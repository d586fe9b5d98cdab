/**
 * Warm queries (issue 29): `search` through an MCP client against `episteme serve`, and
 * `query --batch`, against a cold `episteme query` of the same queries, measured in the same run on
 * the dev-corpus index. Goal: warm p50 at most 0.05x and p99 at most 0.2x the cold CLI's median.
 * Also the server's resident memory against the index size, and whether every warm answer equals the
 * cold one byte for byte.
 *
 *   npx tsc -p . && node dist/bench/serve.js [--queries 200] [--quick]
 *
 * Queries: half short keyword queries (1 to 3 words of a chunk's heading path and text), half
 * paragraph questions (a question made of 12 to 24 consecutive words of a chunk), drawn with a fixed
 * seed from the indexed chunks, so every run asks the same ones. Cold: one `episteme query --json`
 * process per query (the launcher's code cache warmed first, as an agent's second query finds it).
 * Warm: the SDK's client over stdio, one `search` call at a time, after 5 warm-up calls, alternating
 * query by query with the cold runs. Batch: one `query --batch` process for all of them, its wall time
 * divided by the number of queries.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../src/chunk/chunker.js';
import type { Chunk } from '../src/document/types.js';
import { devCorpusDirectory, extractDevCorpus } from './retrieval/dev-corpus.js';
import { writeWorkspaceIndex } from './retrieval/workspace-index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repoRoot = path.resolve(here, '../..');
const work = path.join(repoRoot, 'bench/.work/serve');
const cli = path.join(repoRoot, 'bin/episteme.cjs');

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(name);
  return at >= 0 ? Number(process.argv[at + 1]) : fallback;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** mulberry32: a fixed-seed generator, so every run draws the same queries. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function drawQueries(chunks: Chunk[], count: number): { kind: 'keywords' | 'paragraph'; terms: string[] }[] {
  const next = random(29);
  const words = (text: string) => text.match(/[\p{L}\p{N}]{3,}/gu) ?? [];
  const queries: { kind: 'keywords' | 'paragraph'; terms: string[] }[] = [];
  while (queries.length < count) {
    const chunk = chunks[Math.floor(next() * chunks.length)]!;
    const text = words(chunk.text);
    if (queries.length % 2 === 0) {
      const pool = [...words(chunk.citation.headingPath.slice(1).join(' ')), ...text];
      if (pool.length === 0) continue;
      const n = 1 + Math.floor(next() * 3);
      const picked = Array.from({ length: n }, () => pool[Math.floor(next() * pool.length)]!.toLowerCase());
      queries.push({ kind: 'keywords', terms: [[...new Set(picked)].join(' ')] });
    } else {
      if (text.length < 12) continue;
      const n = 12 + Math.floor(next() * 13);
      const start = Math.floor(next() * Math.max(1, text.length - n));
      queries.push({ kind: 'paragraph', terms: [`how does ${text.slice(start, start + n).join(' ')}?`] });
    }
  }
  return queries;
}

/** CPU time (user + system) in ms: of a process (/proc/PID/stat), or of this one's waited-for children ('self' with children). */
function cpuMs(pid: number | 'self', children = false): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8')
    .replace(/^.*\) /s, '')
    .split(' ');
  // After "pid (comm) ", utime and stime are fields 11 and 12, cutime and cstime 13 and 14 (in 10 ms ticks).
  return children ? (Number(fields[13]) + Number(fields[14])) * 10 : (Number(fields[11]) + Number(fields[12])) * 10;
}

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const count = option('--queries', quick ? 10 : 200);
  const docs = await extractDevCorpus(devCorpusDirectory(repoRoot), quick ? 5 : undefined);
  if (docs === undefined) {
    console.log(`SKIP: dev corpus not found at ${devCorpusDirectory(repoRoot)} (../shared is absent).`);
    return;
  }
  rmSync(work, { recursive: true, force: true });
  // A workspace: a config naming a map (serve reads it for the paths), and the dev-corpus search
  // index beside the chunk index it records, written as cold-query does.
  mkdirSync(work, { recursive: true });
  writeFileSync(path.join(work, 'placeholder.html'), '<h1>x</h1>\n');
  writeFileSync(
    path.join(work, 'map.json'),
    JSON.stringify([{ sourceUrl: 'https://bench.test/x', localPath: 'placeholder.html', contentType: 'text/html' }]),
  );
  writeFileSync(path.join(work, 'episteme.json'), JSON.stringify({ manualIngest: 'map.json' }));
  const chunked = docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) }));
  const chunks = chunked.flatMap((doc) => doc.chunks);
  const { indexFile } = writeWorkspaceIndex(path.join(work, 'chunks'), chunked);
  const indexMb = statSync(indexFile).size / 1024 / 1024;
  const queries = drawQueries(chunks, count);
  const env = { ...process.env, NODE_COMPILE_CACHE: path.join(work, 'compile-cache') };
  const queryArgs = (terms: string[]) => [
    cli,
    'query',
    '--index',
    'chunks/search-index.json',
    ...terms.flatMap((t) => ['--term', t]),
    '--json',
  ];

  // The server (the SDK's client over stdio), then cold and warm alternately, query by query, so a
  // machine whose load changes during the run shifts both alike.
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'serve'], cwd: work, env, stderr: 'inherit' });
  const client = new Client({ name: 'episteme-bench', version: '1.0.0' });
  const connectStarted = performance.now();
  await client.connect(transport);
  const startMs = performance.now() - connectStarted;
  const pid = transport.pid!;
  const rssStarted = rssMb(pid);
  // Warm-up: two cold runs write the launcher's code cache; five searches.
  for (let i = 0; i < 2; i++) spawnSync(process.execPath, queryArgs(queries[0]!.terms), { cwd: work, env });
  for (let i = 0; i < 5; i++) await client.callTool({ name: 'search', arguments: { terms: queries[i % queries.length]!.terms } });
  const cold: number[] = [];
  const warm: number[] = [];
  let coldCpuTotal = 0;
  let warmCpuTotal = 0;
  let same = 0;
  const coldAnswers: string[] = [];
  for (const query of queries) {
    const coldCpuBefore = cpuMs('self', true);
    let started = performance.now();
    const result = spawnSync(process.execPath, queryArgs(query.terms), { cwd: work, env, encoding: 'utf8', maxBuffer: 64 << 20 });
    cold.push(performance.now() - started);
    coldCpuTotal += cpuMs('self', true) - coldCpuBefore;
    if (result.status !== 0) throw new Error(`cold query failed: ${result.stdout}${result.stderr}`);
    coldAnswers.push(result.stdout);
    const warmCpuBefore = cpuMs(pid);
    started = performance.now();
    const answer = await client.callTool({ name: 'search', arguments: { terms: query.terms } });
    warm.push(performance.now() - started);
    warmCpuTotal += cpuMs(pid) - warmCpuBefore;
    if ((answer.content as { text: string }[])[0]!.text + '\n' === result.stdout) same++;
  }
  const coldCpu = coldCpuTotal / queries.length;
  const warmCpu = warmCpuTotal / queries.length;
  const rssAfter = rssMb(pid);
  // A second pass: the index's blocks are all cached by now; memory must not keep growing.
  for (const query of queries) await client.callTool({ name: 'search', arguments: { terms: query.terms } });
  const rssSecond = rssMb(pid);
  await client.close();

  // Batch: one process for all the queries.
  const lines = queries.map((query) => JSON.stringify({ terms: query.terms })).join('\n') + '\n';
  const batchStarted = performance.now();
  const batch = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'query', '--index', 'chunks/search-index.json', '--batch'], { cwd: work, env });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    child.on('error', reject);
    child.on('close', () => resolve(out));
    child.stdin.end(lines);
  });
  const batchMs = performance.now() - batchStarted;
  const batchSame = batch.split('\n').filter((line, i) => line + '\n' === coldAnswers[i]).length;

  const kinds = (kind: string) =>
    queries
      .map((q, i) => [q.kind, i] as const)
      .filter(([k]) => k === kind)
      .map(([, i]) => i);
  const coldP50 = percentile(cold, 50);
  const fmt = (ms: number) => `${ms.toFixed(ms < 10 ? 2 : 1)} ms`;
  console.log(
    `dev corpus: ${docs.length} documents, ${chunks.length} chunks, index ${indexMb.toFixed(1)} MB; ${queries.length} queries; ` +
      `load average ${os.loadavg()[0]!.toFixed(1)}`,
  );
  console.log(`cold episteme query (CLI)   p50 ${fmt(coldP50)}  p99 ${fmt(percentile(cold, 99))}`);
  console.log(
    `warm MCP search             p50 ${fmt(percentile(warm, 50))}  p99 ${fmt(percentile(warm, 99))}  ` +
      `= ${(percentile(warm, 50) / coldP50).toFixed(3)}x / ${(percentile(warm, 99) / coldP50).toFixed(3)}x the cold p50 ` +
      `(goal 0.05x / 0.2x)`,
  );
  for (const kind of ['keywords', 'paragraph']) {
    const at = kinds(kind);
    const w = at.map((i) => warm[i]!);
    const c = at.map((i) => cold[i]!);
    console.log(
      `  ${kind.padEnd(10)} warm p50 ${fmt(percentile(w, 50))} p99 ${fmt(percentile(w, 99))}; cold p50 ${fmt(percentile(c, 50))}`,
    );
  }
  console.log(
    `query --batch               ${fmt(batchMs / queries.length)} per query (${fmt(batchMs)} for ${queries.length}, start-up included) ` +
      `= ${(batchMs / queries.length / coldP50).toFixed(3)}x the cold p50`,
  );
  // CPU time moves far less than wall time on a shared, loaded machine (10 ms ticks: a mean over all queries).
  console.log(
    `CPU per query: cold CLI ${fmt(coldCpu)}, warm server ${fmt(warmCpu)} = ${(warmCpu / coldCpu).toFixed(3)}x ` +
      `(server side only; the client's share is not counted)`,
  );
  console.log(`same answers as the cold CLI: search ${same}/${queries.length}, batch ${batchSame}/${queries.length}`);
  console.log(
    `server RSS: ${rssStarted.toFixed(0)} MB after start (${fmt(startMs)} to connect), ${rssAfter.toFixed(0)} MB after ` +
      `${queries.length} queries, ${rssSecond.toFixed(0)} MB after a second pass; index ${indexMb.toFixed(1)} MB`,
  );
}

await main();
