/**
 * The white space that collapses (space, tab, line feed, carriage return, form feed, no-break space):
 * a run of it reads as one space. Tested by code unit: every text node of a document is written through
 * here, most of them more than once, and one scan both trims a run and tells whether it needs collapsing
 * (a regex test, a replace and two slices did that before).
 */
function isCollapsible(c: number): boolean {
  return c === 32 || c === 10 || c === 9 || c === 13 || c === 12 || c === 160;
}

const COLLAPSIBLE_RUN = /[ \t\n\r\f\u00a0]+/g;

/**
 * `raw.slice(from, to)` with each run of collapsible white space inside written as one space. Most
 * runs of text hold single spaces only: one scan finds that and nothing is copied; otherwise one
 * native replace writes the result.
 */
function collapsedRange(raw: string, from: number, to: number): string {
  let afterSpace = false;
  for (let i = from; i < to; i++) {
    const c = raw.charCodeAt(i);
    if (c === 32) {
      if (afterSpace) return raw.slice(from, to).replace(COLLAPSIBLE_RUN, ' ');
      afterSpace = true;
    } else if (isCollapsible(c)) {
      return raw.slice(from, to).replace(COLLAPSIBLE_RUN, ' ');
    } else {
      afterSpace = false;
    }
  }
  return from === 0 && to === raw.length ? raw : raw.slice(from, to);
}

/**
 * Accumulates block text the way a reader sees it: runs of whitespace collapse to one space, block
 * boundaries become line breaks, leading and trailing whitespace never appear. `length` is always the
 * length of the text emitted so far, so callers can record offsets (keyword spans) while writing.
 */
export class TextSink {
  private parts: string[] = [];
  length = 0;
  private pendingSpace = false;
  private pendingBreak = 0;
  private lastChar = '';
  /** Set right after a list marker: the item's first block must not start a new line. */
  private afterMarker = false;

  /**
   * `grid`: the text of a table block, whose rows keep every cell's separator (" | b" after an empty
   * first cell lines up with the rows below it). Other text drops a separator at the start of a line.
   */
  constructor(private readonly grid = false) {}

  /** Collapsing write (normal flow text). */
  text(raw: string): void {
    const n = raw.length;
    if (n === 0) return;
    // Leading and trailing white space become pending spaces; runs inside, one space each.
    let from = 0;
    while (from < n && isCollapsible(raw.charCodeAt(from))) from++;
    if (from === n) {
      this.pendingSpace = true;
      return;
    }
    let to = n;
    while (isCollapsible(raw.charCodeAt(to - 1))) to--;
    if (from > 0) this.pendingSpace = true;
    this.emit(collapsedRange(raw, from, to));
    this.pendingSpace = to < n;
  }

  /** Verbatim write (pre-formatted text): whitespace kept, only \r\n normalised. */
  verbatim(raw: string): void {
    if (raw.length === 0) return;
    this.emit(raw.indexOf('\r') === -1 ? raw : raw.replace(/\r\n?/g, '\n'));
  }

  /** A literal that must appear as given (list markers, cell separators), after pending separators. */
  literal(raw: string): void {
    this.emit(raw);
  }

  /**
   * A separator that absorbs the space before it (table cells: "a | b", never "a  | b"). Outside a
   * table block's grid, nothing is separated at the start of a line (of the text, after a line break, a
   * pending one or a list marker): a cell after an empty one (an admonition's icon) or after a block
   * (its "Note" label) starts its line, never " | ".
   */
  separator(raw: string): void {
    this.pendingSpace = false;
    if (!this.grid && (this.length === 0 || this.pendingBreak > 0 || this.afterMarker || this.lastChar === '\n')) return;
    this.emit(raw);
  }

  /** A list marker ("- ", "2. "): written on a fresh line, and the item text follows on the same line. */
  marker(raw: string): void {
    this.lineBreak(1);
    this.pendingSpace = false;
    this.emit(raw);
    this.afterMarker = true;
  }

  /** Requests a separation of `lines` line breaks before the next text (1 = new line, 2 = blank line). */
  lineBreak(lines = 1): void {
    if (this.length === 0 || this.afterMarker) return;
    if (lines > this.pendingBreak) this.pendingBreak = lines;
  }

  /** Requests a space before the next text unless a line break is pending. */
  space(): void {
    this.pendingSpace = true;
  }

  private emit(body: string): void {
    if (body.length === 0) return;
    if (this.length > 0) {
      if (this.pendingBreak > 0) {
        // Trailing spaces before a break are dropped; the break itself is written once.
        const sep = this.pendingBreak === 1 ? '\n' : '\n\n';
        if (this.lastChar !== '\n') {
          this.parts.push(sep);
          this.length += sep.length;
        } else if (sep === '\n\n' && !this.endsWithBlankLine()) {
          this.parts.push('\n');
          this.length += 1;
        }
      } else if (this.pendingSpace && !this.afterMarker && this.lastChar !== '\n' && this.lastChar !== ' ' && body.charCodeAt(0) !== 10) {
        this.parts.push(' ');
        this.length += 1;
      }
    }
    this.pendingBreak = 0;
    this.pendingSpace = false;
    this.afterMarker = false;
    this.parts.push(body);
    this.length += body.length;
    this.lastChar = body.charAt(body.length - 1);
  }

  private endsWithBlankLine(): boolean {
    const last = this.parts[this.parts.length - 1] ?? '';
    const prev = this.parts[this.parts.length - 2] ?? '';
    return (prev + last).endsWith('\n\n');
  }

  toString(): string {
    const joined = this.parts.join('');
    this.parts = [joined];
    // Verbatim text may end in newlines; a block's text never does.
    return joined.trimEnd(); // = replace(/\s+$/, ''), without its quadratic backtracking over inner whitespace
  }
}

/** Collapses whitespace and trims (headings, titles, cells). */
export function normalizeSpace(text: string): string {
  return collapsedRange(text, 0, text.length).trim();
}
