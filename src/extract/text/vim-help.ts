import { appendAll } from '../../array-extremes.js';
import type { DocumentBuilder } from '../document-builder.js';
import { boundedTitle, dedent, type SourceLine, splitLines, type TextExtractResult } from './text-extractor.js';

/**
 * Vim's help files (`runtime/doc/*.txt`, `:help help-writing`): plain text whose structure is in its
 * markup, not its layout. A help file opens with its own tag (`*pattern.txt*  For Vim version 9.0`) and
 * ends with the modeline `vim:tw=78:ts=8:noet:ft=help:norl:`; a line of `=` separates its chapters, each
 * headed by the next line (`1. Search commands   *search-commands*`); a `*tag*` names the place a
 * `:help tag` jumps to, and a line of tags alone names the entry below it (a command, an option, an
 * error). Read as such, each tag is a citable id: a chapter is a section at its heading's first tag, the
 * others alternate ids; a line of tags opens an entry, a subsection headed by the first words of the
 * line below it (`/{pattern}[/]<CR>`, `'aleph' 'al'`), one level below the chapter; a heading in
 * capitals with a tag (`DOTNET   *compiler-dotnet*`) is a section one level below the chapter. An
 * example (`Example: >` up to a line starting `<` or back at column 0) is a code block; `|links|` read
 * as their text. Before, a help file was one run of paragraphs with no section.
 */

