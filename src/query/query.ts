import type { Authority, Citation, Normativity } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import {
  chunkRow,
  decodePostings,
  findTerm,
  passageGroupsOf,
  readRows,
  type LoadedSearchIndex,
  type Postings,
} from '../index/index-reader.js';
import { isSymbolTerm, symbolText } from '../index/symbol-terms.js';
import { stemPrefix, tokenize, wantedTermPositions } from '../index/tokenizer.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { codePointLength } from '../chunk/text-boundaries.js';
import { citedFragment, foldNearDuplicates, mostOpenable, NEAR_DUPLICATE_DEPTH, stableAnchorOffsets } from './citation-choice.js';
import { headingNames, namedTerms } from './named-ids.js';
import { containsPhrase, parseQueryTerms } from './query-terms.js';
import { withJoinedWords, withoutParts } from './joined-words.js';
import { expandQuery, FEEDBACK_CHUNKS } from './feedback.js';
import { DOCUMENT_WEIGHT, documentLengths, documentPostings, type DocumentPostings } from './document-context.js';
import {
  APPARATUS_WEIGHT,
  chunkFieldWeight,
  formatPoints,
  HEADING_WEIGHT,
  lengthNorm,
  namePoints,
  QUERY_K3,
  queryTermWeight,
  SCORE_SCALE,
  termPoints,
  TermPointsMemo,
  termWeight,
  type TermWeight,
} from './ranking.js';
import { makeSnippet, matchOffset, type Snippet } from './snippet.js';
import {
  ORDERED_WEIGHT,
  PROXIMITY_DEPTH,
  PROXIMITY_WINDOW,
  proximityEvidence,
  queryPairs,
  type PairEvidence,
  type QueryPair,
} from './proximity.js';

/**
 * BM25F over the loaded index (formula and constants: ranking.ts). Each term's contribution is an
 * integer number of points, a score is their exact sum, and ties break on (document id, chunk id),
 * so rank order and the printed score are identical on every runtime. N (for idf) = all chunks in
 * the index, whatever the filters. A chunk's points are its terms' points in the chunk plus, for
 * every query term its document has, the document's share (document-context.ts). Chunks whose text
 * is the same passage (the index groups them) are shown once, at the best-ranked of them, listing
 * the others' citations.
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
  /** One hit per passage (default true): chunks with the same normalised text become one hit. */
  collapse?: boolean;
  /** Attach each hit's score breakdown (default false). */
  explain?: boolean;
  /** Pseudo-relevance feedback (default false): add the strongest terms of the first results (feedback.ts). */
  expand?: boolean;
}

/** A term's evidence in one scope: the chunk itself, or its whole document. */
export interface TermEvidence {
  /** Chunks (or documents) that have the term, and idf in thousandths. */
  documentFrequency: number;
  idfMilli: number;
  /** Where the term occurs: text ("body"), heading path ("heading"), or both. */
  field: 'body' | 'heading' | 'body+heading';
  bodyFrequency: number;
  headingFrequency: number;
  /** bodyFrequency + headingWeight · headingFrequency. */
  weightedFrequency: number;
  /** Length in tokens, and 1 - b + b · length / average length in thousandths. */
  length: number;
  lengthNormMilli: number;
  /** Integer points from this scope. */
  points: number;
}

/** One query term's share of a hit's score: points = chunk points + document points + heading-name and id-name points. */
export interface TermContribution {
  /** The index term: a word's (stemmed, folded) term, or a symbol as the text writes it (`->>`). */
  term: string;
  /** Points from the chunk's own section heading naming the term with the query's other words (0 otherwise; named-ids.ts). */
  headingName: number;
  /** Points from an element id in the chunk naming the term with the query's other words (0 otherwise; named-ids.ts). */
  idName: number;
  /**
   * Times the query says the term (0 for a term added by --expand), and its weight in thousandths
   * ((k3 + 1) · qtf / (k3 + qtf), or the feedback weight).
   */
  queryFrequency: number;
  queryWeightMilli: number;
  points: number;
  /** The term in this chunk (null when only other chunks of the document have it). */
  chunk: TermEvidence | null;
  /** The term in the whole document, scored with documentWeight times the query weight. */
  document: TermEvidence;
}

export interface ScoreExplanation {
  /** The hit's points: the sum of its terms' points (score = points / pointsPerUnit). */
  points: number;
  /** Constants of the formula (ranking.ts, document-context.ts): k1, b, document weight in thousandths, k3, heading weight. */
  k1Milli: number;
  bMilli: number;
  queryK3: number;
  headingWeight: number;
  /**
   * Whether the chunk is of the document's apparatus (contents, status, acknowledgements, references,
   * indexes, change logs), and the weight of its matches then (ranking.ts APPARATUS_WEIGHT) in
   * thousandths: the chunk scope's weighted frequency and points include it.
   */
  apparatus: boolean;
  apparatusWeightMilli: number;
  documentWeightMilli: number;
  pointsPerUnit: number;
  /** One entry per query term the chunk or its document has, in term order. */
  terms: TermContribution[];
  /**
   * Neighbouring query words found close together in the chunk (proximity.ts): window, ordered-adjacency weight,
   * and per pair its accumulation (sum of weight / distance², in thousandths) and points.
   */
  proximityWindow: number;
  orderedWeight: number;
  proximity: { terms: [string, string]; accumulationMilli: number; points: number }[];
}

