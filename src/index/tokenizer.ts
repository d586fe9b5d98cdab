import { stemmer } from 'stemmer';
import { isPlainText, WORD_JOINER_RUN, wordRunsOf } from '../chunk/text-boundaries.js';
import { isSymbolTerm, symbolSpans } from './symbol-terms.js';

/**
 * The one tokenizer used to index chunks, parse queries and place snippet highlights. Its output
 * must be identical on Node 20/24, Deno and Bun, so it uses only regex Unicode properties and
 * String.prototype.normalize/toLowerCase (no Intl.Segmenter, no locale-dependent calls):
 * - words are runs of letters, digits and marks, found in the original text (so offsets are exact);
 * - each run is NFKC-normalised and lowercased (and re-split when NFKC introduced separators);
 * - Latin, Greek and Cyrillic words lose their accents, ß -> ss, final sigma -> sigma;
 * - Han, Kana and South-East Asian scripts (no spaces between words) become overlapping bigrams;
 * - words of ASCII letters only are Porter-stemmed (digits and mixed tokens are kept as they are).
 * Bump TOKENIZER_VERSION whenever any of this changes: index bytes depend on it.
 */
export { TOKENIZER_VERSION } from '../rule-versions.js';

/** Longest token kept, in UTF-16 code units; longer runs (hashes, base64) are truncated. */
export const MAX_TOKEN_LENGTH = 64;

export interface TokenSpan {
  term: string;
  /** UTF-16 offsets into the tokenized text. */
  start: number;
  end: number;
}

// Scanning regexes (stateful lastIndex loops) are kept apart from the ones used with
// String.prototype.match, which resets lastIndex of the regex it is given.
// Words: text.split(wordRunsOf(text)) (text-boundaries.ts) gives them at odd positions, in one
// native call per text (a cold process spent several times longer in a WORD.exec loop, which builds a
// match object per word).
// biome-ignore lint/suspicious/noControlCharactersInRegex: the whole ASCII range, control characters included
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const ASCII_LETTERS = /^[a-z]+$/;
/** The scripts written without spaces between words, as the body of a character class. */
const BIGRAM_SCRIPTS = '\\p{sc=Han}\\p{sc=Hiragana}\\p{sc=Katakana}\\p{sc=Thai}\\p{sc=Lao}\\p{sc=Khmer}\\p{sc=Myanmar}';
/**
 * The regexes only non-ASCII words need, built on first use: V8 builds a Unicode class when a regex
 * with it is created and again when it first runs (text-boundaries.ts), which every cold query paid
 * for each of these even when all its words were ASCII.
 */
let unicodeWords: { wordSplit: RegExp; bigramChar: RegExp; foldable: RegExp; marks: RegExp } | undefined;
function unicodeWordRegexes(): { wordSplit: RegExp; bigramChar: RegExp; foldable: RegExp; marks: RegExp } {
  unicodeWords ??= {
    wordSplit: /[\p{L}\p{N}\p{M}]+/gu,
    bigramChar: new RegExp(`[${BIGRAM_SCRIPTS}]`, 'u'),
    foldable: /^[\p{sc=Latin}\p{sc=Greek}\p{sc=Cyrillic}\p{N}\p{M}]+$/u,
    marks: /\p{M}/gu,
  };
  return unicodeWords;
}
/**
 * Runs of bigram-script characters (with marks and the prolonged sound mark) and runs of anything
 * else: one regex for exec loops, one for String.prototype.match. Built on first use, because only
 * text in those scripts needs them and constructing them (Unicode script sets) cost a cold query
 * ~2 ms before it read anything.
 */
let runPatterns: { scan: RegExp; split: RegExp } | undefined;
function bigramRuns(): { scan: RegExp; split: RegExp } {
  if (runPatterns === undefined) {
    const source = `[${BIGRAM_SCRIPTS}\\p{M}\\u30FC]+|[^${BIGRAM_SCRIPTS}]+`;
    runPatterns = { scan: new RegExp(source, 'gu'), split: new RegExp(source, 'gu') };
  }
  return runPatterns;
}

