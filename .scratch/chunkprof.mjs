import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { runStageTask } from '../dist/src/graph/stage-tasks.js';
import { WorkerMemory } from '../dist/src/graph/worker-memory.js';
import { DEFAULT_EXTRACT_OPTIONS } from '../dist/src/extract/extract.js';
import { DEFAULT_CHUNK_OPTIONS, chunkDocument } from '../dist/src/chunk/chunker.js';
import { encodeChunks } from '../dist/src/chunk/chunk-file.js';
import { buildDocumentPart } from '../dist/src/index/search-index.js';
const file = process.argv[2] ?? 'whatwg/dom.html';
const url = file.includes('dom') ? 'https://dom.spec.whatwg.org/' : 'https://www.w3.org/TR/css-flexbox-1/';
let text = readFileSync('/work/shared/corpus/dev/' + file, 'utf8');
const memory = new WorkerMemory();
const mid = text.indexOf('<p>', text.length >> 1);
let prevPart;
for (let i = 0; i < 12; i++) {
  text = text.slice(0, mid + 3) + 'word' + i + ' ' + text.slice(mid + 3);
  const body = Buffer.from(text);
  const sha = createHash('sha256').update(body).digest('hex');
  const t0 = performance.now();
  const ex = await runStageTask({ stage: 'extract', input: { documentId: 'd', source: { url }, snapshot: { snapshotId: 'snap-' + sha.slice(0, 16), sourceUrl: url, captureMethod: 'manual-ingest', contentType: 'text/html', charset: null, sha256: sha, byteLength: body.length }, body, options: DEFAULT_EXTRACT_OPTIONS } }, memory);
  const t1 = performance.now();
  const doc = memory.documents.get(ex.sha256);
  const c0 = performance.now();
  const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
  const c1 = performance.now();
  const ch = await runStageTask({ stage: 'chunk', documentId: 'd', documentSha256: ex.sha256, options: DEFAULT_CHUNK_OPTIONS, ...(prevPart ? { previousPart: prevPart } : {}) }, memory);
  const t2 = performance.now();
  prevPart = ch.part;
  console.log(`save ${i}: extract ${(t1 - t0).toFixed(1)} chunkTask ${(t2 - c1).toFixed(1)} (chunkDocument alone ${(c1 - c0).toFixed(1)}) chunks ${chunks.length} docbytes ${ex.bytes.length} part ${ch.part.length}`);
}
// phase timing on the last doc
{
  const body = Buffer.from(text);
  const doc = JSON.parse(JSON.stringify(memory.documents.get([...memory.documents['entries'].keys()].pop()) ?? null));
}
