import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { codePointLength } from '../../src/chunk/text-boundaries.js';
import type { Chunk, EvidenceDocument } from '../../src/document/types.js';
import { buildSearchIndex, DEFAULT_INDEX_OPTIONS, loadSearchIndex } from '../../src/index/search-index.js';
import { namingTerms, runQuery, type QueryHit, type QueryRequest } from '../../src/query/query.js';
import { PROXIMITY_DEPTH } from '../../src/query/proximity.js';
import { checkSnippet, loadDevCorpus, random } from './corpus-helpers.js';
import { citedFragment, stableAnchorOffsets } from '../../src/query/citation-choice.js';
import { parseQueryTerms } from '../../src/query/query-terms.js';
import { withJoinedWords } from '../../src/query/joined-words.js';
import { matchOffset } from '../../src/query/snippet.js';
import { ALL_DOCS } from './fixtures.js';
import { scaled } from '../helpers/scale.js';

/**
 * Random queries over random chunk and index options. For every response: at most `limit` hits,
 * ranks continue from `offset`, every snippet within maxSnippetChars and all of them within
 * maxTotalChars, every hit's citation names an existing chunk whose text contains the snippet
 * (between ellipses where it was cut, at word boundaries) and the nearest stable source id at or
 * before its match (citation-choice.ts), every snippet highlights a query word or says why it could not,
 * highlights lie inside the snippet, filters hold, and the order is score-descending (but for a
 * section's repeats among the first hits, which follow the other sections: checkOrder). Uses the
 * fixtures plus part of the dev corpus when it is present.
 */
const SEEDS = process.env.PROPERTY_SEEDS ? process.env.PROPERTY_SEEDS.split(',').map(Number) : [1, 2, 3];
/** Each seed is its own chunk and index options; 100 random queries over each (times EPISTEME_TEST_SCALE). */
const QUERIES_PER_SEED = scaled(100);