/** Cache: raw word -> its terms (most words repeat; NFKC and stemming are the expensive part). */
const wordCache = new Map<string, readonly string[]>();
const WORD_CACHE_LIMIT = 200_000;

/** Terms of a text, in order (repeats kept): what the index counts. */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  const parts = text.split(wordRunsOf(text));
  for (let i = 1; i < parts.length; i += 2) {
    const word = parts[i]!;
    if (word === '') continue;
    const wordTerms = termsOfWord(word);
    for (let t = 0; t < wordTerms.length; t++) terms.push(wordTerms[t]!);
  }
  return terms;
}

/**
 * The least a word's lower case must start with for its term to be `term`: Porter stemming only
 * rewrites the end of a word, and no step's replacement reaches further back than three characters
 * from the end of the stem (a unit test checks this over a large vocabulary).
 */
export function stemPrefix(term: string): string {
  return term.slice(0, Math.max(1, term.length - 3));
}

/**
 * The terms of `text` at the positions tokenize() gives them, but looking only for terms whose
 * stemPrefix is in `prefixes`: an ASCII word that starts with none of them cannot be one and is
 * given as '' without being stemmed (stemming every word of a few chunks cost a cold query tens of
 * milliseconds; proximity needs positions of a few terms only).
 */
export function tokenizeLookingFor(text: string, prefixes: readonly string[]): string[] {
  if (isPlainText(text)) return plainTextLookingFor(text, prefixes);
  const terms: string[] = [];
  // Every word of an ASCII text is ASCII: one test for the text rather than one per word.
  const asciiText = ASCII_ONLY.test(text);
  const parts = text.split(wordRunsOf(text));
  for (let i = 1; i < parts.length; i += 2) {
    const word = parts[i]!;
    if (word === '') continue;
    if (asciiText || ASCII_ONLY.test(word)) {
      terms.push(startsWithAny(word, prefixes) ? termsOfWord(word)[0]! : '');
      continue;
    }
    const wordTerms = termsOfWord(word);
    for (let t = 0; t < wordTerms.length; t++) terms.push(wordTerms[t]!);
  }
  return terms;
}

/**
 * tokenizeLookingFor of text whose words are all runs of ASCII letters and digits (isPlainText):
 * one pass over its characters that makes a string only of the words that may be wanted, where
 * splitting made one per word and one per gap (a cold query re-scores 30 chunks this way, and their
 * garbage was a good part of its collections).
 */
function plainTextLookingFor(text: string, prefixes: readonly string[]): string[] {
  const terms: string[] = [];
  const n = text.length;
  let i = 0;
  while (i < n) {
    if (!isAsciiWordCode(text.charCodeAt(i))) {
      i++;
      continue;
    }
    const start = i;
    while (i < n && isAsciiWordCode(text.charCodeAt(i))) i++;
    let first = text.charCodeAt(start);
    if (first >= 0x41 && first <= 0x5a) first += 0x20;
    let candidate = false;
    for (let p = 0; p < prefixes.length && !candidate; p++) candidate = prefixes[p]!.length === 0 || prefixes[p]!.charCodeAt(0) === first;
    if (!candidate) {
      terms.push('');
      continue;
    }
    const word = text.slice(start, i);
    terms.push(startsWithAny(word, prefixes) ? termsOfWord(word)[0]! : '');
  }
  return terms;
}

