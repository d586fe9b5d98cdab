import type { BlockKind, DocumentBuilder, ListItem } from '../document-builder.js';
import { boundedTitle, dedent, mappedLine, splitLines, type SourceLine, type TextSourceMap } from './text-extractor.js';
import { figureCaption, figureEnds, hasArtJoint, isGrammar } from './rfc-figures.js';
import { appendAll, minOf } from '../../array-extremes.js';

/** RFC / Internet-Draft plain text: the signature lines xml2rfc and the RFC Editor print. */
export function looksLikeRfcText(source: string): boolean {
  const head = source.slice(0, 4000);
  return /^(?:Request for Comments|Internet-Draft):?\s/m.test(head) || /\[Page \d+\]\s*$/m.test(source.slice(0, 20000));
}

/** A line kept after page furniture is removed, with the page it sits on. */
interface TextLine extends SourceLine {
  page: number;
  /** True when the line is the first kept line after a page break. */
  afterBreak: boolean;
}

const FOOTER = /^\S.*\s\[Page (\d+)\]\s*$/;
const NUMBERED_HEADING = /^((?:\d+|[A-Z])(?:\.\d+)*)\.?\s{1,3}(\S.*)$/;
const APPENDIX_HEADING = /^Appendix ([A-Z](?:\.\d+)*)\.?\s+(\S.*)$/;
const BULLET = /^(\s*)(?:o|\*|-|\u2022|\d+\.|\(\d+\)|\([a-z]\)|[a-z]\.)\s+\S/;
const HEADER_PREFIX = /^(?:RFC \d+|Internet-Draft|INTERNET[- ]DRAFT)/;
const isSpace = (ch: string): boolean => /\s/.test(ch);
const isLineTerminator = (ch: string): boolean => ch === '\n' || ch === '\r' || ch === '\u2028' || ch === '\u2029';

/*
 * The scans below replace regular expressions that backtracked quadratically on long lines of
 * whitespace, dots or dashes; each returns exactly what its expression (in its comment) matches.
 */

/** /^(?:RFC \d+|Internet-Draft|INTERNET[- ]DRAFT)\s{2,}.*\S\s{2,}\S.*$/: a running header ("RFC 6635   Title   June 2012"). */
export function isRunningHeader(text: string): boolean {
  const prefix = HEADER_PREFIX.exec(text);
  if (!prefix) return false;
  const rest = text.slice(prefix[0].length);
  let lead = 0;
  while (lead < rest.length && isSpace(rest[lead]!)) lead++;
  if (lead < 2) return false;
  // "." matches no line terminator: none may sit between the lead and the gap, nor after the gap.
  let firstTerminator = Infinity;
  let lastTerminator = -1;
  for (let i = 0; i < rest.length; i++) {
    if (!isLineTerminator(rest[i]!)) continue;
    if (i >= lead && firstTerminator === Infinity) firstTerminator = i;
    lastTerminator = i;
  }
  // A gap: a non-space at x, two or more spaces, a non-space at y.
  for (let x = lead; x < rest.length; x++) {
    if (isSpace(rest[x]!)) continue;
    let y = x + 1;
    while (y < rest.length && isSpace(rest[y]!)) y++;
    if (y < rest.length && y - x - 1 >= 2 && x <= firstTerminator && y >= lastTerminator) return true;
    x = y - 1;
  }
  return false;
}

/** /\.{4,}\s*\d+\s*$/: a table-of-contents dot leader ending in a page number. */
export function hasDotLeader(text: string): boolean {
  let i = text.length;
  while (i > 0 && isSpace(text[i - 1]!)) i--;
  const digitsEnd = i;
  while (i > 0 && text.charCodeAt(i - 1) >= 48 && text.charCodeAt(i - 1) <= 57) i--;
  if (i === digitsEnd) return false;
  while (i > 0 && isSpace(text[i - 1]!)) i--;
  let dots = 0;
  while (i > 0 && text[i - 1] === '.') {
    i--;
    dots++;
  }
  return dots >= 4;
}

/**
 * Removes page furniture: a footer line ("Author   Category   [Page N]") and the running header that
 * follows the form feed ("RFC 6635   Title   June 2012"). Pages count form feeds when present, else footers.
 */
