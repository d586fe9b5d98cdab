import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { nearest } from '../nearest.js';
import { fs } from '../node-builtins.js';

/**
 * The one way Episteme reads a file a user named (config, map and its entries, manifest, search and
 * chunk indexes, diff corpora): open without blocking and without trusting the path twice, `fstat`
 * the descriptor, refuse anything that is not a regular file or is past its byte bound, and only then
 * read. A 2 GB file is refused after one fstat, a FIFO with no writer never blocks the open, and a
 * file swapped between a stat and the open cannot slip through, because every check is on the opened
 * descriptor.
 */

/** What a path names, in words a user recognises ("a FIFO", "a directory"). */
export function describeFileKind(stat: import('node:fs').Stats): string {
  if (stat.isFile()) return 'a regular file';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isCharacterDevice()) return 'a character device';
  if (stat.isBlockDevice()) return 'a block device';
  if (stat.isSocket()) return 'a socket';
  if (stat.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

export interface BoundedFileOptions {
  /** How the input is named in messages ("Manifest", "Search index"). */
  label: string;
  /** Refuse files larger than this many bytes. */
  maxBytes: number;
  /** The hint for a file past its bound (which option or config field raises it). */
  tooLargeHint?: string;
}

/**
 * Opens `file` for reading and checks it, returning the descriptor and its size. The caller owns the
 * descriptor (close it); on any refusal it is already closed.
 */
export function openBoundedFile(file: string, options: BoundedFileOptions): { fd: number; size: number; stat: import('node:fs').Stats } {
  let fd: number;
  try {
    // O_NONBLOCK: opening a FIFO with no writer returns at once (and fstat then refuses it) instead of
    // waiting forever for a writer. It changes nothing for a regular file.
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    throw openFailure(file, options.label, error as NodeJS.ErrnoException);
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw notRegular(file, options.label, describeFileKind(stat));
    if (stat.size > options.maxBytes) throw tooLarge(file, options, stat.size);
    return { fd, size: stat.size, stat };
  } catch (error) {
    fs.closeSync(fd);
    throw error;
  }
}

/** Whether `file` is a directory; false for anything else, including what cannot be stat'ed (a symlink loop). */
export function isDirectory(file: string): boolean {
  try {
    return fs.statSync(file, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** Reads a whole regular file within its bound (see openBoundedFile). */
export function readBoundedFile(file: string, options: BoundedFileOptions): Buffer {
  return readBoundedFileWithStat(file, options).bytes;
}

/** readBoundedFile, with the stat of the descriptor the bytes were read through (what they are a version of). */
export function readBoundedFileWithStat(file: string, options: BoundedFileOptions): { bytes: Buffer; stat: import('node:fs').Stats } {
  const { fd, size, stat } = openBoundedFile(file, options);
  try {
    // Memory of its own, exactly the file's size: a buffer a rule can hand over to a worker whole.
    const limit = Math.min(size, options.maxBytes);
    const buffer = Buffer.allocUnsafeSlow(limit);
    let done = 0;
    while (done < limit) {
      const n = readChunk(fd, buffer, done, file, options.label);
      if (n === 0) return { bytes: buffer.subarray(0, done), stat };
      done += n;
    }
    // fstat's size is a hint, not a promise: a file that grew since, or one whose size its file system
    // does not report (procfs says 0 for a page of text; some FUSE and network mounts too), holds more.
    // Read on to the end, still held to the bound: stopping at the size (plus a probing byte) would
    // record a cut-off prefix as the file.
    const more: Buffer[] = [];
    let total = limit;
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(READ_ON_BYTES, options.maxBytes - total + 1));
      const n = readChunk(fd, chunk, 0, file, options.label);
      if (n === 0) break;
      total += n;
      if (total > options.maxBytes) throw tooLarge(file, options, total);
      more.push(chunk.subarray(0, n));
    }
    if (more.length === 0) return { bytes: buffer, stat };
    const whole = Buffer.allocUnsafeSlow(total);
    buffer.copy(whole, 0);
    let at = limit;
    for (const chunk of more) at += chunk.copy(whole, at);
    return { bytes: whole, stat };
  } finally {
    fs.closeSync(fd);
  }
}

/** How much a read past the fstat size asks for at a time. */
const READ_ON_BYTES = 64 * 1024;

/** Checks a path without opening it (stat follows symlinks): for inputs validated before they are read. */
export function checkRegularFile(file: string, options: BoundedFileOptions): import('node:fs').Stats {
  let stat: import('node:fs').Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw openFailure(file, options.label, error as NodeJS.ErrnoException);
  }
  if (!stat.isFile()) throw notRegular(file, options.label, describeFileKind(stat));
  if (stat.size > options.maxBytes) throw tooLarge(file, options, stat.size);
  return stat;
}

/**
 * Why a path cannot be read as a regular file, in a few words ("does not exist", "is a FIFO (named
 * pipe), not a regular file"), or null when it is a regular file. For validators that collect problems.
 */
export function regularFileProblem(
  file: string,
): { code: 'input-not-found' | 'input-not-regular' | 'input-unreadable'; problem: string } | null {
  try {
    const stat = fs.statSync(file);
    return stat.isFile() ? null : { code: 'input-not-regular', problem: `is ${describeFileKind(stat)}, not a regular file` };
  } catch (error) {
    const failure = openFailure(file, '', error as NodeJS.ErrnoException);
    return {
      code: failure.code as 'input-not-found' | 'input-not-regular' | 'input-unreadable',
      problem: String(failure.details?.problem),
    };
  }
}

function readChunk(fd: number, buffer: Buffer, offset: number, file: string, label: string): number {
  try {
    return fs.readSync(fd, buffer, offset, buffer.length - offset, null);
  } catch (error) {
    const errno = error as NodeJS.ErrnoException;
    throw new EpistemeError('input-unreadable', `${label} ${shownPath(file)} cannot be read (${errno.code ?? 'error'}).`, {
      hint: unreadableHint(file, errno.code),
      details: { path: shownPath(file), errno: errno.code ?? null, problem: `cannot be read (${errno.code ?? 'error'})` },
      cause: error,
    });
  }
}

function openFailure(file: string, label: string, error: NodeJS.ErrnoException): EpistemeError {
  const prefix = label ? `${label} ${shownPath(file)}` : shownPath(file);
  const details = (problem: string) => ({ path: shownPath(file), errno: error.code ?? null, problem });
  switch (error.code) {
    case 'ENOENT': {
      // A symlink whose target is missing exists: say so rather than "not found".
      const link = linkTarget(file);
      if (link !== null) {
        const problem = `is a dangling symbolic link (to ${link}), not a regular file`;
        return new EpistemeError('input-not-regular', `${prefix} ${problem}.`, { details: details(problem), cause: error });
      }
      return new EpistemeError('input-not-found', `${prefix} not found.`, {
        hint: missingFileHint(file),
        details: details('does not exist'),
        cause: error,
      });
    }
    case 'ENOTDIR':
      return new EpistemeError('input-not-found', `${prefix} not found (a leading component is not a directory).`, {
        hint: 'A folder on the path is a file: check the path.',
        details: details('does not exist (a leading component is not a directory)'),
        cause: error,
      });
    case 'ELOOP': {
      const problem = 'is a symbolic link loop, not a regular file';
      return new EpistemeError('input-not-regular', `${prefix} ${problem}.`, { details: details(problem), cause: error });
    }
    case 'EISDIR': {
      const problem = 'is a directory, not a regular file';
      return new EpistemeError('input-not-regular', `${prefix} ${problem}.`, { details: details(problem), cause: error });
    }
    case 'ENXIO': {
      // O_NONBLOCK open of a socket, or of a device with nothing behind it.
      const problem = 'is a socket or device, not a regular file';
      return new EpistemeError('input-not-regular', `${prefix} ${problem}.`, { details: details(problem), cause: error });
    }
    case 'ENAMETOOLONG':
      return new EpistemeError('input-not-found', `${prefix} not found (the path is too long).`, {
        hint: 'Shorten the path: a file or folder name holds at most 255 bytes.',
        details: details('does not exist (path too long)'),
        cause: error,
      });
    default: {
      const problem = `cannot be opened for reading (${error.code ?? 'error'}${error.code === 'EACCES' ? ': permission denied' : ''})`;
      return new EpistemeError('input-unreadable', `${prefix} ${problem}.`, {
        hint: unreadableHint(file, error.code),
        details: details(problem),
        cause: error,
      });
    }
  }
}

/** Folders listed at most for a "did you mean": a larger one is not searched. */
const MAX_LISTED_FOR_HINT = 10_000;

/**
 * What to do about a path that does not exist: the nearest name in its folder (by edit distance), or
 * that the folder is missing too, or to check the path as the message shows it (from the current folder).
 */
function missingFileHint(file: string): string {
  const folder = path.dirname(path.resolve(file));
  const name = path.basename(file);
  let names: string[];
  try {
    const dir = fs.opendirSync(folder);
    names = [];
    try {
      for (let entry = dir.readSync(); entry !== null && names.length <= MAX_LISTED_FOR_HINT; entry = dir.readSync())
        // Only names within the typo distance nearest() accepts (at most 3) are worth the comparison.
        if (Math.abs(entry.name.length - name.length) <= 3) names.push(entry.name);
    } finally {
      dir.closeSync();
    }
  } catch {
    return `Its folder ${shownPath(folder)} does not exist either: check the path (shown from the current folder).`;
  }
  const near = names.length > MAX_LISTED_FOR_HINT ? [] : nearest(name, names);
  if (near.length > 0) return `Did you mean ${shownPath(path.join(folder, near[0]!))}? (paths are shown from the current folder)`;
  const shown = shownPath(folder);
  return `No file of that name is in ${shown === '.' ? 'the current folder' : shown}: check the path (shown from the current folder).`;
}

/** What to do about a file that exists but cannot be opened or read. */
function unreadableHint(file: string, code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') return "Check the file's permissions.";
  if (file.includes('\0')) return 'The path holds a NUL character, which no file name can: fix the path where it is written.';
  return 'Check that the file can be read (its permissions, the disk it is on), then run the command again.';
}

function linkTarget(file: string): string | null {
  try {
    return fs.readlinkSync(file);
  } catch {
    return null;
  }
}

function notRegular(file: string, label: string, kind: string): EpistemeError {
  const problem = `is ${kind}, not a regular file`;
  return new EpistemeError('input-not-regular', `${label} ${shownPath(file)} ${problem}.`, {
    hint: 'Name a regular file.',
    details: { path: shownPath(file), problem },
  });
}

function tooLarge(file: string, options: BoundedFileOptions, size: number): EpistemeError {
  return new EpistemeError(
    'input-too-large',
    `${options.label} ${shownPath(file)} is ${size} bytes, larger than its bound of ${options.maxBytes} bytes.`,
    {
      hint: options.tooLargeHint ?? 'Raise the bound with --max-input-bytes=BYTES if the input is trusted.',
      details: { path: shownPath(file), size, maxBytes: options.maxBytes },
    },
  );
}

/**
 * A file as a message names it: as given when relative, else its path from the current folder, so no
 * message or --json detail carries an absolute path (the callers resolve paths before they open them).
 */
export function shownPath(file: string): string {
  if (!path.isAbsolute(file)) return file;
  return path.relative(process.cwd(), file).split(path.sep).join('/') || '.';
}