/**
 * The tokens of `text` whose term is in `wanted`, in order, with their positions (as tokenize()
 * counts them), for proximity: a distance between two of them up to `window` tokens is exact, a
 * longer one is only known to be longer (positions after a long gap are moved closer). `prefixes`
 * are the stemPrefix of every wanted term. The same terms at the same distances as
 * tokenizeLookingFor(text, prefixes), but in plain text (isPlainText) without visiting every
 * character: the words that start with a prefix are found by indexOf in the lower-cased text, and
 * only the gap after one is scanned, until `window` words are counted (re-scoring 30 chunks character
 * by character was ~10M instructions of a cold query; a gap scan stops after a few words).
 *
 * A compound word (compoundParts) whose own term is not wanted but one of whose parts is, is read as
 * its parts, one position each (so "textContent" holds the phrase "text content"): the index counts
 * the parts (indexTerms), and this is where a query finds them.
 */
export function wantedTermPositions(
  text: string,
  prefixes: readonly string[],
  wanted: ReadonlySet<string>,
  window: number,
): { terms: string[]; positions: number[] } {
  const terms: string[] = [];
  const positions: number[] = [];
  const lower = isPlainText(text) && !prefixes.includes('') ? text.toLowerCase() : undefined;
  if (lower === undefined || lower.length !== text.length) {
    const parts = text.split(wordRunsOf(text));
    let position = 0;
    for (let i = 1; i < parts.length; i += 2) {
      const word = parts[i]!;
      if (word === '') continue;
      if (ASCII_ONLY.test(word)) {
        position += wantedOfAsciiWord(word, prefixes, wanted, position, terms, positions);
        continue;
      }
      const wordTerms = termsOfWord(word);
      for (let t = 0; t < wordTerms.length; t++, position++) {
        if (!wanted.has(wordTerms[t]!)) continue;
        terms.push(wordTerms[t]!);
        positions.push(position);
      }
    }
    return { terms, positions };
  }
  const starts = plainWordStarts(lower, prefixes, text);
  let position = 0;
  let end = -1;
  let taken = 1;
  for (const start of starts) {
    if (end >= 0) {
      // Words between the previous candidate and this one, counted up to `window`.
      let gap = 0;
      let inWord = false;
      for (let i = end; i < start && gap < window; i++) {
        const isWord = isAsciiWordCode(text.charCodeAt(i));
        if (isWord && !inWord) gap++;
        inWord = isWord;
      }
      position += taken + gap;
    }
    end = plainWordEnd(text, start);
    taken = wantedOfAsciiWord(text.slice(start, end), prefixes, wanted, position, terms, positions);
  }
  return { terms, positions };
}

/**
 * Adds the wanted term of an ASCII word at `position` (or, for a compound whose own term is not
 * wanted, its wanted parts at one position each from there) to `terms` and `positions`; returns the
 * positions the word takes (1, or its parts' count when read as parts).
 */
function wantedOfAsciiWord(
  word: string,
  prefixes: readonly string[],
  wanted: ReadonlySet<string>,
  position: number,
  terms: string[],
  positions: number[],
): number {
  if (startsWithAny(word, prefixes)) {
    const term = termsOfWord(word)[0]!;
    if (wanted.has(term)) {
      terms.push(term);
      positions.push(position);
      return 1;
    }
  }
  const compound = compoundParts(word);
  if (compound === null || !compound.some((term) => wanted.has(term))) return 1;
  for (let k = 0; k < compound.length; k++) {
    if (!wanted.has(compound[k]!)) continue;
    terms.push(compound[k]!);
    positions.push(position + k);
  }
  return compound.length;
}

/**
 * Where the words of plain text that start with one of `prefixes` begin, ascending, found by
 * indexOf in its lower case `lower` (a word can start with several prefixes; none is empty), and the
 * compound words of `text` with a part that does (compoundParts).
 */
