import { type AnyNode, type Element, isTag, isText } from 'domhandler';
import type { TextSourceMap } from '../text/text-extractor.js';

/**
 * The text a page holds in `<pre>` elements, as a text reader reads it, with each of its offsets mapped
 * back to the HTML source (character references included) and the ids its elements carry. Pages that
 * wrap a text format in `<pre>` (an htmlized RFC, a formatted manual page) are read by that format's text
 * reader through this map, so spans and lines still point into the HTML.
 */
export interface PreText {
  /** The elements' text, joined by line ends. */
  text: string;
  map: TextSourceMap;
}

/**
 * Where a run of the text is written: from text offset `at`, the source offset `source` on, one for
 * one, or (a text node with character references) `each` code unit's own source offset.
 */
interface Segment {
  at: number;
  source: number;
  each: Int32Array | null;
}

/** The text of `pres` (in document order), one line end between two of them. */
export function preText(pres: readonly Element[], source: string): PreText {
  const parts: string[] = [];
  const segments: Segment[] = [];
  const anchors = new Set<string>();
  let length = 0;
  let lastEnd = 0;
  const append = (data: string, segment: Segment): void => {
    parts.push(data);
    segments.push(segment);
    length += data.length;
  };
  for (const pre of pres) {
    // Two elements' texts are joined by a line end, written where the first ends.
    if (length > 0) append('\n', { at: length, source: lastEnd, each: null });
    const visit = (node: AnyNode): void => {
      if (isText(node)) {
        const start = node.startIndex ?? lastEnd;
        const end = node.endIndex === null ? start + node.data.length : node.endIndex + 1;
        append(node.data, {
          at: length,
          source: start,
          each: end - start === node.data.length ? null : sourceOffsets(node.data, start, end, source),
        });
        lastEnd = end;
      } else if (isTag(node)) {
        const id = node.attribs['id'] ?? node.attribs['name'];
        if (id !== undefined && id !== '') anchors.add(id);
        for (const child of node.children) visit(child);
      }
    };
    for (const child of pre.children) visit(child);
  }
  const lineStarts = [0];
  for (let i = 0; i < source.length; i++) if (source.charCodeAt(i) === 10) lineStarts.push(i + 1);
  return {
    text: parts.join(''),
    map: {
      offset: (i) => {
        if (i >= length) return lastEnd;
        const segment = segments[lastAtOrBefore(segments.length, (k) => segments[k]!.at <= i)]!;
        return segment.each === null ? segment.source + (i - segment.at) : segment.each[i - segment.at]!;
      },
      line: (offset) => lastAtOrBefore(lineStarts.length, (k) => lineStarts[k]! <= offset) + 1,
      fragments: anchors,
    },
  };
}

/** The last index k in [0, n) for which `holds(k)` (true for 0, and for a prefix of the indexes). */
function lastAtOrBefore(n: number, holds: (k: number) => boolean): number {
  let lo = 0;
  let hi = n - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (holds(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The `<pre>` elements of the document in order, not those inside another. */
export function collectPres(node: AnyNode, out: Element[]): void {
  if (!('children' in node)) return;
  for (const child of node.children) {
    if (!isTag(child)) continue;
    if (child.name === 'pre') out.push(child);
    else collectPres(child, out);
  }
}

/**
 * The source offset of each code unit of a text node's decoded `data`, written at [start, end): one
 * for one where the source writes it as is, the character reference's '&' where it writes one
 * (`&lt;`, `&#x2014;`).
 */
function sourceOffsets(data: string, start: number, end: number, source: string): Int32Array {
  const each = new Int32Array(data.length);
  let r = start;
  for (let i = 0; i < data.length; i++) {
    const reference = source.charCodeAt(r) === 38 /* & */ ? referenceLength(source, r, data.charCodeAt(i) === 38) : 0;
    each[i] = Math.min(r, end);
    if (reference > 0) {
      // Every code unit it decodes to maps to its '&'.
      if (i + 1 < data.length && isLowSurrogate(data.charCodeAt(i + 1))) each[++i] = Math.min(r, end);
      r = Math.min(r + reference, end);
    } else if (r < end) r++;
  }
  return each;
}

const REFERENCE = /&(?:#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,8}|[A-Za-z][A-Za-z0-9]{1,31});?/y;

/**
 * The length of the character reference at `at`, or 0 when the '&' there stands for itself. An '&' in
 * the text is a reference only as `&amp;` (or a numeric one); any other character it decodes to is.
 */
function referenceLength(source: string, at: number, decodesToAmpersand: boolean): number {
  REFERENCE.lastIndex = at;
  const match = REFERENCE.exec(source);
  if (match === null) return 0;
  if (decodesToAmpersand && !/^&(?:amp|#0*38|#[xX]0*26);?$/.test(match[0])) return 0;
  return match[0].length;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
