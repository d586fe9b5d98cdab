import { hasSurrogates } from './text-boundaries.js';

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Code points between two names of one place, at most: a list of names is short (and long text is never sliced). */
const MAX_NAME_GAP = 256;
/**
 * Names of one place walked back over, at most (Vim's longest lists have six): a text written as one long
 * list of names (`*a* *b* *c* ...`) costs each lookup this many steps, not the whole list.
 */
export const MAX_NAMES = 32;

/**
 * One place with several names. A source can write a list of ids for one place, each followed by its
 * own name (Vim's help: `*'scrolloff'* *'so'*`, a tag per name; `*modeline* *vim:* *vi:* *ex:*`): an
 * anchor whose only text before the next one is its own id makes the next one another name of the
 * same place. Given anchors[i] ([code-point offset, id], ascending), the index of the first name of
 * its place: a citation gives the author's primary name (`'scrolloff'`, not the abbreviation `'so'`).
 * Where the text between two ids says more than the first id, the second marks a place of its own (a
 * paragraph after a term, a step after a definition). `slice` gives the text's code points [from, to).
 */
export function firstName(anchors: readonly (readonly [number, string])[], i: number, slice: (from: number, to: number) => string): number {
  let at = i;
  while (at > 0 && i - at < MAX_NAMES) {
    const [from, id] = anchors[at - 1]!;
    const to = anchors[at]![0];
    if (to - from > MAX_NAME_GAP) break;
    const between = slice(from, to);
    const own = between.toLowerCase().indexOf(id.toLowerCase());
    if (own < 0 || LETTER_OR_DIGIT.test(between.slice(0, own) + between.slice(own + id.length))) break;
    at--;
  }
  return at;
}

/** A slicer of `text` by code points; a text with surrogate pairs is indexed once, on the first slice. */
export function codePointSlicer(text: string): (from: number, to: number) => string {
  if (!hasSurrogates(text)) return (from, to) => text.slice(from, to);
  let starts: Uint32Array | undefined;
  return (from, to) => {
    if (starts === undefined) {
      const offsets: number[] = [];
      for (let i = 0; i < text.length; i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1) offsets.push(i);
      offsets.push(text.length);
      starts = Uint32Array.from(offsets);
    }
    const last = starts.length - 1;
    return text.slice(starts[Math.min(from, last)], starts[Math.min(to, last)]);
  };
}