export interface QueryHit {
  /** 1-based position in the whole ranking (offset included). */
  rank: number;
  /** BM25F score: the hit's integer points / 10000, with 4 decimals. */
  score: string;
  chunkId: string;
  snippet: Snippet;
  citation: Citation;
  normativity: Normativity;
  family: string;
  authority: Authority;
  documentType: string;
  contentTrust: 'untrusted-source';
  /**
   * Citations of the other matching chunks with the same passage text, collapsed into this hit (chunk
   * order), at most MAX_SAME_PASSAGE of them.
   */
  samePassage?: { chunkId: string; citation: Citation }[];
  /** How many more chunks with the same passage were collapsed into this hit than samePassage lists. */
  samePassageOmitted?: number;
  explain?: ScoreExplanation;
}

export interface QueryResponse {
  /** Matching hits (after filters and collapsing), whatever the limit. */
  total: number;
  /** Matching chunks folded into another hit with the same passage (0 when collapsing is off). */
  collapsed: number;
  offset: number;
  limit: number;
  hits: QueryHit[];
  /** True when maxTotalChars dropped hits of this page or shortened a snippet. */
  truncated: boolean;
}

/**
 * The most same-passage citations a hit lists. A document can repeat one paragraph thousands of
 * times (or a corpus hold thousands of copies): every copy is one hit, but listing each made one
 * answer megabytes long and cost a citation match per copy, whatever --limit and --max-chars said.
 */
export const MAX_SAME_PASSAGE = 20;

function requireInteger(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw new EpistemeError('usage-error', `${name} must be an integer of at least ${min}; got ${String(value)}.`);
}

interface ScoredChunk {
  /** The chunk shown: of its passage group, the one whose citation a reader can open at the passage (citation-choice.ts). */
  ordinal: number;
  /** The chunk whose BM25F points the hit carries: the group's best-ranked member (explanations are of it). */
  scoredBy: number;
  /** BM25F points plus proximity points. */
  points: number;
  /** Query terms an element id in the chunk names entirely (named-ids.ts, namedTerms): namePoints each. */
  named: string[];
  /** Query terms the chunk's own section heading consists of (named-ids.ts, headingNames): namePoints each. */
  headingNamed: string[];
  /** Proximity evidence (empty below PROXIMITY_DEPTH or without close pairs). */
  proximity: PairEvidence[];
  /** Other matching chunks with the same passage, ascending. */
  samePassage: number[];
}

export function runQuery(index: LoadedSearchIndex, request: QueryRequest): QueryResponse {
  requireInteger('limit', request.limit, 0);
  requireInteger('offset', request.offset, 0);
  requireInteger('max snippet chars', request.maxSnippetChars, 1);
  requireInteger('max total chars', request.maxTotalChars, 1);
  const accept = chunkFilter(index, request);
  const collapse = request.collapse ?? true;
  let query = withJoinedWords(parseQueryTerms(request.terms), request.terms, index);
  if (request.expand === true) query = expandQuery(index, query, rankChunks(index, query, accept, FEEDBACK_CHUNKS, collapse).top);
  const scored = rankChunks(index, query, accept, request.offset + request.limit, collapse);
  const page = scored.top.slice(request.offset, request.offset + request.limit);
  readRows(
    index,
    page.flatMap((entry) => [entry.ordinal, ...listedSamePassage(index, entry.samePassage)]),
  );
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
      if (full.text !== snippet.text) truncated = true;
      // What is left of --max-chars cannot show this hit's match (or any of its text): the page ends here.
      if (snippet.text === '' || (snippet.highlights.length === 0 && full.highlights.length > 0)) {
        truncated = true;
        break;
      }
    }
    remaining -= codePointLength(snippet.text);
    const hit = makeHit(index, entry, request.offset + i + 1, snippet, queryTerms);
    if (request.explain === true) hit.explain = explainScore(index, query, scored, entry);
    hits.push(hit);
    if (remaining <= 0 && i + 1 < page.length) {
      truncated = true;
      break;
    }
  }
  return { total: scored.total, collapsed: scored.collapsed, offset: request.offset, limit: request.limit, hits, truncated };
}

/**
 * Family and document type are open sets (rules name them), so a value is checked against what the
 * index holds: an unknown one is a usage error listing the held values, never a silent zero hits.
 */
