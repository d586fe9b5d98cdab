import { Transform, type TransformCallback } from 'node:stream';
import { LineBounds, type BoundedLine } from './line-bounds.js';

const NEWLINE = Buffer.from('\n');

/**
 * Newline-delimited input with a bound on each line, for `serve`'s stdin. The MCP SDK's stdio
 * transport keeps a line whole until its newline and, past its own buffer bound (10 MiB), closes
 * the transport: one long line from a client would end the server. Here a line is passed on only
 * once it is complete and within `maxLineBytes` (LineBounds); a longer one is dropped as it arrives
 * (never held past the bound) and reported once, when it ends, so the server can answer it and go on.
 * A last line without its newline is passed on with one (the SDK would wait for it forever).
 */
export class BoundedLines extends Transform {
  private readonly bounds: LineBounds;

  constructor(
    maxLineBytes: number,
    private readonly onOverlong: (bytes: number) => void,
  ) {
    super();
    this.bounds = new LineBounds(maxLineBytes);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.pass(this.bounds.feed(chunk));
    done();
  }

  override _flush(done: TransformCallback): void {
    this.pass(this.bounds.end());
    done();
  }

  private pass(lines: BoundedLine[]): void {
    for (const line of lines) {
      if ('overlongBytes' in line) this.onOverlong(line.overlongBytes);
      else this.push(Buffer.concat([line.bytes, NEWLINE]));
    }
  }
}
