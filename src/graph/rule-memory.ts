import { BuildReads } from './build-reads.js';
import type { TargetRecord } from './state.js';

/**
 * What rules may know beyond the build state: owned by one build, or by a watch session across its
 * builds (build-memory.ts), and passed to rules in their environment. Never module-global, so two
 * workspaces in one process never share it. Only a shortcut: losing it costs time, never correctness.
 */
export class RuleMemory {
  /**
   * Records whose output file this process wrote from the very bytes whose SHA-256 the record holds
   * (the scheduler adds them). An index need not read such a file back to vouch for its hash; a record
   * read from the state, or replaced since, is not in the set and is read and checked.
   */
  readonly writtenFromHashedBytes = new WeakSet<TargetRecord>();

  /** Source files and snapshot bodies this build has read, for their next reader (build-reads.ts). */
  readonly reads = new BuildReads();

  /**
   * Index parts (unsealed) by cache file name: a part is a pure function of its name's content hash
   * and format, so a watch's next merge takes the parts it merged last time from here instead of
   * reading and verifying every part file again. Only each document's current part is kept: a save
   * makes a new part for the edited document, and its old one is forgotten (kept, every save of a
   * 2 MB spec added a part until the count bound, and the watch process grew by its size each time).
   * Bounded by count and by characters, the least recently used dropped first.
   */
  private readonly indexParts = new Map<string, string>();
  private indexPartChars = 0;
  /** Document id -> the cache file name of its current part. */
  private readonly partFileOf = new Map<string, string>();
  /** Cache file name -> how many documents have it as their current part (identical chunks share one). */
  private readonly partOwners = new Map<string, number>();

  indexPart(file: string): string | undefined {
    return this.indexParts.get(file);
  }

  rememberIndexPart(documentId: string, file: string, part: string): void {
    const previous = this.partFileOf.get(documentId);
    if (previous !== file) {
      this.partFileOf.set(documentId, file);
      this.partOwners.set(file, (this.partOwners.get(file) ?? 0) + 1);
      if (previous !== undefined) {
        const owners = this.partOwners.get(previous)! - 1;
        if (owners > 0) this.partOwners.set(previous, owners);
        else {
          this.partOwners.delete(previous);
          this.forgetIndexPart(previous);
        }
      }
    }
    this.forgetIndexPart(file);
    this.indexParts.set(file, part);
    this.indexPartChars += part.length;
    while (this.indexParts.size > MAX_INDEX_PARTS || this.indexPartChars > MAX_INDEX_PART_CHARS)
      this.forgetIndexPart(this.indexParts.keys().next().value!);
  }

  /** How many parts, and characters of them, are held (tests). */
  indexPartsHeld(): { parts: number; chars: number } {
    return { parts: this.indexParts.size, chars: this.indexPartChars };
  }

  private forgetIndexPart(file: string): void {
    const part = this.indexParts.get(file);
    if (part === undefined) return;
    this.indexParts.delete(file);
    this.indexPartChars -= part.length;
  }
}

/** Enough for the parts of one segment's worth of documents (planSegments: at most 1,024) and more. */
const MAX_INDEX_PARTS = 2048;
/** About 64 to 128 MB of part text (a real spec's part is up to a few hundred thousand characters). */
const MAX_INDEX_PART_CHARS = 64 * 1024 * 1024;
