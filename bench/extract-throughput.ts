/**
 * Extraction throughput over the dev-corpus HTML, next to bare htmlparser2 parsing of the same files
 * into a DOM (the floor any DOM-based extractor pays), measured in the same run and interleaved round by
 * round so machine noise hits both. Goal (issue 28): extraction at least 0.75x the bare-parse rate.
 *
 * On Node 20 the bare parse itself slows down within a round: domhandler's node classes (which
 * parseDocument builds) hit V8's slow path for class fields once a document makes a fifth kind of node
 * (w3c/2014-02-04-CSP-1-1-WD.html does), making each node about 20x slower from then on. Extraction
 * builds plain objects (src/extract/dom-nodes.ts) and does not; so on Node 20 the ratio flatters
 * extraction. Node 24 has no such slow path.
 *
 *   npx tsc -p . && node dist/bench/extract-throughput.js [--rounds 5]
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'htmlparser2';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../src/extract/extract.js';
import { sha256Hex } from '../src/store/hash.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const corpusDir = path.resolve(repoRoot, '../shared/corpus/dev');

interface Entry {
  sourceUrl: string;
  localPath: string;
  contentType: string;
}

function median(values: number[]): number {
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

export async function runExtractThroughput(
  rounds: number,
): Promise<{ bareMBs: number; extractMBs: number; ratio: number; bytes: number; files: number } | null> {
  const mapPath = path.join(corpusDir, 'manual-ingest.json');
  if (!existsSync(mapPath)) {
    console.log(`SKIP extract-throughput: dev corpus not found at ${corpusDir}`);
    return null;
  }
  const all = (JSON.parse(readFileSync(mapPath, 'utf8')) as Entry[]).map((e) => {
    const body = new Uint8Array(readFileSync(path.join(corpusDir, e.localPath)));
    return { entry: e, body, sha256: sha256Hex(body) };
  });
  const files = all.filter((f) => f.entry.contentType.startsWith('text/html'));
  const bytes = files.reduce((n, f) => n + f.body.length, 0);
  const bare = (): void => {
    // Same decoding work as extraction, then a DOM: the bare cost of getting a tree.
    for (const f of files) parseDocument(new TextDecoder('utf-8').decode(f.body));
  };
  const extractOne = (f: (typeof all)[number]) =>
    extractDocument({
      documentId: f.entry.localPath,
      source: { url: f.entry.sourceUrl },
      snapshot: {
        snapshotId: 'snap-' + f.sha256.slice(0, 16),
        sourceUrl: f.entry.sourceUrl,
        captureMethod: 'manual-ingest',
        contentType: f.entry.contentType,
        charset: null,
        sha256: f.sha256,
        byteLength: f.body.length,
      },
      body: f.body,
      options: DEFAULT_EXTRACT_OPTIONS,
    });
  const extract = async (): Promise<void> => {
    for (const f of files) await extractOne(f);
  };
  // A stage worker has extracted every kind of document by the time it extracts an HTML spec again
  // (XML, plain text, PDF: other code paths, other node kinds): measured in that state, so a
  // slowdown that only a well-used process shows (V8 inline caches going megamorphic, as domhandler's
  // node classes did on Node 20) shows here too. Also in the quick run: it is what is measured.
  for (const f of all) if (!f.entry.contentType.startsWith('text/html')) await extractOne(f);
  // Warm-up: JIT, rule loading, selector compilation, schema compilation (not in the quick smoke run).
  if (!process.argv.includes('--quick')) {
    bare();
    await extract();
  }
  const bareTimes: number[] = [];
  const extractTimes: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t = performance.now();
    bare();
    bareTimes.push(performance.now() - t);
    t = performance.now();
    await extract();
    extractTimes.push(performance.now() - t);
  }
  const mb = bytes / 1e6;
  const bareMBs = mb / (median(bareTimes) / 1000);
  const extractMBs = mb / (median(extractTimes) / 1000);
  return { bareMBs, extractMBs, ratio: extractMBs / bareMBs, bytes, files: files.length };
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const i = process.argv.indexOf('--rounds');
  const rounds = i === -1 ? 5 : Number(process.argv[i + 1] ?? 5);
  const result = await runExtractThroughput(rounds);
  if (result) {
    console.log(
      `extract-throughput: ${result.files} HTML files, ${(result.bytes / 1e6).toFixed(2)} MB, median of ${rounds} interleaved rounds`,
    );
    console.log(`  bare htmlparser2 DOM parse : ${result.bareMBs.toFixed(2)} MB/s`);
    console.log(`  extractDocument (html)     : ${result.extractMBs.toFixed(2)} MB/s`);
    console.log(
      `  ratio extract / bare       : ${result.ratio.toFixed(2)}  (goal >= 0.75, issue 28: ${result.ratio >= 0.75 ? 'met' : 'NOT met'})`,
    );
  }
}