function requireHeldValues(
  index: LoadedSearchIndex,
  names: { option: string; field: string },
  column: 3 | 5,
  values: string[] | undefined,
): void {
  if (values === undefined) return;
  const held = [...new Set(index.documents.map((doc) => doc[column]))].sort(compareCodeUnits);
  const unknown = [...new Set(values.filter((value) => !held.includes(value)))].sort(compareCodeUnits);
  if (unknown.length === 0) return;
  const { option, field } = names;
  const list = held.length === 0 ? 'none (the index has no documents)' : held.join(', ');
  // The same request comes from flags, a --batch line or an MCP call: the hint names both forms.
  const example = JSON.stringify(held[0] ?? '');
  throw new EpistemeError(
    'usage-error',
    `Unknown ${field} value${unknown.length > 1 ? 's' : ''} ${unknown.map((value) => JSON.stringify(value)).join(', ')}: ` +
      `the index holds ${list}.`,
    {
      hint:
        held.length === 0
          ? undefined
          : `Use one of the values it holds: ${option} ${held[0]} on the command line, "${field}": [${example}] in a request.`,
      details: { option, field, unknown, held },
    },
  );
}

function chunkFilter(index: LoadedSearchIndex, request: QueryRequest): (ordinal: number) => boolean {
  requireHeldValues(index, { option: '--family', field: 'family' }, 3, request.family);
  requireHeldValues(index, { option: '--document-type', field: 'documentType' }, 5, request.documentType);
  const set = (values: string[] | undefined): Set<string> | undefined =>
    values === undefined || values.length === 0 ? undefined : new Set(values);
  const family = set(request.family);
  const authority = set(request.authority);
  const documentType = set(request.documentType);
  const normativity = set(request.normativity);
  const documentOk = index.documents.map(
    (doc) =>
      (family === undefined || family.has(doc[3])) &&
      (authority === undefined || authority.has(doc[4])) &&
      (documentType === undefined || documentType.has(doc[5])),
  );
  const normativityOk = index.normativityValues.map((value) => normativity === undefined || normativity.has(value));
  return (ordinal) => documentOk[index.chunkDocument[ordinal]!]! && normativityOk[index.chunkNormativity[ordinal]!]!;
}

export interface Ranking {
  /** Matching hits (after collapsing). */
  total: number;
  collapsed: number;
  /** The best `keep` hits, in rank order. */
  top: ScoredChunk[];
  /** Each scoring term's postings and per-document sums (undefined when the index lacks it), for explanations. */
  postings: (Postings | undefined)[];
  perDocument: (DocumentPostings | undefined)[];
}

/**
 * Every matching chunk is counted; only the best `keep` (offset + limit) are ranked and returned,
 * in order: points descending, then chunk ordinal ascending. Chunk ordinals follow (document id,
 * chunk id) order, so equal scores break on that stable key. With `collapse`, each group of matching
 * chunks with the same passage keeps only its best-ranked member (by the same order, so the choice
 * does not depend on the order anything was read in), which lists the others. Among the first
 * PROXIMITY_DEPTH hits, a section's repeats follow the other sections' first hits, but for those
 * they outscore four times over (sectionsFirst).
 */
