import type { Authority, Citation, Normativity } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { decodePostings, findTerm, type LoadedSearchIndex } from '../index/search-index.js';
import { tokenize } from '../index/tokenizer.js';
import { codePointLength } from '../chunk/text-boundaries.js';
import { deterministicLn } from './deterministic-math.js';
import { containsPhrase, parseQueryTerms } from './query-terms.js';
import { makeSnippet } from './snippet.js';

/**
 * BM25 over the loaded index. Scores use only basic float operations (and a deterministic ln), the
 * same terms are always summed in the same order, and ties break on chunk id, so rank order and the
 * printed score are identical on every runtime. idf = ln(1 + (N - n + 0.5) / (n + 0.5)), the
 * always-positive (Lucene) form, with N = all chunks in the index, whatever the filters.
 */
export interface QueryRequest {
  terms: string[];
  family?: string[];
  authority?: string[];
  documentType?: string[];
  normativity?: string[];
  /** Hits returned at most (integer >= 0). */
  limit: number;
  /** Hits skipped first (integer >= 0). */
  offset: number;
  /** Bound on each snippet, in code points (integer >= 1). */
  maxSnippetChars: number;
  /** Bound on all snippets together, in code points (integer >= 1). */
  maxTotalChars: number;
}

export interface QueryHit {
  /** 1-based position in the whole ranking (offset included). */
  rank: number;
  /** BM25 score rounded to 4 decimals. */
  score: string;
  chunkId: string;
  snippet: { text: string; highlights: [number, number][] };
  citation: Citation;
  normativity: Normativity;
  family: string;
  authority: Authority;
  documentType: string;
  contentTrust: 'untrusted-source';
}

export interface QueryResponse {
  /** Matching chunks (after filters), whatever the limit. */
  total: number;
  offset: number;
  limit: number;
  hits: QueryHit[];
  /** True when maxTotalChars dropped hits of this page or shortened a snippet. */
  truncated: boolean;
}

export const SCORE_DECIMALS = 4;

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) throw new EpistemeError('usage-error', `${name} must be an integer of at least ${min}; got ${String(value)}.`);
}

interface ScoredChunk {
  ordinal: number;
  score: number;
  chunkId: string;
}

export function runQuery(index: LoadedSearchIndex, request: QueryRequest): QueryResponse {
  requireInteger('limit', request.limit, 0);
  requireInteger('offset', request.offset, 0);
  requireInteger('max snippet chars', request.maxSnippetChars, 1);
  requireInteger('max total chars', request.maxTotalChars, 1);
  const query = parseQueryTerms(request.terms);
  const scored = scoreChunks(index, query, chunkFilter(index, request));
  const page = scored.slice(request.offset, request.offset + request.limit);
  const queryTerms = new Set(query.scoringTerms);
  const hits: QueryHit[] = [];
  let remaining = request.maxTotalChars;
  let truncated = false;
  for (const [i, entry] of page.entries()) {
    const bound = Math.min(request.maxSnippetChars, remaining);
    const row = index.chunks[entry.ordinal]!;
    const snippet = makeSnippet(row[9], queryTerms, bound);
    if (bound < request.maxSnippetChars) {
      const full = makeSnippet(row[9], queryTerms, request.maxSnippetChars);
      if (full.text.length !== snippet.text.length) truncated = true;
    }
    if (snippet.text === '' && bound < request.maxSnippetChars) {
      truncated = true;
      break;
    }
    remaining -= codePointLength(snippet.text);
    hits.push(makeHit(index, entry, request.offset + i + 1, snippet));
    if (remaining <= 0 && i + 1 < page.length) {
      truncated = true;
      break;
    }
  }
  return { total: scored.length, offset: request.offset, limit: request.limit, hits, truncated };
}

