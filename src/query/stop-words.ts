/**
 * English function words left out of the *score* of a query when the query has other words.
 * The index keeps every word, so quoted phrases and quoted words still match them exactly.
 * The list is lunr 2's English list together with the Snowball English stop list (Martin Porter's,
 * published with the stemmer the tokenizer uses: snowball.tartarus.org/algorithms/english/stop.txt;
 * its words; its contracted forms such as "isn't" or "won't" tokenize to fragments that are words
 * too (isn, t, won), so query-terms.ts leaves them out as whole words before tokenizing), both
 * generic lists not fitted to any test collection, minus the words
 * that carry normative meaning in standards (RFC 2119/8174: must, should, may, not; and no, nor,
 * cannot), which agents search for on purpose. The Snowball list adds the prepositions,
 * determiners and reflexives lunr's lacks (between, through, during, before, over, under, both,
 * each, more, same, very, itself...): a question's "between" was scored as a content word, adding
 * points to every chunk that says it and pairing with its neighbours for proximity. Measured on all
 * eight relevance sets (bench/relevance.ts, issue 30): nDCG@10 and MAP up on all seven collections
 * (CF most, +0.0024), the spec questions -0.0025 (one question's second answer, at rank 10, is 11th
 * without "both"). A query whose words are all stop words is scored by all of them (query-terms.ts).
 */
export const STOP_WORDS =
  'a able about above across after again against all almost also am among an and any are as at be because been ' +
  'before being below between both but by can could dear did do does doing down during each either else ever every ' +
  'few for from further get got had has have having he her here hers herself him himself his how however i if in ' +
  'into is it its itself just least let like likely me might more most my myself neither of off often on once only ' +
  'or other ought our ours ourselves out over own rather said same say says she since so some such than that the ' +
  'their theirs them themselves then there these they this those through tis to too twas under until up us very ' +
  'wants was we were what when where which while who whom why will with would yet you your yours yourself ' +
  'yourselves';

/**
 * STOP_WORDS as index terms, written out rather than tokenized at load: stemming them took a few
 * milliseconds of every cold query. A unit test checks this equals tokenizing STOP_WORDS.
 */
export const STOP_TERMS: ReadonlySet<string> = new Set(
  (
    'a abl about abov across after again against all almost also am among an and ani ar as at be becaus been befor ' +
    'below between both but by can could dear did do doe down dure each either els ever everi few for from further ' +
    'get got ha had have he her here herself hi him himself how howev i if in into is it itself just least let like ' +
    'me might more most my myself neither of off often on onc onli or other ought our ourselv out over own rather ' +
    'sai said same she sinc so some such than that the thei their them themselv then there these thi those through ' +
    'ti to too twa under until up us veri wa want we were what when where which while who whom why will with would ' +
    'yet you your yourself yourselv'
  ).split(' '),
);
