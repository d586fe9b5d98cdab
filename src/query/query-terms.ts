import { symbolTerms } from '../index/symbol-terms.js';
import { tokenize } from '../index/tokenizer.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { STOP_TERMS, STOP_WORDS } from './stop-words.js';
import { appendAll } from '../array-extremes.js';

/**
 * Query syntax: each --term value is free text; words are alternatives (BM25 OR), and text in
 * double quotes is a phrase that a result must contain (its words adjacent and in order). An
 * unmatched quote is ignored. Every word, in or out of phrases, contributes to the score as often
 * as the query says it (its query frequency, which the ranking saturates), except unquoted stop
 * words (see stop-words.ts) when the query has other words to score. A stop word joined to other
 * words without a space (a hyphenated term such as "same-origin"), or written in capitals in a query
 * that has lower-case letters ("a body in a GET request"), is not left out. Symbols the query
 * writes (`->>`, `<=>`, `\K`: symbol-terms.ts) are scoring terms too, in no phrase. An English
 * contraction ("doesn't", "it's") is a function word (withoutContractions), and so is an abbreviated
 * Latin phrase ("i.e.", "e.g.": withoutAbbreviations).
 */
export interface ParsedQuery {
  /** Distinct terms, sorted (the fixed order in which scores are summed). */
  scoringTerms: string[];
  /** How often each scoring term occurs in the query (same order as scoringTerms). */
  queryFrequencies: number[];
  /** Query-side weight of each scoring term when not derived from its frequency (query expansion sets it). */
  queryWeights?: number[];
  /** Each phrase as its term sequence (two terms or more; a one-word phrase is a required term). */
  phrases: string[][];
  /** Terms every result must contain (from quoted single words). */
  requiredTerms: string[];
  /** Each --term value's scoring terms in the order it says them (repeats kept): where proximity finds its word pairs. */
  sequences: string[][];
  /** Scoring terms that are two query words written together (joined-words.ts), with those words' terms. */
  joinedParts?: ReadonlyMap<string, readonly [string, string]>;
}

export function parseQueryTerms(inputs: readonly string[]): ParsedQuery {
  const parsed = parseWords(inputs, true);
  // A query of nothing but contractions ("don't") is scored by what it says, as the index has it.
  return parsed.scoringTerms.length > 0 ? parsed : parseWords(inputs, false);
}

function parseWords(inputs: readonly string[], dropContractions: boolean): ParsedQuery {
  const scoring = new Map<string, number>();
  const quoted = new Set<string>();
  const joined = new Set<string>();
  const phrases: string[][] = [];
  const required = new Set<string>();
  const seenPhrases = new Set<string>();
  const said: string[][] = [];
  // In a query that uses lower case, a word typed in capitals is a name (GET, IF, OR, NO), not a
  // function word: it scores as a joined word does. A query in capitals throughout says nothing so.
  const mixedCase = inputs.some((input) => /\p{Ll}/u.test(input));
  for (const input of inputs) {
    const sequence: string[] = [];
    said.push(sequence);
    const pieces = input.split('"');
    // Pieces at odd positions were inside quotes, unless the last quote is unmatched.
    const closed = pieces.length % 2 === 1 ? pieces.length : pieces.length - 1;
    pieces.forEach((quotedPiece, index) => {
      const inQuotes = index % 2 === 1 && index < closed;
      // A phrase matches the text as written: a quoted "doesn't" is the words doesn and t, as indexed.
      const piece = inQuotes || !dropContractions ? quotedPiece : withoutAbbreviations(withoutContractions(quotedPiece));
      const terms = tokenize(piece);
      for (const term of terms) scoring.set(term, (scoring.get(term) ?? 0) + 1);
      appendAll(sequence, terms);
      // Symbols (`->>`, `$@`) score as words do; they take no position, so they are in no phrase or pair.
      for (const term of symbolTerms(piece)) scoring.set(term, (scoring.get(term) ?? 0) + 1);
      // A word joined to others without a space ("same-origin", "only-if-cached", "up-to-date") is
      // part of a technical term: none of its words is left out as a stop word.
      for (const word of piece.split(/\s+/)) {
        const parts = tokenize(word);
        if (parts.length > 1) for (const part of parts) joined.add(part);
        else if (mixedCase && parts.length === 1 && isCapitalised(word)) joined.add(parts[0]!);
      }
      if (!inQuotes || terms.length === 0) return;
      for (const term of terms) quoted.add(term);
      if (terms.length === 1) {
        required.add(terms[0]!);
        return;
      }
      const key = terms.join('\u0000');
      if (!seenPhrases.has(key)) {
        seenPhrases.add(key);
        phrases.push(terms);
      }
    });
  }
  const content = [...scoring.keys()].filter((term) => quoted.has(term) || joined.has(term) || !STOP_TERMS.has(term));
  const scoringTerms = (content.length > 0 ? content : [...scoring.keys()]).sort(compareCodeUnits);
  const scored = new Set(scoringTerms);
  return {
    scoringTerms,
    queryFrequencies: scoringTerms.map((term) => scoring.get(term)!),
    phrases,
    requiredTerms: [...required].sort(compareCodeUnits),
    sequences: said.map((sequence) => sequence.filter((term) => scored.has(term))).filter((sequence) => sequence.length > 0),
  };
}

