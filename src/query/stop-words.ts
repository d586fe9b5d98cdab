/**
 * English function words left out of the *score* of a query when the query has other words.
 * The index keeps every word, so quoted phrases and quoted words still match them exactly.
 * The list is lunr 2's English list (a generic list, not fitted to any test collection) minus the
 * words that carry normative meaning in standards (RFC 2119/8174: must, should, may, not; and
 * no, nor, cannot), which agents search for on purpose.
 */
export const STOP_WORDS =
  'a able about across after all almost also am among an and any are as at be because been but by can could dear did do does ' +
  'either else ever every for from get got had has have he her hers him his how however i if in into is it its just least let ' +
  'like likely me might most my neither of off often on only or other our own rather said say says she since so some than that ' +
  'the their them then there these they this tis to too twas us wants was we were what when where which while who whom why will ' +
  'with would yet you your';

/**
 * STOP_WORDS as index terms, written out rather than tokenized at load: stemming them took a few
 * milliseconds of every cold query. A unit test checks this equals tokenizing STOP_WORDS.
 */
export const STOP_TERMS: ReadonlySet<string> = new Set(
  (
    'a abl about across after all almost also am among an and ani ar as at be becaus been but by can could dear did do doe either ' +
    'els ever everi for from get got ha had have he her hi him how howev i if in into is it just least let like me might most my ' +
    'neither of off often on onli or other our own rather sai said she sinc so some than that the thei their them then there these ' +
    'thi ti to too twa us wa want we were what when where which while who whom why will with would yet you your'
  ).split(' '),
);
