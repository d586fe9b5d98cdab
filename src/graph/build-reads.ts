import { sameStamp, type FileStamp } from './state.js';

type Stamp = Omit<FileStamp, 'hash'>;

/**
 * Bytes a build has already read, for the next reader of the same bytes in that build: a watch cycle
 * read an edited 2 MB spec four times (the watch's change check, the snapshot's key, the snapshot rule,
 * the extract rule's verified read of the body), about 6 ms a read on this project's machines. Owned by
 * RuleMemory (one build, or a watch session that empties it after each cycle).
 *
 * - A source file by its path, with the stamp of the descriptor it was read through: it stands for the
 *   file while a stat of the path gives that stamp (the trust a build already gives stamps: state.ts).
 * - A snapshot body by the SHA-256 computed from these very bytes, which the snapshot rule has just
 *   written: the extract rule takes it instead of reading the file back and hashing it again.
 *
 * One owner at a time: `take` removes an entry, so a buffer handed over to a worker (and detached) is
 * never read here again. Bounded by bytes; what would pass the bound is simply not remembered.
 */
export class BuildReads {
  private readonly sources = new Map<string, { stamp: Stamp; bytes: Buffer }>();
  private readonly bodies = new Map<string, Buffer>();
  private held = 0;

  constructor(private readonly maxBytes = DEFAULT_MAX_BYTES) {}

  /** Remembers the bytes read from `file` through a descriptor whose stat gave `stamp`. */
  rememberSource(file: string, stamp: Stamp, bytes: Buffer): void {
    this.forgetSource(file);
    if (!this.fits(bytes)) return;
    this.sources.set(file, { stamp, bytes });
    this.held += bytes.byteLength;
  }

  /** The bytes of `file` when it still has `stamp` (kept for a later reader). */
  source(file: string, stamp: Stamp | null): Buffer | undefined {
    const entry = this.sources.get(file);
    return entry !== undefined && stamp !== null && sameStamp(entry.stamp, stamp) ? entry.bytes : undefined;
  }

  /** The bytes of `file` when it still has `stamp`, forgotten here. */
  takeSource(file: string, stamp: Stamp | null): Buffer | undefined {
    const bytes = this.source(file, stamp);
    this.forgetSource(file);
    return bytes;
  }

  /** Remembers a snapshot body by the SHA-256 of exactly these bytes. */
  rememberBody(sha256: string, bytes: Buffer): void {
    this.takeBody(sha256);
    if (!this.fits(bytes)) return;
    this.bodies.set(sha256, bytes);
    this.held += bytes.byteLength;
  }

  /** The body whose SHA-256 is `sha256`, forgotten here. */
  takeBody(sha256: string): Buffer | undefined {
    const bytes = this.bodies.get(sha256);
    if (bytes === undefined) return undefined;
    this.bodies.delete(sha256);
    this.held -= bytes.byteLength;
    return bytes;
  }

  /** Forgets everything (the end of a build: what no reader took is read from disk next time). */
  clear(): void {
    this.sources.clear();
    this.bodies.clear();
    this.held = 0;
  }

  /** Bytes held now. */
  get heldBytes(): number {
    return this.held;
  }

  private forgetSource(file: string): void {
    const entry = this.sources.get(file);
    if (entry === undefined) return;
    this.sources.delete(file);
    this.held -= entry.bytes.byteLength;
  }

  private fits(bytes: Buffer): boolean {
    return this.held + bytes.byteLength <= this.maxBytes;
  }
}

/** What a build holds at most: a few large specs, never a corpus (a first build hashes every source before it captures any). */
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;
