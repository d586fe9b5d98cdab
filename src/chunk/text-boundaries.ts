/**
 * Where text may be cut. Offsets are UTF-16 indices into the string; lengths that users see
 * (max-chars, highlight offsets) are counted in code points, so both views are provided here.
 */

const WORD_CHAR = /[\p{L}\p{N}\p{M}]/u;

export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD_CHAR.test(char);
}

export function codePointLength(text: string): number {
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
