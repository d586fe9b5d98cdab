import type { Workspace, WorkspaceSource } from '../../config/workspace.js';
import type { Warning } from '../../failure.js';
import type { CaptureRun } from '../../capture/run.js';
import type { Inspection, InspectTask } from '../../inspect/inspect.js';
import type { DirtyReason, KeyComponents } from '../key.js';
import type { RuleId, TargetNode } from '../graph.js';
import type { BuildState, TargetRecord } from '../state.js';
import type { StagePool } from '../stage-pool.js';
import type { StageModules } from '../stage-modules.js';
import type { RuleMemory } from '../rule-memory.js';

/**
 * What every rule is given and what it returns. Rules never write their own outputs: the scheduler
 * hashes, stores and records what `run` returns, so every rule gets content addressing, early cutoff
 * and crash safety. A rule is one descriptor (rules/<stage>.ts), registered in rules/index.ts.
 */
export interface RuleEnv {
  ws: Workspace;
  state: BuildState;
  pool: StagePool;
  /** Loaded once per build, so keys are computed synchronously. */
  stages: StageModules;
  /** Named options shared by every target of a rule, computed once per build. */
  shared: { chunk: Record<string, string>; index: Record<string, string> };
  /** Refresh policy, clock reading, source budget and fetch limit of this run's HTTP captures. */
  capture: CaptureRun;
  /** Diagnostics for the build summary (e.g. a damaged cache entry that was dropped and rebuilt). */
  warnings: Warning[];
  /** What this build (or the watch session running it) knows beyond the state; see rule-memory.ts. */
  memory: RuleMemory;
  /** The action cache (--remote-cache), consulted before a rule runs. */
  cache?: TargetCache;
}

export interface DepView {
  name: string;
  /** The SHA-256 of the dependency's output, as its record holds it. */
  sha256: string;
  record: TargetRecord;
  /** The source of a per-document dependency; null for a segment or an index. */
  source: WorkspaceSource | null;
}

export interface RuleOutput {
  bytes: string | Buffer;
  /** Workspace-relative output path for these bytes (content-addressed for per-document targets). */
  outputPath(sha256: string): string;
  facts?: Record<string, string>;
  /** The SHA-256 of `bytes` when already computed from them (a restored output, checked on download). */
  sha256?: string;
}

export interface Rule {
  rule: RuleId;
  version(env: RuleEnv): number;
  /** Named options; the result may be shared between targets and must not be mutated. */
  options(env: RuleEnv, node: TargetNode, deps: DepView[]): Record<string, string>;
  sourceInputs?(env: RuleEnv, node: TargetNode): Record<string, string>;
  /** `missing`: document ids of failed dependencies (an index built with --allow-partial). */
  run(env: RuleEnv, node: TargetNode, deps: DepView[], missing: string[]): Promise<RuleOutput>;
  /**
   * For a target whose key and output are current: a reason to run it anyway (an HTTP snapshot asked to
   * be refreshed). Keys stay free of the clock; only this decision may read it.
   */
  refreshReason?(env: RuleEnv, node: TargetNode, record: TargetRecord): DirtyReason | null;
  /**
   * The data files this rule writes, as [workspace folder, whether a file name is one of them]: what
   * garbage collection may remove from that folder once no record names it.
   */
  dataFiles(ws: Workspace): [folder: string, isData: (name: string) => boolean][];
  /** How the action cache may hold this rule's outputs; none: the rule always runs locally. */
  cache?: CacheAdapter;
}

/**
 * How a rule's outputs are checked when they come from the action cache: its SHA-256 against the
 * action-cache entry (the cache checks that), parsed as its artifact, bound to this target, and its
 * record facts recomputed from the content, never taken from the cache. An action result may name
 * other files beside the output (Bazel's output_files): e.g. the chunk target's index part.
 */
export interface CacheAdapter {
  /** The artifact kind whose byte-only checks (inspect.ts) run on a stage worker before `restore`. */
  inspects?: InspectTask['kind'];
  /**
   * Checks the downloaded output (and the other files) as this target's and returns it with its facts;
   * throws a plain Error naming the defect when they are not. Writes nothing: the uploader runs it too,
   * on what it built, so that it never uploads what a reader would reject.
   */
  restore(env: RuleEnv, node: TargetNode, deps: DepView[], blobs: RestoredBlobs, context: RestoreContext): RuleOutput;
  /** Whether this reader takes the other file at `path` of an action result (another format's it ignores). */
  takes?(env: RuleEnv, path: string): boolean;
  /** Writes the other files of a restored output (after restore passed); throws when they do not fit. */
  install?(env: RuleEnv, node: TargetNode, output: RuleOutput, blobs: RestoredBlobs): void;
  /** The other files to store beside a locally built output, by path; null when they cannot be. */
  others?(env: RuleEnv, node: TargetNode, output: RuleOutput): Map<string, Buffer> | null;
}

/** Downloaded bytes whose SHA-256 has been checked against the action-cache entry. */
export interface VerifiedBlob {
  bytes: Buffer;
  sha256: string;
}

/** The blobs of one action result: the output, and the other files this reader takes, by path. */
export interface RestoredBlobs {
  output: VerifiedBlob;
  others: ReadonlyMap<string, VerifiedBlob>;
  /** For a rule that inspects: what inspect.ts found in these blobs. */
  inspection?: Inspection & { ok: true };
}

/** What one build's restores learn and later restores reuse: the snapshot each restored document cites. */
export interface RestoreContext {
  readonly documents: Map<string, { snapshotId: string }>;
}

/**
 * What the scheduler consults, at one point, before running a dirty target's rule: the cache may
 * restore the output instead (verified), and may store what the rule produced. The scheduler writes,
 * records and reports the output the same way either way. Implemented by cache/remote-cache.ts.
 */
export interface TargetCacheRequest {
  node: TargetNode;
  components: KeyComponents;
  deps: DepView[];
  /** The rule's cache adapter; none: the cache is not consulted. */
  adapter: CacheAdapter | undefined;
  /** Runs the rule locally. */
  run(): Promise<RuleOutput>;
  /** Whether every input the key was computed from is still as it was (stat, hash fallback). */
  inputsUnchanged(): boolean;
}

export interface TargetCache {
  produce(env: RuleEnv, request: TargetCacheRequest): Promise<{ output: RuleOutput; restored: boolean }>;
  /**
   * For an up-to-date target: upload its recorded output when uploads are asked for and the cache does
   * not hold it whole: no entry (an earlier upload was cut off), a damaged entry or another output's, or
   * a blob evicted since. `output` reads the recorded output.
   */
  backfill?(env: RuleEnv, request: TargetCacheRequest, output: () => RuleOutput): Promise<void>;
  /** Whether outputs are uploaded (--remote-cache-upload): only then does backfill do anything. */
  readonly uploads?: boolean;
}
