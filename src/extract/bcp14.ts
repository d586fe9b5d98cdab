/** RFC 2119 / RFC 8174 (BCP 14) requirement keywords: only their upper-case forms carry the meaning. */
export const BCP14_KEYWORDS = [
  'MUST NOT',
  'MUST',
  'REQUIRED',
  'SHALL NOT',
  'SHALL',
  'SHOULD NOT',
  'SHOULD',
  'NOT RECOMMENDED',
  'RECOMMENDED',
  'MAY',
  'OPTIONAL',
] as const;

export type Bcp14Keyword = (typeof BCP14_KEYWORDS)[number];

export interface KeywordSpan {
  keyword: Bcp14Keyword;
  /** UTF-16 offsets into the block text. */
  start: number;
  end: number;
  /** The source marked it (span.bcp14, <bcp14>, em.rfc2119) rather than us finding it by pattern. */
  marked?: boolean;
}

const KEYWORD_PATTERN = /\b(?:MUST(?: NOT)?|SHALL(?: NOT)?|SHOULD(?: NOT)?|(?:NOT )?RECOMMENDED|REQUIRED|MAY|OPTIONAL)\b/g;

/** Normalises marked keyword text ("must" in em.rfc2119, "MUST\nNOT") to its keyword, or null. */
/**
 * Longest text of an element that may mark a keyword: the longest keyword ("NOT RECOMMENDED") with room
 * for the spaces around and inside it. An element holding more text marks none, so only this much of
 * its text is read (textOfAtMost): keyword elements nested in one another each read theirs.
 */
export const MAX_KEYWORD_TEXT = 64;

export function keywordOf(text: string): Bcp14Keyword | null {
  const upper = text.replace(/\s+/g, ' ').trim().toUpperCase();
  return (BCP14_KEYWORDS as readonly string[]).includes(upper) ? (upper as Bcp14Keyword) : null;
}

/** Upper-case keywords found by pattern in plain text (used where the source marks none). */
export function findKeywords(text: string): KeywordSpan[] {
  const found: KeywordSpan[] = [];
  KEYWORD_PATTERN.lastIndex = 0;
  for (let m = KEYWORD_PATTERN.exec(text); m !== null; m = KEYWORD_PATTERN.exec(text)) {
    found.push({ end: m.index + m[0].length, keyword: m[0] as Bcp14Keyword, start: m.index });
  }
  return found;
}
