import { chunkRow, readRows, type LoadedSearchIndex } from '../index/index-reader.js';
import { tokenize } from '../index/tokenizer.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import type { ParsedQuery } from './query-terms.js';
import { queryTermWeight } from './ranking.js';
import { STOP_TERMS } from './stop-words.js';

/**
 * Pseudo-relevance feedback (RM3, Lavrenko and Croft's relevance model mixed with the query, with
 * Anserini's defaults): take the first FEEDBACK_CHUNKS results, estimate which terms they are about
 * (P(w|R) = sum over those chunks of their share of the points times tf(w) / length), keep the
 * FEEDBACK_TERMS strongest, and mix: weight(w) = ORIGINAL_WEIGHT · P(w|Q) + (1 - ORIGINAL_WEIGHT) ·
 * P(w|R), scaled so the query keeps its total weight. Deterministic: sums run in rank order, ties
 * between terms break by code unit, and weights are rounded to thousandths.
 * Phrases and quoted words keep constraining the results; expansion only adds scoring terms.
 */
export const FEEDBACK_CHUNKS = 10;
export const FEEDBACK_TERMS = 10;
export const ORIGINAL_WEIGHT = 0.5;

export function expandQuery(
  index: LoadedSearchIndex,
  query: ParsedQuery,
  feedback: readonly { ordinal: number; points: number }[],
): ParsedQuery {
  const totalPoints = feedback.reduce((sum, entry) => sum + entry.points, 0);
  if (feedback.length === 0 || totalPoints === 0) return query;
  const relevance = new Map<string, number>();
  readRows(
    index,
    feedback.map((entry) => entry.ordinal),
  );
  for (const entry of feedback) {
    const terms = tokenize(chunkRow(index, entry.ordinal)[9]);
    if (terms.length === 0) continue;
    const share = entry.points / totalPoints / terms.length;
    const counts = new Map<string, number>();
    for (const term of terms) if (!STOP_TERMS.has(term)) counts.set(term, (counts.get(term) ?? 0) + 1);
    for (const term of [...counts.keys()].sort(compareCodeUnits))
      relevance.set(term, (relevance.get(term) ?? 0) + share * counts.get(term)!);
  }
  const strongest = [...relevance.entries()]
    .sort((a, b) => (a[1] !== b[1] ? b[1] - a[1] : compareCodeUnits(a[0], b[0])))
    .slice(0, FEEDBACK_TERMS);
  const relevanceTotal = strongest.reduce((sum, [, weight]) => sum + weight, 0);
  const original = query.scoringTerms.map((_, t) => query.queryWeights?.[t] ?? queryTermWeight(query.queryFrequencies[t]!));
  const originalTotal = original.reduce((sum, weight) => sum + weight, 0);
  const mixed = new Map<string, number>();
  query.scoringTerms.forEach((term, t) => {
    mixed.set(term, ORIGINAL_WEIGHT * (original[t]! / originalTotal));
  });
  for (const [term, weight] of strongest) mixed.set(term, (mixed.get(term) ?? 0) + (1 - ORIGINAL_WEIGHT) * (weight / relevanceTotal));
  const scoringTerms = [...mixed.keys()].sort(compareCodeUnits);
  const frequency = new Map(query.scoringTerms.map((term, t) => [term, query.queryFrequencies[t]!]));
  return {
    ...query,
    scoringTerms,
    queryFrequencies: scoringTerms.map((term) => frequency.get(term) ?? 0),
    queryWeights: scoringTerms.map((term) => Math.round(mixed.get(term)! * originalTotal * 1000) / 1000),
  };
}
