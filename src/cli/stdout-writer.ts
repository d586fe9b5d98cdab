import { writeSync } from 'node:fs';

/**
 * Standard output and standard error written with writeSync on descriptors 1 and 2, not through
 * process.stdout and process.stderr: creating either loads Node's stream, net and pipe machinery,
 * ~4 ms of a cold `episteme query` that writes one envelope (~20M instructions on Node 24 for a
 * human-mode error line). The bytes are the same. A descriptor that cannot take more right now (EAGAIN:
 * a non-blocking pipe that is full) hands the rest, and every later write, to the stream, which
 * queues it, so output order is kept. A closed pipe (`episteme query ... | head`) is the reader's
 * choice, not an error; any other failure of standard output is said on standard error
 * (`write-failed`, the errno) with exit 1, no stack trace; one of standard error leaves only the exit code.
 */
export interface TextWriter {
  /** Stream-shaped (clipanion's capture may forward a process.stdout write with its callback). */
  write(chunk: string | Uint8Array, encoding?: unknown, callback?: (error?: Error | null) => void): boolean;
}

/**
 * A writer on descriptor `fd` (1 or 2) with `stream` (process.stdout or process.stderr) as the
 * fallback: created only when a write would block, or when asked whether it is a terminal.
 */
function descriptorWriter(
  fd: 1 | 2,
  stream: () => NodeJS.WriteStream,
): TextWriter & { readonly isTTY: boolean; readonly columns: number | undefined } {
  let fallback: NodeJS.WriteStream | undefined;
  // Set once a write would have blocked: from then on the stream queues every write, in order.
  let handedOver = false;
  const streamFallback = (): NodeJS.WriteStream => {
    if (fallback === undefined) {
      fallback = stream();
      fallback.on('error', (error: NodeJS.ErrnoException) => exitOnWriteError(error, fd));
    }
    return fallback;
  };
  return {
    write(chunk, encoding, callback): boolean {
      const done = typeof encoding === 'function' ? (encoding as (error?: Error | null) => void) : callback;
      if (handedOver) return streamFallback().write(chunk, done);
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
      let offset = 0;
      while (offset < bytes.length) {
        try {
          offset += writeSync(fd, bytes, offset, bytes.length - offset);
        } catch (error) {
          const code = (error as NodeJS.ErrnoException).code;
          if (code === 'EAGAIN') {
            handedOver = true;
            return streamFallback().write(bytes.subarray(offset), done);
          }
          exitOnWriteError(error as NodeJS.ErrnoException, fd);
        }
      }
      done?.();
      return true;
    },
    // Progress lines and the live status line ask; a query's warnings and errors never do.
    get isTTY(): boolean {
      return streamFallback().isTTY === true;
    },
    get columns(): number | undefined {
      return streamFallback().columns;
    },
  };
}

function exitOnWriteError(error: NodeJS.ErrnoException, fd: 1 | 2): never {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  // Standard output failed (a full disk or quota behind `> file`, /dev/full, an I/O error): what was
  // written is incomplete, and standard error may still reach the user. Without this line the command
  // ended with exit 1 and no word, and a truncated envelope or listing looked like the whole answer.
  if (fd === 1) {
    const code = error.code ?? 'error';
    const line =
      `error [write-failed]: standard output could not be written (${code}); what it holds is incomplete.\n` +
      'hint: Free space where standard output goes (a full disk or quota), or send it elsewhere, and run the command again.\n';
    try {
      writeSync(2, line);
    } catch {
      // Standard error failed too: the exit code is all that is left.
    }
  }
  process.exit(1);
}

export const stdoutWriter: TextWriter = descriptorWriter(1, () => process.stdout);
/** Standard error, written the same way: a human-mode error or warning creates no stderr stream. */
export const stderrWriter = descriptorWriter(2, () => process.stderr);
