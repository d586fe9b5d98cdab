/**
 * A spec author's save, on real specs: `episteme watch` over the dev corpus (../shared/corpus/dev, 32
 * documents, its manual-ingest map), one word added to one paragraph of a large HTML spec per save,
 * each measured against htmlparser2 parsing the same file, in the same run.
 *
 *   npm run build && node dist/bench/watch-real-specs.js [--saves 10] [--rss-saves 100] [--quick]
 *     [--files whatwg/dom.html,w3c/Overview.html] [--no-large] [--cli OTHER/bin/episteme.cjs]
 *
 * Reported per edited file (medians over the saves):
 * - save -> query-ready: from just before the write to the commit of the search index (the cycle
 *   event's arrival less what the child did after that commit), against the warm bare parse (the
 *   median of 10 `parseDocument` calls of the file in this process, after 5 to warm up). Goal: at most
 *   2x the bare parse + 100 ms.
 * - the edited document's extract and chunk targets and the search index's targets (the index and the
 *   segment the edit re-keyed: the dev corpus's index is cut into segments), as the cycle times them
 *   (`ranMs`); the chunk target also tokenises the chunks into the document's index part, which the
 *   search index merges. Goals: chunk at most 0.15x extract; the search-index update at most 0.05x
 *   a full search-index build (every document's part made from its chunks, then merged: timed in this
 *   process on the same chunk files).
 * - a one-shot `episteme build` after the same kind of edit, against the cold floor: a fresh `node`
 *   that imports htmlparser2, reads the file and parses it once. Goal: at most 2x.
 * - the first file's saves one by one (the first few also pay for compiling the extraction), and the
 *   medians of the --rss-saves saves below, which come once the workers are warm (for information).
 * - the watch process's peak RSS (VmHWM) after the first save and after --rss-saves saves of the
 *   first file. Goal: at most 1.2x.
 * Then a generated spec-like document of about 10 MB (sections, definitions, algorithms, tables,
 * cross-references, as Bikeshed writes them) is built by watch and saved the same way.
 *
 * The corpus is copied to a temporary folder outside the project; without ../shared the bench says so
 * and stops. --quick (the CI smoke run): 2 saves of one file, 3 RSS saves, a 1 MB generated document.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WatchChild } from './watch-child.js';
import { parseDocument } from 'htmlparser2';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, mergeSearchIndex } from '../src/index/search-index.js';
import type { Chunk } from '../src/document/types.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** --cli PATH: another build's bin/episteme.cjs (e.g. the base commit's), measured the same way. */
const CLI = path.resolve(argument('--cli', path.join(REPO, 'bin', 'episteme.cjs')));
const DEV = path.resolve(REPO, '..', 'shared', 'corpus', 'dev');

const quick = process.argv.includes('--quick') || process.env.EPISTEME_BENCH_QUICK === '1';
const saves = Number(argument('--saves', quick ? '2' : '10'));
const rssSaves = Number(argument('--rss-saves', quick ? '3' : '100'));
const files = argument('--files', quick ? 'w3c/Overview.html' : 'whatwg/dom.html,w3c/Overview.html').split(',');
const largeBytes = quick ? 1_000_000 : 10_000_000;
const RUN = Date.now().toString(36);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** htmlparser2's parseDocument of the file: median of 10 after 5 to warm up, in this process. */
function warmBareParse(file: string): number {
  const text = fs.readFileSync(file, 'utf8');
  for (let i = 0; i < 5; i++) parseDocument(text);
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    const start = performance.now();
    parseDocument(text);
    times.push(performance.now() - start);
  }
  return median(times);
}

/** A fresh node that imports htmlparser2, reads the file and parses it once: median wall time of 5. */
function coldFloor(file: string): number {
  const script =
    "import { parseDocument } from 'htmlparser2'; import * as fs from 'node:fs'; " +
    `parseDocument(fs.readFileSync(${JSON.stringify(file)}, 'utf8'));`;
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
    times.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`cold floor failed: ${result.stderr}`);
  }
  return median(times);
}

/** Adds a word after the start tag of the n-th paragraph (counted from a tenth into the file). */
function addWord(file: string, n: number, word: string): void {
  const text = fs.readFileSync(file, 'utf8');
  let at = Math.floor(text.length / 10);
  for (let k = 0; k <= n % 200; k++) {
    const next = text.indexOf('<p>', at + 1);
    if (next < 0) break;
    at = next;
  }
  if (text.slice(at, at + 3) !== '<p>') throw new Error(`no paragraph found in ${file}`);
  fs.writeFileSync(file, `${text.slice(0, at + 3)}${word} ${text.slice(at + 3)}`);
}