/**
 * English contractions: a word, an apostrophe (straight, typographic, or a mark typed for one) and a clitic (n't, 's, 're,
 * 've, 'll, 'd, 'm) with no letter after it. The tokenizer splits at the apostrophe, so "doesn't"
 * read as the words "doesn" and "t", rare and joined (a technical term, scored whatever the stop
 * list says): they outscored a question's content words wherever a passage happened to say
 * "doesn't". The Snowball stop list has the contracted forms as function words (stop-words.ts): a
 * negated auxiliary (isn't, doesn't, won't) is one, and so is a function word with its clitic (it's,
 * that's, you're, I've). A possessive ("server's", "de Gaulle's") is left as written: dropping its
 * "s" lost on TIME, whose questions and articles say "FRANCE'S" alike. Only outside quotes: a quoted
 * phrase matches the text as the index has it.
 */
// The lookbehind starts a match only where a word starts: without it, a run of letters with no
// apostrophe was scanned again from each of its letters (a 4,096-letter term took 40 ms, quadratic).
// Besides the straight and typographic apostrophes, the marks typed for one: a left quote (autocorrect
// facing the wrong way), a full-width apostrophe, a grave and an acute accent (keyboards without one).
// A grave accent after a word a backtick opens closes a code span (nested `if`s, `AND`s and `OR`s): the
// word is code, its letter after the span a plural, and both stay.
const CONTRACTION = /(?<![\p{L}\p{N}])(\p{L}+)(['\u2019\u2018\uFF07`\u00B4])(t|s|re|ve|ll|d|m)(?![\p{L}\p{N}])/giu;
const FUNCTION_WORDS: ReadonlySet<string> = new Set(STOP_WORDS.split(' '));

export function withoutContractions(text: string): string {
  return text.replace(CONTRACTION, (whole, word: string, apostrophe: string, clitic: string, at: number) => {
    if (apostrophe === '`' && at > 0 && text[at - 1] === '`') return whole;
    const lower = word.toLowerCase();
    const contracted = clitic.toLowerCase() === 't' ? lower.endsWith('n') : FUNCTION_WORDS.has(lower);
    return contracted ? ' ' : whole;
  });
}

/**
 * Abbreviations of Latin function phrases written with a dot between letters, as a question writes
 * them: "i.e.", "e.g." (with or without the last dot or a space inside). The tokenizer splits "i.e." into the words i
 * and e, joined (a technical term, scored whatever the stop list says): in "overwrite a value only if
 * no other client changed it, i.e. optimistic locking" they outscored the question's content words
 * wherever a passage said "i.e.", and paired for proximity. Only outside quotes, as contractions.
 */
const LATIN_ABBREVIATION = /(?<![\p{L}\p{N}./_-])(?:i\. ?e|e\. ?g)\.?(?![\p{L}\p{N}])/giu;

export function withoutAbbreviations(text: string): string {
  return text.replace(LATIN_ABBREVIATION, ' ');
}

/** Two letters or more, every one of them upper case ("GET", "IF", "GET:"; not "I", "Get", "MiB"). */
function isCapitalised(word: string): boolean {
  const letters = word.replace(/\P{L}/gu, '');
  return letters.length >= 2 && !/\p{Ll}/u.test(letters) && letters !== letters.toLowerCase();
}

/**
 * True when `terms` contains `phrase` as a contiguous run; with `positions` (the tokens' positions,
 * ascending, as wantedTermPositions gives them for at least the phrase's terms), a run of tokens at
 * consecutive positions.
 */
export function containsPhrase(terms: readonly string[], phrase: readonly string[], positions?: readonly number[]): boolean {
  const first = phrase[0];
  outer: for (let i = 0; i + phrase.length <= terms.length; i++) {
    if (terms[i] !== first) continue;
    for (let k = 1; k < phrase.length; k++) {
      if (terms[i + k] !== phrase[k]) continue outer;
      if (positions !== undefined && positions[i + k]! - positions[i + k - 1]! !== 1) continue outer;
    }
    return true;
  }
  return false;
}
