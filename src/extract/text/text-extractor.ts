import type { DocumentBuilder } from '../document-builder.js';

export interface TextExtractResult {
  title: string;
}

/** One line of the source with its offsets (UTF-16) and 1-based number. */
export interface SourceLine {
  text: string;
  start: number;
  end: number;
  line: number;
}

export function splitLines(source: string): SourceLine[] {
  const lines: SourceLine[] = [];
  let start = 0;
  let line = 1;
  const n = source.length;
  while (start <= n) {
    let end = source.indexOf('\n', start);
    if (end === -1) end = n;
    let textEnd = end;
    if (textEnd > start && source.charCodeAt(textEnd - 1) === 13) textEnd--;
    lines.push({ text: source.slice(start, textEnd), start, end: textEnd, line });
    if (end === n) break;
    start = end + 1;
    line++;
  }
  return lines;
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
    if (title === '') title = group[0]!.text.trim();
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
