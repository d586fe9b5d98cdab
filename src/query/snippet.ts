import { charAt, codePointPrefix, isWhitespace, isWordChar, sentenceStarts } from '../chunk/text-boundaries.js';
import { tokenizeWithOffsets } from '../index/tokenizer.js';

/**
 * A snippet is a verbatim substring of the chunk text, at most maxChars code points long, that
 * starts and ends at token boundaries. It is the window with the most distinct query terms (then
 * the most matches, then the earliest), widened to the start of its sentence when that fits and
 * then by whole tokens. Highlights are [start, end) code-point offsets into the snippet text,
 * never inline markers (markers would break the character bound).
 */
export interface Snippet {
  text: string;
  highlights: [number, number][];
}

export function makeSnippet(text: string, queryTerms: ReadonlySet<string>, maxChars: number): Snippet {
  const prefix = codePointPrefix(text);
  const spans = tokenizeWithOffsets(text);
  const total = prefix[text.length]!;
  const cp = (index: number): number => prefix[index]!;
  let start: number;
  let end: number;
  if (total <= maxChars) {
    start = 0;
    end = text.length;
  } else {
    const window = bestWindow(spans, queryTerms, cp, maxChars);
    if (window === undefined) return { text: '', highlights: [] };
    start = spans[window.first]!.start;
    end = spans[window.last]!.end;
    // Widen: to the sentence start when it fits, then forward by whole tokens, then trailing
    // punctuation, then backward by whole tokens.
    const sentence = sentenceStarts(text).filter((s) => s <= start).pop() ?? 0;
    if (cp(end) - cp(sentence) <= maxChars) start = sentence;
    let next = spans.findIndex((span) => span.start >= end);
    while (next >= 0 && next < spans.length && cp(spans[next]!.end) - cp(start) <= maxChars) {
      end = spans[next]!.end;
      next++;
    }
    while (end < text.length && cp(end + 1) - cp(start) <= maxChars) {
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
    while (previous >= 0 && cp(end) - cp(spans[previous]!.start) <= maxChars) {
      start = spans[previous]!.start;
      previous--;
    }
  }
  const highlights: [number, number][] = [];
  for (const span of spans) {
    if (span.start < start || span.end > end || !queryTerms.has(span.term)) continue;
    const from = cp(span.start) - cp(start);
    const to = cp(span.end) - cp(start);
    const last = highlights[highlights.length - 1];
    if (last !== undefined && from <= last[1]) last[1] = Math.max(last[1], to);
    else highlights.push([from, to]);
  }
  return { text: text.slice(start, end), highlights };
}

interface Window {
  first: number;
  last: number;
}

/** Two-pointer scan over token windows that fit in maxChars. */
function bestWindow(spans: { term: string; start: number; end: number }[], queryTerms: ReadonlySet<string>, cp: (index: number) => number, maxChars: number): Window | undefined {
  let best: (Window & { distinct: number; matches: number }) | undefined;
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
  return best === undefined ? undefined : { first: best.first, last: best.last };
}
