/**
 * What segmenting a small corpus's search index buys and costs (issue 28): the dev corpus (32
 * documents, ../shared/corpus/dev), which the build cuts into segments since search-index plan 2
 * (index-layout.ts planSearchSegments: 17-32 documents, a cut after an id whose CRC-32 is 0 modulo 4,
 * or at 8 documents); before it the index was one file up to 256 documents, so a one-document edit
 * merged every document's part again. For the single file, the build's plan and other plans (a
 * segment ends after a document whose id's CRC-32 is 0 modulo k, or at `max` documents):
 * - the search-index update after an edit of whatwg/dom.html (its segment's merge and the manifest;
 *   for the single file, the merge of all 32 cached parts), against a full search-index build (every
 *   part made from its chunks, then merged), in this process;
 * - a cold `episteme query` (whole process) on each layout, written beside the same chunk index,
 *   interleaved round by round; every layout must answer exactly as the single file does.
 * It also checks that the build wrote what the plan says (the manifest and segments of the cached parts).
 *
 *   npm run build && node dist/bench/segment-plans.js [--rounds 15] [--cli PATH]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as zlib from 'node:zlib';
import type { Chunk } from '../src/document/types.js';
import {
  buildDocumentPart,
  buildSegment,
  DEFAULT_INDEX_OPTIONS,
  type IndexProvenance,
  mergeSearchIndex,
  mergeSegmentedIndex,
  planSearchSegments,
  segmentManifest,
} from '../src/index/search-index.js';
import { compareCodeUnits } from '../src/store/canonical-json.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLI = path.resolve(argument('--cli', path.join(REPO, 'bin', 'episteme.cjs')));
const DEV = path.resolve(REPO, '..', 'shared', 'corpus', 'dev');
const quick = process.argv.includes('--quick') || process.env.EPISTEME_BENCH_QUICK === '1';
const rounds = Number(argument('--rounds', quick ? '2' : '15'));
const QUERY = 'conditional request';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

function timed<T>(times: number, run: () => T): { ms: number; value: T } {
  const samples: number[] = [];
  let value!: T;
  for (let i = 0; i < times; i++) {
    const start = performance.now();
    value = run();
    samples.push(performance.now() - start);
  }
  return { ms: median(samples), value };
}

/** Segment ends (exclusive) of sorted ids: a cut after an id whose CRC-32 is 0 modulo `cutOneIn`, or at `max` documents. */
function plan(ids: readonly string[], cutOneIn: number, max: number): number[] {
  const ends: number[] = [];
  let start = 0;
  for (let i = 0; i < ids.length; i++) {
    if (zlib.crc32(ids[i]!) % cutOneIn === 0 || i + 1 - start >= max) {
      ends.push(i + 1);
      start = i + 1;
    }
  }
  if (start < ids.length) ends.push(ids.length);
  return ends;
}

function coldQuery(dir: string): { ms: number; answer: string } {
  const start = performance.now();
  const result = spawnSync(
    process.execPath,
    [CLI, 'query', '--index', 'chunks/search-index.json', '--term', QUERY, '--limit', '5', '--json'],
    {
      cwd: dir,
      encoding: 'utf8',
    },
  );
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`query failed in ${dir}: ${result.stdout}${result.stderr}`);
  return { ms, answer: result.stdout };
}