function chunkFilter(index: LoadedSearchIndex, request: QueryRequest): (ordinal: number) => boolean {
  const set = (values: string[] | undefined): Set<string> | undefined => (values === undefined || values.length === 0 ? undefined : new Set(values));
  const family = set(request.family);
  const authority = set(request.authority);
  const documentType = set(request.documentType);
  const normativity = set(request.normativity);
  const documentOk = index.documents.map(
    (doc) => (family === undefined || family.has(doc[3])) && (authority === undefined || authority.has(doc[4])) && (documentType === undefined || documentType.has(doc[5])),
  );
  return (ordinal) => documentOk[index.chunkDocument[ordinal]!]! && (normativity === undefined || normativity.has(index.chunks[ordinal]![5]));
}

function scoreChunks(index: LoadedSearchIndex, query: ReturnType<typeof parseQueryTerms>, accept: (ordinal: number) => boolean): ScoredChunk[] {
  const chunkCount = index.chunks.length;
  if (chunkCount === 0 || query.scoringTerms.length === 0) return [];
  const k1 = index.k1Milli / 1000;
  const b = index.bMilli / 1000;
  const averageLength = index.totalLength / chunkCount;
  const scores = new Map<number, number>();
  const termPostings = query.scoringTerms.map((term) => {
    const termIndex = findTerm(index, term);
    return { term, postings: termIndex < 0 ? undefined : decodePostings(index, termIndex) };
  });
  // Required: every term of every phrase and every quoted word (empty when none).
  const required = new Set<string>([...query.requiredTerms, ...query.phrases.flat()]);
  for (const { term, postings } of termPostings) {
    if (postings === undefined) {
      if (required.has(term)) return [];
      continue;
    }
    const n = postings.ordinals.length;
    const idf = deterministicLn(1 + (chunkCount - n + 0.5) / (n + 0.5));
    for (let i = 0; i < n; i++) {
      const ordinal = postings.ordinals[i]!;
      const tf = postings.tfs[i]!;
      const norm = k1 * (1 - b + (b * index.lengths[ordinal]!) / averageLength);
      const weight = (idf * (tf * (k1 + 1))) / (tf + norm);
      scores.set(ordinal, (scores.get(ordinal) ?? 0) + weight);
    }
  }
  let candidates = [...scores.keys()];
  if (required.size > 0) {
    const requiredSets = termPostings.filter(({ term }) => required.has(term)).map(({ postings }) => new Set(postings!.ordinals));
    candidates = candidates.filter((ordinal) => requiredSets.every((set) => set.has(ordinal)));
    if (query.phrases.length > 0) {
      candidates = candidates.filter((ordinal) => {
        const terms = tokenize(index.chunks[ordinal]![9]);
        return query.phrases.every((phrase) => containsPhrase(terms, phrase));
      });
    }
  }
  const results: ScoredChunk[] = [];
  for (const ordinal of candidates) {
    if (accept(ordinal)) results.push({ ordinal, score: scores.get(ordinal)!, chunkId: index.chunks[ordinal]![0] });
  }
  results.sort((x, y) => (x.score !== y.score ? y.score - x.score : x.chunkId < y.chunkId ? -1 : x.chunkId > y.chunkId ? 1 : 0));
  return results;
}

function makeHit(index: LoadedSearchIndex, entry: ScoredChunk, rank: number, snippet: { text: string; highlights: [number, number][] }): QueryHit {
  const row = index.chunks[entry.ordinal]!;
  const doc = index.documents[index.chunkDocument[entry.ordinal]!]!;
  const [chunkId, sectionId, headingPath, blockIds, fragment, normativity, pages, span, textRange] = row;
  const citation: Citation = { sourceUrl: doc[1], fragment, snapshotId: doc[2], documentId: doc[0], sectionId, headingPath, blockIds };
  if (pages !== null) citation.pages = pages;
  if (span !== null) citation.span = span;
  if (textRange !== null) citation.textRange = textRange;
  return {
    rank,
    score: formatScore(entry.score),
    chunkId,
    snippet,
    citation,
    normativity: normativity as Normativity,
    family: doc[3],
    authority: doc[4] as Authority,
    documentType: doc[5],
    contentTrust: 'untrusted-source',
  };
}

/** Fixed decimals: Number.prototype.toFixed is exactly specified, so the text is the same everywhere. */
export function formatScore(score: number): string {
  return score.toFixed(SCORE_DECIMALS);
}
