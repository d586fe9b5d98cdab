/**
 * A content-addressed store in the layout of the Bazel HTTP cache protocol: `ac/<sha256>` holds action
 * results (which output blobs an action produced), `cas/<sha256>` holds blobs named by their SHA-256.
 * Two implementations sit beside this interface: disk-store.ts (a local folder) and http-store.ts (a
 * Bazel-compatible HTTP server such as bazel-remote or nginx with WebDAV).
 */
import type { BlobFileResult } from './blob-file.js';

export type Area = 'ac' | 'cas';

export interface CacheStore {
  /** What the cache is, for messages: never a credential (see secrets.ts). */
  readonly label: string;
  /** The stored bytes, or null when absent (a miss). At most `maxBytes` are accepted. */
  get(area: Area, hash: string, maxBytes: number): Promise<Buffer | null>;
  /**
   * Streams the blob `cas/<sha256>` into `file` (blob-file.ts: a temp file checked for `sizeBytes` and
   * the SHA-256 as it arrives, renamed into place), never holding it whole: 'absent' for a miss. A
   * cut-off or failed download leaves no file behind.
   */
  getFile(sha256: string, sizeBytes: number, file: string): Promise<'absent' | BlobFileResult>;
  put(area: Area, hash: string, bytes: Buffer): Promise<void>;
  /** Whether the store holds `area/hash`, asked the cheapest way it allows (HEAD, stat): nothing is read. */
  has(area: Area, hash: string): Promise<boolean>;
  close(): void;
}

/**
 * The store cannot serve requests at all (unreachable, timed out, 5xx, full, refused credentials):
 * the build goes on without it. The message is already redacted.
 */
export class CacheUnavailable extends Error {
  override readonly name = 'CacheUnavailable';
}

export const SHA256_HEX = /^[0-9a-f]{64}$/;