test('random queries and options respect every bound and cite real chunks', async (t) => {
  const dev = (await loadDevCorpus()) ?? [];
  if (dev.length === 0) t.diagnostic('dev corpus absent: fixtures only');
  const docs: EvidenceDocument[] = [...ALL_DOCS, ...dev.filter((_, i) => i % 4 === 0)];
  for (const seed of SEEDS) {
    const rand = random(seed);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
    const int = (min: number, max: number): number => min + Math.floor(rand() * (max - min + 1));
    const maxChars = int(80, 2500);
    const chunkOptions = { maxChars, overlapChars: int(0, Math.floor(maxChars / 2)) };
    const indexOptions = { k1: int(0, 3000) / 1000, b: int(0, 1000) / 1000 };
    const chunks = new Map<string, Chunk>();
    const corpus = docs.map((doc) => {
      const docChunks = chunkDocument(doc, chunkOptions);
      for (const chunk of docChunks) chunks.set(chunk.chunkId, chunk);
      return { documentId: doc.documentId, chunks: docChunks };
    });
    const index = loadSearchIndex(buildSearchIndex(corpus, { chunkIndexFingerprint: 'p', missingSources: [] }, indexOptions), 'property');
    const all = [...chunks.values()];
    const words = (text: string): string[] => text.match(/[\p{L}\p{N}]+/gu) ?? [];
    const values = (key: 'family' | 'authority' | 'documentType' | 'normativity'): string[] => [...new Set(all.map((c) => c[key]))];
    for (let q = 0; q < QUERIES_PER_SEED; q++) {
      const context = `seed ${seed} query ${q} options ${JSON.stringify({ chunkOptions, indexOptions })}`;
      const source = words(pick(all).text);
      const terms: string[] = [];
      for (let n = int(1, 3); n > 0; n--) {
        const at = int(0, Math.max(0, source.length - 1));
        const kind = rand();
        if (kind < 0.2 && source.length > 2) terms.push(`"${source.slice(at, at + int(2, 3)).join(' ')}"`);
        else if (kind < 0.3) terms.push(pick(['zzqx', '"the of"', '!!', '東京', 'Straße', '"unclosed phrase']));
        else terms.push(source.slice(at, at + int(1, 4)).join(' ') || 'empty');
      }
      const request: QueryRequest = {
        terms,
        limit: int(0, 25),
        offset: rand() < 0.7 ? 0 : int(0, 40),
        maxSnippetChars: int(1, 700),
        maxTotalChars: int(1, 4000),
      };
      for (const key of ['family', 'authority', 'documentType', 'normativity'] as const) {
        if (rand() < 0.15) request[key] = [pick(values(key))];
      }
      const response = runQuery(index, request);
      // The words the query scores: the ones it says, and pairs of them the index holds written together.
      const scoringTerms = new Set(withJoinedWords(parseQueryTerms(request.terms), request.terms, index).scoringTerms);
      assert.ok(response.hits.length <= request.limit, context);
      assert.equal(response.offset, request.offset, context);
      assert.equal(response.limit, request.limit, context);
      const available = Math.max(0, Math.min(request.limit, response.total - request.offset));
      if (!response.truncated) assert.equal(response.hits.length, available, context);
      else assert.ok(response.hits.length <= available, context);
      let totalChars = 0;
      response.hits.forEach((hit, i) => {
        assert.equal(hit.rank, request.offset + i + 1, context);
        const chunk = chunks.get(hit.chunkId);
        assert.ok(chunk !== undefined, `${context}: unknown chunk ${hit.chunkId}`);
        checkSnippet(hit.snippet, chunk.text, `${context}: ${hit.chunkId}`);
        // The citation is the chunk's, its fragment the nearest source id at or before the match (the first of its names).
        const { fragment, ...rest } = hit.citation;
        const { fragment: chunkFragment, ...chunkRest } = chunk.citation;
        assert.deepEqual(rest, chunkRest, context);
        // The match is in the densest default-size window, whatever the snippet's bound: the first query word of the
        // passage between two stable source ids that matches best there.
        const at = matchOffset(chunk.text, scoringTerms, stableAnchorOffsets(chunk.anchors ?? null));
        assert.equal(fragment, citedFragment(chunk.anchors ?? null, chunkFragment, at, chunk.citation.pages ?? null, chunk.text), context);
        // A source id of the chunk, or (a PDF passage, which has none) its first page.
        const page = chunkFragment === null && chunk.citation.pages?.length ? `page=${chunk.citation.pages[0]}` : null;
        assert.ok(fragment === chunkFragment || fragment === page || (chunk.anchors ?? []).some(([, id]) => id === fragment), context);
        // A highlighted query word, or a note saying why not: a match only in the heading path, or a bound
        // smaller than the shortest window with a match (the answer's own bound counts).
        const note = hit.snippet.noHighlight;
        if (hit.snippet.highlights.length === 0) {
          assert.ok(note !== undefined, `${context}: ${hit.chunkId} has no highlight and no note`);
          if (note.reason === 'bound-too-small') {
            assert.equal(hit.snippet.text, '', context);
            assert.ok(note.minChars > request.maxSnippetChars, `${context}: needs ${note.minChars}, bound ${request.maxSnippetChars}`);
          }
        } else assert.equal(note, undefined, context);
        assert.equal(hit.contentTrust, 'untrusted-source');
        for (const key of ['family', 'authority', 'documentType', 'normativity'] as const) {
          assert.equal(hit[key], chunk[key], context);
          if (request[key] !== undefined) assert.ok(request[key]!.includes(hit[key]), `${context}: filter ${key}`);
        }
        const length = codePointLength(hit.snippet.text);
        assert.ok(length <= request.maxSnippetChars, `${context}: snippet of ${length} > ${request.maxSnippetChars}`);
        totalChars += length;
        let previousEnd = 0;
        for (const [start, end] of hit.snippet.highlights) {
          assert.ok(start >= previousEnd && start < end && end <= length, `${context}: highlight ${start}-${end}`);
          previousEnd = end;
        }
      });
      assert.ok(totalChars <= request.maxTotalChars, `${context}: ${totalChars} > ${request.maxTotalChars}`);
      // The page is that slice of the whole ranking (a page near the top is selected, not sorted).
      const full = runQuery(index, { ...request, offset: 0, limit: 1000, maxSnippetChars: 1, maxTotalChars: 1_000_000 });
      assert.equal(full.total, response.total, context);
      checkOrder(full.hits, context);
      assert.deepEqual(
        response.hits.map((hit) => [hit.chunkId, hit.score]),
        full.hits.slice(request.offset, request.offset + response.hits.length).map((hit) => [hit.chunkId, hit.score]),
        context,
      );
      // Same request, same answer (no hidden state).
      assert.deepEqual(runQuery(index, request), response, context);
    }
  }
});

/**
 * Random questions that name their document (two or three words of its source URL beside words of
 * one of its chunks) over the fixtures and the dev corpus's real addresses: among the hits the
 * proximity re-scoring reached, a pair of words that both name the document gives each of its chunks
 * the same points (the document's), whichever chunk repeats the name; and the hit's points add up.
 */
