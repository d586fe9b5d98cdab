/** Whitespace that collapsing changes: a run of two or more, or any white space but a plain space. */
const NEEDS_COLLAPSE = /[\t\n\r\f\u00a0]| {2}/;

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

  /** Collapsing write (normal flow text). */
  text(raw: string): void {
    if (raw.length === 0) return;
    // Most text runs hold only single spaces between words: a native scan finds nothing to collapse and
    // the run is written without a copy.
    const collapsed = NEEDS_COLLAPSE.test(raw) ? raw.replace(/[ \t\n\r\f\u00a0]+/g, ' ') : raw;
    if (collapsed === ' ') {
      this.pendingSpace = true;
      return;
    }
    let body = collapsed;
    if (body.charCodeAt(0) === 32) {
      this.pendingSpace = true;
      body = body.slice(1);
    }
    let trailing = false;
    if (body.charCodeAt(body.length - 1) === 32) {
      trailing = true;
      body = body.slice(0, -1);
    }
    this.emit(body);
    this.pendingSpace = trailing;
  }

  /** Verbatim write (pre-formatted text): whitespace kept, only \r\n normalised. */
  verbatim(raw: string): void {
    if (raw.length === 0) return;
    this.emit(raw.replace(/\r\n?/g, '\n'));
  }

  /** A literal that must appear as given (list markers, cell separators), after pending separators. */
  literal(raw: string): void {
    this.emit(raw);
  }

  /** A separator that absorbs the space before it (table cells: "a | b", never "a  | b"). */
  separator(raw: string): void {
    this.pendingSpace = false;
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
  return (NEEDS_COLLAPSE.test(text) ? text.replace(/[ \t\n\r\f\u00a0]+/g, ' ') : text).trim();
}
