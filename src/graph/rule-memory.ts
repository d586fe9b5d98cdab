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

  /**
   * Index parts (unsealed) by cache file name: a part is a pure function of its name's content hash
   * and format, so a watch's next merge takes the parts it merged last time from here instead of
   * reading and verifying every part file again. At most MAX_INDEX_PARTS, the oldest dropped first.
   */
  private readonly indexParts = new Map<string, string>();

  indexPart(file: string): string | undefined {
    return this.indexParts.get(file);
  }

  rememberIndexPart(file: string, part: string): void {
    this.indexParts.delete(file);
    this.indexParts.set(file, part);
    if (this.indexParts.size > MAX_INDEX_PARTS) this.indexParts.delete(this.indexParts.keys().next().value!);
  }
}

/** Enough for the parts of one segment's worth of documents (planSegments: at most 1,024) and more. */
const MAX_INDEX_PARTS = 2048;
