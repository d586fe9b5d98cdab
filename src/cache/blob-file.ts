import { createHash, type Hash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempPathFor } from '../store/atomic-file.js';

/** How a blob streamed to a file ended: it is there, verified, or why the bytes were not the blob. */
export type BlobFileResult = 'stored' | { mismatch: string };

/**
 * A blob written to its file as it arrives, never held whole in memory: into a temp file beside the
 * target, its size and SHA-256 checked as it streams, and renamed into place only when both match.
 * Every other ending (a cut-off download, too many bytes, another digest, an error) removes the temp
 * file, so nothing half-written is left; a crash leaves a temp file the build's sweep removes.
 */
export class BlobFile {
  private readonly temp: string;
  private fd: number | null;
  private readonly hash: Hash = createHash('sha256');
  /** Bytes written so far. */
  length = 0;

  constructor(
    private readonly target: string,
    private readonly sha256: string,
    private readonly sizeBytes: number,
  ) {
    fs.mkdirSync(path.dirname(target), { recursive: true });
    this.temp = tempPathFor(target);
    this.fd = fs.openSync(this.temp, 'w');
  }

  /** Appends `part`; false (and the temp file removed) when it takes the blob past its size. */
  write(part: Buffer): boolean {
    if (this.fd === null) return false;
    this.length += part.length;
    if (this.length > this.sizeBytes) {
      this.abort();
      return false;
    }
    this.hash.update(part);
    // Synchronous: the next part is not read off the socket until this one is on disk, so nothing queues.
    // All of it: a write the file system honours only in part (a disk filling up) reports a short count,
    // and only the next write its cause.
    for (let at = 0; at < part.length; ) {
      const written = fs.writeSync(this.fd, part, at, part.length - at);
      if (written === 0) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      at += written;
    }
    return true;
  }

  /** Checks what was written against the blob's size and SHA-256: renamed into place, or removed. */
  finish(): BlobFileResult {
    if (this.fd === null) return { mismatch: `blob cas/${this.sha256} is larger than the ${this.sizeBytes} bytes its entry names` };
    fs.closeSync(this.fd);
    this.fd = null;
    const actual = this.hash.digest('hex');
    if (actual !== this.sha256 || this.length !== this.sizeBytes) {
      removeQuietly(this.temp);
      return {
        mismatch:
          `blob cas/${this.sha256} has SHA-256 ${actual} and ${this.length} bytes, ` +
          `not the ${this.sizeBytes} bytes its action-cache entry names`,
      };
    }
    try {
      fs.renameSync(this.temp, this.target);
    } catch (error) {
      removeQuietly(this.temp);
      throw error;
    }
    return 'stored';
  }

  /** Gives up: the temp file is removed. */
  abort(): void {
    if (this.fd !== null) {
      try {
        fs.closeSync(this.fd);
      } catch {
        // closed already
      }
      this.fd = null;
    }
    removeQuietly(this.temp);
  }
}

function removeQuietly(file: string): void {
  try {
    fs.rmSync(file, { force: true });
  } catch {
    // the build's sweep removes it
  }
}

/** A verified blob file read into one buffer, in shared memory (workers check it without a copy), and removed. */
export function takeBlobFile(file: string, sizeBytes: number): Buffer {
  try {
    const bytes = Buffer.from(new SharedArrayBuffer(sizeBytes));
    const fd = fs.openSync(file, 'r');
    try {
      let at = 0;
      while (at < sizeBytes) {
        const read = fs.readSync(fd, bytes, at, sizeBytes - at, at);
        if (read === 0) throw new Error(`${file} is shorter than ${sizeBytes} bytes`);
        at += read;
      }
    } finally {
      fs.closeSync(fd);
    }
    return bytes;
  } finally {
    removeQuietly(file);
  }
}
