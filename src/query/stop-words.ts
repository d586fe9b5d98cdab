import { tokenize } from '../index/tokenizer.js';

/**
 * English function words left out of the *score* of a query when the query has other words.
 * The index keeps every word, so quoted phrases and quoted words still match them exactly.
 * The list is lunr 2's English list (a generic list, not fitted to any test collection) minus the
 * words that carry normative meaning in standards (RFC 2119/8174: must, should, may, not; and
 * no, nor, cannot), which agents search for on purpose.
 */
const WORDS =
  'a able about across after all almost also am among an and any are as at be because been but by can could dear did do does ' +
  'either else ever every for from get got had has have he her hers him his how however i if in into is it its just least let ' +
  'like likely me might most my neither of off often on only or other our own rather said say says she since so some than that ' +
  'the their them then there these they this tis to too twas us wants was we were what when where which while who whom why will ' +
  'with would yet you your';

/** Stop words as index terms (stemmed the same way as everything else). */
export const STOP_TERMS: ReadonlySet<string> = new Set(WORDS.split(' ').flatMap((word) => tokenize(word)));