export function rankChunks(
  index: LoadedSearchIndex,
  query: ReturnType<typeof parseQueryTerms>,
  accept: (ordinal: number) => boolean,
  keep: number,
  collapse: boolean,
): Ranking {
  const chunkCount = index.chunkCount;
  const postings: (Postings | undefined)[] = [];
  const perDocumentOfTerm: (DocumentPostings | undefined)[] = [];
  const empty = (): Ranking => ({ total: 0, collapsed: 0, top: [], postings, perDocument: perDocumentOfTerm });
  if (chunkCount === 0 || query.scoringTerms.length === 0) return empty();
  // Required: every term of every phrase and every quoted word (empty when none); a required term
  // must be in the chunk's text (where phrases are checked and snippets come from).
  const required = new Set<string>([...query.requiredTerms, ...query.phrases.flat()]);
  // Points are integers: plain arrays of small integers, whose reads and sums allocate nothing in the
  // interpreter, where each read of a Float64Array made a heap number (~32 bytes per posting). A sum
  // past the small-integer range turns the array into doubles, still exact.
  const scores: number[] = new Array<number>(chunkCount).fill(0);
  const seen = new Uint8Array(chunkCount);
  // How many required terms each chunk has (only counted when there are required terms).
  const requiredHits = required.size > 0 ? new Uint16Array(chunkCount) : undefined;
  const touched: number[] = [];
  const documentScores: number[] = new Array<number>(index.documents.length).fill(0);
  const docLengths = documentLengths(index);
  // Chunk-level idf of each scoring term the index has (proximity weighs pairs by it).
  const idfOf = new Map<string, number>();
  const weightOf = new Map<string, TermWeight>();
  // The chunks holding a joined word's parts (joined-words.ts), one array for all of the query's joined words.
  let partMarks: Uint8Array | undefined;
  for (const [t, term] of query.scoringTerms.entries()) {
    const termIndex = findTerm(index, term);
    if (termIndex < 0) {
      postings.push(undefined);
      perDocumentOfTerm.push(undefined);
      if (required.has(term)) return empty();
      continue;
    }
    const parts = query.joinedParts?.get(term);
    if (parts !== undefined) partMarks ??= new Uint8Array(chunkCount);
    const list =
      parts === undefined ? decodePostings(index, termIndex) : withoutParts(index, decodePostings(index, termIndex), parts, partMarks!);
    if (list.ordinals.length === 0) {
      postings.push(undefined);
      perDocumentOfTerm.push(undefined);
      continue;
    }
    postings.push(list);
    const { ordinals, tfs, headingTfs } = list;
    const weight = termWeight(chunkCount, ordinals.length, queryWeightOf(query, t), index.k1Milli, index.bMilli, index.totalLength);
    idfOf.set(term, weight.idf);
    weightOf.set(term, weight);
    const isRequired = requiredHits !== undefined && required.has(term);
    const points = new TermPointsMemo(weight);
    const apparatusPoints = new TermPointsMemo(weight, APPARATUS_WEIGHT);
    const lengths = index.lengths;
    const apparatus = index.chunkApparatus;
    for (let i = 0; i < ordinals.length; i++) {
      const ordinal = ordinals[i]!;
      if (seen[ordinal] === 0) {
        seen[ordinal] = 1;
        touched.push(ordinal);
      }
      const memo = apparatus[ordinal] === 1 ? apparatusPoints : points;
      scores[ordinal] = scores[ordinal]! + memo.points(tfs[i]!, headingTfs[i]!, lengths[ordinal]!);
      if (isRequired && tfs[i]! > 0) requiredHits![ordinal] = requiredHits![ordinal]! + 1;
    }
    const perDocument = documentPostings(index, list);
    perDocumentOfTerm.push(perDocument);
    const documentWeight = termWeight(
      index.documents.length,
      perDocument.documents.length,
      DOCUMENT_WEIGHT * queryWeightOf(query, t),
      index.k1Milli,
      index.bMilli,
      index.totalLength,
    );
    for (let i = 0; i < perDocument.documents.length; i++) {
      const document = perDocument.documents[i]!;
      documentScores[document] =
        documentScores[document]! + termPoints(documentWeight, perDocument.tfs[i]!, perDocument.headingTfs[i]!, docLengths[document]!);
    }
  }
  // Indexed loops over the per-match arrays: a for-of loop in the interpreter (where a cold query
  // runs) allocates an iterator result per step.
  const chunkDocument = index.chunkDocument;
  for (let i = 0; i < touched.length; i++) {
    const ordinal = touched[i]!;
    scores[ordinal] = scores[ordinal]! + documentScores[chunkDocument[ordinal]!]!;
  }
  let matched: number[] = [];
  const phraseTerms = new Set(query.phrases.flat());
  const phrasePrefixes = [...new Set([...phraseTerms].map(stemPrefix))];
  for (let i = 0; i < touched.length; i++) {
    const ordinal = touched[i]!;
    if (requiredHits !== undefined && requiredHits[ordinal] !== required.size) continue;
    if (!accept(ordinal)) continue;
    matched.push(ordinal);
  }
  if (query.phrases.length > 0) {
    // Only the phrases' words and whether they are adjacent matter: not every word is stemmed.
    readRows(index, matched);
    matched = matched.filter((ordinal) => {
      const { terms, positions } = wantedTermPositions(chunkRow(index, ordinal)[9], phrasePrefixes, phraseTerms, 1);
      return query.phrases.every((phrase) => containsPhrase(terms, phrase, positions));
    });
  }
  const ranksBefore = (a: number, b: number): boolean => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
  const samePassage = new Map<number, number[]>();
  let collapsed = 0;
  const groups = collapse ? passageGroupsOf(index, matched) : null;
  if (groups !== null && groups.count > 0) {
    const groupOf = groups.of;
    // Each group's best-ranked matching member (-1 while none).
    const best = new Int32Array(groups.count).fill(-1);
    for (let i = 0; i < matched.length; i++) {
      const ordinal = matched[i]!;
      const g = groupOf[ordinal]!;
      if (g < 0) continue;
      const current = best[g]!;
      if (current < 0 || ranksBefore(ordinal, current)) best[g] = ordinal;
    }
    const kept: number[] = [];
    for (let i = 0; i < matched.length; i++) {
      const ordinal = matched[i]!;
      const g = groupOf[ordinal]!;
      const representative = g < 0 ? ordinal : best[g]!;
      if (representative === ordinal) kept.push(ordinal);
      else {
        const others = samePassage.get(representative) ?? [];
        others.push(ordinal);
        samePassage.set(representative, others);
      }
    }
    collapsed = matched.length - kept.length;
    matched = kept;
  }
  // Proximity re-scores the first PROXIMITY_DEPTH of the BM25F order (proximity.ts), so that many are ranked whatever `keep` is.
  const pairs = queryPairs(query.sequences.map((sequence) => sequence.filter((term) => idfOf.has(term))));
  // Ids and own section headings naming the query's words, and proximity, re-score the first PROXIMITY_DEPTH of the BM25F order.
  const depth = PROXIMITY_DEPTH;
  // Near duplicates fold within the first NEAR_DUPLICATE_DEPTH hits, which can remove that many less one: ranked as spare.
  const foldDepth = collapse ? NEAR_DUPLICATE_DEPTH : 0;
  const wanted = Math.max(keep, depth, foldDepth) + foldDepth;
  let top = bestOf(matched, wanted, scores, ranksBefore);
  const proximity = new Map<number, PairEvidence[]>();
  const namedOf = new Map<number, string[]>();
  const headingNamedOf = new Map<number, string[]>();
  const textPostings = new Map(query.scoringTerms.map((term, t) => [term, postings[t]]));
  const head = top.slice(0, depth);
  readRows(index, head);
  const scoringTerms = new Set(query.scoringTerms);
  for (const ordinal of head) {
    const row = chunkRow(index, ordinal);
    const fieldWeight = chunkFieldWeight(index.chunkApparatus[ordinal]!);
    const headingNamed = headingNames(row[2], scoringTerms).filter((term) => weightOf.has(term));
    if (headingNamed.length > 0) {
      headingNamedOf.set(ordinal, headingNamed);
      for (const term of headingNamed) scores[ordinal] = scores[ordinal]! + namePoints(weightOf.get(term)!, fieldWeight);
    }
    const named = namedTerms(row[10], scoringTerms, row[1]).filter((term) => weightOf.has(term));
    if (named.length === 0) continue;
    namedOf.set(ordinal, named);
    for (const term of named) scores[ordinal] = scores[ordinal]! + namePoints(weightOf.get(term)!, fieldWeight);
  }
  if (pairs.length > 0) {
    const k1 = index.k1Milli / 1000;
    const pairTerms = new Set(pairs.flat());
    const prefixes = [...new Set([...pairTerms].map(stemPrefix))];
    // A pair scores only in a chunk whose text has both its words.
    const inText = (term: string, ordinal: number): boolean => {
      const list = textPostings.get(term);
      const at = list === undefined ? -1 : binarySearch(list.ordinals, ordinal);
      return at >= 0 && list!.tfs[at]! > 0;
    };
    const candidates = head.filter((ordinal) => pairs.some(([a, b]) => inText(a, ordinal) && inText(b, ordinal)));
    // Two words that both name the document (its address: "draft-zyp-json-schema-03", "find_package")
    // stand close wherever a passage repeats that name: evidence of the document, not of the passage
    // that answers. Such a pair's points are the document's: its best chunk's, given to each of its
    // chunks, so they rank the document as before and no longer rank its passages.
    const namingOf = new Map<number, Set<string>>();
    const names = (d: number, [a, b]: QueryPair): boolean => {
      let naming = namingOf.get(d);
      if (naming === undefined) {
        naming = namingTerms(index.documents[d]![1]);
        namingOf.set(d, naming);
      }
      return naming.has(a) && naming.has(b);
    };
    const own = new Map<number, Map<QueryPair, PairEvidence>>();
    const documentBest = new Map<number, Map<QueryPair, PairEvidence>>();
    for (const ordinal of candidates) {
      const { terms, positions } = wantedTermPositions(chunkRow(index, ordinal)[9], prefixes, pairTerms, PROXIMITY_WINDOW);
      const fieldWeight = chunkFieldWeight(index.chunkApparatus[ordinal]!);
      const d = index.chunkDocument[ordinal]!;
      const chunkOwn = new Map<QueryPair, PairEvidence>();
      for (const pair of proximityEvidence(terms, pairs, (term) => idfOf.get(term)!, k1, positions, fieldWeight)) {
        if (!names(d, pair.pair)) {
          chunkOwn.set(pair.pair, pair);
          continue;
        }
        const best = documentBest.get(d) ?? new Map<QueryPair, PairEvidence>();
        documentBest.set(d, best);
        const held = best.get(pair.pair);
        if (held === undefined || pair.points > held.points) best.set(pair.pair, pair);
      }
      if (chunkOwn.size > 0) own.set(ordinal, chunkOwn);
    }
    for (const ordinal of head) {
      const chunkOwn = own.get(ordinal);
      const shared = documentBest.get(index.chunkDocument[ordinal]!);
      // In the query's pair order, whatever chunk gave each its points (a pair is either the chunk's
      // own or its document's, never both: naming depends on the document alone).
      const evidence = pairs.flatMap((pair) => chunkOwn?.get(pair) ?? shared?.get(pair) ?? []);
      if (evidence.length === 0) continue;
      proximity.set(ordinal, evidence);
      for (const pair of evidence) scores[ordinal] = scores[ordinal]! + pair.points;
    }
  }
  if (namedOf.size > 0 || headingNamedOf.size > 0 || proximity.size > 0) {
    head.sort((a, b) => (scores[a] !== scores[b] ? scores[b]! - scores[a]! : a - b));
    top = [...head, ...top.slice(depth)];
  }
  let total = matched.length;
  if (foldDepth > 0) {
    // The same passage cut at other boundaries (another rendering's chunking): one hit, at the better-ranked.
    const folded = foldNearDuplicates(index, top.slice(0, foldDepth), (ordinal) => samePassage.get(ordinal) ?? []);
    for (const [kept, others] of folded.into) {
      const list = samePassage.get(kept) ?? [];
      for (const other of others) list.push(other, ...(samePassage.get(other) ?? []));
      samePassage.set(kept, list);
    }
    const removed = new Set(folded.removed);
    top = top.filter((ordinal) => !removed.has(ordinal));
    total -= removed.size;
    collapsed += removed.size;
  }
  // Each section once before its repeats, among the first `depth` hits.
  top = sectionsFirst(
    index,
    top,
    depth,
    (ordinal) => samePassage.get(ordinal) ?? [],
    (ordinal) => scores[ordinal]!,
  );
  top = top.slice(0, keep);
  // Each hit is shown by the member of its group a reader can open at the passage (points stay the best member's).
  const groupMembers = top.flatMap((ordinal) => samePassage.get(ordinal) ?? []);
  if (groupMembers.length > 0) readRows(index, [...top.filter((ordinal) => samePassage.has(ordinal)), ...groupMembers]);
  return {
    total,
    collapsed,
    top: top.map((ordinal) => {
      const members = samePassage.get(ordinal) ?? [];
      const byRank = [...members].sort((a, b) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0));
      const shown = members.length === 0 ? ordinal : mostOpenable(index, [ordinal, ...byRank]);
      return {
        ordinal: shown,
        scoredBy: ordinal,
        points: scores[ordinal]!,
        named: namedOf.get(ordinal) ?? [],
        headingNamed: headingNamedOf.get(ordinal) ?? [],
        proximity: proximity.get(ordinal) ?? [],
        samePassage: [ordinal, ...members].filter((member) => member !== shown).sort((a, b) => a - b),
      };
    }),
    postings,
    perDocument: perDocumentOfTerm,
  };
}