interface SaveTimes {
  ready: number;
  extract: number;
  chunk: number;
  searchIndex: number;
}

/** One save and its cycle: save -> query-ready, and the edited document's targets as the cycle timed them. */
async function save(watch: WatchChild, file: string, n: number, documentId: string): Promise<SaveTimes> {
  const mark = watch.count;
  const start = performance.now();
  addWord(file, n, `authorword${n}r${RUN}`);
  const cycle = await watch.nextSaveCycle(mark);
  const line = cycle.line;
  if (!line.ok) throw new Error(`cycle failed: ${JSON.stringify(line.error)}`);
  const ran = line.ranMs as Record<string, number>;
  const pick = (target: string): number => {
    const value = ran[target];
    if (value === undefined) throw new Error(`${target} did not run in the cycle: ${JSON.stringify(ran)}`);
    return value;
  };
  // The cycle event arrives after the state commit and garbage: take off what followed the search index.
  const afterReady = (line.buildMs as number) + (line.settleMs as number) - (line.queryReadyMs as number);
  return {
    ready: cycle.at - start - afterReady,
    // Watch starts the extraction while the save settles (watch/speculation.ts): then the target only
    // waited for the rest of it, and the task's own time is the extract stage's.
    extract: (line.speculatedMs as Record<string, number> | undefined)?.[`specs/${documentId}.json`] ?? pick(`specs/${documentId}.json`),
    chunk: pick(`chunks/${documentId}.json`),
    // The index and, where it is segmented (from 17 documents on), the segments the edit re-keyed.
    searchIndex: pick('chunks/search-index.json') + segmentsRan(ran),
  };
}

/** The time of the search-index segment targets that ran in a cycle (`chunks/search-index.json#<first document>`). */
function segmentsRan(ran: Record<string, number>): number {
  let ms = 0;
  for (const [target, value] of Object.entries(ran)) if (target.startsWith('chunks/search-index.json#')) ms += value;
  return ms;
}

/** The document id the workspace gave a local path (from its specs index). */
function documentIdOf(dir: string, localPath: string, map: { sourceUrl: string; localPath: string }[]): string {
  const entry = map.find((e) => e.localPath === localPath);
  if (entry === undefined) throw new Error(`${localPath} is not in the map`);
  const index = JSON.parse(fs.readFileSync(path.join(dir, 'specs', 'index.json'), 'utf8')) as {
    payload: { entries: { documentId: string; sourceUrl: string }[] };
  };
  const found = index.payload.entries.find((e) => e.sourceUrl === entry.sourceUrl);
  if (found === undefined) throw new Error(`no document for ${entry.sourceUrl}`);
  return found.documentId;
}

/** A full search-index build of the workspace's chunk files, in this process: every part made, then merged. */
function fullSearchIndexBuild(dir: string): number {
  const chunkFiles = fs.readdirSync(path.join(dir, 'chunks')).filter((name) => /\.[0-9a-f]{16}\.json$/.test(name));
  const docs = chunkFiles.map((name) => {
    const payload = (
      JSON.parse(fs.readFileSync(path.join(dir, 'chunks', name), 'utf8')) as { payload: { documentId: string; chunks: Chunk[] } }
    ).payload;
    return payload;
  });
  const provenance = { chunkIndexFingerprint: `sha256:${'0'.repeat(64)}`, missingSources: [] };
  const times: number[] = [];
  for (let round = 0; round < (quick ? 1 : 3); round++) {
    const start = performance.now();
    mergeSearchIndex(
      docs.map((d) => buildDocumentPart(d.documentId, d.chunks)),
      provenance,
      DEFAULT_INDEX_OPTIONS,
    );
    times.push(performance.now() - start);
  }
  return median(times);
}

function verdict(ok: boolean): string {
  return ok ? 'met' : 'NOT met';
}

