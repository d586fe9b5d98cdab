/**
 * Extraction throughput over the dev-corpus HTML, next to bare htmlparser2 parsing of the same files
 * into a DOM (the floor any DOM-based extractor pays), measured in the same run and interleaved round by
 * round so machine noise hits both. Goal: extraction at least half the bare-parse rate.
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
  const entries = (JSON.parse(readFileSync(mapPath, 'utf8')) as Entry[]).filter((e) => e.contentType.startsWith('text/html'));
  const files = entries.map((e) => {
    const body = new Uint8Array(readFileSync(path.join(corpusDir, e.localPath)));
    const sha256 = sha256Hex(body);
    return { entry: e, body, sha256 };
  });
  const bytes = files.reduce((n, f) => n + f.body.length, 0);
  const bare = (): void => {
    // Same decoding work as extraction, then a DOM: the bare cost of getting a tree.
    for (const f of files) parseDocument(new TextDecoder('utf-8').decode(f.body));
  };
  const extract = async (): Promise<void> => {
    for (const f of files) {
      await extractDocument({
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
    }
  };
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
