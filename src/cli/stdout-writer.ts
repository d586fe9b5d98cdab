import { writeSync } from 'node:fs';

/**
 * Standard output written with writeSync on descriptor 1, not through process.stdout: creating
 * process.stdout loads Node's stream, net and pipe machinery, ~4 ms of a cold `episteme query` that
 * writes one envelope. The bytes are the same. A descriptor that cannot take more right now (EAGAIN:
 * a non-blocking pipe that is full) hands the rest, and every later write, to process.stdout, which
 * queues it, so output order is kept. A closed pipe (`episteme query ... | head`) is the reader's
 * choice, not an error; any other write failure leaves nowhere to report to: exit 1, no stack trace.
 */
export interface TextWriter {
  /** Stream-shaped (clipanion's capture may forward a process.stdout write with its callback). */
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: (error?: Error | null) => void): boolean;
}

let fallback: NodeJS.WriteStream | undefined;

function streamFallback(): NodeJS.WriteStream {
  if (fallback === undefined) {
    fallback = process.stdout;
    fallback.on('error', (error: NodeJS.ErrnoException) => exitOnWriteError(error));
  }
  return fallback;
}

function exitOnWriteError(error: NodeJS.ErrnoException): never {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  process.exit(1);
}

export const stdoutWriter: TextWriter = {
  write(chunk, encoding, callback): boolean {
    const done = typeof encoding === 'function' ? (encoding as (error?: Error | null) => void) : callback;
    if (fallback !== undefined) return fallback.write(chunk, done);
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    let offset = 0;
    while (offset < bytes.length) {
      try {
        offset += writeSync(1, bytes, offset, bytes.length - offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN') return streamFallback().write(bytes.subarray(offset), done);
        exitOnWriteError(error as NodeJS.ErrnoException);
      }
    }
    done?.();
    return true;
  },
};
