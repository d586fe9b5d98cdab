import { SCORE_SCALE } from './ranking.js';

/**
 * Term proximity (sequential dependence, after Metzler and Croft 2005, scored as in Rasolofo and
 * Savoy's BM25TP): a question's neighbouring words usually name one thing together ("boundary
 * layer", "fetch redirect", "disjoint processes"), so a passage where they stand close together is
 * more likely about that thing than one that mentions them pages apart.
 *
 * Pairs: each two neighbouring scoring words of one --term value, in query order (stop words were
 * already left out, so "layer of the boundary" pairs layer with boundary); a word never pairs with
 * itself. Only neighbouring pairs, not every pair: in a paragraph-long question most word pairs are
 * unrelated, and counting them all would reward any passage dense in the question's words.
 *
 * For each pair, every occurrence of one word followed within PROXIMITY_WINDOW tokens (stop words
 * count as positions) by the other adds 1 / distance², doubled (ORDERED_WEIGHT) when they are
 * adjacent and in the query's order: the exact phrase. The sum saturates like a term frequency
 * (k1 of the index) and is weighted by the pair's mean idf; like a term frequency, it is first
 * multiplied by the chunk's field weight w (ranking.ts chunkFieldWeight: a chunk of the document's
 * apparatus counts half, for its close pairs as for its words):
 *
 *   points(pair) = round(SCORE_SCALE · (idf(a) + idf(b)) / 2 · w·acc · (k1 + 1) / (w·acc + k1))
 *
 * Positions need the chunk's text, which the index keeps compressed in rows, so only the first
 * PROXIMITY_DEPTH chunks of the BM25F ranking are re-scored (the bonus is never negative, so they
 * stay ahead of the rest). The depth is fixed, not taken from --limit, so every page of a query is
 * cut from the same ranking.
 *
 * Why it generalises: it uses no collection statistics beyond idf and no per-collection constant;
 * on Cranfield (keyword questions) and CACM (paragraph questions) it gains in nDCG@10, MAP and P@10
 * with windows 3, 5 and 10 alike (bench/relevance.ts).
 */
export const PROXIMITY_WINDOW = 5;
export const ORDERED_WEIGHT = 2;
export const PROXIMITY_DEPTH = 30;

/** A neighbouring pair of query words, in query order. */
export type QueryPair = readonly [string, string];

/** Distinct neighbouring pairs of each sequence (a pair and its reverse are one pair, kept in first-seen order), sorted by code unit. */
export function queryPairs(sequences: readonly (readonly string[])[]): QueryPair[] {
  const pairs = new Map<string, QueryPair>();
  for (const sequence of sequences) {
    for (let i = 0; i + 1 < sequence.length; i++) {
      const a = sequence[i]!;
      const b = sequence[i + 1]!;
      if (a === b || pairs.has(`${a} ${b}`) || pairs.has(`${b} ${a}`)) continue;
      pairs.set(`${a} ${b}`, [a, b]);
    }
  }
  return [...pairs.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0)).map((key) => pairs.get(key)!);
}

export interface PairEvidence {
  pair: QueryPair;
  /** Sum over close occurrences of weight / distance² (a float from + and / only). */
  accumulation: number;
  points: number;
}

/**
 * The proximity points of a chunk whose terms (in order, stop words included) are `terms`, or with
 * `positions`, whose tokens at those positions (ascending) have those terms and the others none of
 * the pairs' words (wantedTermPositions). `idf(term)` is the term's chunk-level idf; `k1` the
 * index's; `fieldWeight` the chunk's (ranking.ts chunkFieldWeight). Pairs without a close occurrence
 * are left out. Occurrences are summed in position order either way, so both forms give the same floats.
 */
export function proximityEvidence(
  terms: readonly string[],
  pairs: readonly QueryPair[],
  idf: (term: string) => number,
  k1: number,
  positions?: readonly number[],
  fieldWeight = 1,
): PairEvidence[] {
  if (pairs.length === 0) return [];
  // later -> [pair index, `earlier` is the pair's first word] for each pair of the words `earlier` and
  // `later`, by `earlier`: an occurrence looks up the pairs it closes with its one neighbour. Scanning each
  // word's pairs against each neighbour's took the product of their counts: a word in hundreds of pairs
  // (`zz q1 zz q2 ...`, a query of 1.5 KB) and a chunk repeating it took seconds per chunk.
  const closers = new Map<string, Map<string, [number, boolean][]>>();
  const close = (earlier: string, later: string, p: number, first: boolean): void => {
    let byLater = closers.get(earlier);
    if (byLater === undefined) {
      byLater = new Map();
      closers.set(earlier, byLater);
    }
    const list = byLater.get(later);
    if (list === undefined) byLater.set(later, [[p, first]]);
    else list.push([p, first]);
  };
  pairs.forEach(([a, b], p) => {
    close(a, b, p, true);
    close(b, a, p, false);
  });
  const accumulation = new Float64Array(pairs.length);
  const at = positions === undefined ? (i: number): number => i : (i: number): number => positions[i]!;
  for (let i = 0; i < terms.length; i++) {
    const here = closers.get(terms[i]!);
    if (here === undefined) continue;
    for (let j = i + 1; j < terms.length && at(j) - at(i) <= PROXIMITY_WINDOW; j++) {
      const closed = here.get(terms[j]!);
      if (closed === undefined) continue;
      const distance = at(j) - at(i);
      for (const [p, first] of closed) {
        const weight = distance === 1 && first ? ORDERED_WEIGHT : 1;
        accumulation[p] = accumulation[p]! + weight / (distance * distance);
      }
    }
  }
  const evidence: PairEvidence[] = [];
  pairs.forEach((pair, p) => {
    const acc = accumulation[p]!;
    if (acc === 0) return;
    const weighted = acc * fieldWeight;
    const points = Math.round(((SCORE_SCALE * (idf(pair[0]) + idf(pair[1]))) / 2) * ((weighted * (k1 + 1)) / (weighted + k1)));
    evidence.push({ pair, accumulation: acc, points });
  });
  return evidence;
}
