import { decodePostings, findTerm, type LoadedSearchIndex, type Postings } from '../index/index-reader.js';
import { tokenize } from '../index/tokenizer.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import type { ParsedQuery } from './query-terms.js';
import { STOP_TERMS } from './stop-words.js';

/**
 * Two words a question writes apart that a document writes as one: "error bars" and Asymptote's
 * `errorbars`, "host name" and `hostname`, "time stamp" and `timestamp`. The index splits a compound
 * at its case changes (`EventListener`: event, listener, beside the word), not a word written in one
 * case, so the question's pair misses the word. Where two adjacent content words of the query,
 * written together, are one term the index holds, that term scores too, as one more word of the
 * query (a word-joining filter at query time, as search engines' shingles with no separator do).
 * Only words a space separates outside quotes (a phrase matches as written), neither a function
 * word: "in line" is no question about `inline`.
 */
export function joinedPairs(inputs: readonly string[]): Map<string, [string, string]> {
  const joined = new Map<string, [string, string]>();
  for (const input of inputs) {
    input.split('"').forEach((piece, index) => {
      if (index % 2 === 1) return;
      const words = piece.split(/\s+/).filter((word) => word !== '');
      for (let i = 0; i + 1 < words.length; i++) {
        const first = tokenize(words[i]!);
        const second = tokenize(words[i + 1]!);
        if (first.length !== 1 || second.length !== 1 || STOP_TERMS.has(first[0]!) || STOP_TERMS.has(second[0]!)) continue;
        const together = tokenize(words[i]! + words[i + 1]!);
        if (together.length === 1 && !joined.has(together[0]!)) joined.set(together[0]!, [first[0]!, second[0]!]);
      }
    });
  }
  return joined;
}

/** The query with each joined pair (joinedPairs) the index holds as one more scoring term, its parts recorded. */
export function withJoinedWords(query: ParsedQuery, inputs: readonly string[], index: LoadedSearchIndex): ParsedQuery {
  const known = new Set(query.scoringTerms);
  const added = [...joinedPairs(inputs)].filter(([term]) => !known.has(term) && findTerm(index, term) >= 0);
  if (added.length === 0) return query;
  const frequency = new Map(query.scoringTerms.map((term, t) => [term, query.queryFrequencies[t]!]));
  const weight = new Map(query.scoringTerms.map((term, t) => [term, query.queryWeights?.[t]]));
  for (const [term] of added) frequency.set(term, 1);
  const scoringTerms = [...frequency.keys()].sort(compareCodeUnits);
  return {
    ...query,
    scoringTerms,
    queryFrequencies: scoringTerms.map((term) => frequency.get(term)!),
    ...(query.queryWeights === undefined ? {} : { queryWeights: scoringTerms.map((term) => weight.get(term) ?? 1) }),
    joinedParts: new Map([...(query.joinedParts ?? []), ...added]),
  };
}

/**
 * A joined word's postings without the chunks that hold both its parts: there the word is a compound
 * the index split (`EventListener`), or the pair is written out beside it, and the pair's own words
 * score already. The joined word stands for the pair where the pair is not, never beside it.
 */
export function withoutParts(
  index: LoadedSearchIndex,
  list: Postings,
  parts: readonly [string, string],
  /** One mark per chunk, all zero, shared by a query's joined words (left all zero again). */
  marks: Uint8Array,
): Postings {
  const lists: Uint32Array[] = [];
  for (const [bit, part] of [
    [1, parts[0]],
    [2, parts[1]],
  ] as const) {
    const handle = findTerm(index, part);
    if (handle < 0) continue;
    const { ordinals } = decodePostings(index, handle);
    lists.push(ordinals);
    for (let i = 0; i < ordinals.length; i++) marks[ordinals[i]!] = marks[ordinals[i]!]! | bit;
  }
  const keep: number[] = [];
  for (let i = 0; i < list.ordinals.length; i++) if (marks[list.ordinals[i]!] !== 3) keep.push(i);
  for (const ordinals of lists) for (let i = 0; i < ordinals.length; i++) marks[ordinals[i]!] = 0;
  if (keep.length === list.ordinals.length) return list;
  const pick = (values: Uint32Array): Uint32Array => Uint32Array.from(keep, (i) => values[i]!);
  return { ordinals: pick(list.ordinals), tfs: pick(list.tfs), headingTfs: pick(list.headingTfs) };
}