function plainWordStarts(lower: string, prefixes: readonly string[], text: string): number[] {
  let starts: number[] = [];
  let inside = false;
  for (const prefix of new Set(prefixes)) {
    for (let at = lower.indexOf(prefix); at >= 0; at = lower.indexOf(prefix, at + 1)) {
      if (at === 0 || !isAsciiWordCode(lower.charCodeAt(at - 1))) starts.push(at);
      else if (isPartStart(text, at)) {
        const start = compoundStart(text, at);
        if (start < 0) continue;
        starts.push(start);
        inside = true;
      }
    }
  }
  if ((prefixes.length > 1 || inside) && starts.length > 1) starts = [...new Set(starts)].sort((a, b) => a - b);
  return starts;
}

/** The end of the plain-text word that starts at `start`. */
function plainWordEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length && isAsciiWordCode(text.charCodeAt(end))) end++;
  return end;
}

function isAsciiWordCode(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39);
}

/** Whether an ASCII word, lowercased, starts with one of `prefixes` (lowercase). */
function startsWithAny(word: string, prefixes: readonly string[]): boolean {
  // Most words fail on their first character: compare it before making the word's lower case.
  let first = word.charCodeAt(0);
  if (first >= 0x41 && first <= 0x5a) first += 0x20;
  let lower: string | undefined;
  for (let p = 0; p < prefixes.length; p++) {
    const prefix = prefixes[p]!;
    if (prefix.length > 0 && prefix.charCodeAt(0) !== first) continue;
    lower ??= word.toLowerCase();
    if (lower.startsWith(prefix)) return true;
  }
  return false;
}

/**
 * Terms with their offsets in `text`. A word that yields several terms (bigrams, NFKC splits) gives
 * each term the offsets of its part when they are exact, else of the whole word. With `lookingFor`
 * (stemPrefix of each wanted term), words that cannot be a wanted term have the term ''. With
 * `wanted`, a compound word whose own term is not wanted but one of whose parts is gives one span per
 * part (as wantedTermPositions reads it), each with the whole word's offsets: a snippet highlights the
 * word "MRCPv2" for the query word "MRCP", and is never cut inside it. When `wanted` holds a symbol
 * term (symbol-terms.ts), the text's symbol spans are given too, in order.
 */
export function tokenizeWithOffsets(text: string, lookingFor?: readonly string[], wanted?: ReadonlySet<string>): TokenSpan[] {
  const spans: TokenSpan[] = [];
  const asciiText = lookingFor !== undefined && ASCII_ONLY.test(text);
  // Only a compound with a looked-for prefix where one of its parts starts can hold a wanted part.
  const compounds = wanted === undefined || lookingFor === undefined ? null : compoundsLookingFor(text, lookingFor);
  const parts = text.split(wordRunsOf(text));
  let end = 0;
  for (let i = 0; i < parts.length; i++) {
    const start = end;
    const word = parts[i]!;
    end = start + word.length;
    if (i % 2 === 0 || word === '') continue;
    const ascii = asciiText || ASCII_ONLY.test(word);
    if (
      wanted !== undefined &&
      ascii &&
      (compounds === null || compounds.has(start)) &&
      pushWantedParts(word, start, lookingFor, wanted, spans)
    )
      continue;
    // As in tokenizeLookingFor: an ASCII word that cannot be a wanted term is not stemmed.
    if (lookingFor !== undefined && ascii) {
      spans.push({ term: startsWithAny(word, lookingFor) ? termsOfWord(word)[0]! : '', start, end });
      continue;
    }
    const terms = termsOfWord(word);
    if (terms.length === 1) {
      spans.push({ term: terms[0]!, start, end });
      continue;
    }
    const bigramChar = unicodeWordRegexes().bigramChar;
    // (A word with a joiner in it has its terms read without it: they take the whole word's offsets.)
    if (bigramChar.test(word) && word.normalize('NFKC') === word && word.replace(WORD_JOINER_RUN, '') === word) {
      // Exact offsets for bigram runs: recompute per script run so each bigram maps to its chars.
      const scan = bigramRuns().scan;
      scan.lastIndex = 0;
      for (let run = scan.exec(word); run !== null; run = scan.exec(word)) {
        const runStart = start + run.index;
        if (bigramChar.test(run[0])) {
          for (const gram of bigramSpans(run[0], runStart)) spans.push(gram);
        } else {
          for (const term of termsOfWord(run[0])) spans.push({ term, start: runStart, end: runStart + run[0].length });
        }
      }
      continue;
    }
    for (const term of terms) spans.push({ term, start, end });
  }
  return wanted !== undefined && hasSymbolTerm(wanted) ? withSymbolSpans(spans, symbolSpans(text)) : spans;
}