/** `*tag*`: no white space, `*`, `|` or `"` inside (Vim's helpStar syntax), set off by white space. */
const TAG = /(?<=^|\s)\*([^\s*|"]+)\*(?=\s|$)/g;
const SPACE = /\s/;

/**
 * Whether `text` from `from` on is tags only (`*star* *E348*`, `*a**b*`), one or more, white space
 * between and after them. What `/^(?:\*[^\s*|"]+\*\s*)+$/` answers, by a scan: the expression kept a
 * backtracking entry per tag and threw RangeError (stack size exceeded) on a line of a million tags.
 */
function tagsOnly(text: string, from: number): boolean {
  const n = text.length;
  let i = from;
  let count = 0;
  while (i < n) {
    if (text[i] !== '*') return false;
    let j = i + 1;
    while (j < n && text[j] !== '*' && text[j] !== '|' && text[j] !== '"' && !SPACE.test(text[j]!)) j++;
    if (j === i + 1 || j === n || text[j] !== '*') return false;
    count++;
    i = j + 1;
    while (i < n && SPACE.test(text[i]!)) i++;
  }
  return count > 0;
}

/** A line of tags only: `\t\t\t*star* *E348*` (`/^\s*(?:\*[^\s*|"]+\*\s*)+$/`). */
export function isTagLine(text: string): boolean {
  let i = 0;
  while (i < text.length && SPACE.test(text[i]!)) i++;
  return tagsOnly(text, i);
}
/** The separator before a chapter. */
const CHAPTER_RULE = /^={20,}\s*$/;
/** `vim:tw=78:ts=8:noet:ft=help:norl:` (also `vim: set ft=help:`), the file's last line. */
const MODELINE_START = /(?:^|\s)vim?:/g;
const FT_HELP = /\bft=help\b/g;
/** What `.` does not match: the end of the text a modeline's `.*` may run over. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/g;

/**
 * Where the help modeline starts in `line` (at the white space before `vim:`), -1 if it has none: what
 * `line.search(/(?:^|\s)vim?:.*\bft=help\b/)` answers, in one pass. The expression, tried at each
 * `vi:`, ran to the end of the line (or a U+2028) before giving up: quadratic in a last line of many
 * `vi:` before a U+2028 (80,000: 24 s).
 */
export function helpModelineAt(line: string): number {
  const fts: number[] = [];
  FT_HELP.lastIndex = 0;
  for (let m = FT_HELP.exec(line); m !== null; m = FT_HELP.exec(line)) fts.push(m.index);
  if (fts.length === 0) return -1;
  // For each `vim:` in order: the stretch its `.*` may cover ends at the next line terminator; a
  // `ft=help` starting in that stretch, after the `vim:`, completes the modeline.
  let stretchEnd = -1;
  let before = 0; // fts[before - 1] is the last `ft=help` starting before stretchEnd
  MODELINE_START.lastIndex = 0;
  for (let m = MODELINE_START.exec(line); m !== null; m = MODELINE_START.exec(line)) {
    const after = m.index + m[0].length;
    if (after > stretchEnd) {
      LINE_TERMINATOR.lastIndex = after;
      stretchEnd = LINE_TERMINATOR.exec(line)?.index ?? line.length;
      while (before < fts.length && fts[before]! < stretchEnd) before++;
    }
    if (before > 0 && fts[before - 1]! >= after) return m.index;
  }
  return -1;
}
/** The first line: the file's own tag, then its description (`*pattern.txt*   For Vim version 9.0.`). */
const HELP_FIRST_LINE = /^\*([^\s*|"]+\.txt)\*\s+\S/;
/** `1. Search commands`, `6.  Ordinary atoms`: the chapter's number. */
const NUMBERED = /^(\d{1,3})\.\s+(\S.*)$/;

/**
 * The file's own tag (`pattern.txt`), read from its first line as the source has it: the same line for
 * looksLikeVimHelp and the extractor, which cuts the line at a form feed or a modeline after it reads it
 * (`*x.txt*\fFor Vim`, `*x.txt* vim:ft=help` on a file of one line lost the text after the tag).
 */
function helpFileTag(source: string): string | null {
  const firstEnd = source.search(/[\r\n]/);
  const first = firstEnd < 0 ? source : source.slice(0, firstEnd);
  return HELP_FIRST_LINE.exec(first)?.[1] ?? null;
}

/** Whether `source` is a Vim help file: its first line is its `*name.txt*` tag and it ends with a help modeline. */
export function looksLikeVimHelp(source: string): boolean {
  if (helpFileTag(source) === null) return false;
  const tail = source.slice(Math.max(0, source.length - 400)).trimEnd();
  const lastLine = tail.slice(tail.search(/[^\r\n]*$/));
  return helpModelineAt(lastLine) >= 0;
}

function tagsOf(text: string): string[] {
  return [...text.matchAll(TAG)].map((m) => m[1]!);
}

/** The text of a line without its tags, white space collapsed. */
function withoutTags(text: string): string {
  return text.replace(TAG, ' ').replace(/\s+/g, ' ').trim();
}

/** Running text as Vim shows it: `|link|` concealed to `link`, white space collapsed. */
function readText(lines: readonly string[]): string {
  return lines
    .map((l) => l.trim())
    .join(' ')
    .replace(/(?<=^|[\s(])\|([^\s|]+)\|/g, '$1')
    .replace(TAG, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * Whether tags end the line after a gap (a tab or two spaces) after other text: the line is a heading.
 * What `/\S(?:\t|\s{2,})\s*(?:\*[^\s*|"]+\*\s*)+$/` answers, read from the line's end word by word: that
 * expression, tried at every character, took time quadratic in a run of white space or of tags set
 * apart by two spaces (40,000 `  *a*` on a line: 13 s).
 */
export function endsInTagsAfterGap(text: string): boolean {
  let end = text.length;
  while (end > 0 && SPACE.test(text[end - 1]!)) end--;
  while (end > 0) {
    let start = end;
    while (start > 0 && !SPACE.test(text[start - 1]!)) start--;
    if (!tagsOnly(text.slice(start, end), 0)) return false;
    let gapStart = start;
    while (gapStart > 0 && SPACE.test(text[gapStart - 1]!)) gapStart--;
    if (gapStart === 0) return false;
    if (start - gapStart >= 2 || text[gapStart] === '\t') return true;
    end = gapStart;
  }
  return false;
}

/** Text that reads as a heading: short, not a sentence. */
function isHeadingText(text: string): boolean {
  return text.length > 0 && text.length <= 80 && !/[.,;:]$/.test(text);
}

/** A heading in capitals (`MANX AZTEC C`): two letters or more, none in lower case. */
function isCapitalsHeading(text: string): boolean {
  return text.length <= 80 && /[A-Z].*[A-Z]/.test(text) && !/[a-z]/.test(text);
}

/**
 * An entry's heading: the item the line below its tags starts with, up to a tab or a gap of two spaces
 * (`/{pattern}[/]<CR>   Search forward...`, `'aleph' 'al'   number`); else, when that line is running text
 * (a sentence: ending in a full stop, or more than three words with no gap after them), the entry's first tag.
 */
function entryHeading(line: string | undefined, tags: readonly string[]): string {
  const text = (line ?? '').trim();
  if (text === '' || isTagLine(text)) return tags[0]!;
  const gap = /\t|\s{2,}/.exec(text);
  const head = readText([gap === null ? text : text.slice(0, gap.index)]);
  const words = head.split(' ').length;
  if (head === '' || head.length > 80 || /[.,;:]$/.test(head) || (gap === null && words > 3)) return tags[0]!;
  return withoutTags(head) || tags[0]!;
}

export function extractVimHelp(source: string, builder: DocumentBuilder): TextExtractResult {
  const lines = splitLines(source.replace(/\f/g, '\n'));
  // The modeline is an instruction to the editor, not text.
  let last = lines.length - 1;
  while (last >= 0 && lines[last]!.text.trim() === '') last--;
  if (last >= 0) {
    // The modeline may end a line of text (the user manual's `Copyright: see |manual-copyright|  vim:tw=78:`).
    const line = lines[last]!;
    const at = helpModelineAt(line.text);
    if (at >= 0) {
      if (line.text.slice(0, at).trim() === '') last--;
      else lines[last] = { ...line, text: line.text.slice(0, at), end: line.start + at };
    }
  }
  const fileTag = helpFileTag(source);
  if (fileTag === null) throw new Error('extractVimHelp: not a Vim help file (see looksLikeVimHelp)');
  const spanOf = (from: SourceLine, to: SourceLine = from) => ({
    unit: 'utf16-source' as const,
    start: from.start,
    end: to.end,
    line: from.line,
    ...(to.line !== from.line ? { endLine: to.line } : {}),
  });
  const top = builder.openSection({
    fragment: fileTag,
    heading: fileTag,
    level: 1,
    number: null,
    span: spanOf(lines[0]!),
    alternateIds: tagsOf(lines[0]!.text).slice(1),
  });
  const firstText = withoutTags(lines[0]!.text);
  if (firstText !== '') builder.addBlock({ kind: 'paragraph', text: firstText, fragment: null, span: spanOf(lines[0]!) });

  /** The level of the section entries open under: the chapter's (2) or a capitals heading's (3). */
  let outlineLevel = 1;
  let chapterLevel = 1;
  let paragraph: SourceLine[] = [];
  const flush = (): void => {
    if (paragraph.length === 0) return;
    const text = readText(paragraph.map((l) => l.text));
    if (text !== '') {
      builder.addBlock({
        kind: 'paragraph',
        text,
        fragment: null,
        span: spanOf(paragraph[0]!, paragraph[paragraph.length - 1]!),
      });
    }
    paragraph = [];
  };
  const addCode = (code: SourceLine[]): void => {
    while (code.length > 0 && code[code.length - 1]!.text.trim() === '') code.pop();
    if (code.length === 0) return;
    builder.addBlock({
      kind: 'code',
      text: dedent(code.map((l) => l.text)).join('\n'),
      fragment: null,
      span: spanOf(code[0]!, code[code.length - 1]!),
    });
  };

  let i = 1;
  while (i <= last) {
    const line = lines[i]!;
    const text = line.text;
    if (CHAPTER_RULE.test(text)) {
      flush();
      i++;
      while (i <= last && lines[i]!.text.trim() === '') i++;
      if (i > last) break;
      const head = lines[i]!;
      const tags = tagsOf(head.text);
      let j = i + 1;
      while (j <= last && isTagLine(lines[j]!.text)) appendAll(tags, tagsOf(lines[j++]!.text));
      // A chapter's heading carries its tag; the text after a rule without one (the user manual's
      // "Next chapter: |usr_04.txt|" after its last rule) belongs to the file, not to the last chapter.
      if (tags.length === 0) {
        builder.resumeSection(top);
        outlineLevel = 1;
        chapterLevel = 1;
        continue;
      }
      const title = readText([withoutTags(head.text)]);
      const numbered = NUMBERED.exec(title);
      builder.openSection({
        fragment: tags[0] ?? null,
        heading: numbered ? numbered[2]!.trim() : title,
        level: 2,
        number: numbered ? numbered[1]! : null,
        span: spanOf(head, lines[j - 1]!),
        ...(tags.length > 1 ? { alternateIds: tags.slice(1) } : {}),
      });
      outlineLevel = 2;
      chapterLevel = 2;
      i = j;
      continue;
    }
    if (isTagLine(text)) {
      // A line of tags names the entry below it: tags on the lines right after it are more names of it.
      flush();
      const tags = tagsOf(text);
      let j = i + 1;
      while (j <= last && isTagLine(lines[j]!.text)) appendAll(tags, tagsOf(lines[j++]!.text));
      builder.openSection({
        fragment: tags[0]!,
        heading: entryHeading(lines[j]?.text, tags),
        level: outlineLevel + 1,
        number: null,
        span: spanOf(line, lines[j - 1]!),
        ...(tags.length > 1 ? { alternateIds: tags.slice(1) } : {}),
      });
      i = j;
      continue;
    }
    const startsParagraph = paragraph.length === 0;
    const tags = tagsOf(text);
    const title = tags.length > 0 ? withoutTags(text) : '';
    // A line at column 0 that opens a paragraph and ends in tags is a heading: in capitals
    // (`MANX AZTEC C   *quickfix-manx*`) one below the chapter, else (`Patterns and search commands
    // *pattern-searches*`) an entry. Tags inside a sentence name no heading.
    if (startsParagraph && tags.length > 0 && /^\S/.test(text) && endsInTagsAfterGap(text) && isHeadingText(title)) {
      flush();
      // Tags on the lines right after the heading are more names of it.
      let j = i + 1;
      while (j <= last && isTagLine(lines[j]!.text)) appendAll(tags, tagsOf(lines[j++]!.text));
      const capitals = isCapitalsHeading(title);
      builder.openSection({
        fragment: tags[0]!,
        heading: title,
        level: capitals ? chapterLevel + 1 : outlineLevel + 1,
        number: null,
        span: spanOf(line, lines[j - 1]!),
        ...(tags.length > 1 ? { alternateIds: tags.slice(1) } : {}),
      });
      if (capitals) outlineLevel = chapterLevel + 1;
      i = j;
      continue;
    }
    if (text.trim() === '') {
      flush();
      i++;
      continue;
    }
    // An example: the line ends in ` >` (or is `>`), the code runs to a line starting `<` or at column 0.
    const example = /(?:^|\s)>$/.exec(text.trimEnd());
    if (example !== null) {
      const lead = text.trimEnd().slice(0, -1);
      if (lead.trim() !== '') paragraph.push({ ...line, text: lead });
      flush();
      const code: SourceLine[] = [];
      let j = i + 1;
      while (j <= last && (lines[j]!.text.trim() === '' || /^\s/.test(lines[j]!.text)) && !/^</.test(lines[j]!.text))
        code.push(lines[j++]!);
      addCode(code);
      if (j <= last && /^</.test(lines[j]!.text)) {
        const rest = lines[j]!.text.slice(1);
        if (rest.trim() !== '') paragraph.push({ ...lines[j]!, text: rest });
        j++;
      }
      i = j;
      continue;
    }
    paragraph.push(line);
    i++;
  }
  flush();
  return { title: boundedTitle(fileTag) };
}
