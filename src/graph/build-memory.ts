import type { Workspace } from '../config/workspace.js';
import { buildGraph, type BuildGraph, type TargetNode } from './graph.js';
import type { TargetResult } from './scheduler.js';
import { BuildState, type TargetRecord } from './state.js';

/**
 * What a long-running caller (watch) keeps between builds, so an edit does O(changed) work instead
 * of reading and parsing the whole build state, deriving the graph again and re-checking every target:
 * the build state the last build committed, the graph of the workspace object it was derived from, and
 * which targets that build left current.
 *
 * Memory is only a shortcut to what the disk holds. The state is reused only while state.json and
 * state.log carry the stamps the last commit left (BuildState.resume), so a one-shot build, a crash or
 * an edit by another process between two builds is read from disk as a one-shot build would. A build
 * that throws leaves nothing kept: the next one loads from disk.
 *
 * A target the last build left current (its key matched or it ran, its output intact) is vouched for
 * without recomputing its key or statting its output, as long as nothing it stands on can have changed:
 * the same state object and graph, the same record, and no file it names (output, snapshot body,
 * segment files, manual-ingest source) reported changed since by the caller (`noteChanged`: the watch
 * reports the inputs it confirmed and every event in the output folders, its own writes included).
 * Its dependents are vouched for only when all its dependencies settled up to date (scheduler pass 1),
 * so everything downstream of a change is checked as a one-shot build checks it. `forgetCurrent`
 * drops every vouch (a watch it could not arm); the next build then checks everything.
 */
export class BuildMemory {
  private state: BuildState | null = null;
  private graph: { ws: Workspace; graph: BuildGraph } | null = null;
  /** Target -> the record the last build left current and the up-to-date result that stands for it. */
  private current = new Map<string, { record: TargetRecord; result: TargetResult }>();
  /** Workspace-relative files reported changed since the running build began (checked by the next). */
  private changed = new Set<string>();
  /** The files reported changed before the running build began: what it must not vouch past. */
  private changedBefore = new Set<string>();

  private swept = new Set<string>();

  /** Whether the temp files of this workspace root are still to be swept (true once per root). */
  firstSweep(root: string): boolean {
    if (this.swept.has(root)) return false;
    this.swept.add(root);
    return true;
  }

  /** The graph and state the last build committed with (the state only while kept unchanged on disk). */
  private lastBuilt: { graph: BuildGraph | null; state: BuildState } | null = null;

  /**
   * Whether this build runs on the very graph and state object the last one committed: then the state
   * holds no record of a target outside the graph and no stamp of a file the graph does not read.
   */
  carriesOver(graph: BuildGraph, state: BuildState): boolean {
    return this.lastBuilt !== null && this.lastBuilt.graph === graph && this.lastBuilt.state === state;
  }

  /** The graph of this workspace object (a reloaded workspace is a new object, so a new graph). */
  graphFor(ws: Workspace): BuildGraph {
    if (this.graph?.ws !== ws) {
      this.graph = { ws, graph: buildGraph(ws) };
      this.current.clear();
    }
    return this.graph.graph;
  }

  /** The state to build with; nothing is kept until the build hands it back with keepState. */
  takeState(stateDir: string): BuildState {
    const state = BuildState.resume(this.state, stateDir);
    // Read again from disk (another writer, a crash, a failed build): nothing vouched for stands.
    if (state !== this.state) this.current.clear();
    this.state = null;
    this.changedBefore = this.changed;
    this.changed = new Set();
    return state;
  }

  /** The state as a build left it after committing, with the results of the targets it evaluated. */
  keepState(state: BuildState, results: readonly TargetResult[]): void {
    this.state = state;
    this.lastBuilt = { graph: this.graph?.graph ?? null, state };
    for (const result of results) {
      const kept = this.current.get(result.target);
      if (kept !== undefined && kept.result === result) continue; // vouched for by this build: still so
      const record = state.targets.get(result.target);
      if (record === undefined || !(result.status === 'up-to-date' || result.status === 'built' || result.status === 'unchanged')) {
        this.current.delete(result.target);
        continue;
      }
      const upToDate: TargetResult = { target: result.target, rule: result.rule, status: 'up-to-date', reasons: [], output: record.output };
      if (result.diagnostics) upToDate.diagnostics = result.diagnostics;
      this.current.set(result.target, { record, result: upToDate });
    }
  }

  /**
   * Writes the no-op proof the last build deferred (state.ts writeDeferredProof), if the state on disk
   * is still the one it committed. The caller holds the workspace lock.
   */
  writeDeferredProof(): boolean {
    return this.state?.writeDeferredProof() ?? false;
  }

  /** Files (workspace-relative, `/`-separated) whose bytes may have changed since the last build began. */
  noteChanged(files: Iterable<string>): void {
    for (const file of files) this.changed.add(file);
  }

  /** Vouches for nothing from here on: the next build checks every target, as a one-shot build does. */
  forgetCurrent(): void {
    this.current.clear();
  }

  /** Whether this is the record the last build left current for the target (files changed since or not). */
  leftCurrent(name: string, record: TargetRecord): boolean {
    return this.current.get(name)?.record === record;
  }

  /**
   * The up-to-date result of a target the last build left current, when its record is the one that
   * build left and no file it names was reported changed; otherwise undefined (check it in full).
   */
  vouchedResult(node: TargetNode, record: TargetRecord): TargetResult | undefined {
    const kept = this.current.get(node.name);
    if (kept === undefined || kept.record !== record) return undefined;
    const changed = this.changedBefore;
    if (changed.size === 0) return kept.result;
    if (changed.has(record.output)) return undefined;
    const facts = record.facts;
    if (facts?.body !== undefined && changed.has(facts.body)) return undefined;
    if (facts?.segmentFiles?.split(' ').some((file) => changed.has(file))) return undefined;
    const capture = node.source?.capture;
    if (capture?.method === 'manual-ingest' && changed.has(capture.relativePath)) return undefined;
    return kept.result;
  }
}