/** A chunk's text and heading frequencies of a term (0 where its postings do not list the chunk). */
function chunkFrequencies(list: Postings | undefined, ordinal: number): { tf: number; headingTf: number } {
  const at = list === undefined ? -1 : binarySearch(list.ordinals, ordinal);
  return at < 0 ? { tf: 0, headingTf: 0 } : { tf: list!.tfs[at]!, headingTf: list!.headingTfs[at]! };
}

/**
 * The best `keep` of `matched` in rank order (points descending, then ordinal ascending). One native
 * sort of numbers: each match's rank packed as (best points - its points) · span + ordinal, exact
 * while below 2^53 (points are integers). A comparator sort runs its comparisons in the interpreter
 * in a cold process (~3 ms for 900 matches); past 2^53 (never for real points) it is the way.
 */
export function bestOf(
  matched: number[],
  keep: number,
  scores: readonly number[],
  ranksBefore: (a: number, b: number) => boolean,
): number[] {
  let best = Number.NEGATIVE_INFINITY;
  let worst = Number.POSITIVE_INFINITY;
  let span = 1;
  for (let i = 0; i < matched.length; i++) {
    const points = scores[matched[i]!]!;
    if (points > best) best = points;
    if (points < worst) worst = points;
    while (span <= matched[i]!) span *= 2;
  }
  if (matched.length === 0 || (best - worst + 1) * span > Number.MAX_SAFE_INTEGER)
    return matched.sort((a, b) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0)).slice(0, keep);
  const packed = new Float64Array(matched.length);
  for (let i = 0; i < matched.length; i++) packed[i] = (best - scores[matched[i]!]!) * span + matched[i]!;
  packed.sort();
  const top = new Array<number>(Math.min(keep, packed.length));
  for (let i = 0; i < top.length; i++) top[i] = packed[i]! % span;
  return top;
}

