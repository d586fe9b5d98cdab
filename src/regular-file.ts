import { fs } from './node-builtins.js';

/**
 * fs.readFileSync for the files Episteme reads back from a workspace (its outputs, the build state,
 * cache entries) and for a local source it re-reads: the open never blocks, and the bytes are read
 * only when the opened descriptor is a regular file. A FIFO at such a path (planted, or restored from
 * a poisoned CI cache) made a plain read wait for a writer for ever, and a symbolic link to a device
 * such as /dev/zero read until memory ran out. Anything but a regular file throws an error with code
 * `ENOTREG`, which callers take as they take a missing or unreadable file. User-named inputs go
 * through store/bounded-read.ts instead, which also bounds their size and names them in its errors.
 */
export function readRegularFileSync(file: string): Buffer;
export function readRegularFileSync(file: string, encoding: 'utf8' | 'latin1'): string;
export function readRegularFileSync(file: string, encoding?: 'utf8' | 'latin1'): Buffer | string {
  // O_NONBLOCK: a FIFO with no writer opens at once (and fstat refuses it); a regular file reads as ever.
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    if (!fs.fstatSync(fd).isFile()) {
      throw Object.assign(new Error(`${file} is not a regular file`), { code: 'ENOTREG' });
    }
    const bytes = fs.readFileSync(fd);
    return encoding === undefined ? bytes : bytes.toString(encoding);
  } finally {
    fs.closeSync(fd);
  }
}
