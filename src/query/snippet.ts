import { charAt, charBefore, codePointPrefix, isWhitespace, isWordChar, sentenceStarts } from '../chunk/text-boundaries.js';
import { stemPrefix, tokenizeWithOffsets, type TokenSpan } from '../index/tokenizer.js';
import { minOf } from '../array-extremes.js';

/**
 * A snippet is a window of the chunk text, at most maxChars code points long counting its
 * ellipses: a verbatim substring that starts and ends at token (word) boundaries, preceded by "…"
 * when text before it was cut and followed by "…" when text after it was. The window is the one with
 * the most distinct query terms (then the most matches, then the earliest), started at the sentence
 * of its first query term when that is later, widened to the start of its sentence when that fits
 * and then by whole tokens; a cut start inside a whitespace-delimited word skips the rest of it.
 * Highlights are [start, end) code-point offsets into the snippet text (ellipsis included), never
 * inline markers (markers would break the character bound).
 *
 * When no query word is highlighted, `noHighlight` says why: the chunk matched through its heading
 * path only ("not-in-text"), or the bound is smaller than the shortest window that holds a query
 * word with its ellipses ("bound-too-small", with that size as `minChars`; the text is then empty
 * rather than words that are not the match).
 */
export const ELLIPSIS = '…';

export interface Snippet {
  text: string;
  highlights: [number, number][];
  /** Code-point offset in the chunk text where the snippet's verbatim text begins (after any leading ellipsis). */
  chunkOffset: number;
  /** Text before / after the window was cut (the snippet shows an ellipsis there). */
  cutBefore: boolean;
  cutAfter: boolean;
  noHighlight?: { reason: 'not-in-text' } | { reason: 'bound-too-small'; minChars: number };
}

/** Any half of a surrogate pair: without one, every UTF-16 index is also a code-point offset. */
const SURROGATE = /[\uD800-\uDFFF]/;

export function makeSnippet(text: string, queryTerms: ReadonlySet<string>, maxChars: number): Snippet {
  // Code-point offsets of UTF-16 indexes: the identity unless the text has surrogates (filling a
  // table for the whole text cost a cold query a loop over every chunk text it showed).
  const prefix = SURROGATE.test(text) ? codePointPrefix(text) : undefined;
  // Only query terms matter here, so words that cannot be one are not stemmed.
  const spans = tokenizeWithOffsets(text, [...new Set([...queryTerms].map(stemPrefix))], queryTerms);
  const cp = prefix === undefined ? (index: number): number => index : (index: number): number => prefix[index]!;
  const total = cp(text.length);
  const matching = spans.filter((span) => queryTerms.has(span.term));
  if (total <= maxChars)
    return finish(text, spans, queryTerms, cp, 0, text.length, matching.length === 0 ? { reason: 'not-in-text' } : undefined);
  // Try the largest window first; the ellipses it needs count against the bound.
  for (const ellipses of [0, 1, 2]) {
    const budget = maxChars - ellipses;
    if (budget < 1) break;
    const window = bestWindow(spans, queryTerms, cp, budget);
    if (window === undefined) continue;
    if (matching.length > 0 && window.distinct === 0) continue;
    const [start, end] = widen(text, spans, queryTerms, cp, window, budget);
    const cuts = (start > 0 ? 1 : 0) + (end < text.length ? 1 : 0);
    if (cp(end) - cp(start) + cuts > maxChars) continue;
    return finish(text, spans, queryTerms, cp, start, end, matching.length === 0 ? { reason: 'not-in-text' } : undefined);
  }
  const minChars =
    matching.length === 0
      ? 0
      : minOf(matching.map((span) => cp(span.end) - cp(span.start) + (span.start > 0 ? 1 : 0) + (span.end < text.length ? 1 : 0)));
  return {
    text: '',
    highlights: [],
    chunkOffset: 0,
    cutBefore: true,
    cutAfter: true,
    noHighlight: matching.length === 0 ? { reason: 'not-in-text' } : { reason: 'bound-too-small', minChars },
  };
}

/**
 * Widens a window: to its sentence start when that fits, then forward by whole tokens and trailing punctuation,
 * then backward by whole tokens.
 */
function widen(
  text: string,
  spans: TokenSpan[],
  queryTerms: ReadonlySet<string>,
  cp: (index: number) => number,
  window: Window,
  budget: number,
): [number, number] {
  let start = spans[window.first]!.start;
  let end = spans[window.last]!.end;
  const starts = sentenceStarts(text);
  // The earliest best window holds as much text before its first query word as fits, so the words
  // end it and what they say is cut ("… ASCII whitespace is…"): it starts at the sentence of its
  // first query word instead, when that is later, and runs on from there (no query word is lost).
  let firstMatch = window.first;
  while (firstMatch < window.last && !queryTerms.has(spans[firstMatch]!.term)) firstMatch++;
  const matchSentence = starts.filter((s) => s <= spans[firstMatch]!.start).pop() ?? 0;
  if (matchSentence > start) start = matchSentence;
  const sentence = starts.filter((s) => s <= start).pop() ?? 0;
  if (cp(end) - cp(sentence) <= budget) start = sentence;
  let next = window.last + 1;
  while (next < spans.length && spans[next]!.start < end) next++;
  while (next < spans.length && cp(spans[next]!.end) - cp(start) <= budget) {
    end = spans[next]!.end;
    next++;
  }
  while (end < text.length && cp(end + 1) - cp(start) <= budget) {
    const char = charAt(text, end);
    if (isWhitespace(char) || isWordChar(char) || char === undefined || char.length > 1) break;
    end++;
  }
  let previous = -1;
  for (let i = spans.length - 1; i >= 0; i--) {
    if (spans[i]!.end <= start) {
      previous = i;
      break;
    }
  }
  while (previous >= 0 && cp(end) - cp(spans[previous]!.start) <= budget) {
    start = spans[previous]!.start;
    previous--;
  }
  // A cut start falls at a word that follows whitespace, not inside "Channel-Identifier" or "a.b":
  // the rest of the cut word is dropped, unless it holds a query word.
  if (start > 0 && !isWhitespace(charBefore(text, start))) {
    for (let i = previous + 1; i < spans.length && spans[i]!.end <= end; i++) {
      const span = spans[i]!;
      if (span.start < start) continue;
      if (queryTerms.has(span.term)) break;
      if (span.start > start && isWhitespace(charBefore(text, span.start))) {
        start = span.start;
        break;
      }
    }
  }
  return [start, end];
}

