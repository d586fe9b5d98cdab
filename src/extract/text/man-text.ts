import type { DocumentBuilder, ListItem, SectionDraft, Span } from '../document-builder.js';
import type { Section } from '../../document/types.js';
import { minOf } from '../../array-extremes.js';
import { boundedTitle, mappedLine, splitLines, type SourceLine, type TextExtractResult, type TextSourceMap } from './text-extractor.js';

/**
 * A manual page as `man` formats it for a terminal and people save it as text (`man ls > ls.txt`):
 * a title line `LS(1)  User Commands  LS(1)`, section headings in capitals at column 0 (`NAME`,
 * `DESCRIPTION`), subsection headings indented three spaces, the text indented seven, each option's
 * tag at the text's indent with its description below it, further in, and a footer line that ends as
 * the title line does. Read as plain text, every paragraph was code (all indented) and there was no
 * section. Here the title and footer lines (and their repeats at page breaks) are furniture, the
 * headings open sections, each option tag opens an entry headed by it (as mandoc's HTML is read), and
 * the text is paragraphs.
 */

/**
 * The title line: it ends with the page's name and section (`LS(1)  User Commands  LS(1)`; a long name
 * is cut at the left and runs into the middle: `GCLOUD_REDIS_REGIONS_DESCRIBGeneral Commands M...(1)`).
 */
const TITLE_LINE = /^\s*\S.*?(?<![^\s\p{Lu}])([^\s()]+)\(([0-9n][0-9A-Za-z+]*)\)\s*$/u;
/** A section heading: capitals at column 0 (`SEE ALSO`, `EXIT STATUS`, `RETURN VALUE`). */
const SECTION_HEADING = /^[A-Z][A-Z0-9 ,.&'/()_-]{0,59}$/;
/** A subsection heading: three spaces in, then a short line that is no sentence. */
const SUBSECTION_HEADING = /^ {3}(?=\S)([^\s].{0,69})$/;
/**
 * A list item's mark in an item's tag place (`.IP \(bu`, `.IP 1.`): as terminals show a bullet (`o`, `•`,
 * `·`, `*`, `+`, `-`) or a number or letter. Such an item is a list's item, not an entry named by its tag.
 */
const ITEM_MARK = /^(?:[o•·*+\u2010-]|\(?(?:\d{1,3}|[a-z])[.)])$/u;
/** A line that is an item's mark with the item's text beside it (two spaces after a mark that could be a word's letter). */
const ITEM_BESIDE = /^([•·])\s+\S|^([o*+\u2010-]|\(?(?:\d{1,3}|[a-z])[.)])\s{2,}\S/u;
/**
 * A rule across the page (`____`, or `────` where the terminal draws lines): Tcl's and Tk's pages box
 * their NAME and SYNOPSIS between two. Furniture, as the title line is.
 */
const RULE_LINE = /^\s*(?:_{10,}|\u2500{10,})\s*$/;
/** An option tag: `-a, --all`, `--block-size=SIZE`, `+FORMAT`. */
const OPTION_TAG = /^[-+]{1,2}[A-Za-z0-9?#@]/;

/** Whether `source` is a formatted manual page: its first line is the title line, and headings follow at column 0. */
export function looksLikeManText(source: string): boolean {
  // Lines as extractManText splits them (a form feed ends a line there too): a title line it would cut
  // at a form feed is no title line, else the reader finds no title where the test saw one.
  const head = resolveOverstrike(source.slice(0, 4096).replace(/\f/g, '\n'));
  const lines = head.split(/\r\n|\r|\n/);
  const first = lines.findIndex((l) => l.trim() !== '');
  if (first < 0 || !TITLE_LINE.test(lines[first]!)) return false;
  // NAME (or a page's first heading in another language) at column 0 right after the title line (and a rule).
  const next = lines.slice(first + 1).find((l) => l.trim() !== '' && !RULE_LINE.test(l));
  return next !== undefined && SECTION_HEADING.test(next) && next.length > 2;
}

/**
 * Text as a terminal shows it where `man` overstrikes (grotty's bold `N\bN`, underline `_\bN`): each
 * pair is the character shown. `col -b` and `less` read them so.
 */
export function resolveOverstrike(text: string): string {
  if (!text.includes('\b')) return text;
  const out: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\b' && out.length > 0 && i + 1 < text.length && !/[\r\n]/.test(text[i + 1]!)) {
      const before = out.pop()!;
      const after = text[++i]!;
      out.push(before === '_' ? after : after === '_' ? before : after);
    } else if (c !== '\b') out.push(c);
  }
  return out.join('');
}

/** The leading spaces of a line (a tab counts to the next multiple of eight, as a terminal shows it). */
function indentOf(text: string): number {
  let n = 0;
  for (const c of text) {
    if (c === ' ') n++;
    else if (c === '\t') n += 8 - (n % 8);
    else break;
  }
  return n;
}

