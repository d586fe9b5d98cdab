import type { Workspace } from '../config/workspace.js';
import { buildGraph, type BuildGraph } from './graph.js';
import { BuildState } from './state.js';

/**
 * What a long-running caller (watch) keeps between builds, so an edit does O(changed) work instead
 * of reading and parsing the whole build state and deriving the graph again: the build state the last
 * build committed, and the graph of the workspace object it was derived from.
 *
 * Memory is only a shortcut to what the disk holds. The state is reused only while state.json and
 * state.log carry the stamps the last commit left (BuildState.resume), so a one-shot build, a crash or
 * an edit by another process between two builds is read from disk as a one-shot build would. A build
 * that throws leaves nothing kept: the next one loads from disk.
 */
export class BuildMemory {
  private state: BuildState | null = null;
  private graph: { ws: Workspace; graph: BuildGraph } | null = null;

  /** The graph of this workspace object (a reloaded workspace is a new object, so a new graph). */
  graphFor(ws: Workspace): BuildGraph {
    if (this.graph?.ws !== ws) this.graph = { ws, graph: buildGraph(ws) };
    return this.graph.graph;
  }

  /** The state to build with; nothing is kept until the build hands it back with keepState. */
  takeState(stateDir: string): BuildState {
    const state = BuildState.resume(this.state, stateDir);
    this.state = null;
    return state;
  }

  /** The state as a build left it after committing. */
  keepState(state: BuildState): void {
    this.state = state;
  }
}