test('a pair of words naming a document gives each of its re-scored chunks the same points', async (t) => {
  const dev = (await loadDevCorpus()) ?? [];
  if (dev.length === 0) t.diagnostic('dev corpus absent: fixtures only');
  const docs: EvidenceDocument[] = [...ALL_DOCS, ...dev].filter((doc) => doc.blocks.length > 0);
  const index = loadSearchIndex(
    buildSearchIndex(
      docs.map((doc) => ({ documentId: doc.documentId, chunks: chunkDocument(doc, DEFAULT_CHUNK_OPTIONS) })),
      { chunkIndexFingerprint: 'p', missingSources: [] },
      DEFAULT_INDEX_OPTIONS,
    ),
    'property',
  );
  const rand = random(7);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  let compared = 0;
  for (let q = 0; q < scaled(60); q++) {
    const doc = pick(docs);
    const urlWords = doc.sourceUrl.replace(/^[a-z]+:/i, '').match(/[\p{L}\p{N}]+/gu) ?? [];
    const textWords = pick(doc.blocks).text.match(/[\p{L}]{4,}/gu) ?? [];
    const at = Math.floor(rand() * Math.max(1, urlWords.length - 2));
    const term = [...urlWords.slice(at, at + 2 + Math.floor(rand() * 2)), ...textWords.slice(0, 3)].join(' ');
    const response = runQuery(index, {
      terms: [term],
      limit: PROXIMITY_DEPTH,
      offset: 0,
      maxSnippetChars: 1,
      maxTotalChars: 100_000,
      explain: true,
    });
    const byDocument = new Map<string, string>();
    for (const hit of response.hits) {
      const explain = hit.explain!;
      const termPoints = explain.terms.reduce((sum, one) => sum + one.points, 0);
      const pairPoints = explain.proximity.reduce((sum, pair) => sum + pair.points, 0);
      assert.equal(termPoints + pairPoints, explain.points, `${term}: ${hit.chunkId} points add up`);
      // A collapsed group is explained by the member that scored it, which may be another rendering's.
      if (hit.samePassage !== undefined) continue;
      const naming = namingTerms(hit.citation.sourceUrl);
      const shared = explain.proximity.filter((pair) => pair.terms.every((word) => naming.has(word)));
      if (shared.length === 0) continue;
      const key = JSON.stringify(shared.map((pair) => [pair.terms, pair.points]));
      const seen = byDocument.get(hit.citation.documentId);
      if (seen !== undefined) {
        assert.equal(key, seen, `${term}: ${hit.chunkId}`);
        compared++;
      }
      byDocument.set(hit.citation.documentId, key);
    }
  }
  if (dev.length > 0) assert.ok(compared > 0, 'some questions had two chunks of one document with naming pairs');
});

/**
 * The whole ranking's order: score-descending, except that among the first PROXIMITY_DEPTH hits a
 * hit of a section an earlier hit already showed (a repeat) follows every hit that is not one
 * (query.ts, sectionsFirst). A hit's sections: its citation's and its collapsed members' (the one
 * that scored it is among them); in a PDF, a section on the page its chunk starts on.
 */
function checkOrder(hits: readonly QueryHit[], context: string): void {
  const sectionsOf = (hit: QueryHit): string[] =>
    [hit.citation, ...(hit.samePassage ?? []).map((same) => same.citation)].map(
      (c) => `${c.documentId}\u0000${c.sectionId ?? ''}\u0000${c.pages?.[0] ?? ''}`,
    );
  const seen = new Set<string>();
  const repeat = hits.map((hit) => {
    const sections = sectionsOf(hit);
    const isRepeat = sections.some((section) => seen.has(section));
    for (const section of sections) seen.add(section);
    return isRepeat;
  });
  const head = hits.slice(0, PROXIMITY_DEPTH);
  const firsts = head.filter((_, i) => !repeat[i]);
  const repeats = head.filter((_, i) => repeat[i]);
  const descending = (list: readonly QueryHit[], what: string): void =>
    list.forEach((hit, i) => {
      if (i > 0) assert.ok(Number(list[i - 1]!.score) >= Number(hit.score), `${context}: order of ${what}`);
    });
  descending(firsts, 'first hits of sections');
  descending(repeats, 'repeats');
  // A repeat goes before a first hit exactly when it has more than four times its points.
  const points = (hit: QueryHit): number => Math.round(Number(hit.score) * 10_000);
  for (let i = 0; i < head.length; i++)
    for (let j = i + 1; j < head.length; j++) {
      const [a, b] = [points(head[i]!), points(head[j]!)];
      if (repeat[i] && !repeat[j]) assert.ok(a > 4 * b, `${context}: a repeat before a first hit it does not outscore`);
      if (!repeat[i] && repeat[j]) assert.ok(4 * a >= b, `${context}: a first hit before a repeat that outscores it`);
    }
  const rest = hits.slice(PROXIMITY_DEPTH);
  descending(rest, 'hits past the first');
  const lowest = Math.min(...head.map((hit) => Number(hit.score)));
  if (rest.length > 0) assert.ok(Number(rest[0]!.score) <= lowest, `${context}: a hit past the first above them`);
}
