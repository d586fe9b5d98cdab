/**
 * Figures of RFC plain text. xml2rfc prints a titled or numbered figure (and table) as its artwork
 * followed by a centred caption line, "Figure 3: Message Flow"; the artwork may hold blank lines, lines
 * at column 0 and lines that look like list items ("*  Indicates optional messages"), so it cannot be
 * told from the text around it line by line. The caption can: the figure is the run of groups between
 * the last prose paragraph (or heading) and its caption, and is one block captioned as the HTML and XML
 * renderings caption it.
 */

/** /[+|][-=]{2,}|[-=]{2,}[+|]/: a box-drawing joint of ASCII art. */
export function hasArtJoint(text: string): boolean {
  const rule = (i: number): boolean => text[i] === '-' || text[i] === '=';
  for (let i = 0; i < text.length; i++) {
    if (text[i] !== '+' && text[i] !== '|') continue;
    if ((rule(i + 1) && rule(i + 2)) || (i >= 2 && rule(i - 1) && rule(i - 2))) return true;
  }
  return false;
}

/** What the figure reading needs of a group of lines (one paragraph of the text, blank lines between). */
export interface LineGroup {
  readonly lines: readonly { readonly text: string }[];
}

const CAPTION = /^(?:Figure|Table) \d+(?:: \S.*)?$/;

function indentOf(text: string): number {
  let i = 0;
  while (i < text.length && text[i] === ' ') i++;
  return i;
}

/** "Figure 3: title" when the group is a caption: one or two indented (centred) lines, else null. */
export function figureCaption(group: LineGroup): string | null {
  if (group.lines.length > 2 || group.lines.some((l) => indentOf(l.text) < 3)) return null;
  const text = group.lines.map((l) => l.text.trim()).join(' ');
  return CAPTION.test(text) ? text : null;
}

/** A bullet at the indentation of running text or a list nested in it (list items of artwork sit deeper). */
const TEXT_BULLET = /^ {0,6}(?:o|\*|-|\u2022|\d+\.|\(\d+\)|\([a-z]\)|[a-z]\.)\s+\S/;

/**
 * Whether a group is running text, which no figure holds: a list item, or lines at one indentation of
 * at most 6 (body text, a list's or a note's continuation; or hanging, a definition's) that read as sentences: filled lines of
 * words (three or more a line: a list of URLs or header fields is one word a line) ending as a
 * sentence, clause or lead-in does. Art, code and messages are set deeper, indent their lines
 * differently, draw, hold a word or two a line or end without punctuation.
 */
export function isProseGroup(group: LineGroup): boolean {
  const texts = group.lines.map((l) => l.text);
  if (texts.some((t) => hasArtJoint(t) || /^\s*\|.*\|\s*$/.test(t))) return false;
  if (TEXT_BULLET.test(texts[0]!)) return true;
  // One indentation, or a hanging one ("term:  definition" with its lines set deeper, as xml2rfc prints dl).
  const indent = indentOf(texts[0]!);
  const hang = texts.length > 1 ? indentOf(texts[1]!) : indent;
  if (indent > 6 || hang < indent || hang > indent + 6 || texts.slice(1).some((t) => indentOf(t) !== hang)) return false;
  if (!/[.:;,!?)\]"']$/.test(texts[texts.length - 1]!.trim())) return false;
  if (texts.length === 1) return true; // a lead-in ("For example:") or a one-line paragraph
  const words = texts.join(' ').trim().split(/\s+/).length;
  return texts.slice(0, -1).every((t) => t.trim().length >= 40) && words >= 3 * texts.length;
}

/** ABNF rules (`name = ...`, `name =/ ...`) set off from the text, without a sentence's full stop. */
export function isGrammar(texts: readonly string[]): boolean {
  if (!/^\s*[A-Za-z][\w-]*\s*=\/?\s/.test(texts[0]!)) return false;
  return texts.every((t) => t.trim() === '' || (indentOf(t) >= 2 && !/[a-z]\.\s*$/.test(t)));
}

/**
 * For each group, the index of the caption that closes the figure it is part of, or -1. A figure is
 * the run of groups before a caption back to the nearest prose group or heading (exclusive), all ABNF
 * or none (rules set before a table are not part of it); a caption with no such run (prose right
 * before it) closes none. One backward pass: linear in the groups.
 */
export function figureEnds(groups: readonly LineGroup[], isHeading: (group: LineGroup) => boolean): number[] {
  const ends = new Array<number>(groups.length).fill(-1);
  let caption = -1;
  let grammar: boolean | null = null;
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i]!;
    if (figureCaption(group) !== null) {
      caption = i;
      grammar = null;
      continue;
    }
    if (caption === -1 || isHeading(group) || isProseGroup(group)) {
      caption = -1;
      continue;
    }
    const rules = isGrammar(group.lines.map((l) => l.text));
    grammar ??= rules;
    if (rules !== grammar) caption = -1;
    else ends[i] = caption;
  }
  return ends;
}
