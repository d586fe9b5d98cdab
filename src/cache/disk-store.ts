import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { BlobFile, type BlobFileResult } from './blob-file.js';
import { CacheUnavailable, SHA256_HEX, type Area, type CacheStore } from './store.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * The cache in a local folder with the Bazel layout (`ac/<sha256>`, `cas/<sha256>`), like Bazel's
 * --disk_cache: shared by workspaces on one machine, or restored between CI runs as one folder.
 * Entries are written atomically (temp file + rename), so a reader never sees half an entry.
 */
export class DiskStore implements CacheStore {
  readonly label: string;

  constructor(private readonly root: string) {
    this.label = `file://${root}`;
  }

  async get(area: Area, hash: string, maxBytes: number): Promise<Buffer | null> {
    const file = this.file(area, hash);
    try {
      const stat = fs.statSync(file);
      if (!stat.isFile() || stat.size > maxBytes) return null;
      return readRegularFileSync(file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw new CacheUnavailable(`cannot read ${this.label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  async getFile(sha256: string, sizeBytes: number, file: string): Promise<'absent' | BlobFileResult> {
    let fd: number;
    try {
      fd = fs.openSync(this.file('cas', sha256), fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
      throw new CacheUnavailable(`cannot read ${this.label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    let blob: BlobFile | null = null;
    try {
      if (!fs.fstatSync(fd).isFile()) return 'absent';
      blob = new BlobFile(file, sha256, sizeBytes);
      const part = Buffer.allocUnsafe(1024 * 1024);
      for (;;) {
        const read = fs.readSync(fd, part, 0, part.length, null);
        if (read === 0) break;
        if (!blob.write(part.subarray(0, read))) break;
      }
      const result = blob.finish();
      blob = null;
      return result;
    } catch (error) {
      throw new CacheUnavailable(`cannot read ${this.label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    } finally {
      blob?.abort();
      fs.closeSync(fd);
    }
  }

  async put(area: Area, hash: string, bytes: Buffer): Promise<void> {
    try {
      writeFileAtomic(this.file(area, hash), bytes);
    } catch (error) {
      throw new CacheUnavailable(`cannot write to ${this.label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  async has(area: Area, hash: string): Promise<boolean> {
    try {
      return fs.statSync(this.file(area, hash)).isFile();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new CacheUnavailable(`cannot read ${this.label}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }

  close(): void {}

  private file(area: Area, hash: string): string {
    if (!SHA256_HEX.test(hash)) throw new Error(`not a SHA-256 key: ${hash}`);
    return path.join(this.root, area, hash);
  }
}
