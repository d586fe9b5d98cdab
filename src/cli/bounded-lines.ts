import { Transform, type TransformCallback } from 'node:stream';

/**
 * Newline-delimited input with a bound on each line, for `serve`'s stdin. The MCP SDK's stdio
 * transport keeps a line whole until its newline and, past its own buffer bound (10 MiB), closes
 * the transport: one long line from a client would end the server. Here a line is passed on only
 * once it is complete and within `maxLineBytes`; a longer one is dropped as it arrives (never held
 * past the bound) and reported once, when it ends, so the server can answer it and go on.
 */
export class BoundedLines extends Transform {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private dropping = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onOverlong: (bytes: number) => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline + 1;
      this.addPiece(chunk.subarray(start, end), newline >= 0);
      start = end;
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    // A last line without its newline is passed on as it is (the SDK waits for a newline it will not get).
    if (!this.dropping && this.heldBytes > 0) this.push(Buffer.concat(this.held));
    else if (this.dropping) this.onOverlong(this.heldBytes);
    done();
  }

  /** One piece of the current line; `ends`: it ends with the line's newline. */
  private addPiece(piece: Buffer, ends: boolean): void {
    this.heldBytes += piece.length;
    if (!this.dropping && this.heldBytes > this.maxLineBytes + (ends ? 1 : 0)) {
      this.dropping = true;
      this.held = [];
    }
    if (!this.dropping) this.held.push(piece);
    if (!ends) return;
    if (this.dropping) this.onOverlong(this.heldBytes);
    else this.push(this.held.length === 1 ? this.held[0]! : Buffer.concat(this.held));
    this.held = [];
    this.heldBytes = 0;
    this.dropping = false;
  }
}
