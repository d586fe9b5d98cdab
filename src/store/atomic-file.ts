import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * Crash-safe file writes. Data goes to a temp file in the same directory and is renamed into place,
 * so a reader (or a crash) sees either the old bytes or the new ones, never a torn file.
 */

const TEMP_MARKER = '.episteme-tmp-';
let tempCounter = 0;

function tempPathFor(target: string): string {
  tempCounter += 1;
  return path.join(path.dirname(target), `${TEMP_MARKER}${process.pid}-${tempCounter}-${path.basename(target)}`);
}

/** Writes `data` to `target` atomically. `durable` also fsyncs, for commit points such as index.json. */
export function writeFileAtomic(target: string, data: string | Uint8Array, durable = false): void {
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const temp = tempPathFor(target);
  const fd = fs.openSync(temp, 'w');
  try {
    fs.writeFileSync(fd, data);
    if (durable) fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.renameSync(temp, target);
  } catch (error) {
    fs.rmSync(temp, { force: true });
    throw error;
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
    if (stat.size === bytes.byteLength && Buffer.compare(fs.readFileSync(target), bytes) === 0) return false;
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
