import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFailure } from './write-failure.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * Crash-safe file writes. Data goes to a temp file in the same directory and is renamed into place,
 * so a reader (or a crash) sees either the old bytes or the new ones, never a torn file.
 */

const TEMP_MARKER = '.episteme-tmp-';
let tempCounter = 0;

/** A temp file beside `target`, named so the build's sweep (sweepOwnedTempFiles) removes it should a crash leave it. */
export function tempPathFor(target: string): string {
  tempCounter += 1;
  return path.join(path.dirname(target), `${TEMP_MARKER}${process.pid}-${tempCounter}-${path.basename(target)}`);
}

/**
 * Writes `data` to `target` atomically. `durable` also fsyncs, for commit points such as index.json.
 * A failure at any step (disk full, read-only, permission) removes the temp file, leaves `target` as it
 * was, and throws `write-failed` naming `target` (see write-failure.ts).
 */
export function writeFileAtomic(target: string, data: string | Uint8Array, durable = false): void {
  let temp: string | null = null;
  try {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    temp = tempPathFor(target);
    const fd = fs.openSync(temp, 'w');
    try {
      fs.writeFileSync(fd, data);
      if (durable) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temp, target);
  } catch (error) {
    if (temp !== null) removeQuietly(temp);
    throw writeFailure(error, target);
  }
}

/**
 * Creates `target` holding `data` only when nothing is there, atomically: the bytes go to a temp file
 * beside it, which is then hard-linked into place (link(2) fails with EEXIST rather than replace or
 * follow anything, as O_EXCL does). A crash or a refused write (a full disk) at any step leaves either
 * no `target` or the whole file, never an empty or torn one, which O_EXCL's open-then-write leaves for
 * good (the next writer sees a file and keeps it). Returns false when `target` already existed; any other
 * failure is `write-failed` naming `target`. The temp file is removed in every case. On a file system
 * without hard links the file is created and written in place, and removed again if the write fails.
 */
export function createFileExclusive(target: string, data: string | Uint8Array): boolean {
  const temp = tempPathFor(target);
  try {
    const fd = fs.openSync(
      temp,
      fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0),
      0o666,
    );
    try {
      fs.writeFileSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    try {
      fs.linkSync(temp, target);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return false;
      if (code !== undefined && NO_HARD_LINKS.has(code)) return createInPlace(target, data);
      throw error;
    }
    return true;
  } catch (error) {
    throw writeFailure(error, target);
  } finally {
    removeQuietly(temp);
  }
}

/** What link(2) says on a file system without hard links (FAT, exFAT, some network and FUSE mounts). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS']);

/** Without hard links: created with O_EXCL and written in place, and removed again when the write fails. */
function createInPlace(target: string, data: string | Uint8Array): boolean {
  let fd: number;
  try {
    fd = fs.openSync(target, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0), 0o666);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    fs.writeFileSync(fd, data);
  } catch (error) {
    fs.closeSync(fd);
    removeQuietly(target);
    throw error;
  }
  fs.closeSync(fd);
  return true;
}

/** Best effort: the removal of a temp file must not hide the error that made it litter. */
function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // a later build's sweepTempFiles removes it
  }
}

/**
 * Writes only when the bytes differ (early cutoff's write-if-changed): an unchanged output keeps its
 * inode and mtime, so nothing downstream, and no file watcher, sees a change. Returns whether it wrote.
 */
export function writeFileIfChanged(target: string, data: string | Uint8Array, durable = false): boolean {
  const bytes = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
  try {
    const stat = fs.statSync(target);
    if (stat.size === bytes.byteLength && Buffer.compare(readRegularFileSync(target), bytes) === 0) return false;
  } catch {
    // missing: write it
  }
  writeFileAtomic(target, bytes, durable);
  return true;
}

/** Removes temp files left by a crashed writer. Only this module's temp names are touched. */
export function sweepTempFiles(dir: string): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (name.startsWith(TEMP_MARKER)) {
      fs.rmSync(path.join(dir, name), { force: true });
      removed += 1;
    }
  }
  return removed;
}

export function isTempFileName(name: string): boolean {
  return name.startsWith(TEMP_MARKER);
}