function pageLines(source: string, map: TextSourceMap | null): { lines: TextLine[]; paginated: boolean } {
  const raw = map === null ? splitLines(source) : splitLines(source).map((l) => mappedLine(l, map));
  const paginated = source.includes('\f') || raw.some((l) => FOOTER.test(l.text));
  const lines: TextLine[] = [];
  let page = 1;
  let afterBreak = false;
  let expectHeader = false;
  for (const line of raw) {
    let text = line.text;
    if (text.includes('\f')) {
      page++;
      afterBreak = true;
      expectHeader = true;
      text = text.replace(/\f/g, '');
      if (text.trim() === '') continue;
    }
    if (FOOTER.test(text)) {
      const n = Number(FOOTER.exec(text)![1]);
      if (!source.includes('\f')) {
        // No form feeds: the footer itself marks the break.
        page = n + 1;
        afterBreak = true;
        expectHeader = true;
      }
      continue;
    }
    if (expectHeader && text.trim() !== '') {
      expectHeader = false;
      if (isRunningHeader(text)) continue;
    }
    const blank = text.trim() === '';
    // A run of blank lines ends a group as one does (groupsOf): one is kept, so a file of millions of
    // them holds no more lines than it has text.
    if (blank && lines.length > 0 && lines[lines.length - 1]!.text.trim() === '') continue;
    // Each field named, not `{ ...line, page }`: V8 gives every object spread and then extended a hidden
    // class of its own, four times the memory and ten times the time over millions of lines.
    lines.push({ text, start: line.start, end: line.end, line: line.line, page, afterBreak: afterBreak && !blank });
    if (!blank) afterBreak = false;
  }
  return { lines, paginated };
}

/** A line of the text with the offsets and line number of where the source writes it. */

interface Group {
  lines: TextLine[];
  /** The group starts right after a page break (a paragraph may continue across it). */
  afterBreak: boolean;
}

function groupsOf(lines: TextLine[]): Group[] {
  const groups: Group[] = [];
  let current: TextLine[] = [];
  let sawBreak = false;
  const flush = (): void => {
    if (current.length > 0) groups.push({ lines: current, afterBreak: sawBreak });
    current = [];
    sawBreak = false;
  };
  for (const line of lines) {
    if (line.text.trim() === '') {
      flush();
      continue;
    }
    if (line.afterBreak) {
      flush();
      sawBreak = true;
    }
    current.push(line);
  }
  flush();
  return groups;
}

function indentOf(text: string): number {
  return /^ */.exec(text)![0].length;
}

/**
 * The title of the first page: the centred lines of the group at `gi` (the one just before the first
 * heading), without the draft name a draft prints under its title ("draft-west-webappsec-csp-reg-04");
 * when that group is the draft name alone, the centred group above it. A centred line starts with a
 * space (a title of 72 columns is indented by less than 6) and has no gap of three spaces (the header
 * block's lines pair a left and a right column). Null when no group qualifies.
 */
function frontMatterTitle(groups: readonly Group[], gi: number): string | null {
  const centred = (g: Group | undefined): boolean => g?.lines.every((l) => indentOf(l.text) > 0 && !/\S\s{3,}\S/.test(l.text)) === true;
  const titleLines = (g: Group): string[] => g.lines.map((l) => l.text.trim()).filter((t) => !DRAFT_NAME.test(t));
  // The first group is the header block (stream, number, authors, date), never the title.
  for (let k = gi; k >= 1 && k >= gi - 1 && centred(groups[k]); k--) {
    const lines = titleLines(groups[k]!);
    if (lines.length > 0) return lines.join(' ');
  }
  return null;
}

/** "RFC 9989" from the header block's "Request for Comments: 9989", else a draft's name line; null without either. */
function documentName(groups: readonly Group[]): string | null {
  for (const g of groups.slice(0, 3))
    for (const l of g.lines) {
      const rfc = /^Request for Comments:\s*(\d+)/.exec(l.text);
      if (rfc !== null) return `RFC ${rfc[1]}`;
      const draft = l.text.trim();
      if (DRAFT_NAME.test(draft)) return draft;
    }
  return null;
}

const DRAFT_NAME = /^draft-[a-z0-9][a-z0-9.-]*-\d{2}$/;

/** A group that opens a section when its text is under way: a numbered, appendix or short plain heading at column 0. */
function looksLikeHeading(group: { lines: readonly { text: string }[] }): boolean {
  const first = group.lines[0]!.text;
  if (indentOf(first) !== 0 || FOOTER.test(first)) return false;
  const numbered = NUMBERED_HEADING.exec(first);
  return (
    APPENDIX_HEADING.test(first) ||
    (numbered !== null && !/\s{3,}\S/.test(numbered[2]!)) ||
    (group.lines.length <= 2 && isPlainHeading(first))
  );
}

/** Unnumbered headings printed at column 0 ("Abstract", "Authors' Addresses"). */
function isPlainHeading(text: string): boolean {
  if (indentOf(text) !== 0 || text.length > 72) return false;
  if (/\s{3,}/.test(text)) return false; // front-matter lines have wide gaps
  if (/[.,;:]$/.test(text.trim()) && !/^Appendix/.test(text)) return false;
  return /^[A-Z]/.test(text);
}