/**
 * The words that name a document: those of its source URL after the scheme (every http URL has
 * "http", which names none of them), its percent-escapes decoded first. A source URL is stored
 * normalised, its spaces and non-ASCII letters escaped: `Content%20Security%20Policy` read as
 * "content", "20secur", "20polici" and `Caf%C3%A9` as "caf", "c3", "a9". Escapes that are no UTF-8
 * keep all but their ASCII ones as written.
 */
export function namingTerms(sourceUrl: string): Set<string> {
  const afterScheme = sourceUrl.replace(/^[A-Za-z][A-Za-z0-9+.-]*:/, '');
  const decoded = afterScheme.replace(/(?:%[0-9A-Fa-f]{2})+/g, (escapes) => {
    try {
      return decodeURIComponent(escapes);
    } catch {
      // Not UTF-8 (a Latin-1 `%E9`): its ASCII escapes still decode (`%20`).
      return escapes.replace(/%[0-7][0-9A-Fa-f]/g, (one) => String.fromCharCode(Number.parseInt(one.slice(1), 16)));
    }
  });
  return new Set(tokenize(decoded));
}

/** Each query term's share of one hit's points (the same arithmetic as rankChunks, term by term). */
function explainScore(
  index: LoadedSearchIndex,
  query: ReturnType<typeof parseQueryTerms>,
  ranking: Ranking,
  entry: ScoredChunk,
): ScoreExplanation {
  const terms: TermContribution[] = [];
  const document = index.chunkDocument[entry.scoredBy]!;
  const documentLength = documentLengths(index)[document]!;
  const apparatus = index.chunkApparatus[entry.scoredBy] === 1;
  const chunkWeightOfField = chunkFieldWeight(index.chunkApparatus[entry.scoredBy]!);
  const evidence = (
    weight: TermWeight,
    documentFrequency: number,
    bodyFrequency: number,
    headingFrequency: number,
    length: number,
    fieldWeight = 1,
  ): TermEvidence => ({
    documentFrequency,
    idfMilli: Math.round(weight.idf * 1000),
    field: bodyFrequency > 0 && headingFrequency > 0 ? 'body+heading' : bodyFrequency > 0 ? 'body' : 'heading',
    bodyFrequency,
    headingFrequency,
    weightedFrequency: (bodyFrequency + HEADING_WEIGHT * headingFrequency) * fieldWeight,
    length,
    lengthNormMilli: Math.round(lengthNorm(weight, length) * 1000),
    points: termPoints(weight, bodyFrequency, headingFrequency, length, fieldWeight),
  });
  query.scoringTerms.forEach((term, t) => {
    const list = ranking.postings[t];
    const perDocument = ranking.perDocument[t];
    if (list === undefined || perDocument === undefined) return;
    const d = binarySearch(perDocument.documents, document);
    if (d < 0) return;
    const queryWeight = queryWeightOf(query, t);
    const documentWeight = termWeight(
      index.documents.length,
      perDocument.documents.length,
      DOCUMENT_WEIGHT * queryWeight,
      index.k1Milli,
      index.bMilli,
      index.totalLength,
    );
    const inDocument = evidence(
      documentWeight,
      perDocument.documents.length,
      perDocument.tfs[d]!,
      perDocument.headingTfs[d]!,
      documentLength,
    );
    const at = binarySearch(list.ordinals, entry.scoredBy);
    const chunkWeight = termWeight(index.chunkCount, list.ordinals.length, queryWeight, index.k1Milli, index.bMilli, index.totalLength);
    const { tf, headingTf } = chunkFrequencies(list, entry.scoredBy);
    const inChunk =
      at < 0 ? null : evidence(chunkWeight, list.ordinals.length, tf, headingTf, index.lengths[entry.scoredBy]!, chunkWeightOfField);
    // Name matches (named-ids.ts): the chunk's own heading, and an element id in it, naming the query's words.
    const headingName = entry.headingNamed.includes(term) ? namePoints(chunkWeight, chunkWeightOfField) : 0;
    const idName = entry.named.includes(term) ? namePoints(chunkWeight, chunkWeightOfField) : 0;
    terms.push({
      term: isSymbolTerm(term) ? symbolText(term) : term,
      headingName,
      idName,
      queryFrequency: query.queryFrequencies[t]!,
      queryWeightMilli: Math.round(queryWeight * 1000),
      points: (inChunk?.points ?? 0) + inDocument.points + headingName + idName,
      chunk: inChunk,
      document: inDocument,
    });
  });
  return {
    points: entry.points,
    k1Milli: index.k1Milli,
    bMilli: index.bMilli,
    queryK3: QUERY_K3,
    headingWeight: HEADING_WEIGHT,
    apparatus,
    apparatusWeightMilli: Math.round(APPARATUS_WEIGHT * 1000),
    documentWeightMilli: Math.round(DOCUMENT_WEIGHT * 1000),
    pointsPerUnit: SCORE_SCALE,
    terms,
    proximityWindow: PROXIMITY_WINDOW,
    orderedWeight: ORDERED_WEIGHT,
    proximity: entry.proximity.map((pair) => ({
      terms: [pair.pair[0], pair.pair[1]],
      accumulationMilli: Math.round(pair.accumulation * 1000),
      points: pair.points,
    })),
  };
}

