/**
 * Where text may be cut. Offsets are UTF-16 indices into the string; lengths that users see
 * (max-chars, highlight offsets) are counted in code points, so both views are provided here.
 */

/**
 * Words are made of letters, digits and marks (\p{L}\p{N}\p{M}); the tokenizer splits on the same
 * class. V8 builds that class from Unicode data the first time a regex with it is created and again
 * when it first runs, ~30 million instructions (several milliseconds) of every cold query, so these
 * regexes are built on first use, and text that cannot need them does without.
 */
const WORD_CLASS = '[\\p{L}\\p{N}\\p{M}]';
/**
 * Invisible characters that join a word rather than end it (Unicode's word-break rules ignore them
 * inside a word: WB4): the soft hyphen (HTML's &shy;, a hyphenation hint), the zero-width non-joiner
 * and joiner (inside Persian and Indic words, emoji) and the word joiner. A reader sees "pas\u00ADsword"
 * as "password": between word characters they are part of the word, and the tokenizer drops them
 * from its term (WORD_JOINER_RUN). The zero-width space is a word break (UAX #29) and stays one.
 */
const WORD_JOINERS = '\\u00AD\\u200C\\u200D\\u2060';
/** A word joiner anywhere in a text (the tokenizer removes them from a word before reading it). */
export const WORD_JOINER_RUN = new RegExp(`[${WORD_JOINERS}]+`, 'g');
let wordChar: RegExp | undefined;
let wordRuns: RegExp | undefined;

/**
 * Text whose characters are ASCII or common punctuation, spaces and symbols, none of them a letter,
 * digit or mark (Latin-1 punctuation and signs without ª ² ³ µ ¹ º ¼ ½ ¾, × ÷, general punctuation
 * but its one unassigned code point and the word joiners, arrows, mathematical operators, ™, the byte order mark): its
 * word characters are exactly [A-Za-z0-9]. Nearly all chunks of English specifications are such text
 * (on the dev corpus 99%; their other characters are curly quotes, dashes and §). A test checks every
 * character of the set against the Unicode class.
 */
const PLAIN_TEXT = new RegExp(
  '^[\\x00-\\x7f\\u00a0-\\u00a9\\u00ab\\u00ac\\u00ae-\\u00b1\\u00b4\\u00b6-\\u00b8\\u00bb\\u00bf\\u00d7\\u00f7' +
    '\\u2000-\\u200b\\u200e-\\u205f\\u2061-\\u2064\\u2066-\\u206f\\u2122\\u2190-\\u22ff\\ufeff]*$',
);
/** The non-ASCII characters PLAIN_TEXT accepts, as a character class body (for tests). */
export const PLAIN_NON_ASCII = PLAIN_TEXT.source.slice('^[\\x00-\\x7f'.length, -']*$'.length);
const ASCII_WORD_RUNS = /([A-Za-z0-9]+)/;

export function isWordChar(char: string | undefined): boolean {
  if (char === undefined) return false;
  const code = char.charCodeAt(0);
  if (code < 0x80) return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39);
  if (PLAIN_TEXT.test(char)) return false;
  wordChar ??= new RegExp(WORD_CLASS, 'u');
  return wordChar.test(char);
}

/** Whether every word of `text` is a run of ASCII letters and digits (see PLAIN_TEXT). */
export function isPlainText(text: string): boolean {
  return PLAIN_TEXT.test(text);
}

/**
 * A regex whose text.split() gives the text between words at even positions ('' where the text
 * starts or ends with a word) and the words (maximal runs of word characters) at odd ones.
 */
export function wordRunsOf(text: string): RegExp {
  if (PLAIN_TEXT.test(text)) return ASCII_WORD_RUNS;
  // Word joiners between word characters are inside the word (WORD_JOINERS); the classes are disjoint, so no backtracking.
  wordRuns ??= new RegExp(`(${WORD_CLASS}+(?:[${WORD_JOINERS}]+${WORD_CLASS}+)*)`, 'u');
  return wordRuns;
}

export function codePointLength(text: string): number {
  // Text without surrogates (most of it) has one code point per code unit: a native scan decides.
  if (!hasSurrogates(text)) return text.length;
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    length++;
  }
  return length;
}

const SURROGATE = /[\ud800-\udfff]/;

/** True when the text holds a surrogate code unit (paired or not), where code points and code units differ. */
export function hasSurrogates(text: string): boolean {
  return SURROGATE.test(text);
}

/** prefix[i] = number of code points that start before UTF-16 index i, for i in 0..length. */
export function codePointPrefix(text: string): Uint32Array {
  const prefix = new Uint32Array(text.length + 1);
  let count = 0;
  for (let i = 0; i < text.length; ) {
    prefix[i] = count;
    const width = (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
    count++;
    if (width === 2) prefix[i + 1] = count;
    i += width;
  }
  prefix[text.length] = count;
  return prefix;
}

/** True when an index lies between the two halves of a surrogate pair. */
export function splitsSurrogate(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  const previous = text.charCodeAt(index - 1);
  const next = text.charCodeAt(index);
  return previous >= 0xd800 && previous <= 0xdbff && next >= 0xdc00 && next <= 0xdfff;
}

/** A cut at `index` is inside a word when word characters touch it on both sides. */
export function cutsWord(text: string, index: number): boolean {
  if (index <= 0 || index >= text.length) return false;
  return isWordChar(charBefore(text, index)) && isWordChar(charAt(text, index));
}

export function charAt(text: string, index: number): string | undefined {
  const code = text.codePointAt(index);
  return code === undefined ? undefined : String.fromCodePoint(code);
}

export function charBefore(text: string, index: number): string | undefined {
  if (index <= 0) return undefined;
  const start = splitsSurrogate(text, index - 1) ? index - 2 : index - 1;
  return charAt(text, start);
}

const SENTENCE_END = /[.!?\u3002\uff01\uff1f\u2026]["'\u2019\u201d)\]]*\s+/gu;

/**
 * Indices where a new sentence starts (after terminal punctuation and whitespace), ascending.
 * A heuristic (abbreviations such as "e.g. " also count); it only guides where cuts are preferred.
 */
export function sentenceStarts(text: string): number[] {
  const starts: number[] = [];
  SENTENCE_END.lastIndex = 0;
  for (let match = SENTENCE_END.exec(text); match !== null; match = SENTENCE_END.exec(text)) {
    const start = match.index + match[0].length;
    if (start < text.length) starts.push(start);
  }
  return starts;
}

const WHITESPACE = /\s/u;

export function isWhitespace(char: string | undefined): boolean {
  return char !== undefined && WHITESPACE.test(char);
}
