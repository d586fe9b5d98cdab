/**
 * Newline-delimited input cut into lines with a bound on each: a line is passed on once it is complete
 * and within `maxLineBytes` (without its newline, nor a carriage return before it); a longer one is
 * dropped as it arrives (never held past the bound) and reported once, in its place, when it ends. A
 * last line without a newline is passed on at the end. `serve`'s stdin (BoundedLines) and
 * `query --batch` read their input through it.
 */
export type BoundedLine = { bytes: Buffer } | { overlongBytes: number };

export class LineBounds {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private dropping = false;

  constructor(private readonly maxLineBytes: number) {}

  /** The lines (and over-long lines) that `chunk` completes, in order. */
  feed(chunk: Buffer): BoundedLine[] {
    const out: BoundedLine[] = [];
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      this.addPiece(chunk.subarray(start, end));
      if (newline < 0) break;
      out.push(this.take());
      start = newline + 1;
    }
    return out;
  }

  /** The last line, when the input ended without a newline after it. */
  end(): BoundedLine[] {
    return this.heldBytes > 0 || this.dropping ? [this.take()] : [];
  }

  private addPiece(piece: Buffer): void {
    if (piece.length === 0) return;
    this.heldBytes += piece.length;
    // One byte of slack: a carriage return before the newline is not part of the line.
    if (!this.dropping && this.heldBytes > this.maxLineBytes + 1) {
      this.dropping = true;
      this.held = [];
    }
    if (!this.dropping) this.held.push(piece);
  }

  private take(): BoundedLine {
    let line: BoundedLine;
    if (this.dropping) line = { overlongBytes: this.heldBytes };
    else {
      let bytes = this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held);
      if (bytes.length > 0 && bytes[bytes.length - 1] === 0x0d) bytes = bytes.subarray(0, bytes.length - 1);
      line = bytes.length > this.maxLineBytes ? { overlongBytes: this.heldBytes } : { bytes };
    }
    this.held = [];
    this.heldBytes = 0;
    this.dropping = false;
    return line;
  }
}

/** The bounded lines of a byte stream (stdin), in order. */
export async function* boundedLines(input: AsyncIterable<Buffer | string>, maxLineBytes: number): AsyncGenerator<BoundedLine> {
  const bounds = new LineBounds(maxLineBytes);
  for await (const chunk of input) yield* bounds.feed(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  yield* bounds.end();
}
