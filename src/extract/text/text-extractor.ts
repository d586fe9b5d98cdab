import type { DocumentBuilder } from '../document-builder.js';
import { resolveOverstrike } from './man-text.js';
import { CONTENTS_LINE, contentsHeadings } from './contents-headings.js';

export interface TextExtractResult {
  title: string;
}

/** One line of the source with its offsets (UTF-16, line end excluded) and 1-based number. */
export interface SourceLine {
  text: string;
  start: number;
  end: number;
  line: number;
}

/**
 * Where the text read came from, when it is not the source itself (the text of a page's `<pre>` elements, taken
 * out of their HTML: html/pre-text.ts): the source offset of each offset of the text, the source line
 * of a source offset, and the ids the source gives, so a section whose id it gives cites it.
 */
export interface TextSourceMap {
  offset(textOffset: number): number;
  line(sourceOffset: number): number;
  fragments: ReadonlySet<string>;
}

/**
 * The lines of `source`: a line ends at LF, CRLF or a lone CR (files saved on classic Mac OS, and
 * some generators, end lines with CR only), as in HTML and XML, whose parsers normalise all three.
 * Offsets stay those of the source, so a span covers the bytes it came from.
 */
export function splitLines(source: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = 0;
  let line = 1;
  const n = source.length;
  for (let i = 0; i < n; i++) {
    const c = source.charCodeAt(i);
    if (c !== 10 && c !== 13) continue;
    lines.push({ text: source.slice(start, i), start, end: i, line });
    if (c === 13 && source.charCodeAt(i + 1) === 10) i++;
    start = i + 1;
    line++;
  }
  lines.push({ text: source.slice(start), start, end: n, line });
  return lines;
}

/** A line of the text read, its offsets and number those of the source it came from. */
export function mappedLine(line: SourceLine, map: TextSourceMap): SourceLine {
  const start = map.offset(line.start);
  return { text: line.text, start, end: Math.max(start, map.offset(line.end)), line: map.line(start) };
}

/**
 * Longest document title taken from a text's own lines, in UTF-16 code units: a plain text is titled
 * by its first line, which may be the whole file (one line of 50 MB). Beyond it the title is cut,
 * ending in "…", as heading paths cut a long title (src/chunk/chunker.ts MAX_HEADING_PATH_ENTRY); the
 * full line stays in the first block's text.
 */
export const MAX_TEXT_TITLE = 256;

