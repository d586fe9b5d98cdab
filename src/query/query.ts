import type { Authority, Citation, Normativity } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { chunkRow, decodePostings, findTerm, type LoadedSearchIndex } from '../index/index-reader.js';
import { tokenize } from '../index/tokenizer.js';
import { codePointLength } from '../chunk/text-boundaries.js';
import { deterministicLn } from './deterministic-math.js';
import { containsPhrase, parseQueryTerms } from './query-terms.js';
import { makeSnippet } from './snippet.js';

/**
 * BM25 over the loaded index. Scores use only basic float operations (and a deterministic ln), the
 * same terms are always summed in the same order, and ties break on (document id, chunk id), so rank order and the
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
}

export function runQuery(index: LoadedSearchIndex, request: QueryRequest): QueryResponse {
  requireInteger('limit', request.limit, 0);
  requireInteger('offset', request.offset, 0);
  requireInteger('max snippet chars', request.maxSnippetChars, 1);
  requireInteger('max total chars', request.maxTotalChars, 1);
  const query = parseQueryTerms(request.terms);
  const scored = scoreChunks(index, query, chunkFilter(index, request), request.offset + request.limit);
  const page = scored.top.slice(request.offset, request.offset + request.limit);
  const queryTerms = new Set(query.scoringTerms);
  const hits: QueryHit[] = [];
  let remaining = request.maxTotalChars;
  let truncated = false;
  for (const [i, entry] of page.entries()) {
    const bound = Math.min(request.maxSnippetChars, remaining);
    const row = chunkRow(index, entry.ordinal);
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
  return { total: scored.total, offset: request.offset, limit: request.limit, hits, truncated };
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
  const normativityOk = index.normativityValues.map((value) => normativity === undefined || normativity.has(value));
  return (ordinal) => documentOk[index.chunkDocument[ordinal]!]! && normativityOk[index.chunkNormativity[ordinal]!]!;
}

/**
 * Every matching chunk is counted; only the best `keep` (offset + limit) are ranked and returned,
 * in order: score descending, then chunk ordinal ascending. Chunk ordinals follow (document id,
 * chunk id) order, so equal scores break on that stable key.
 */
function scoreChunks(
  index: LoadedSearchIndex,
  query: ReturnType<typeof parseQueryTerms>,
  accept: (ordinal: number) => boolean,
  keep: number,
): { total: number; top: ScoredChunk[] } {
  const chunkCount = index.chunkCount;
  if (chunkCount === 0 || query.scoringTerms.length === 0) return { total: 0, top: [] };
  const k1 = index.k1Milli / 1000;
  const b = index.bMilli / 1000;
  const averageLength = index.totalLength / chunkCount;
  // Required: every term of every phrase and every quoted word (empty when none).
  const required = new Set<string>([...query.requiredTerms, ...query.phrases.flat()]);
  const scores = new Float64Array(chunkCount);
  // How many required terms each chunk has (only counted when there are required terms).
  const requiredHits = required.size > 0 ? new Uint16Array(chunkCount) : undefined;
  const touched: number[] = [];
  for (const term of query.scoringTerms) {
    const termIndex = findTerm(index, term);
    if (termIndex < 0) {
      if (required.has(term)) return { total: 0, top: [] };
      continue;
    }
    const { ordinals, tfs } = decodePostings(index, termIndex);
    const n = ordinals.length;
    const idf = deterministicLn(1 + (chunkCount - n + 0.5) / (n + 0.5));
    const isRequired = requiredHits !== undefined && required.has(term);
    for (let i = 0; i < n; i++) {
      const ordinal = ordinals[i]!;
      const tf = tfs[i]!;
      const norm = k1 * (1 - b + (b * index.lengths[ordinal]!) / averageLength);
      if (scores[ordinal] === 0) touched.push(ordinal);
      scores[ordinal] = scores[ordinal]! + (idf * (tf * (k1 + 1))) / (tf + norm);
      if (isRequired) requiredHits![ordinal] = requiredHits![ordinal]! + 1;
    }
  }
  const matched: number[] = [];
  for (const ordinal of touched) {
    if (requiredHits !== undefined && requiredHits[ordinal] !== required.size) continue;
    if (!accept(ordinal)) continue;
    if (query.phrases.length > 0) {
      const terms = tokenize(chunkRow(index, ordinal)[9]);
      if (!query.phrases.every((phrase) => containsPhrase(terms, phrase))) continue;
    }
    matched.push(ordinal);
  }
  const ranksBefore = (a: number, b: number): boolean => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  let top: number[];
  // The buffer costs at most `keep` moves per match, so it is used for small pages only.
  if (keep >= matched.length || keep > 32) {
    top = matched.sort((a, b) => (scores[a] !== scores[b] ? scores[b]! - scores[a]! : a - b)).slice(0, keep);
  } else {
    // A page near the top: keep a sorted buffer of the best `keep` (a cold process would spend
    // milliseconds sorting every match in the interpreter).
    top = [];
    for (const ordinal of matched) {
      if (top.length === keep && !ranksBefore(ordinal, top[keep - 1]!)) continue;
      let at = top.length === keep ? keep - 1 : top.length;
      while (at > 0 && ranksBefore(ordinal, top[at - 1]!)) {
        top[at] = top[at - 1]!;
        at--;
      }
      top[at] = ordinal;
    }
  }
  return { total: matched.length, top: top.map((ordinal) => ({ ordinal, score: scores[ordinal]! })) };
}

function makeHit(index: LoadedSearchIndex, entry: ScoredChunk, rank: number, snippet: { text: string; highlights: [number, number][] }): QueryHit {
  const row = chunkRow(index, entry.ordinal);
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
