import type { TokenSpan } from './tokenizer.js';

/**
 * Operators and other symbols as terms. Words are runs of letters, digits and marks, so a question
 * about `->>` (SQLite), `<=>` or `$@` (Perl), `::` (C++, CSS), `&&`, `?<=` or `\K` (regular
 * expressions) had nothing to find it by. A symbol term is a run of ASCII punctuation and symbols
 * as the text writes it:
 * - brackets and quotes end a run, they wrap or delimit what they touch (`("->>")` is `->>`, `="?"`
 *   is nothing); commas and semicolons at either end are dropped (`->>,`), and so are full stops
 *   after a run that ends a word (`->.` is `->`) and other sentence punctuation (`: ! ?`) while two
 *   characters stay (`$@?` at a question's end is `$@`; `$?` and `??` stay themselves);
 * - what remains is a term when it is 2 to 4 characters long and not dots alone (an ellipsis, a
 *   table of contents' leader); a longer run is drawing (`+------+`, `=====`), not an operator;
 * - a lone backslash before an ASCII letter or digit is an escape with it (`\K`, `\d`, `\n`), and a
 *   dash that starts a word of one ASCII letter is a command-line option (`-N`, `-v`: its letter alone
 *   is no word to find it by); the only terms whose letter keeps its case (`\K` and `\k`, `-N` and
 *   `-n` differ). A dash inside a word (`e-mail`), before a digit (`-1`) or before a longer word
 *   (`-Mrm`, found by its word) is none.
 * Only ASCII counts: a symbol's meaning does not depend on the runtime's Unicode tables, so terms
 * are the same on every runtime. A term is written with each character's fullwidth form (U+FF01 to
 * U+FF5E: `->>` is `－＞＞`), which no word term can hold (NFKC folds fullwidth forms to ASCII) and
 * which keeps ASCII punctuation, quotes and backslashes out of the index's term lists.
 *
 * The index counts symbol terms beside a text's words (tokenizer.ts indexTerms), outside the
 * chunk's length, and a query scores the symbol terms it writes (query-terms.ts); they take no
 * position, so phrases and proximity read words only.
 */

const MIN_SYMBOL_LENGTH = 2;
const MAX_SYMBOL_LENGTH = 4;
/** Fullwidth form of an ASCII character in 0x21..0x7E: the code point plus this. */
const FULLWIDTH_OFFSET = 0xfee0;

/** Comma and semicolon: they separate what they touch. */
function isSeparatorCode(code: number): boolean {
  return code === 0x2c || code === 0x3b;
}

/** Sentence punctuation: . : ! ? */
function isSentenceCode(code: number): boolean {
  return code === 0x2e || code === 0x3a || code === 0x21 || code === 0x3f;
}

function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

/** Whether a term is a symbol term (its first character is a fullwidth form). */
export function isSymbolTerm(term: string): boolean {
  const code = term.charCodeAt(0);
  return code >= 0xff01 && code <= 0xff5e;
}

/** The symbols a symbol term stands for, as the text writes them (`－＞＞` is `->>`). */
export function symbolText(term: string): string {
  let text = '';
  for (let i = 0; i < term.length; i++) text += String.fromCharCode(term.charCodeAt(i) - FULLWIDTH_OFFSET);
  return text;
}

function termOf(text: string, start: number, end: number): string {
  let term = '';
  for (let i = start; i < end; i++) term += String.fromCharCode(text.charCodeAt(i) + FULLWIDTH_OFFSET);
  return term;
}

/**
 * The runs that may hold a term: two symbols or more, a backslash before a letter or digit, or a dash
 * before a one-letter word. A
 * symbol is ASCII punctuation or a symbol (0x21-0x2F, 0x3A-0x40, 0x5B-0x60, 0x7B-0x7E) other than a
 * bracket or quote (`( ) [ ] { } " ' \``), which ends a run. A native scan finds them: a loop over every character in a cold process
 * (a one-shot build) cost several times as long as tokenizing the words around them.
 */
const CANDIDATE_RUNS = /[!#$%&*+,\-./:;<=>?@\\^_|~]{2,}|\\(?=[0-9A-Za-z])|-(?=[A-Za-z](?![0-9A-Za-z_]))/g;

/** The symbol terms of a text with their UTF-16 offsets, in order. */
export function symbolSpans(text: string): TokenSpan[] {
  const spans: TokenSpan[] = [];
  const n = text.length;
  CANDIDATE_RUNS.lastIndex = 0;
  for (let match = CANDIDATE_RUNS.exec(text); match !== null; match = CANDIDATE_RUNS.exec(text)) {
    const runStart = match.index;
    const i = runStart + match[0].length;
    let start = runStart;
    let end = i;
    while (start < end && isSeparatorCode(text.charCodeAt(start))) start++;
    // A run that ends a word (not a letter or digit after it) drops sentence punctuation at its end,
    // keeping two characters, as well as separators.
    const endsWord = i === n || !isAsciiAlphanumeric(text.charCodeAt(i));
    while (end > start) {
      const last = text.charCodeAt(end - 1);
      if (isSeparatorCode(last) || (endsWord && (last === 0x2e || (end - start > MIN_SYMBOL_LENGTH && isSentenceCode(last))))) end--;
      else break;
    }
    const length = end - start;
    if (length === 1 && text.charCodeAt(start) === 0x5c && end === i && i < n && isAsciiAlphanumeric(text.charCodeAt(i))) {
      spans.push({ term: termOf(text, start, end + 1), start, end: end + 1 });
      continue;
    }
    // A dash alone (the run regex matched no other symbol with it) before a one-letter word: an option
    // when nothing but a space, a bracket or a quote stands before it.
    if (match[0] === '-' && (runStart === 0 || startsOption(text.charCodeAt(runStart - 1)))) {
      spans.push({ term: termOf(text, runStart, runStart + 2), start: runStart, end: runStart + 2 });
      continue;
    }
    if (length < MIN_SYMBOL_LENGTH || length > MAX_SYMBOL_LENGTH || onlyDots(text, start, end)) continue;
    spans.push({ term: termOf(text, start, end), start, end });
  }
  return spans;
}

/** What may stand before an option's dash: white space, an opening bracket or a quote. */
function startsOption(code: number): boolean {
  return (
    code === 0x20 ||
    code === 0x09 ||
    code === 0x0a ||
    code === 0x0d ||
    code === 0xa0 ||
    code === 0x28 ||
    code === 0x5b ||
    code === 0x7b ||
    code === 0x22 ||
    code === 0x27 ||
    code === 0x60
  );
}

function onlyDots(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) !== 0x2e) return false;
  return true;
}

/** The symbol terms of a text, in order. */
export function symbolTerms(text: string): string[] {
  return symbolSpans(text).map((span) => span.term);
}