export function extractRfcText(
  source: string,
  builder: DocumentBuilder,
  map: TextSourceMap | null = null,
): { title: string; sectionCount: number } {
  const { lines, paginated } = pageLines(source, map);
  const groups = groupsOf(lines);
  const figureEnd = figureEnds(groups, looksLikeHeading);
  let title = '';
  let sectionCount = 0;
  let inToc = false;
  let seenHeading = false;
  let seenNumbered = false;
  let pendingParagraph: { group: Group; lines: TextLine[] } | null = null;
  let lastWasList = false;

  const emit = (
    kind: BlockKind,
    text: string,
    group: TextLine[],
    extra: { items?: ListItem[]; ordered?: boolean; caption?: string } = {},
  ): void => {
    const first = group[0]!;
    const last = group[group.length - 1]!;
    builder.addBlock({
      kind,
      text,
      fragment: null,
      ...extra,
      page: paginated ? first.page : undefined,
      span: {
        unit: 'utf16-source',
        start: first.start,
        end: last.end,
        line: first.line,
        endLine: last.line,
        ...(paginated ? { page: first.page, endPage: last.page } : {}),
      },
    });
  };

  const flushParagraph = (): void => {
    if (!pendingParagraph) return;
    const ls = pendingParagraph.lines;
    emit(
      'paragraph',
      ls
        .map((l) => l.text.trim())
        .join(' ')
        .replace(/\s+/g, ' ')
        .replace(/(\w)- (\w)/g, '$1-$2'),
      ls,
    );
    pendingParagraph = null;
  };

  for (let gi = 0; gi < groups.length; gi++) {
    const group = groups[gi]!;

    // Front matter before the first heading: the title is the centred block just before "Abstract".
    if (!seenHeading) {
      const next = groups[gi + 1];
      if (next && isPlainHeading(next.lines[0]!.text)) title = frontMatterTitle(groups, gi) ?? title;
    }

    // Headings: a single line at column 0 (numbered, appendix, or a short plain title).
    const headingLine = group.lines[0]!;
    const numbered = NUMBERED_HEADING.exec(headingLine.text);
    const appendix = APPENDIX_HEADING.exec(headingLine.text);
    if (
      looksLikeHeading(group) &&
      (seenHeading || /^(Abstract|Status of This Memo)$/i.test(headingLine.text.trim()) || numbered !== null)
    ) {
      flushParagraph();
      seenHeading = true;
      let number: string | null = null;
      let heading = headingLine.text.trim();
      if (appendix) {
        number = appendix[1]!;
        heading = appendix[2]!.trim();
      } else if (numbered) {
        number = numbered[1]!;
        heading = numbered[2]!.trim();
      }
      // A heading wrapped onto a second line (indented continuation).
      const rest = group.lines.slice(1);
      let consumed = 1;
      if (
        rest.length > 0 &&
        indentOf(rest[0]!.text) > 0 &&
        number !== null &&
        !/[.:]$/.test(heading) &&
        rest[0]!.text.trim().length < 60 &&
        rest.length === 1
      ) {
        heading += ' ' + rest[0]!.text.trim();
        consumed = 2;
      }
      const depth = number === null ? 1 : number.split('.').length;
      const id = number === null ? null : /^[A-Z]/.test(number) ? `appendix-${number}` : `section-${number}`;
      builder.openSection({
        // An htmlized RFC anchors its sections by these ids: a citation opens there.
        fragment: id !== null && map?.fragments.has(id) ? id : null,
        heading,
        level: depth + 1,
        number,
        page: paginated ? headingLine.page : undefined,
        span: {
          unit: 'utf16-source',
          start: headingLine.start,
          end: headingLine.end,
          line: headingLine.line,
          ...(paginated ? { page: headingLine.page } : {}),
        },
        ...(id !== null ? { id } : {}),
      });
      sectionCount++;
      if (number !== null) seenNumbered = true;
      // Before section 1 everything is front matter: a draft's notes ("About This Document") too.
      else if (!seenNumbered) builder.markCurrentSectionInformative('front-matter');
      lastWasList = false;
      inToc = /^table of contents$/i.test(heading);
      if (consumed < group.lines.length) processBody({ lines: group.lines.slice(consumed), afterBreak: false });
      continue;
    }
    if (!seenHeading) continue; // the header block and title are not content
    if (inToc) continue; // table of contents: pruned (headings are rebuilt from the body)
    const captionAt = figureEnd[gi]!;
    if (captionAt !== -1) {
      emitFigure(groups.slice(gi, captionAt), figureCaption(groups[captionAt]!)!);
      gi = captionAt;
      continue;
    }
    processBody(group);
  }
  flushParagraph();
  // Without title lines the document is still named by its number, never by its first heading ("Abstract").
  if (title === '') title = documentName(groups) ?? '';
  return { title: boundedTitle(title), sectionCount };

  /**
   * One captioned figure (figureEnds): its groups' lines, dedented together, with the blank lines
   * between them as the source has them (one across a page break). ABNF rules stay grammar.
   */
  function emitFigure(parts: Group[], caption: string): void {
    flushParagraph();
    const ls = parts.flatMap((g) => g.lines);
    const texts: string[] = [];
    for (let i = 0; i < ls.length; i++) {
      const prev = ls[i - 1];
      if (prev !== undefined && ls[i]!.line > prev.line + 1) {
        const blanks = ls[i]!.page === prev.page ? ls[i]!.line - prev.line - 1 : 1;
        for (let b = 0; b < blanks; b++) texts.push('');
      }
      texts.push(ls[i]!.text);
    }
    const kind = parts.every((g) => isGrammar(g.lines.map((l) => l.text))) ? 'grammar' : 'artwork';
    emit(kind, dedent(texts).join('\n'), ls, { caption });
    lastWasList = false;
  }

  function processBody(group: Group): void {
    const ls = group.lines;
    const texts = ls.map((l) => l.text);
    const minIndent = minOf(texts.map(indentOf));
    const artSignals =
      texts.some((t) => hasArtJoint(t) || /^\s*\|.*\|\s*$/.test(t)) || texts.some((t) => /\S {4,}\S/.test(t.trim()) && !hasDotLeader(t));
    const prose = texts.every((t) => /^[\sA-Za-z0-9,.;:'"()\-/]*$/.test(t)) && texts.join(' ').split(/\s+/).length >= 8;
    if (isGrammar(texts)) {
      flushParagraph();
      emit('grammar', dedent(texts).join('\n'), ls);
      lastWasList = false;
      return;
    }
    if (!artSignals && minIndent >= 6 && prose && !BULLET.test(texts[0]!)) {
      flushParagraph();
      emit(
        'blockquote',
        ls
          .map((l) => l.text.trim())
          .join(' ')
          .replace(/\s+/g, ' '),
        ls,
      );
      lastWasList = false;
      return;
    }
    const looksLikeArt =
      artSignals ||
      (minIndent >= 6 && !BULLET.test(texts[0]!)) ||
      texts.some(
        (t) =>
          /^\s*[A-Za-z][\w-]*\s+=\s/.test(t) && /=/.test(t) && minIndent >= 3 && ls.length > 1 && texts.every((x) => !/\.\s*$/.test(x)),
      );
    const bullet = BULLET.exec(texts[0]!);

    // A paragraph cut by a page break continues when the next piece starts in lower case.
    if (
      pendingParagraph &&
      group.afterBreak &&
      !looksLikeArt &&
      !bullet &&
      /^\s*[a-z(]/.test(texts[0]!) &&
      !/[.:]$/.test(pendingParagraph.lines[pendingParagraph.lines.length - 1]!.text.trim())
    ) {
      appendAll(pendingParagraph.lines, ls);
      return;
    }
    flushParagraph();
    if (looksLikeArt) {
      emit('artwork', dedent(texts).join('\n'), ls);
      lastWasList = false;
      return;
    }
    if (bullet) {
      const ordered = /^\s*(?:\d+\.|\(\d+\)|\([a-z]\)|[a-z]\.)/.test(texts[0]!);
      const itemText = ls
        .map((l) => l.text.trim())
        .join(' ')
        .replace(/\s+/g, ' ')
        .replace(/(\w)- (\w)/g, '$1-$2');
      const marker = /^(?:o|\*|-|\u2022)\s+/.exec(itemText);
      const item: ListItem = { text: marker ? itemText.slice(marker[0].length) : itemText };
      // Consecutive list groups of the same shape form one list block.
      const prev = builder.blocks[builder.blocks.length - 1];
      if (
        prev &&
        prev.kind === 'list' &&
        prev['ordered'] === ordered &&
        prev.sectionId === (builder.currentSection?.id ?? null) &&
        lastWasList
      ) {
        (prev['items'] as ListItem[]).push(item);
        prev.text += '\n' + itemText.replace(/^(?:o|\*|\u2022)\s+/, '- ');
        const span = prev.span as { end: number; endLine: number; endPage?: number };
        span.end = ls[ls.length - 1]!.end;
        span.endLine = ls[ls.length - 1]!.line;
        if (paginated) span.endPage = ls[ls.length - 1]!.page;
        return;
      }
      emit('list', itemText.replace(/^(?:o|\*|\u2022)\s+/, '- '), ls, { items: [item], ordered });
      lastWasList = true;
      return;
    }
    pendingParagraph = { group, lines: [...ls] };
    lastWasList = false;
  }
}
