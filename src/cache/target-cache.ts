import type { TargetNode } from '../graph/graph.js';
import type { KeyComponents } from '../graph/key.js';
import type { DepView, RuleEnv, RuleOutput } from '../graph/rules.js';

/**
 * What the scheduler consults, at one point, before running a dirty target's rule: the cache may
 * restore the output instead (verified), and may store what the rule produced. The scheduler writes,
 * records and reports the output the same way either way.
 */
export interface TargetCacheRequest {
  node: TargetNode;
  components: KeyComponents;
  deps: DepView[];
  /** Runs the rule locally. */
  run(): Promise<RuleOutput>;
  /** Whether every input the key was computed from is still as it was (stat, hash fallback). */
  inputsUnchanged(): boolean;
}

export interface TargetCache {
  produce(env: RuleEnv, request: TargetCacheRequest): Promise<{ output: RuleOutput; restored: boolean }>;
}