async function realSpecs(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-real-specs-'));
  fs.cpSync(DEV, dir, { recursive: true });
  for (const file of fs.readdirSync(dir, { recursive: true }) as string[]) fs.chmodSync(path.join(dir, file), 0o755);
  const map = JSON.parse(fs.readFileSync(path.join(dir, 'manual-ingest.json'), 'utf8')) as { sourceUrl: string; localPath: string }[];
  const watch = new WatchChild(CLI, dir, ['--map', 'manual-ingest.json', '--fail-on', 'never']);
  const first = await watch.nextCycle(0);
  console.log(`dev corpus (${map.length} documents): first build ${Math.round(first.line.buildMs)} ms`);
  const fullIndex = fullSearchIndexBuild(dir);
  console.log(`  full search-index build (every part from its chunks, then merged; in-process): ${fullIndex.toFixed(0)} ms`);
  let rssFirst = Number.NaN;
  for (const localPath of files) {
    const file = path.join(dir, localPath);
    const documentId = documentIdOf(dir, localPath, map);
    const bare = warmBareParse(file);
    const times: SaveTimes[] = [];
    for (let k = 0; k < saves; k++) {
      times.push(await save(watch, file, k, documentId));
      if (Number.isNaN(rssFirst)) rssFirst = watch.peakRssMb();
    }
    const m = (key: keyof SaveTimes): number => median(times.map((t) => t[key]));
    const goal = 2 * bare + 100;
    console.log(
      `  ${localPath} (${(fs.statSync(file).size / 1e6).toFixed(2)} MB): save -> query-ready ${m('ready').toFixed(0)} ms ` +
        `(median of ${saves}); warm bare parse ${bare.toFixed(0)} ms; ` +
        `goal <= 2x parse + 100 = ${goal.toFixed(0)} ms: ${verdict(m('ready') <= goal)}`,
    );
    console.log(
      `    extract ${m('extract').toFixed(0)} ms (${(m('extract') / bare).toFixed(2)}x parse), ` +
        `chunk + index part ${m('chunk').toFixed(0)} ms ` +
        `(${(m('chunk') / m('extract')).toFixed(2)}x extract; goal <= 0.15x: ${verdict(m('chunk') <= 0.15 * m('extract'))}), ` +
        `search index ${m('searchIndex').toFixed(0)} ms (${(m('searchIndex') / fullIndex).toFixed(3)}x a full build; goal <= 0.05x: ` +
        `${verdict(m('searchIndex') <= 0.05 * fullIndex)})`,
    );
    // The first saves also pay for the JIT compiling the extraction for this document: shown save by save.
    console.log(`    save -> query-ready save by save: ${times.map((t) => t.ready.toFixed(0)).join(' ')} ms`);
    console.log(
      `    extract / chunk + index part save by save: ${times.map((t) => `${t.extract.toFixed(0)}/${t.chunk.toFixed(0)}`).join(' ')} ms`,
    );
  }
  // Memory: many saves of the first file; the peak must not grow with the number of cycles.
  const file = path.join(dir, files[0]!);
  const documentId = documentIdOf(dir, files[0]!, map);
  // The peak after ten more saves as well: both workers have then run (the first save may use one), so
  // growth from there on is growth per cycle.
  let rssTen = Number.NaN;
  const warm: SaveTimes[] = [];
  for (let k = 0; k < rssSaves; k++) {
    warm.push(await save(watch, file, saves + k, documentId));
    if (k === Math.min(9, rssSaves - 1)) rssTen = watch.peakRssMb();
  }
  // These saves come after the measured ones: the workers have compiled the extraction by now.
  const w = (key: keyof SaveTimes): number => median(warm.map((t) => t[key]));
  console.log(
    `  ${files[0]} once warm (the ${rssSaves} saves below, after the ${saves} above; for information, the goals are judged above): ` +
      `save -> query-ready ${w('ready').toFixed(0)} ms, extract ${w('extract').toFixed(0)} ms, ` +
      `chunk + index part ${w('chunk').toFixed(0)} ms (${(w('chunk') / w('extract')).toFixed(2)}x extract), ` +
      `search index ${w('searchIndex').toFixed(0)} ms`,
  );
  const rssAfter = watch.peakRssMb();
  console.log(
    `  watch peak RSS: ${rssFirst.toFixed(0)} MB after the first save, ${rssTen.toFixed(0)} MB after ten more, ` +
      `${rssAfter.toFixed(0)} MB after ${rssSaves} more (${(rssAfter / rssFirst).toFixed(2)}x the first; goal <= 1.2x: ` +
      `${verdict(rssAfter <= 1.2 * rssFirst)}; ${(rssAfter / rssTen).toFixed(2)}x the tenth)`,
  );
  await watch.stop();
  // One-shot builds after the same kind of edit, against the cold floor.
  const oneShot: number[] = [];
  for (let k = 0; k < (quick ? 1 : 5); k++) {
    addWord(file, 500 + k, `oneshotword${k}r${RUN}`);
    const start = performance.now();
    const result = spawnSync(process.execPath, [CLI, 'build', '--map', 'manual-ingest.json', '--fail-on', 'never'], {
      cwd: dir,
      encoding: 'utf8',
    });
    oneShot.push(performance.now() - start);
    if (result.status !== 0) throw new Error(`one-shot build failed: ${result.stderr.slice(0, 2000)}`);
  }
  const floor = coldFloor(file);
  console.log(
    `  one-shot build after an edit of ${files[0]}: ${median(oneShot).toFixed(0)} ms; cold floor (fresh node, import htmlparser2, ` +
      `read, parse) ${floor.toFixed(0)} ms: ${(median(oneShot) / floor).toFixed(2)}x ` +
      `(goal <= 2x: ${verdict(median(oneShot) <= 2 * floor)})`,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}

/** A spec-like document of about `bytes` bytes, as Bikeshed writes one. */
function generatedSpec(bytes: number): string {
  const parts: string[] = [
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Generated Standard</title></head><body>',
    '<div class="head"><h1 id="title">Generated Standard</h1></div><nav id="toc"></nav><main>',
  ];
  let size = parts.join('').length;
  for (let s = 1; size < bytes; s++) {
    const section = [
      `<section><h2 class="heading settled" data-level="${s}" id="section-${s}"><span class="secno">${s}. </span>`,
      `<span class="content">Concept ${s}</span><a class="self-link" href="#section-${s}"></a></h2>`,
      `<p>A <dfn data-dfn-type="dfn" data-export id="concept-${s}">concept ${s}</dfn> is a thing that user agents `,
      `<em class="rfc2119">must</em> track; see <a data-link-type="dfn" href="#concept-${Math.max(1, s - 1)}" `,
      `id="ref-for-concept-${s}">concept ${Math.max(1, s - 1)}</a>.</p>`,
      `<div class="algorithm" data-algorithm="process concept ${s}">`,
      `<p>To <dfn id="process-${s}">process concept ${s}</dfn> given <var>input</var>:</p><ol>`,
      `<li><p>Let <var>result</var> be a new list.</p></li>`,
      `<li><p>For each <var>item</var> of <var>input</var>:</p><ol><li><p>If <var>item</var> is null, then continue.</p></li>`,
      `<li><p>Append <var>item</var> to <var>result</var>.</p></li></ol></li><li><p>Return <var>result</var>.</p></li></ol></div>`,
      `<table class="data"><thead><tr><th>Name</th><th>Value</th><th>Notes</th></tr></thead><tbody>`,
      ...Array.from({ length: 4 }, (_, r) => `<tr><td><code>field${r}</code></td><td>${s * r}</td><td>Row ${r} of table ${s}.</td></tr>`),
      `</tbody></table><div class="note" role="note"><p>This note explains concept ${s} for authors.</p></div>`,
      `<p>Implementations <em class="rfc2119">should</em> prefer concept ${s} over older mechanisms when both apply.</p></section>`,
    ].join('');
    parts.push(section);
    size += section.length;
  }
  parts.push('</main></body></html>\n');
  return parts.join('');
}

async function largeDocument(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'episteme-large-spec-'));
  fs.writeFileSync(path.join(dir, 'spec.html'), generatedSpec(largeBytes));
  const map = [{ sourceUrl: 'https://generated.example/spec/', localPath: 'spec.html', contentType: 'text/html' }];
  fs.writeFileSync(path.join(dir, 'map.json'), JSON.stringify(map));
  const watch = new WatchChild(CLI, dir, ['--map', 'map.json']);
  const first = await watch.nextCycle(0);
  if (!first.line.ok) throw new Error(`the generated document did not build: ${JSON.stringify(first.line.error)}`);
  const file = path.join(dir, 'spec.html');
  const bare = warmBareParse(file);
  const documentId = documentIdOf(dir, 'spec.html', map);
  const times: SaveTimes[] = [];
  for (let k = 0; k < (quick ? 1 : Math.min(saves, 5)); k++) times.push(await save(watch, file, k, documentId));
  await watch.stop();
  const ready = median(times.map((t) => t.ready));
  console.log(
    `generated spec-like document (${(fs.statSync(file).size / 1e6).toFixed(1)} MB): first build ${Math.round(first.line.buildMs)} ms ` +
      `within the default bounds; save -> query-ready ${ready.toFixed(0)} ms, warm bare parse ${bare.toFixed(0)} ms ` +
      `(${(ready / bare).toFixed(1)}x); extract ${median(times.map((t) => t.extract)).toFixed(0)} ms, ` +
      `chunk + index part ${median(times.map((t) => t.chunk)).toFixed(0)} ms, ` +
      `search index ${median(times.map((t) => t.searchIndex)).toFixed(0)} ms`,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}

if (!fs.existsSync(path.join(DEV, 'manual-ingest.json'))) {
  console.log(`watch-real-specs: skipped, the dev corpus is not at ${path.relative(REPO, DEV)} (../shared beside the project)`);
} else {
  console.log(
    `watch-real-specs (load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  await realSpecs();
}
if (!process.argv.includes('--no-large')) await largeDocument();
