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
}