/**
 * Reads the manual page `source` into the builder. `map` says where its offsets are in the source when
 * `source` is text taken out of one (a page's `<pre>`: html/manual-page-pre.ts).
 */
export function extractManText(source: string, builder: DocumentBuilder, map: TextSourceMap | null = null): TextExtractResult {
  const lines: SourceLine[] = splitLines(source.replace(/\f/g, '\n')).map((l) => {
    const line = map === null ? l : mappedLine(l, map);
    return { ...line, text: resolveOverstrike(line.text) };
  });
  const firstIndex = lines.findIndex((l) => l.text.trim() !== '');
  const titleMatch = TITLE_LINE.exec(lines[firstIndex]!.text)!;
  const page = `${titleMatch[1]}(${titleMatch[2]})`;
  // The title line and the footer (and their repeats where the pages break) are the page's furniture.
  const furniture = (text: string): boolean => {
    const t = text.trim();
    return t.startsWith(page) || t.endsWith(page) || RULE_LINE.test(t);
  };
  // The text's indent: where the first section's text starts (seven spaces as man formats it; not the
  // commonest indent, which in a page of many options is their descriptions').
  const firstHeading = lines.findIndex((l, k) => k > firstIndex && SECTION_HEADING.test(l.text));
  const firstText = lines.find((l, k) => k > firstHeading && l.text.trim() !== '' && !furniture(l.text));
  const body = firstHeading >= 0 && firstText !== undefined && indentOf(firstText.text) > 0 ? indentOf(firstText.text) : 7;

  let title = '';
  let inName = false;
  let section: Section | null = null;
  let subsection: Section | null = null;
  const open = (draft: Omit<SectionDraft, 'fragment' | 'number'>): Section =>
    builder.openSection({ fragment: null, number: null, ...draft });
  const span = (from: SourceLine, to: SourceLine) => ({
    unit: 'utf16-source' as const,
    start: from.start,
    end: to.end,
    line: from.line,
    endLine: to.line,
  });
  for (let group of groupsOf(lines, furniture, body)) {
    const head = group[0]!;
    const second = group[1];
    const column = second !== undefined && indentOf(second.text) > body + 3 ? indentOf(second.text) : null;
    const [tag, rest] = splitTag(head.text, body, column);
    const tagged = column !== null && indentOf(head.text) === body && isTag(tag);
    if (SECTION_HEADING.test(head.text)) {
      section = open({ heading: head.text.trim(), level: 1, span: span(head, head) });
      subsection = null;
      inName = head.text.trim() === 'NAME';
      group = group.slice(1);
    } else if (
      SUBSECTION_HEADING.test(head.text) &&
      !/[.:;,]$/.test(head.text) &&
      (second === undefined || indentOf(second.text) >= body)
    ) {
      builder.resumeSection(section);
      subsection = open({ heading: head.text.trim(), level: (section?.level ?? 0) + 1, span: span(head, head) });
      group = group.slice(1);
    } else if (
      indentOf(head.text) === body
        ? column !== null
          ? ITEM_MARK.test(tag)
          : ITEM_BESIDE.test(head.text.trim())
        : indentOf(head.text) > body && ITEM_BESIDE.test(head.text.trim())
    ) {
      // A bulleted or numbered item: its text is the list's next item, in the section it is in (or, set
      // further in, in the item whose description it is part of).
      if (indentOf(head.text) === body) builder.resumeSection(subsection ?? section);
      const mark = /^\S+/.exec(head.text.trim())![0];
      const first = head.text.trim().slice(mark.length);
      const text = joinLines([first, ...group.slice(1).map((l) => l.text)].map((l) => l.trim()));
      addListItem(builder, text, !/^[o•·*+\u2010-]$/u.test(mark), span(head, group[group.length - 1]!));
      continue;
    } else if (tagged || (indentOf(head.text) === body && isOptionBeside(head.text.trim()))) {
      // An item's tag (`.TP`: an option, a variable, a command), its description below it further in, or
      // on the same line where the description's column starts.
      builder.resumeSection(subsection ?? section);
      open({ heading: tag, level: (builder.currentSection?.level ?? 0) + 1, span: span(head, head) });
      group = rest === '' ? group.slice(1) : [{ ...head, text: ' '.repeat(column ?? body + 7) + rest }, ...group.slice(1)];
    } else if (indentOf(head.text) <= body && builder.currentSection !== (subsection ?? section)) {
      // Text back at the page's indent after an item's description: the section (or subsection) goes on.
      builder.resumeSection(subsection ?? section);
    }
    if (group.length === 0) continue;
    const indents = group.map((l) => indentOf(l.text));
    // Lines set further in than the text, in a shape of their own (an example, a table): verbatim.
    const verbatim = indents.every((n) => n >= body + 4) && new Set(indents).size > 1;
    const least = minOf(indents);
    const text = verbatim
      ? group.map((l) => l.text.replace(/^[ \t]+/, (lead) => ' '.repeat(indentOf(lead) - least))).join('\n')
      : joinLines(group.map((l) => l.text.trim()));
    if (inName && title === '') title = boundedTitle(text);
    builder.addBlock({ kind: verbatim ? 'code' : 'paragraph', text, fragment: null, span: span(group[0]!, group[group.length - 1]!) });
  }
  return { title: title === '' ? page : title };
}