function hasSymbolTerm(terms: ReadonlySet<string>): boolean {
  for (const term of terms) if (isSymbolTerm(term)) return true;
  return false;
}

/** Word spans and symbol spans (symbol-terms.ts) merged in order of their starts. */
function withSymbolSpans(words: TokenSpan[], symbols: TokenSpan[]): TokenSpan[] {
  if (symbols.length === 0) return words;
  const merged: TokenSpan[] = [];
  let s = 0;
  for (const span of words) {
    while (s < symbols.length && symbols[s]!.start < span.start) merged.push(symbols[s++]!);
    merged.push(span);
  }
  while (s < symbols.length) merged.push(symbols[s++]!);
  return merged;
}

/**
 * Where the words of `text` start that may be a looked-for term or hold a looked-for part
 * (plainWordStarts); null when that cannot be read off the lower-cased text.
 */
function compoundsLookingFor(text: string, prefixes: readonly string[]): Set<number> | null {
  const lower = text.toLowerCase();
  if (lower.length !== text.length || prefixes.includes('')) return null;
  return new Set(plainWordStarts(lower, prefixes, text));
}

/**
 * The spans of the parts of the ASCII word at `start`, pushed to `spans`, when it is a compound whose
 * own term is not wanted and one of whose parts is; false (nothing pushed) otherwise.
 */
function pushWantedParts(
  word: string,
  start: number,
  lookingFor: readonly string[] | undefined,
  wanted: ReadonlySet<string>,
  spans: TokenSpan[],
): boolean {
  const compound = compoundParts(word);
  if (compound === null || !compound.some((term) => wanted.has(term))) return false;
  if ((lookingFor === undefined || startsWithAny(word, lookingFor)) && wanted.has(termsOfWord(word)[0]!)) return false;
  const end = start + word.length;
  for (const term of compound) spans.push({ term, start, end });
  return true;
}

/** Terms of one raw word (a WORD match). */
export function termsOfWord(word: string): readonly string[] {
  const cached = wordCache.get(word);
  if (cached !== undefined) return cached;
  const terms = computeTerms(word);
  if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
  wordCache.set(word, terms);
  return terms;
}

function computeTerms(raw: string): string[] {
  // A word joiner (a soft hyphen, a zero-width joiner) is invisible: "pas\u00ADsword" is the word password.
  const word = raw.replace(WORD_JOINER_RUN, '');
  if (ASCII_ONLY.test(word)) return [finishTerm(word.toLowerCase())];
  const normalized = word.normalize('NFKC').toLowerCase();
  const terms: string[] = [];
  // A part of marks alone (a variation selector, a combining accent after a space) folds to nothing:
  // no term, or every such part of any text would match every other as the empty term.
  const pushFolded = (part: string): void => {
    const term = finishTerm(foldWord(part));
    if (term !== '') terms.push(term);
  };
  const { wordSplit, bigramChar } = unicodeWordRegexes();
  const parts = normalized.match(wordSplit) ?? [];
  for (const part of parts) {
    if (!bigramChar.test(part)) {
      pushFolded(part);
      continue;
    }
    for (const run of part.match(bigramRuns().split) ?? []) {
      if (bigramChar.test(run)) {
        for (const gram of bigramSpans(run, 0)) terms.push(gram.term);
      } else {
        pushFolded(run);
      }
    }
  }
  return terms;
}

