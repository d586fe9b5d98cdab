import type { Workspace } from '../config/workspace.js';
import { buildGraph, type BuildGraph } from './graph.js';
import { RuleMemory } from './rule-memory.js';
import { SettledGroups } from './settled-groups.js';
import { BuildState } from './state.js';

/**
 * What a long-running caller (watch) keeps between builds, so an edit does not read and parse the whole
 * build state or derive the graph again: the build state the last build committed, the graph of the
 * workspace object it was derived from, and the rules' memory (rule-memory.ts).
 *
 * Memory is only a shortcut to what the disk holds. The state is reused only while state.json and
 * state.log carry the stamps the last commit left (BuildState.resume), so a one-shot build, a crash or
 * an edit by another process between two builds is read from disk as a one-shot build would. Every
 * target is still checked as a one-shot build checks it (scheduler.ts staleReasons): its key from its
 * inputs' content hashes and its output's stamp, unless its proof group is settled: its last check
 * held and no file event touched it since (settled-groups.ts, fed by the watch's file events).
 */
export class BuildMemory {
  private state: BuildState | null = null;
  private graph: { ws: Workspace; graph: BuildGraph } | null = null;
  private readonly swept = new Set<string>();
  readonly rules = new RuleMemory();
  /** Per proof group, whether its last check held (fed by the owner's file events; see settled-groups.ts). */
  readonly settled = new SettledGroups();

  /** Whether the temp files of this workspace root are still to be swept (true once per root). */
  firstSweep(root: string): boolean {
    if (this.swept.has(root)) return false;
    this.swept.add(root);
    return true;
  }

  /** The graph of this workspace object (a reloaded workspace is a new object, so a new graph). */
  graphFor(ws: Workspace): BuildGraph {
    if (this.graph?.ws !== ws) this.graph = { ws, graph: buildGraph(ws) };
    return this.graph.graph;
  }

  /** The state to build with; nothing is kept until the build hands it back with keepState. */
  takeState(stateDir: string): BuildState {
    const state = BuildState.resume(this.state, stateDir);
    // Read from disk again (another process committed, a crash, a hand edit): no memo of a check holds.
    if (state !== this.state) this.settled.forgetAll();
    this.state = null;
    return state;
  }

  /** The state as a build left it after committing. */
  keepState(state: BuildState): void {
    this.state = state;
  }

  /**
   * Writes the no-op proof the last build deferred (state.ts writeDeferredProof), if the state on disk
   * is still the one it committed. The caller holds the workspace lock.
   */
  writeDeferredProof(): boolean {
    return this.state?.writeDeferredProof() ?? false;
  }
}