/**
 * Adds an item to the list the section's last block is, when that block is a list of items of the same kind
 * (each item is a group of its own: a blank line between two items does not end their list); else starts a list.
 */
function addListItem(builder: DocumentBuilder, text: string, ordered: boolean, span: Span): void {
  const last = builder.blocks[builder.blocks.length - 1];
  const item: ListItem = { text };
  if (last?.kind === 'list' && last['ordered'] === ordered && last.sectionId === (builder.currentSection?.id ?? null)) {
    (last['items'] as ListItem[]).push(item);
    last.text += `\n- ${text}`;
    const lastSpan = last.span as { end: number; endLine: number };
    lastSpan.end = span.end!;
    lastSpan.endLine = span.endLine!;
    return;
  }
  builder.addBlock({ kind: 'list', text: `- ${text}`, fragment: null, items: [item], ordered, span });
}

/**
 * The page's paragraphs: runs of lines between blank lines and furniture, each also cut where a line
 * comes back to the text's indent after lines further in, and before a line at the text's indent with
 * lines further in below it (the items of a list without blank lines between them, as bash's
 * variables are).
 */
function groupsOf(lines: readonly SourceLine[], furniture: (text: string) => boolean, body: number): SourceLine[][] {
  const groups: SourceLine[][] = [];
  let current: SourceLine[] = [];
  const flush = (): void => {
    if (current.length > 0) groups.push(current);
    current = [];
  };
  lines.forEach((line, k) => {
    if (line.text.trim() === '' || furniture(line.text)) {
      flush();
      return;
    }
    const previous = current[current.length - 1];
    const next = lines[k + 1];
    const indent = indentOf(line.text);
    // Back at the text's indent after lines further in, a tag with its description below it, or an
    // option or a list item's mark with its text beside it (`-q     quiet`, `o  Write`: the items of a
    // list set without gaps).
    if (previous !== undefined && indent <= body && indentOf(previous.text) > body) flush();
    else if (previous !== undefined && indent === body && next !== undefined && next.text.trim() !== '' && indentOf(next.text) > body + 3)
      flush();
    else if (previous !== undefined && indent === body && (isOptionBeside(line.text.trim()) || ITEM_BESIDE.test(line.text.trim()))) flush();
    current.push(line);
  });
  flush();
  return groups;
}

/** An option's tag with its description beside it, after a gap of two spaces or more (`-q     quiet`). */
function isOptionBeside(text: string): boolean {
  return OPTION_TAG.test(text) && /\S\s{2,}\S/.test(text);
}

/** A tag: short, and no sentence (a paragraph's first line ending as one does is text before an example). */
function isTag(text: string): boolean {
  return text.length <= 60 && !/[.:;,]$/.test(text);
}

/** Lines joined as a terminal's reader reads them: a word that man hyphenated at a line's end (U+2010) is one word. */
function joinLines(lines: readonly string[]): string {
  // Each line once, with the separator before it: a paragraph of many hyphenated lines stays linear.
  const out: string[] = [];
  let previous = '';
  for (const line of lines) {
    if (out.length === 0) out.push(line);
    else if (previous.endsWith('\u2010') && /^\p{Ll}/u.test(line)) {
      out[out.length - 1] = previous.slice(0, -1);
      out.push(line);
    } else out.push(' ', line);
    previous = line;
  }
  return out.join('').replace(/\s+/g, ' ');
}

/**
 * An item line's tag and, when the description starts on the same line, that text: from the column
 * where the description's next lines start (`--norc Do not read`), else after a gap of two spaces.
 */
function splitTag(line: string, body: number, column: number | null): [string, string] {
  // A tag that fits before the description's column is followed by it on the same line; a longer tag
  // stands alone (`for (( expr1 ; ...`), so a single space there splits only before a sentence.
  if (column !== null && line.length > column && line[column - 1] === ' ' && /^\p{Lu}/u.test(line.slice(column))) {
    return [line.slice(body, column).trim(), line.slice(column).trim()];
  }
  const text = line.trim();
  const gap = /\s{2,}/.exec(text);
  return gap === null ? [text, ''] : [text.slice(0, gap.index), text.slice(gap.index + gap[0].length)];
}