if (!fs.existsSync(path.join(DEV, 'manual-ingest.json'))) {
  console.log(`segment-plans: skipped, the dev corpus is not at ${path.relative(REPO, DEV)} (../shared beside the project)`);
} else {
  console.log(
    `segment-plans (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-segment-plans-'));
  const builtDir = path.join(root, 'built');
  fs.cpSync(DEV, builtDir, { recursive: true });
  for (const file of fs.readdirSync(builtDir, { recursive: true }) as string[]) fs.chmodSync(path.join(builtDir, file), 0o755);
  const buildRun = spawnSync(process.execPath, [CLI, 'build', '--map', 'manual-ingest.json', '--fail-on', 'never'], {
    cwd: builtDir,
    encoding: 'utf8',
  });
  if (buildRun.status !== 0) throw new Error(`build failed: ${buildRun.stderr.slice(0, 2000)}`);
  const chunkDir = path.join(builtDir, 'chunks');
  const docs = fs
    .readdirSync(chunkDir)
    .filter((name) => /\.[0-9a-f]{16}\.json$/.test(name))
    .map(
      (name) =>
        (JSON.parse(fs.readFileSync(path.join(chunkDir, name), 'utf8')) as { payload: { documentId: string; chunks: Chunk[] } }).payload,
    );
  const indexText = fs.readFileSync(path.join(chunkDir, 'search-index.json'), 'utf8');
  const payload = (
    JSON.parse(indexText) as { payload: { head?: { provenance: IndexProvenance }; manifest?: { provenance: IndexProvenance } } }
  ).payload;
  const provenance = (payload.manifest ?? payload.head)!.provenance;
  const full = timed(quick ? 1 : 3, () =>
    mergeSearchIndex(
      docs.map((d) => buildDocumentPart(d.documentId, d.chunks)),
      provenance,
      DEFAULT_INDEX_OPTIONS,
    ),
  );
  const parts = new Map(docs.map((d) => [d.documentId, buildDocumentPart(d.documentId, d.chunks)]));
  const ids = [...parts.keys()].sort(compareCodeUnits);
  const edited = ids.find((id) => id.startsWith('dom-spec-whatwg-org'))!;
  const merged = timed(quick ? 1 : 7, () => mergeSearchIndex([...parts.values()], provenance, DEFAULT_INDEX_OPTIONS));
  // What the build wrote is what its plan makes of the cached parts: one file (a --cli build of plan 1),
  // or the manifest and every segment (this build's plan).
  const asBuilt =
    payload.head !== undefined
      ? { index: merged.value, segments: [] }
      : mergeSegmentedIndex([...parts.values()], provenance, DEFAULT_INDEX_OPTIONS);
  if (asBuilt.index !== indexText) throw new Error('the build wrote another search index than its plan makes of the cached parts');
  for (const segment of asBuilt.segments)
    if (fs.readFileSync(path.join(chunkDir, segment.file), 'utf8') !== segment.bytes) throw new Error(`segment ${segment.file} differs`);
  const buildPlan = payload.head !== undefined ? [ids.length] : planSearchSegments(ids);
  console.log(
    `dev corpus, ${ids.length} documents, ${buildPlan.length} segment(s) as built: full search-index build ${full.ms.toFixed(0)} ms; ` +
      `update after an edit of ${edited}:`,
  );
  console.log(`  single file (plan 1): merge of every cached part ${merged.ms.toFixed(0)} ms = ${(merged.ms / full.ms).toFixed(3)}x`);
  // The single-file layout beside the same chunk index (the build's segments removed).
  const single = path.join(root, 'single');
  fs.cpSync(builtDir, single, { recursive: true });
  for (const segment of asBuilt.segments) fs.rmSync(path.join(single, 'chunks', segment.file));
  fs.writeFileSync(path.join(single, 'chunks', 'search-index.json'), merged.value);
  const layouts: { label: string; dir: string }[] = [{ label: 'single file', dir: single }];
  for (const [cutOneIn, max] of [
    [1, 1],
    [2, 4],
    [4, 8],
    [8, 16],
  ] as const) {
    const ends = plan(ids, cutOneIn, max);
    const groups = ends.map((end, i) => ids.slice(i === 0 ? 0 : ends[i - 1], end));
    const segments = groups.map((group) =>
      buildSegment(
        group.map((id) => parts.get(id)!),
        DEFAULT_INDEX_OPTIONS,
      ),
    );
    const at = groups.findIndex((group) => group.includes(edited));
    const update = timed(quick ? 1 : 7, () => {
      const rebuilt = buildSegment(
        groups[at]!.map((id) => parts.get(id)!),
        DEFAULT_INDEX_OPTIONS,
      );
      return segmentManifest(
        segments.map((s, i) => (i === at ? rebuilt.entry : s.entry)),
        provenance,
        DEFAULT_INDEX_OPTIONS,
      );
    });
    const shipped = ends.join() === buildPlan.join();
    const label = `cut 1 in ${cutOneIn}, at most ${max}${shipped ? " (the build's plan)" : ''}`;
    console.log(
      `  ${label}: ${groups.length} segments (the edited one holds ${groups[at]!.length}); ` +
        `its segment + manifest ${update.ms.toFixed(0)} ms = ${(update.ms / full.ms).toFixed(3)}x`,
    );
    // The same workspace with this layout of the search index (the chunk index beside it unchanged).
    const dir = path.join(root, `cut-${cutOneIn}`);
    fs.cpSync(single, dir, { recursive: true });
    fs.rmSync(path.join(dir, 'chunks', 'search-index.json'));
    for (const s of segments) fs.writeFileSync(path.join(dir, 'chunks', s.entry[0]), s.bytes);
    fs.writeFileSync(path.join(dir, 'chunks', 'search-index.json'), update.value);
    layouts.push({ label, dir });
  }
  // The manifests above name the rebuilt segment's entry, which equals the one written (same parts).
  const times = layouts.map(() => [] as number[]);
  const answers: string[] = [];
  for (let round = 0; round < rounds; round++) {
    layouts.forEach((layout, i) => {
      const { ms, answer } = coldQuery(layout.dir);
      times[i]!.push(ms);
      answers[i] = answer;
    });
  }
  const base = median(times[0]!);
  console.log(`cold \`episteme query --term '${QUERY}'\` (whole process, median of ${rounds}, interleaved):`);
  layouts.forEach((layout, i) => {
    const same = answers[i] === answers[0];
    const ms = median(times[i]!);
    console.log(`  ${layout.label}: ${ms.toFixed(0)} ms = ${(ms / base).toFixed(2)}x${same ? '' : '  DIFFERENT ANSWER'}`);
    if (!same) process.exitCode = 1;
  });
  fs.rmSync(root, { recursive: true, force: true });
}
