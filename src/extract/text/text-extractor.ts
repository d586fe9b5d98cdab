import type { DocumentBuilder } from '../document-builder.js';

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
 * indented (or look like ASCII art / code) is kept verbatim as code. No headings are invented.
 */
export function extractPlainText(source: string, builder: DocumentBuilder): TextExtractResult {
  const lines = splitLines(source.replace(/\f/g, '\n'));
  let title = '';
  let i = 0;
  while (i < lines.length) {
    while (i < lines.length && lines[i]!.text.trim() === '') i++;
    if (i >= lines.length) break;
    const first = i;
    while (i < lines.length && lines[i]!.text.trim() !== '') i++;
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
