import { deterministicLn } from './deterministic-math.js';

/**
 * How one query term scores one chunk: BM25F with query-side saturation, in integer points.
 *
 *   points = round(SCORE_SCALE · idf · qw · wtf · (k1 + 1) / (wtf + k1 · (1 - b + b · length / avgLength)))
 *   idf    = ln(1 + (N - df + 0.5) / (df + 0.5))          (Lucene's always-positive form)
 *   qw     = (QUERY_K3 + 1) · qtf / (QUERY_K3 + qtf)       (Robertson's query-term weight)
 *   wtf    = tf(text) + HEADING_WEIGHT · tf(heading path)  (BM25F: fields combined before saturation)
 *
 * A chunk's score is the sum of its terms' points (in the chunk, and in its document: see
 * document-context.ts): integers, so the sum is exact, the printed score
 * (points / SCORE_SCALE) is the same on every runtime, and `--explain` can show contributions that
 * add up to it. The float steps use only + - * / and deterministicLn, so each term's points are
 * bit-identical on Node, Deno and Bun before rounding. Length normalisation uses the text's length
 * only: a heading path is short and shared by every chunk of its section (b = 0 for that field).
 */
export const SCORE_SCALE = 10_000;

/**
 * Query-side saturation (BM25's k3). A word a question repeats is a word it stresses, so it counts
 * more, but with diminishing returns: with k3 = 8 a word said twice weighs 1.8, three times 2.45,
 * twenty times 6.4 (never more than 9). Robertson's TREC runs used k3 from 7 to 1000; the low end
 * keeps a pasted paragraph that repeats a word from drowning the other words.
 */
export const QUERY_K3 = 8;

/**
 * A match in the heading path (document title and section headings) counts this many times a match
 * in the text: a heading names what the whole section is about, and extractors keep headings out of
 * the chunk text, so without this field a word that only a heading says could not be found at all.
 * The usual BM25F title weights are 2 to 5 times the body's; 3, the middle of that range (2 before:
 * the low end). Measured on all eight relevance sets with one value for all (bench/relevance.ts,
 * issue 30): 3 ranks the spec questions' sections better (nDCG@10 +0.013) and changes the seven
 * collections by at most 0.002 either way alone, and with DOCUMENT_WEIGHT 1 gains on six of eight.
 */
export const HEADING_WEIGHT = 3;

/**
 * A match in a chunk of the document's apparatus (Chunk.apparatus: the sections the family's rules
 * name as contents, status, acknowledgements, references, indexes or change logs) counts this much
 * of a match elsewhere, in its text and heading frequencies alike. Those sections are about the
 * document, not its subject, and they repeat the words of the sections they list or change: a CSS
 * specification's change log (a quarter of CSS Flexbox's chunks) names every feature it touched.
 * Half, not zero: a question about what changed still finds them. A field weight, as HEADING_WEIGHT
 * is: measured on the spec questions (the one set with such sections; bench/relevance.ts), 0.25 and
 * 0.5 rank alike, and the other seven sets have no apparatus.
 */
export const APPARATUS_WEIGHT = 0.5;

/** The parts of a term's weight that do not depend on the chunk. */
export interface TermWeight {
  idf: number;
  queryWeight: number;
  k1: number;
  b: number;
  averageLength: number;
}

/** (k3 + 1) · qtf / (k3 + qtf). */
export function queryTermWeight(queryFrequency: number): number {
  return ((QUERY_K3 + 1) * queryFrequency) / (QUERY_K3 + queryFrequency);
}

export function termWeight(
  chunkCount: number,
  documentFrequency: number,
  queryWeight: number,
  k1Milli: number,
  bMilli: number,
  totalLength: number,
): TermWeight {
  return {
    idf: deterministicLn(1 + (chunkCount - documentFrequency + 0.5) / (documentFrequency + 0.5)),
    queryWeight,
    k1: k1Milli / 1000,
    b: bMilli / 1000,
    averageLength: totalLength / chunkCount,
  };
}

/** 1 - b + b · length / avgLength: how much longer (> 1) or shorter than average the chunk is, as BM25 weighs it. */
export function lengthNorm(weight: TermWeight, length: number): number {
  // Every text empty (a heading-only match in chunks of punctuation): all lengths are average.
  if (weight.averageLength === 0) return 1;
  return 1 - weight.b + (weight.b * length) / weight.averageLength;
}

/** The term's integer points in a chunk where it occurs `tf` times in the text and `headingTf` times in the heading path. */
export function termPoints(weight: TermWeight, tf: number, headingTf: number, length: number, fieldWeight = 1): number {
  const weighted = (tf + HEADING_WEIGHT * headingTf) * fieldWeight;
  if (weighted === 0) return 0;
  const saturated = (weighted * (weight.k1 + 1)) / (weighted + weight.k1 * lengthNorm(weight, length));
  return Math.round(SCORE_SCALE * weight.idf * weight.queryWeight * saturated);
}

/**
 * The points of a term the chunk's own section heading names (named-ids.ts, headingNames): one
 * match in a name field of one word, whose BM25 saturation is exactly 1 ((k1 + 1) · 1 / (1 + k1),
 * length norm 1), so idf times the query weight. It is added to the chunk's points for the term
 * rather than to its frequency: a section that says the question's words throughout already
 * saturates them, and a heading that names the question still tells it apart from a neighbour that
 * only uses those words (a term defined under "Domain Matching", used in "Storage Model").
 */
export function namePoints(weight: TermWeight, fieldWeight = 1): number {
  return Math.round(SCORE_SCALE * weight.idf * weight.queryWeight * fieldWeight);
}

/** The field weight of a chunk's matches: APPARATUS_WEIGHT for a chunk of the document's apparatus, else 1. */
export function chunkFieldWeight(apparatus: number): number {
  return apparatus === 1 ? APPARATUS_WEIGHT : 1;
}

/** Weighted frequencies and lengths below these are remembered by TermPointsMemo (larger ones are computed each time). */
const MEMO_FREQUENCIES = 8;
const MEMO_LENGTHS = 1024;

/**
 * termPoints of one term weight, each (weighted frequency, length) pair computed once: a term's
 * postings share few such pairs (the dev corpus: ~260 lengths, mostly tf 1), and a cold process
 * scores them in the interpreter, where every float step of termPoints allocates a number (a
 * frequent term's loop made ~0.4 MB of a query's garbage). The same function of the same
 * arguments, so the points are the same bits.
 */
export class TermPointsMemo {
  private readonly held = new Int32Array(MEMO_FREQUENCIES * MEMO_LENGTHS);

  constructor(
    private readonly weight: TermWeight,
    private readonly fieldWeight = 1,
  ) {}

  points(tf: number, headingTf: number, length: number): number {
    const weighted = tf + HEADING_WEIGHT * headingTf;
    if (weighted >= MEMO_FREQUENCIES || length >= MEMO_LENGTHS) return termPoints(this.weight, tf, headingTf, length, this.fieldWeight);
    const key = weighted * MEMO_LENGTHS + length;
    // 0: not computed yet; otherwise points + 1 (points past the Int32 range are not kept).
    const held = this.held[key]!;
    if (held !== 0) return held - 1;
    const points = termPoints(this.weight, tf, headingTf, length, this.fieldWeight);
    if (points < 0x7fffffff) this.held[key] = points + 1;
    return points;
  }
}

/** Points as a decimal with exactly log10(SCORE_SCALE) places, by integer arithmetic (no float formatting). */
export function formatPoints(points: number): string {
  const whole = Math.floor(points / SCORE_SCALE);
  return `${whole}.${String(points - whole * SCORE_SCALE).padStart(4, '0')}`;
}