/** Accent folding for Latin/Greek/Cyrillic (their marks are diacritics); other scripts keep marks. */
function foldWord(word: string): string {
  let folded = word;
  const { foldable, marks } = unicodeWordRegexes();
  if (foldable.test(word)) folded = word.normalize('NFD').replace(marks, '');
  if (folded.includes('ß')) folded = folded.replaceAll('ß', 'ss');
  if (folded.includes('ς')) folded = folded.replaceAll('ς', 'σ');
  return folded;
}

function finishTerm(term: string): string {
  let finished = ASCII_LETTERS.test(term) ? stemmer(term) : term;
  if (finished.length > MAX_TOKEN_LENGTH) {
    let cut = MAX_TOKEN_LENGTH;
    const last = finished.charCodeAt(cut - 1);
    if (last >= 0xd800 && last <= 0xdbff) cut--;
    finished = finished.slice(0, cut);
  }
  return finished;
}

/** Overlapping bigrams of a run (by code point); a single character stays a unigram. */
function bigramSpans(run: string, offset: number): TokenSpan[] {
  const chars: { text: string; start: number }[] = [];
  let position = 0;
  for (const char of run) {
    // Combining marks attach to the previous character rather than forming their own gram.
    if (chars.length > 0 && /^\p{M}$/u.test(char)) {
      chars[chars.length - 1]!.text += char;
    } else {
      chars.push({ text: char, start: position });
    }
    position += char.length;
  }
  const lower = (s: string): string => s.toLowerCase();
  if (chars.length === 1) return [{ term: lower(chars[0]!.text), start: offset, end: offset + run.length }];
  const grams: TokenSpan[] = [];
  for (let i = 0; i + 1 < chars.length; i++) {
    const first = chars[i]!;
    const second = chars[i + 1]!;
    grams.push({ term: lower(first.text + second.text), start: offset + first.start, end: offset + second.start + second.text.length });
  }
  return grams;
}

/** A text's terms as the index counts them: its words' terms (tokenize()), its compound words' parts, its symbols. */
export interface IndexTerms {
  /** tokenize(text), then the terms of each compound word's parts (compoundParts), then its symbol terms, in order. */
  terms: string[];
  /** How many of `terms` are tokenize(text)'s: the text's words, without the parts. */
  words: number;
  /** How many of `terms` are words and parts: the text's length as BM25 normalises it (symbols do not lengthen it). */
  length: number;
}

/**
 * Terms of a text as the index counts them: tokenize()'s, then the terms of each compound ASCII
 * word's parts (compoundParts: MRCPv2 -> mrcp v2, textContent -> text content, sha256 -> sha 256),
 * as a search engine's word-delimiter filter does at index time, then its symbol terms
 * (symbol-terms.ts: `->>`, `<=>`, `\K`). A question says "MRCP" where the
 * specification writes "MRCPv2", or "same site" where it writes "SameSite": the part matches.
 * Queries are not split (query-terms.ts tokenizes them with tokenize()), so a compound the question
 * writes matches the whole word and counts once.
 */
export function indexTerms(text: string): IndexTerms {
  const terms: string[] = [];
  let parts: string[] | undefined;
  const runs = text.split(wordRunsOf(text));
  for (let i = 1; i < runs.length; i += 2) {
    const word = runs[i]!;
    if (word === '') continue;
    const indexed = indexedWord(word);
    const wordTerms = indexed.terms;
    for (let t = 0; t < wordTerms.length; t++) terms.push(wordTerms[t]!);
    if (indexed.parts !== null) {
      parts ??= [];
      for (let t = 0; t < indexed.parts.length; t++) parts.push(indexed.parts[t]!);
    }
  }
  const words = terms.length;
  if (parts !== undefined) for (let t = 0; t < parts.length; t++) terms.push(parts[t]!);
  const length = terms.length;
  const symbols = symbolSpans(text);
  for (let t = 0; t < symbols.length; t++) terms.push(symbols[t]!.term);
  return { terms, words, length };
}