function finish(
  text: string,
  spans: TokenSpan[],
  queryTerms: ReadonlySet<string>,
  cp: (index: number) => number,
  start: number,
  end: number,
  noHighlight: Snippet['noHighlight'],
): Snippet {
  const cutBefore = start > 0;
  const cutAfter = end < text.length;
  const shift = cutBefore ? 1 : 0;
  const highlights: [number, number][] = [];
  for (const span of spans) {
    if (span.start < start || span.end > end || !queryTerms.has(span.term)) continue;
    const from = cp(span.start) - cp(start) + shift;
    const to = cp(span.end) - cp(start) + shift;
    const last = highlights[highlights.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else highlights.push([from, to]);
  }
  const snippet: Snippet = {
    text: `${cutBefore ? ELLIPSIS : ''}${text.slice(start, end)}${cutAfter ? ELLIPSIS : ''}`,
    highlights,
    chunkOffset: cp(start),
    cutBefore,
    cutAfter,
  };
  if (noHighlight !== undefined) snippet.noHighlight = noHighlight;
  return snippet;
}

interface Window {
  first: number;
  last: number;
  distinct: number;
}

/** Two-pointer scan over token windows that fit in maxChars. */
function bestWindow(
  spans: TokenSpan[],
  queryTerms: ReadonlySet<string>,
  cp: (index: number) => number,
  maxChars: number,
): Window | undefined {
  let best: (Window & { matches: number }) | undefined;
  const counts = new Map<string, number>();
  let distinct = 0;
  let matches = 0;
  let last = -1;
  for (let first = 0; first < spans.length; first++) {
    if (last < first - 1) last = first - 1;
    while (last + 1 < spans.length && cp(spans[last + 1]!.end) - cp(spans[first]!.start) <= maxChars) {
      last++;
      const term = spans[last]!.term;
      if (queryTerms.has(term)) {
        matches++;
        const count = counts.get(term) ?? 0;
        if (count === 0) distinct++;
        counts.set(term, count + 1);
      }
    }
    if (last >= first && (best === undefined || distinct > best.distinct || (distinct === best.distinct && matches > best.matches))) {
      best = { first, last, distinct, matches };
    }
    if (last >= first) {
      const term = spans[first]!.term;
      if (queryTerms.has(term)) {
        matches--;
        const count = counts.get(term)! - 1;
        if (count === 0) distinct--;
        counts.set(term, count);
      }
    }
  }
  return best === undefined ? undefined : { first: best.first, last: best.last, distinct: best.distinct };
}

/**
 * The window size the citation's match is looked for in: the CLI's default snippet bound, fixed so
 * that the fragment a hit cites does not change with --max-snippet-chars.
 */
export const MATCH_WINDOW_CHARS = 400;

/**
 * Code-point offset of the match a citation points at: in the window of MATCH_WINDOW_CHARS with the
 * most distinct query words (then the most matches, then the earliest), the window a default snippet
 * shows, the first query word of the passage that matches best; 0 when the text has no query word.
 * `boundaries` (ascending code-point offsets: where the chunk's stable source ids begin, see
 * citation-choice.ts) cut the window into passages, each cited by its own id: the passage with the
 * most distinct query words wins (then the most matches, then the earliest), so a window that runs
 * from the end of one definition into the one the question asks about cites the second.
 */
export function matchOffset(text: string, queryTerms: ReadonlySet<string>, boundaries: readonly number[] = []): number {
  const prefix = SURROGATE.test(text) ? codePointPrefix(text) : undefined;
  const cp = prefix === undefined ? (index: number): number => index : (index: number): number => prefix[index]!;
  const spans = tokenizeWithOffsets(text, [...new Set([...queryTerms].map(stemPrefix))], queryTerms);
  const window = bestWindow(spans, queryTerms, cp, MATCH_WINDOW_CHARS);
  if (window === undefined || window.distinct === 0) return 0;
  let best: { at: number; distinct: number; matches: number } | undefined;
  let passage: { at: number; terms: Set<string>; matches: number } | undefined;
  let boundary = 0;
  let passageStart = -1;
  const close = (): void => {
    if (passage === undefined) return;
    const distinct = passage.terms.size;
    if (best === undefined || distinct > best.distinct || (distinct === best.distinct && passage.matches > best.matches))
      best = { at: passage.at, distinct, matches: passage.matches };
    passage = undefined;
  };
  for (let i = window.first; i <= window.last; i++) {
    const span = spans[i]!;
    if (!queryTerms.has(span.term)) continue;
    const at = cp(span.start);
    // The passage a word is in starts at the last boundary at or before it.
    while (boundary < boundaries.length && boundaries[boundary]! <= at) boundary++;
    const start = boundary === 0 ? -1 : boundaries[boundary - 1]!;
    if (passage === undefined || start !== passageStart) {
      close();
      passage = { at, terms: new Set(), matches: 0 };
      passageStart = start;
    }
    passage.terms.add(span.term);
    passage.matches++;
  }
  close();
  return best?.at ?? 0;
}