function queryWeightOf(query: ReturnType<typeof parseQueryTerms>, t: number): number {
  return query.queryWeights?.[t] ?? queryTermWeight(query.queryFrequencies[t]!);
}

function binarySearch(sorted: ArrayLike<number>, value: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] === value) return mid;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * A chunk's citation, its fragment made as precise as the source allows: the nearest id at or
 * before `at` (a code-point offset into the chunk text: where the match is) among the ids the chunk
 * records (Chunk.anchors: a definition, a step, a numbered paragraph, any element id inside the
 * section), else the chunk's own fragment. The section stays named by sectionId and headingPath.
 */
function rowCitation(index: LoadedSearchIndex, ordinal: number, at: number): Citation {
  const doc = index.documents[index.chunkDocument[ordinal]!]!;
  const [, sectionId, headingPath, blockIds, fragment, , pages, span, textRange, text, anchors, steps] = chunkRow(index, ordinal);
  const citation: Citation = {
    sourceUrl: doc[1],
    fragment: citedFragment(anchors, fragment, at, pages, text),
    snapshotId: doc[2],
    documentId: doc[0],
    sectionId,
    headingPath,
    blockIds,
  };
  if (pages !== null) citation.pages = pages;
  if (span !== null) citation.span = span;
  if (textRange !== null) citation.textRange = textRange;
  if (steps !== undefined) citation.steps = steps;
  return citation;
}