/** Cache: raw word -> its terms and its parts' terms (one lookup per word, as tokenize() makes). */
const indexedWords = new Map<string, { terms: readonly string[]; parts: readonly string[] | null }>();

function indexedWord(word: string): { terms: readonly string[]; parts: readonly string[] | null } {
  let indexed = indexedWords.get(word);
  if (indexed === undefined) {
    indexed = { terms: termsOfWord(word), parts: compoundParts(word) };
    if (indexedWords.size >= WORD_CACHE_LIMIT) indexedWords.clear();
    indexedWords.set(word, indexed);
  }
  return indexed;
}

const compoundCache = new Map<string, readonly string[] | null>();

/**
 * The parts of an ASCII word written as several: a part starts at a lower-to-upper case change
 * (textContent, SameSite), at the last capital of a run followed by a lower-case word (XMLHttpRequest
 * -> XML Http Request), at a single lower-case letter between a capital and a digit (MRCPv2 -> MRCP
 * v2, IPv6 -> IP v6), and at digits after two or more letters of one case (sha256, utf8, ES2015).
 * Not where digits meet letters otherwise (000A, 2xx, h1, x509), which are numbers and names. Each
 * part's term is made as a word's is (lower-cased, Porter-stemmed when all letters). Null for a word
 * that is one part (all lower case, all capitals, a capitalised word, all digits), not ASCII, or
 * longer than MAX_TOKEN_LENGTH (a hash or base64, not a name: its parts would be noise).
 */
export function compoundParts(word: string): readonly string[] | null {
  const cached = compoundCache.get(word);
  if (cached !== undefined) return cached;
  let parts: string[] | null = null;
  if (word.length <= MAX_TOKEN_LENGTH && ASCII_ONLY.test(word)) {
    const starts = [0];
    for (let i = 1; i < word.length; i++) if (isPartStart(word, i)) starts.push(i);
    if (starts.length > 1) parts = starts.map((start, k) => finishTerm(word.slice(start, starts[k + 1] ?? word.length).toLowerCase()));
  }
  if (compoundCache.size >= WORD_CACHE_LIMIT) compoundCache.clear();
  compoundCache.set(word, parts);
  return parts;
}

/**
 * Where the ASCII word starts that holds a part starting at `at`: -1 when it starts more than
 * MAX_TOKEN_LENGTH before, for such a word is no compound (a bounded walk, whatever the text holds).
 */
function compoundStart(text: string, at: number): number {
  let start = at - 1;
  while (start > 0 && isAsciiWordCode(text.charCodeAt(start - 1))) {
    start--;
    if (at - start >= MAX_TOKEN_LENGTH) return -1;
  }
  return start;
}

/** Whether a part of the compound ASCII word `text` (a word, or a word inside a text) starts at `i` (i > its start). */
function isPartStart(text: string, i: number): boolean {
  const before = charClass(text.charCodeAt(i - 1));
  const at = charClass(text.charCodeAt(i));
  if (before === OTHER || at === OTHER || before === DIGIT) return false;
  if (at === DIGIT) return i >= 2 && charClass(text.charCodeAt(i - 2)) === before;
  if (before === LOWER) return at === UPPER;
  const next = i + 1 < text.length ? charClass(text.charCodeAt(i + 1)) : OTHER;
  if (at === UPPER) return next === LOWER && i + 2 < text.length && charClass(text.charCodeAt(i + 2)) === LOWER;
  return next === DIGIT;
}

const OTHER = 0;
const LOWER = 1;
const UPPER = 2;
const DIGIT = 3;
function charClass(code: number): number {
  if (code >= 0x61 && code <= 0x7a) return LOWER;
  if (code >= 0x41 && code <= 0x5a) return UPPER;
  if (code >= 0x30 && code <= 0x39) return DIGIT;
  return OTHER;
}