/** `title` cut to MAX_TEXT_TITLE code units (ending in "…"), never inside a surrogate pair. */
export function boundedTitle(title: string): string {
  if (title.length <= MAX_TEXT_TITLE) return title;
  let end = MAX_TEXT_TITLE - 1;
  const last = title.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${title.slice(0, end).trimEnd()}…`;
}

/**
 * Plain text without a known layout: paragraphs are runs of non-blank lines; a run whose lines are all
 * indented (or look like ASCII art / code) is kept verbatim as code. Headings are read only where the
 * text marks them as its writer meant them (plainHeadings): a line underlined with `=`, `-`, `~`...
 * (Markdown's and reStructuredText's setext headings, in a `.txt` too), and a numbered outline at
 * column 0 (`2.1.1. Stream Header`, the xz format's specification). No other headings are invented.
 */
export function extractPlainText(source: string, builder: DocumentBuilder): TextExtractResult {
  // Overstruck characters (a terminal's bold `N\bN`, underline `_\bN`) read as the one they show.
  const read = splitLines(source.replace(/\f/g, '\n')).map((l) => (l.text.includes('\b') ? { ...l, text: resolveOverstrike(l.text) } : l));
  // An Info file's navigation reads as blank lines: it ends paragraphs and is no text.
  const furniture = infoFurniture(read);
  const lines = furniture.size === 0 ? read : read.map((l, k) => (furniture.has(k) ? { ...l, text: '' } : l));
  const headings = plainHeadings(lines);
  // A text's table of contents names headings it marks no other way (contents-headings.ts): xmlto's
  // text numbers its chapters, not the sections inside them.
  for (const [at, heading] of contentsHeadings(lines))
    if (!headings.has(at)) headings.set(at, { text: heading.text, level: heading.level, number: null, lines: 1 });
  // A title underlined as the top heading (`=====` first) names the document, wherever it stands;
  // else the text's first line does.
  let title = boundedTitle([...headings.values()].find((h) => h.number === null && h.level === 1)?.text ?? '');
  // The last line that heads a section: a table of contents before it is one of the text's own (below).
  let lastHeading = -1;
  for (const at of headings.keys()) lastHeading = Math.max(lastHeading, at);
  let i = 0;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.text.trim() === '') i++;
    if (i >= lines.length) break;
    let first = i;
    while (i < lines.length && lines[i]!.text.trim() !== '') i++;
    const heading = headings.get(first);
    // A table of contents ("Table of Contents", "Contents:") in a text with headings after it heads a
    // section of its own, one level below the section open, that holds its list: the contents are the
    // document's apparatus (the family's "contents" heading), and the next heading closes them
    // (document-builder.ts). xmlto's text repeats a chapter's contents under each chapter heading.
    if (heading === undefined && first < lastHeading && CONTENTS_LINE.test(lines[first]!.text) && !/^\s/.test(lines[first]!.text)) {
      const line = lines[first]!;
      builder.openSection({
        fragment: null,
        heading: line.text.trim().replace(/:$/, ''),
        level: Math.min((builder.currentSection?.level ?? 0) + 1, 6),
        number: null,
        span: { unit: 'utf16-source', start: line.start, end: line.end, line: line.line },
      });
      first += 1;
      if (first >= i) continue;
    }
    if (heading !== undefined) {
      const line = lines[first]!;
      builder.openSection({
        fragment: null,
        heading: heading.text,
        level: heading.level,
        number: heading.number,
        span: { unit: 'utf16-source', start: line.start, end: line.end, line: line.line },
        ...(heading.number !== null ? { id: `section-${heading.number}` } : {}),
      });
      first += heading.lines;
      if (first >= i) continue;
    }
    const group = lines.slice(first, i);
    const indented = group.every((l) => /^(?:\s{4}|\t)/.test(l.text));
    const text = indented
      ? dedent(group.map((l) => l.text)).join('\n')
      : group
          .map((l) => l.text.trim())
          .join(' ')
          .replace(/\s+/g, ' ');
    if (title === '') title = boundedTitle(group[0]!.text.trim());
    builder.addBlock({
      kind: indented ? 'code' : 'paragraph',
      text,
      fragment: null,
      span: {
        unit: 'utf16-source',
        start: group[0]!.start,
        end: group[group.length - 1]!.end,
        line: group[0]!.line,
        endLine: group[group.length - 1]!.line,
      },
    });
  }
  return { title };
}

/** The line that opens an Info node, after its separator: `File: bc.info,  Node: Description,  Next: ...`. */
const INFO_NODE_HEADER = /^File: [^,]+,\s+Node: /;

/**
 * The lines of a GNU Info file (what makeinfo writes for `info`; /usr/share/info) that are its reader's
 * navigation, not the manual's text: each node's separator (U+001F) and header line naming it and its
 * neighbours, its menus of subnodes (`* Menu:` and the entries after it: see menuEnd), the directory
 * entry at the top (`INFO-DIR-SECTION` to `END-INFO-DIR-ENTRY`) with the "This is ... produced by
 * makeinfo" line, and the tag table and local variables at the end. Read as text, each node's header
 * (with its neighbours' names) was a paragraph of the section before it. Empty when the text has no
 * Info node.
 */
function infoFurniture(lines: readonly SourceLine[]): Set<number> {
  const furniture = new Set<number>();
  const isSeparator = (k: number): boolean => lines[k]?.text.trimEnd() === '\u001f';
  if (!lines.some((_line, k) => isSeparator(k) && INFO_NODE_HEADER.test(lines[k + 1]?.text ?? ''))) return furniture;
  let inDirectory = false;
  let inTail = false;
  for (let k = 0; k < lines.length; k++) {
    const text = lines[k]!.text;
    if (isSeparator(k)) {
      furniture.add(k);
      const next = lines[k + 1]?.text ?? '';
      if (INFO_NODE_HEADER.test(next)) furniture.add(k + 1);
      // The tag table (`Tag Table:` ... `End Tag Table`) and the local variables block close the file.
      else if (/^(?:Tag Table:|End Tag Table|Local Variables:)/.test(next)) inTail = true;
      continue;
    }
    if (inTail) furniture.add(k);
    else if (text.startsWith('INFO-DIR-SECTION') || text.startsWith('START-INFO-DIR-ENTRY')) inDirectory = true;
    else if (/^\* Menu:/.test(text)) {
      const end = menuEnd(lines, k, isSeparator);
      for (let j = k; j < end; j++) furniture.add(j);
      k = end - 1;
      continue;
    } else if (k < 4 && /^This is \S+, produced by\b/.test(text)) {
      // The whole paragraph: "This is coreutils.info, produced by makeinfo version 6.8 from / coreutils.texi."
      for (let j = k; j < lines.length && lines[j]!.text.trim() !== ''; j++) furniture.add(j);
    }
    if (inDirectory) furniture.add(k);
    if (text.startsWith('END-INFO-DIR-ENTRY')) inDirectory = false;
  }
  return furniture;
}

/**
 * Where the menu opening at line `start` (`* Menu:`) ends: after its entries (paragraphs opening with
 * `* `, their descriptions wrapped below) and the group titles between them (one short line over more
 * entries: the Top node's "--- The Detailed Node Listing ---", "Introduction"), at the first other
 * paragraph or the next node. A menu may open a node, before its text (bc's "4 Statements"): that text
 * is the manual's.
 */
function menuEnd(lines: readonly SourceLine[], start: number, isSeparator: (k: number) => boolean): number {
  const blank = (k: number): boolean => lines[k]!.text.trim() === '';
  let k = start + 1;
  for (;;) {
    while (k < lines.length && blank(k) && !isSeparator(k)) k++;
    if (k >= lines.length || isSeparator(k)) return k;
    let end = k;
    while (end < lines.length && !blank(end) && !isSeparator(end)) end++;
    // Entries, and the rule a Top node's detailed listing opens with ("--- The Detailed Node Listing ---").
    if (lines[k]!.text.startsWith('* ') || /^\s*-{2,}\s.*\s-{2,}\s*$/.test(lines[k]!.text)) {
      k = end;
      continue;
    }
    // A group title: one short line, more entries after it.
    let next = end;
    while (next < lines.length && blank(next) && !isSeparator(next)) next++;
    if (end - k === 1 && lines[k]!.text.trim().length <= 60 && lines[next]?.text.startsWith('* ') === true) {
      k = next;
      continue;
    }
    // The paragraph before it ends the menu: the blank lines after the last entry are the menu's.
    return k;
  }
}

/** A heading line of a plain text: its text, outline level, printed number and how many lines it takes. */
interface PlainHeading {
  text: string;
  level: number;
  number: string | null;
  lines: number;
}

/** `=====`, `-----`, `~~~~~`... under a heading (setext / reStructuredText). */
const UNDERLINE = /^([=\-~^*#+])\1{2,}\s*$/;
/**
 * `2.1.1. Stream Header`, `0. Preface`, `3 Block`, `1.1: Sources of information` (zsh's FAQ), `Chapter 8.
 * Connection Setup`, `Appendix A. KEYSYM Encoding` (xmlto's text), `A.3.1 The Packages Characters` (an
 * annex's clauses) at column 0, the number parted from the title by spaces or no-break spaces. Groups: the
 * Chapter/Appendix word, the number, the mark after it.
 */
const OUTLINE_HEADING = /^(?:(Chapter|Appendix|Annex)\s+)?((?:\d{1,3}|[A-Z])(?:\.\d{1,3}){0,5})([.:]?)[ \t\u00a0]+(\S.*)$/;
/** A heading's text is a title: short, no wide gaps, not a sentence (a numbered list item ends in `.`). */
const MAX_HEADING_LENGTH = 80;
/** A numbered outline needs this many headings in order before its lines are read as headings. */
const MIN_OUTLINE_HEADINGS = 3;

function isTitleText(text: string): boolean {
  return text.length > 0 && text.length <= MAX_HEADING_LENGTH && !/\s{3,}/.test(text) && !/[.,;:]$/.test(text);
}

/**
 * The headings of a plain text by the line index where each starts: a line at column 0 that begins a
 * paragraph (a subsection's number, `2.1` and deeper, may be indented up to four spaces), underlined by
 * the next (`Title` over `=====` at least half its length: levels in the order
 * the underline characters first appear, as reStructuredText assigns them); and, when at least three
 * one-line paragraphs at column 0 are numbered as an outline in order (each the next sibling of a heading
 * before it or the first child of the last: `2.1` after `2`, `2.1.1`, then `2.2` or `3`), those, as
 * `section-N` at the depth their number gives. A numbered line out of that order is text (a list item).
 */
/** How far a subsection's number may be indented (curl's FAQ indents them by two). */
const MAX_SUBSECTION_INDENT = 4;

function plainHeadings(lines: readonly SourceLine[]): Map<number, PlainHeading> {
  const headings = new Map<number, PlainHeading>();
  const underlineLevels: string[] = [];
  const outline: { at: number; text: string; number: string[] }[] = [];
  let previous: string[] | null = null;
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.text;
    // Only the first line of a paragraph can be a heading.
    if (text.trim() === '' || (i > 0 && lines[i - 1]!.text.trim() !== '')) continue;
    // A subsection's number may be indented a little, as its text is (curl's FAQ: "  5.1 Is libcurl
    // thread-safe?" under "5. libcurl Issues"); anything else indented is text.
    const indent = /^[ ]*/.exec(text)![0].length;
    if (/^\s/.test(text) && (indent === 0 || indent > MAX_SUBSECTION_INDENT || !/^[ ]*\d+\.\d/.test(text))) continue;
    const title = text.trim();
    const next = lines[i + 1]?.text ?? '';
    const underline = indent > 0 ? null : UNDERLINE.exec(next);
    if (underline !== null && isTitleText(title) && next.trim().length * 2 >= title.length) {
      let level = underlineLevels.indexOf(underline[1]!);
      if (level < 0) level = underlineLevels.push(underline[1]!) - 1;
      headings.set(i, { text: title, level: Math.min(level + 1, 6), number: null, lines: 2 });
      continue;
    }
    const numbered = OUTLINE_HEADING.exec(title);
    const oneLine = next.trim() === '';
    if (numbered === null || !oneLine || !isTitleText(numbered[4]!.trim())) continue;
    // A letter alone is a number only with a word, a mark or a subnumber: "A simple example" is a title.
    if (/^[A-Z]$/.test(numbered[2]!) && numbered[1] === undefined && numbered[3] === '') continue;
    const number = numbered[2]!.split('.').map((part) => (/^\d/.test(part) ? String(Number(part)) : part));
    if (!followsInOutline(previous, number)) continue;
    previous = number;
    outline.push({ at: i, text: numbered[4]!.trim(), number });
  }
  if (outline.length >= MIN_OUTLINE_HEADINGS) {
    const base = underlineLevels.length;
    for (const entry of outline)
      headings.set(entry.at, {
        text: entry.text,
        level: Math.min(base + entry.number.length, 6),
        number: entry.number.join('.'),
        lines: 1,
      });
  }
  return headings;
}

/**
 * Whether `number` comes right after `previous` in an outline: a next sibling at some depth, or the first
 * child; the first appendix (`A`) after numbered chapters. The first heading is a first one at every
 * depth (`1`, `0`, `A`, `1.1`, `A.1`: an annex's file begins at its first clause). Parts are digits or
 * one capital letter (an appendix), counted in the alphabet.
 */
function followsInOutline(previous: readonly string[] | null, number: readonly string[]): boolean {
  if (previous === null) return number.every(isFirstPart);
  if (number.length === previous.length + 1) {
    return number.slice(0, previous.length).every((n, k) => n === previous[k]) && isFirstPart(number[previous.length]!);
  }
  if (number.length > previous.length) return false;
  if (number.length === 1 && number[0] === 'A' && /^\d/.test(previous[0]!)) return true;
  const last = number.length - 1;
  return number.slice(0, last).every((n, k) => n === previous[k]) && partAfter(previous[last]!) === number[last];
}

function isFirstPart(part: string): boolean {
  return part === '0' || part === '1' || part === 'A';
}

/** The part that follows `part`: `3` after `2`, `B` after `A`. */
function partAfter(part: string): string {
  return /^\d/.test(part) ? String(Number(part) + 1) : String.fromCharCode(part.charCodeAt(0) + 1);
}

export function dedent(lines: string[]): string[] {
  let min = Infinity;
  for (const l of lines) {
    if (l.trim() === '') continue;
    const m = /^[ \t]*/.exec(l);
    min = Math.min(min, m ? m[0].length : 0);
  }
  if (!Number.isFinite(min) || min === 0) return lines.map((l) => l.trimEnd());
  return lines.map((l) => l.slice(min).trimEnd());
}
