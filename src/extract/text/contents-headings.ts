import type { SourceLine } from './text-extractor.js';

/**
 * Headings a plain text names in its table of contents. Texts made from structured sources (DocBook
 * turned into text by xmlto, as the X11 protocol standard ships; FAQs with a question list up front)
 * print their headings as bare lines, with neither an underline nor a number, and list them all in a
 * "Table of Contents" near the start. A one-line paragraph after the contents that says what the next
 * entries say is that entry's heading, at the depth the contents indent it (or number it). Entries are
 * matched in order, each line against the next few entries not yet met, so a title that recurs
 * ("Errors" as a chapter and as an appendix's section) is taken where the contents put it.
 */
export interface ContentsHeading {
  text: string;
  level: number;
}

/** How far from the start the contents may begin, in lines. */
const CONTENTS_SEARCH_LINES = 400;
/** The most entries read from one table of contents. */
const MAX_ENTRIES = 5000;
/** How many entries past the next one a heading may match (entries with no heading of their own are passed over). */
const MATCH_WINDOW = 20;
/** Fewer matches than this and the contents are not taken to name the text's headings. */
const MIN_MATCHES = 3;
const MAX_ENTRY_LENGTH = 100;
/** The contents' own heading: `Table of Contents`, `Contents`, `TABLE OF CONTENTS`, `Contents:`. */
export const CONTENTS_LINE = /^\s*(?:table\s+of\s+)?contents:?\s*$/i;
/** A list mark before an entry: `o`, `•`, `*`, `-`, `+`, `?` (a bullet lynx could not show). */
const ENTRY_MARK = /^(?:[o•*\-+?·]\s+)/u;
/** A label before a title: `Chapter 8.`, `Appendix A.`, `1.`, `2.1.`, `2.1:`, `A.`. */
const ENTRY_LABEL = /^(?:(?:chapter|appendix|annex|part)\s+)?(?:\d{1,3}|[a-z])(?:\.\d{1,3})*(?:[.:]|\s)\s*/i;
/** Dot leaders and a page number after an entry: `Introduction ........ 3`. */
const PAGE_NUMBER = /\s*(?:\.{2,}|\s)\s*\d{1,4}\s*$/;

interface Entry {
  key: string;
  indent: number;
  depth: number | null;
}

/** The headings the text's table of contents names, by the line index where each stands. */
export function contentsHeadings(lines: readonly SourceLine[]): Map<number, ContentsHeading> {
  const found = new Map<number, ContentsHeading>();
  const start = contentsStart(lines);
  if (start < 0) return found;
  const { entries, end } = contentsEntries(lines, start + 1);
  if (entries.length < MIN_MATCHES) return found;
  const indents = [...new Set(entries.map((e) => e.indent))].sort((a, b) => a - b);
  let next = 0;
  for (let i = end; i < lines.length && next < entries.length; i++) {
    const text = lines[i]!.text;
    // A heading stands alone: a one-line paragraph.
    if (text.trim() === '' || (i > 0 && lines[i - 1]!.text.trim() !== '') || (lines[i + 1]?.text.trim() ?? '') !== '') continue;
    const key = entryKey(text);
    if (key === '') continue;
    const last = Math.min(entries.length, next + 1 + MATCH_WINDOW);
    for (let k = next; k < last; k++) {
      const entry = entries[k]!;
      if (entry.key !== key) continue;
      const byIndent = indents.indexOf(entry.indent) + 1;
      found.set(i, { text: text.trim(), level: Math.min(Math.max(byIndent, entry.depth ?? 1), 6) });
      next = k + 1;
      break;
    }
  }
  return found.size >= MIN_MATCHES ? found : new Map();
}

function contentsStart(lines: readonly SourceLine[]): number {
  const limit = Math.min(lines.length, CONTENTS_SEARCH_LINES);
  for (let i = 0; i < limit; i++) if (CONTENTS_LINE.test(lines[i]!.text)) return i;
  return -1;
}

/**
 * The entries after the contents line, up to the first line that is no entry (prose: long, or ending
 * as a sentence does) or the first one-line paragraph that repeats the first entry (the text's first
 * heading). A line indented deeper than the entry above it and starting in lower case goes on with it
 * (a long question wrapped).
 */
function contentsEntries(lines: readonly SourceLine[], from: number): { entries: Entry[]; end: number } {
  const entries: Entry[] = [];
  let i = from;
  for (; i < lines.length && entries.length < MAX_ENTRIES; i++) {
    const text = lines[i]!.text;
    if (text.trim() === '') continue;
    const indent = /^\s*/.exec(text)![0].length;
    const previous = entries[entries.length - 1];
    const alone = lines[i - 1]!.text.trim() === '' && (lines[i + 1]?.text.trim() ?? '') === '';
    if (entries.length > 0 && alone && entryKey(text) === entries[0]!.key) break;
    if (previous !== undefined && indent > previous.indent && /^\s*[a-z]/.test(text) && lines[i - 1]!.text.trim() !== '') {
      previous.key = `${previous.key} ${entryKey(text)}`.trim();
      continue;
    }
    const trimmed = text.trim().replace(PAGE_NUMBER, '');
    if (trimmed.length > MAX_ENTRY_LENGTH || /[.,;]$/.test(trimmed)) break;
    const key = entryKey(text);
    if (key === '') break;
    entries.push({ key, indent, depth: labelDepth(text) });
  }
  return { entries, end: i };
}

/** A title as an entry and its heading both print it: without list mark, label, page number, case or spacing. */
function entryKey(text: string): string {
  return text.trim().replace(ENTRY_MARK, '').replace(ENTRY_LABEL, '').replace(PAGE_NUMBER, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

/** The depth a label's number gives (`Chapter 8.` and `A.` 1, `2.1.` 2), null without one. */
function labelDepth(text: string): number | null {
  const label = /^(?:(?:chapter|appendix|annex|part)\s+)?((?:\d{1,3}|[a-z])(?:\.\d{1,3})*)(?:[.:]|\s)/i.exec(
    text.trim().replace(ENTRY_MARK, ''),
  );
  return label === null ? null : label[1]!.split('.').length;
}