function makeHit(index: LoadedSearchIndex, entry: ScoredChunk, rank: number, snippet: Snippet, queryTerms: ReadonlySet<string>): QueryHit {
  const doc = index.documents[index.chunkDocument[entry.ordinal]!]!;
  const [chunkId, , , , , normativity, , , , text, anchors] = chunkRow(index, entry.ordinal);
  // Where the match is, whatever the snippet's bound: in the densest window of a fixed size, the
  // passage between two source ids that matches best.
  const citation = rowCitation(index, entry.ordinal, matchOffset(text, queryTerms, stableAnchorOffsets(anchors)));
  const hit: QueryHit = {
    rank,
    score: formatPoints(entry.points),
    chunkId,
    snippet,
    citation,
    normativity: normativity as Normativity,
    family: doc[3],
    authority: doc[4] as Authority,
    documentType: doc[5],
    contentTrust: 'untrusted-source',
  };
  if (entry.samePassage.length > 0) {
    const listed = listedSamePassage(index, entry.samePassage);
    hit.samePassage = listed.map((ordinal) => {
      const row = chunkRow(index, ordinal);
      return { chunkId: row[0], citation: rowCitation(index, ordinal, matchOffset(row[9], queryTerms, stableAnchorOffsets(row[10]))) };
    });
    if (listed.length < entry.samePassage.length) hit.samePassageOmitted = entry.samePassage.length - listed.length;
  }
  return hit;
}

/**
 * The same-passage chunks a hit lists (`members` ascending): all of them up to MAX_SAME_PASSAGE;
 * past it, each document's first chunk before a document's repeats (then chunk order), so one
 * document's copies of a passage cannot crowd out its other renderings.
 */
function listedSamePassage(index: LoadedSearchIndex, members: readonly number[]): number[] {
  if (members.length <= MAX_SAME_PASSAGE) return [...members];
  const documents = new Set<number>();
  const firsts: number[] = [];
  const repeats: number[] = [];
  for (const ordinal of members) {
    const document = index.chunkDocument[ordinal]!;
    if (documents.has(document)) repeats.push(ordinal);
    else {
      documents.add(document);
      firsts.push(ordinal);
    }
  }
  return [...firsts, ...repeats].slice(0, MAX_SAME_PASSAGE).sort((a, b) => a - b);
}

/**
 * Each section once first: within the first `depth` hits, every hit of a section no earlier hit
 * shows, in rank order, then the others (repeats), in rank order, but for a repeat that outscores a
 * first hit REPEAT_OUTSCORES times over, which goes before it; the hits past `depth` as they are.
 * Two chunks of one section at ranks 1 and 2 show one section twice and push another down, often
 * the one that answers; a reader who wants the rest of a section opens it (`episteme show`). A
 * section is a chunk's own (document, section id), the unit a citation names, so a plain-text
 * document without headings is one section; in a PDF, where a citation names a page, it is the
 * section on the chunk's first page (a section of a manual runs over pages, and the page that
 * answers is a citation of its own); a hit is in the sections of all its chunks (itself and
 * the chunks collapsed into it). Points are not changed, so a printed score can be above the one
 * before it where the first repeat follows. The depth is the one the re-scoring reads: a fixed
 * depth, so every page is cut from one ranking.
 */
function sectionsFirst(
  index: LoadedSearchIndex,
  top: number[],
  depth: number,
  members: (ordinal: number) => readonly number[],
  pointsOf: (ordinal: number) => number,
): number[] {
  const head = top.slice(0, depth);
  readRows(
    index,
    head.flatMap((ordinal) => [ordinal, ...members(ordinal)]),
  );
  const seenSections = new Set<string>();
  const first: number[] = [];
  const repeats: number[] = [];
  for (const ordinal of head) {
    const sections = [ordinal, ...members(ordinal)].map((chunk) => {
      const row = chunkRow(index, chunk);
      // NUL never occurs in an id: the three parts cannot run into one another.
      return `${index.chunkDocument[chunk]!}\u0000${row[1] ?? ''}\u0000${row[6]?.[0] ?? ''}`;
    });
    if (sections.some((section) => seenSections.has(section))) repeats.push(ordinal);
    else first.push(ordinal);
    for (const section of sections) seenSections.add(section);
  }
  // Both lists are in rank order: merged, a repeat goes before the first hits it outscores
  // REPEAT_OUTSCORES times over (integer points: exact on every runtime).
  const merged: number[] = [];
  for (let i = 0, j = 0; i < first.length || j < repeats.length; ) {
    const firstStays = i < first.length && (j >= repeats.length || pointsOf(first[i]!) * REPEAT_OUTSCORES >= pointsOf(repeats[j]!));
    merged.push(firstStays ? first[i++]! : repeats[j++]!);
  }
  return [...merged, ...top.slice(depth)];
}

/**
 * A section's repeat goes before another section's first hit only when it has more than this many
 * times its points. Such a first hit matched a word or two of the query where the repeat matched it
 * throughout (a chunk of another manual that says "pair" once, 6 points, above the second chunk of
 * the section on ephemeron pairs, 43). Measured on the 25 held-out sets and the eight dev sets
 * (bench/RESULTS.md, session 44): 4 moved one set up and none down; 2 moved two up and three down.
 */
const REPEAT_OUTSCORES = 4;
