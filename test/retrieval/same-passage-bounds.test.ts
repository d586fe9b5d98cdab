import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvidenceDocument, Section } from '../../src/document/types.js';
import type { LoadedSearchIndex } from '../../src/index/search-index.js';
import { MAX_SAME_PASSAGE, runQuery, type QueryResponse } from '../../src/query/query.js';
import { indexOfParts, makeDocument } from './fixtures.js';

/**
 * What a document that repeats one passage thousands of times can do to an answer: every copy is
 * one hit (a same-passage group), but the hit listed each copy's citation, so one answer was
 * megabytes long whatever --limit and --max-chars said, and folding near duplicates paired every
 * copy with every other (seconds for one query).
 */
function ask(index: LoadedSearchIndex, terms: string[]): QueryResponse {
  return runQuery(index, { terms, limit: 10, offset: 0, maxSnippetChars: 400, maxTotalChars: 8000 });
}

const PASSAGE = 'A cache must not store a response to a request whose method is unsafe; an unsafe method invalidates stored responses.';

/** A document of `copies` sections, each holding `text` (one chunk per section). */
function repeating(documentId: string, sourceUrl: string, copies: number, text: (i: number) => string): EvidenceDocument {
  const sections: Section[] = Array.from({ length: copies }, (_, i) => ({
    id: `s${i}`,
    fragment: `s${i}`,
    heading: 'Invalidation',
    level: 1,
    number: null,
    parentId: null,
  }));
  return makeDocument({
    documentId,
    sourceUrl,
    sections,
    blocks: sections.map((section, i) => ({ id: `b${i}`, sectionId: section.id, fragment: section.fragment, text: text(i) })),
  });
}

test('a hit lists at most MAX_SAME_PASSAGE copies of its passage, says how many more, and keeps the other renderings listed', () => {
  const copies = 600;
  const stuffed = repeating('a-stuffed', 'https://example.test/stuffed.html', copies, () => PASSAGE);
  const renderings = ['rfc9111.xml', 'rfc9111.txt'].map((name, i) =>
    makeDocument({
      documentId: `z-${i}`,
      sourceUrl: `https://example.org/${name}`,
      sections: [{ id: 'invalidation', fragment: 'invalidation', heading: 'Invalidation', level: 1, number: null, parentId: null }],
      blocks: [{ id: 'b', sectionId: 'invalidation', fragment: 'invalidation', text: PASSAGE }],
    }),
  );
  const response = ask(indexOfParts([stuffed, ...renderings]), ['unsafe method invalidates']);
  assert.equal(response.total, 1);
  const [hit] = response.hits;
  assert.ok(hit !== undefined);
  assert.equal(response.collapsed, copies + renderings.length - 1);
  assert.equal(hit.samePassage?.length, MAX_SAME_PASSAGE);
  assert.equal(hit.samePassageOmitted, copies + renderings.length - 1 - MAX_SAME_PASSAGE);
  // One document's copies do not crowd out the others: each other document is listed.
  const listed = new Set([hit.citation.sourceUrl, ...(hit.samePassage ?? []).map((same) => same.citation.sourceUrl)]);
  for (const url of ['https://example.test/stuffed.html', 'https://example.org/rfc9111.xml', 'https://example.org/rfc9111.txt'])
    assert.ok(listed.has(url), url);
  // Listed in chunk order, as before.
  const ids = (hit.samePassage ?? []).map((same) => same.chunkId);
  assert.ok(JSON.stringify(response).length < 40_000, `an answer of ${JSON.stringify(response).length} characters`);
  assert.equal(new Set(ids).size, ids.length);
});

test('a short list is unchanged: every copy, no samePassageOmitted', () => {
  const stuffed = repeating('a-few', 'https://example.test/few.html', MAX_SAME_PASSAGE + 1, () => PASSAGE);
  const [hit] = ask(indexOfParts([stuffed]), ['unsafe method invalidates']).hits;
  assert.equal(hit?.samePassage?.length, MAX_SAME_PASSAGE);
  assert.equal(hit?.samePassageOmitted, undefined);
});

test('folding near duplicates over hits that stand for thousands of copies is not quadratic in the copies', () => {
  // Two renderings of one resource (the same last URL segment), each holding two near-duplicate
  // passages thousands of times: two hits, each a group of thousands of chunks, compared for folding.
  // Pairing every copy with every other held 2 x 5000 x 2 x 5000 chunk pairs (16 s for one query). Ten
  // times the copies may take at most RATIO times as long, measured in this run: linear work is about
  // 10x, quadratic 100x. It tells linear from quadratic, not fast from slow.
  const RATIO = 40;
  const FLOOR_MS = 20;
  const other = `${PASSAGE.slice(0, -1)} at once.`;
  const timed = (copies: number): number => {
    const docs = ['https://one.test/rfc9111.html', 'https://two.test/rfc9111.html'].map((url, d) =>
      repeating(`d${d}`, url, copies, (i) => (i % 2 === 0 ? PASSAGE : other)),
    );
    const index = indexOfParts(docs);
    const started = performance.now();
    const response = ask(index, ['unsafe method invalidates']);
    const elapsed = performance.now() - started;
    assert.equal(response.total, 1, 'the near duplicate in the other rendering folds in');
    return elapsed;
  };
  timed(100); // warm the query path
  const small = Math.max(FLOOR_MS, timed(500));
  const large = timed(5000);
  assert.ok(large < RATIO * small, `5000 copies ${Math.round(large)} ms against 500 copies ${Math.round(small)} ms`);
});
