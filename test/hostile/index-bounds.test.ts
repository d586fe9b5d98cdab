import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Sandbox, assertFailure } from './harness.js';
import { ordinaryHtml } from './hostile-documents.js';
import { seededRandom } from '../helpers/random.js';
import { buildDocumentPart, MAX_DOCUMENT_TERMS } from '../../src/index/search-index.js';
import type { Chunk } from '../../src/document/types.js';
import { EpistemeError } from '../../src/failure.js';
import { indexTerms, type IndexTerms } from '../../src/index/tokenizer.js';

/**
 * A document's share of the search index is bounded in distinct terms (search-index.ts
 * MAX_DOCUMENT_TERMS): random data in base64, under limits.maxFileBytes, has a new term every few
 * words, and 10 MB of it took the chunk target 58 s and the build 1.3 GB (60 MB ran the chunk worker
 * out of its 2 GiB heap). It fails by name, quickly, and the other documents build.
 */
function randomBase64(bytes: number, seed: number): string {
  const next = seededRandom(seed);
  const raw = Buffer.alloc(bytes);
  for (let i = 0; i < bytes; i++) raw[i] = Math.floor(next() * 256);
  // Lines of 76 characters, as base64(1) writes them.
  return (raw.toString('base64').match(/.{1,76}/g) ?? []).join('\n') + '\n';
}

type TargetRow = { target: string; rule: string; status: string; error?: { code: string; details?: Record<string, unknown> } };

test('random data in base64 fails its chunk target with index-bound-exceeded, within bounds, and the other document builds', async () => {
  const box = new Sandbox();
  try {
    box.write({
      'src/blob.txt': randomBase64(3 * 1024 * 1024, 7),
      'src/ordinary.html': ordinaryHtml('Ordinary'),
      'map.json': JSON.stringify([
        { sourceUrl: 'https://hostile.test/blob', localPath: 'src/blob.txt', contentType: 'text/plain' },
        { sourceUrl: 'https://ordinary.test/doc', localPath: 'src/ordinary.html', contentType: 'text/html' },
      ]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json' }),
    });
    const result = await box.run(['build', '--json']);
    console.log(`# random base64: ${Math.round(result.elapsedMs)} ms, peak RSS ${Math.round(result.peakRssMb ?? -1)} MiB`);
    assertFailure(result, { code: 'target-failed', exit: 1, maxMs: 60_000, maxRssMb: 900 });
    const rows = result.json!.data.targets as TargetRow[];
    const chunk = rows.find((row) => row.rule === 'chunk' && row.target.includes('hostile-test'));
    assert.equal(chunk?.status, 'failed', JSON.stringify(chunk));
    assert.equal(chunk?.error?.code, 'index-bound-exceeded');
    assert.equal(chunk?.error?.details?.['bound'], 'index-distinct-terms');
    const ordinary = rows.find((row) => row.rule === 'chunk' && row.target.includes('ordinary-test'));
    assert.equal(ordinary?.status, 'built');
  } finally {
    box.cleanup();
  }
});

/** A number written in letters (no digits: the tokenizer splits letter-digit words into parts). */
function letters(n: number): string {
  let out = '';
  do {
    out = String.fromCharCode(97 + (n % 26)) + out;
    n = Math.floor(n / 26);
  } while (n > 0);
  return out;
}

/** Chunks of document "doc" with `words` distinct made-up words each, `count` of them. */
function chunksOf(count: number, words: number, salt: string): Chunk[] {
  return Array.from({ length: count }, (_, i) => ({
    chunkId: `doc#c${String(i).padStart(5, '0')}`,
    documentId: 'doc',
    // Ending in "qx": no suffix the stemmer removes, so every word is its own term.
    text: Array.from({ length: words }, (_, w) => `zq${salt}${letters(i * words + w)}qx`).join(' '),
    contentTrust: 'untrusted-source',
    citation: {
      sourceUrl: 'https://example.org/',
      fragment: null,
      snapshotId: 'snap',
      documentId: 'doc',
      sectionId: null,
      headingPath: ['Doc'],
      blockIds: [`c${i}`],
    },
    normativity: 'informative',
    family: 'generic',
    authority: 'informative',
    documentType: 'spec',
  }));
}

test('the distinct-term bound is the same whether a part is built afresh or patched from the last one', () => {
  const isBound = (error: unknown): boolean => error instanceof EpistemeError && error.code === 'index-bound-exceeded';
  const distinct = (chunks: Chunk[]): number =>
    new Set(chunks.flatMap((chunk) => [...indexTermsCached(chunk.text).terms, ...indexTermsCached('Doc').terms])).size;
  // Just under the bound: built.
  const perChunk = 100;
  const under = chunksOf(Math.floor((MAX_DOCUMENT_TERMS - 2000) / perChunk), perChunk, 'a');
  assert.ok(distinct(under) <= MAX_DOCUMENT_TERMS, `${distinct(under)} distinct terms`);
  const memory = { terms: { get: (text: string) => indexTermsCached(text) }, part: undefined };
  buildDocumentPart('doc', under, undefined, undefined, memory);
  assert.ok(memory.part !== undefined, 'the part under the bound was built');
  // One chunk edited to bring many new terms: past the bound, patched and fresh alike.
  const over = under.map((chunk, i) => (i === 3 ? { ...chunk, text: chunksOf(1, 5000, 'b')[0]!.text } : chunk));
  assert.ok(distinct(over) > MAX_DOCUMENT_TERMS, `${distinct(over)} distinct terms`);
  assert.throws(() => buildDocumentPart('doc', over, undefined, undefined, memory), isBound, 'patched');
  assert.throws(() => buildDocumentPart('doc', over), isBound, 'fresh');
});

const termCache = new Map<string, IndexTerms>();
function indexTermsCached(text: string): IndexTerms {
  let terms = termCache.get(text);
  if (terms === undefined) {
    terms = indexTerms(text);
    termCache.set(text, terms);
  }
  return terms;
}
