/**
 * The chunk stage of a save, in process, as a watch session's stage worker runs it (issue 28): each
 * round extracts a real spec with one word added to a paragraph, then cuts the chunks, encodes the
 * chunk file and makes the document's index part, with the memory of the last round that a worker
 * keeps (the chunker's runs by section, each chunk text's JSON and terms, the last part). The same
 * rounds are chunked by a worker without memory too, as the baseline.
 *
 *   npm run build && node dist/bench/chunk-stage.js [--rounds 30] [--files whatwg/dom.html,w3c/Overview.html] [--quick]
 *
 * Reported per file (medians over the rounds after the first 10, which warm the JIT): extract; chunk
 * (chunker + chunk file) and index part, with memory and without. Goal: the chunk stage (chunk + index
 * part, as the chunk target does both) at most 0.15x extract. `episteme watch` adds the task's round
 * trip and the files' writes (bench/watch-real-specs.ts measures the target as a whole).
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../src/chunk/chunker.js';
import { encodeChunks } from '../src/chunk/chunk-file.js';
import { SectionChunks } from '../src/chunk/section-chunks.js';
import type { Chunk, EvidenceDocument } from '../src/document/types.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../src/extract/extract.js';
import { buildDocumentPart, type PartMemory } from '../src/index/search-index.js';
import { indexTerms, type IndexTerms } from '../src/index/tokenizer.js';
import { canonicalJson } from '../src/store/canonical-json.js';
import { RoundMemo } from '../src/store/round-memo.js';
import { argument } from './args.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DEV = path.resolve(REPO, '..', 'shared', 'corpus', 'dev');
const quick = process.argv.includes('--quick') || process.env.EPISTEME_BENCH_QUICK === '1';
const rounds = Number(argument('--rounds', quick ? '12' : '30'));
const files = argument('--files', quick ? 'w3c/Overview.html' : 'whatwg/dom.html,w3c/Overview.html').split(',');
const WARM_UP = Math.min(10, rounds - 2);

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** What a stage worker keeps of one document between its chunk tasks. */
class ChunkMemory {
  readonly sections = new SectionChunks();
  readonly textJson = new RoundMemo<string, string>((text) => canonicalJson(text));
  readonly terms = new RoundMemo<string, IndexTerms>(indexTerms);
  part: PartMemory | undefined = undefined;
  recordOf = (chunk: Chunk) => this.sections.recordOf(chunk);
}

interface StageTimes {
  chunk: number;
  part: number;
  sha256: string;
  partText: string;
}

function chunkStage(doc: EvidenceDocument, memory: ChunkMemory | undefined): StageTimes {
  const start = performance.now();
  memory?.textJson.nextRound();
  memory?.terms.nextRound();
  const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS, memory?.sections);
  const payload = { chunkOptions: { ...DEFAULT_CHUNK_OPTIONS }, chunks, documentId: doc.documentId };
  const encoded = encodeChunks(
    payload,
    memory === undefined ? undefined : { textJson: (text) => memory.textJson.get(text), recordOf: memory.recordOf },
  );
  if (encoded === null) throw new Error('the chunks have a shape the encoder does not know');
  const chunked = performance.now();
  const partText = buildDocumentPart(doc.documentId, chunks, undefined, encoded.members, memory);
  return { chunk: chunked - start, part: performance.now() - chunked, sha256: encoded.sha256, partText };
}

async function extracted(body: Buffer, url: string): Promise<{ doc: EvidenceDocument; ms: number }> {
  const sha256 = createHash('sha256').update(body).digest('hex');
  const start = performance.now();
  const doc = await extractDocument({
    documentId: 'doc',
    source: { url },
    snapshot: {
      snapshotId: `snap-${sha256.slice(0, 16)}`,
      sourceUrl: url,
      captureMethod: 'manual-ingest',
      contentType: 'text/html',
      charset: null,
      sha256,
      byteLength: body.length,
    },
    body: new Uint8Array(body),
    options: DEFAULT_EXTRACT_OPTIONS,
  });
  return { doc, ms: performance.now() - start };
}

async function main(): Promise<void> {
  if (!fs.existsSync(DEV)) {
    console.log(`chunk-stage: SKIP (no ${DEV}: the dev corpus is in ../shared)`);
    return;
  }
  console.log(
    `chunk-stage (load average ${(await import('node:os'))
      .loadavg()
      .map((n) => n.toFixed(1))
      .join(' ')})`,
  );
  for (const file of files) {
    const original = fs.readFileSync(path.join(DEV, file), 'utf8');
    // A paragraph a tenth of the way in: one word added per round, one of seven, so rounds differ.
    const at = original.indexOf('<p>', Math.floor(original.length / 10)) + 3;
    const memory = new ChunkMemory();
    const times: { extract: number; remembered: StageTimes; fresh: StageTimes }[] = [];
    for (let round = 0; round < rounds; round++) {
      const body = Buffer.from(`${original.slice(0, at)}word${round % 7} ${original.slice(at)}`, 'utf8');
      const { doc, ms } = await extracted(body, `https://example.org/${file}`);
      const remembered = chunkStage(doc, memory);
      const fresh = chunkStage(doc, undefined);
      if (remembered.sha256 !== fresh.sha256 || remembered.partText !== fresh.partText)
        throw new Error(`${file}, round ${round}: the chunk stage with memory made other bytes than without`);
      times.push({ extract: ms, remembered, fresh });
    }
    const warm = times.slice(WARM_UP);
    const m = (pick: (t: (typeof warm)[number]) => number): number => median(warm.map(pick));
    const extract = m((t) => t.extract);
    const withMemory = m((t) => t.remembered.chunk + t.remembered.part);
    const without = m((t) => t.fresh.chunk + t.fresh.part);
    console.log(
      `  ${file}: extract ${extract.toFixed(1)} ms; chunk stage with the worker's memory ${withMemory.toFixed(1)} ms ` +
        `(chunk ${m((t) => t.remembered.chunk).toFixed(1)} + index part ${m((t) => t.remembered.part).toFixed(1)}; ` +
        `${(withMemory / extract).toFixed(2)}x extract; goal <= 0.15x: ${withMemory <= 0.15 * extract ? 'met' : 'NOT met'}); ` +
        `without memory ${without.toFixed(1)} ms (${(without / extract).toFixed(2)}x) (medians of ${warm.length} rounds)`,
    );
  }
}

await main();
