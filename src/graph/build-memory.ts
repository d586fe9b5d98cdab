import type { Workspace } from '../config/workspace.js';
import { buildGraph, type BuildGraph, type TargetNode } from './graph.js';
import type { TargetResult, VouchPlan } from './scheduler.js';
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
  /**
   * For a build of a whole graph, kept in step with `current` so the next one can vouch without a pass
   * over every target (vouchPlan): the names built (the graph's order), each one's up-to-date result
   * (undefined when not current), its position, and which current targets name each file.
   */
  private whole: {
    names: readonly string[];
    results: (TargetResult | undefined)[];
    positions: Map<string, number>;
    owners: Map<string, string[]>;
  } | null = null;
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
      this.forgetCurrent();
    }
    return this.graph.graph;
  }

  /** The state to build with; nothing is kept until the build hands it back with keepState. */
  takeState(stateDir: string): BuildState {
    const state = BuildState.resume(this.state, stateDir);
    // Read again from disk (another writer, a crash, a failed build): nothing vouched for stands.
    if (state !== this.state) this.forgetCurrent();
    this.state = null;
    this.planned = null;
    this.changedBefore = this.changed;
    this.changed = new Set();
    return state;
  }

  /**
   * The state as a build left it after committing, with the results of the targets it evaluated
   * (`names`, in the same order). When it ran on a plan (vouchPlan), only the results the plan left to
   * be checked are looked at: the others are the vouched results themselves.
   */
  keepState(state: BuildState, results: readonly TargetResult[], names?: readonly string[]): void {
    const evaluated = this.planned !== null && this.planned.names === names ? this.planned.positions : undefined;
    this.planned = null;
    this.state = state;
    this.lastBuilt = { graph: this.graph?.graph ?? null, state };
    const whole = names !== undefined && this.graph?.graph.order === names ? this.wholeFor(names) : null;
    if (whole === null) this.whole = null;
    const keep = (i: number): void => {
      const result = results[i]!;
      const kept = this.current.get(result.target);
      if (kept !== undefined && kept.result === result) return; // vouched for by this build: still so
      if (whole !== null && kept !== undefined) this.disown(whole, kept.record, result.target);
      const record = state.targets.get(result.target);
      if (record === undefined || !(result.status === 'up-to-date' || result.status === 'built' || result.status === 'unchanged')) {
        this.current.delete(result.target);
        if (whole !== null) whole.results[i] = undefined;
        return;
      }
      const upToDate: TargetResult = { target: result.target, rule: result.rule, status: 'up-to-date', reasons: [], output: record.output };
      if (result.diagnostics) upToDate.diagnostics = result.diagnostics;
      this.current.set(result.target, { record, result: upToDate });
      if (whole !== null) {
        whole.results[i] = upToDate;
        for (const file of this.filesOf(result.target, record)) {
          const owners = whole.owners.get(file);
          if (owners === undefined) whole.owners.set(file, [result.target]);
          else if (!owners.includes(result.target)) owners.push(result.target);
        }
      }
    };
    if (evaluated !== undefined && whole !== null && whole.names === names) for (const i of evaluated) keep(i);
    else for (let i = 0; i < results.length; i++) keep(i);
  }

  /** The whole-graph bookkeeping for these names, started afresh when they are not the ones kept. */
  private wholeFor(names: readonly string[]): NonNullable<BuildMemory['whole']> {
    if (this.whole?.names === names) return this.whole;
    this.current.clear();
    this.whole = { names, results: new Array(names.length), positions: new Map(names.map((name, i) => [name, i])), owners: new Map() };
    return this.whole;
  }

  private disown(whole: NonNullable<BuildMemory['whole']>, record: TargetRecord, target: string): void {
    for (const file of this.filesOf(target, record)) {
      const owners = whole.owners.get(file);
      if (owners === undefined) continue;
      const left = owners.filter((owner) => owner !== target);
      if (left.length === 0) whole.owners.delete(file);
      else whole.owners.set(file, left);
    }
  }

  /** The files a vouch for this target rests on (vouchedResult checks the same ones). */
  private filesOf(target: string, record: TargetRecord): string[] {
    const files = [record.output];
    const facts = record.facts;
    if (facts?.body !== undefined) files.push(facts.body);
    if (facts?.segmentFiles !== undefined) files.push(...facts.segmentFiles.split(' '));
    const capture = this.graph?.graph.nodes.get(target)?.source?.capture;
    if (capture?.method === 'manual-ingest') files.push(capture.relativePath);
    return files;
  }

  /**
   * For a build of the same whole graph on the same state as the last one: which targets may not be
   * vouched for without the check pass 1 makes (those not left current, those naming a file reported
   * changed, and everything downstream of them, in graph order), and the up-to-date result of every
   * other one, by position in `names`. Undefined when there is no such last build: check each target.
   */
  vouchPlan(graph: BuildGraph, names: readonly string[], state: BuildState): VouchPlan | undefined {
    const whole = this.whole;
    if (whole === null || whole.names !== names || !this.carriesOver(graph, state)) return undefined;
    const suspects = new Set<string>();
    for (let i = 0; i < names.length; i++) if (whole.results[i] === undefined) suspects.add(names[i]!);
    for (const file of this.changedBefore) for (const owner of whole.owners.get(file) ?? []) suspects.add(owner);
    const dependents = dependentsOf(graph);
    const checked = new Set<string>();
    const queue = [...suspects];
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (checked.has(name)) continue;
      checked.add(name);
      for (const dependent of dependents.get(name) ?? []) queue.push(dependent);
    }
    const positions = [...checked].map((name) => whole.positions.get(name)!).sort((a, b) => a - b);
    const mask = new Uint8Array(names.length);
    for (const p of positions) mask[p] = 1;
    this.planned = { names, positions };
    return { results: whole.results, positionOf: whole.positions, mask, positions };
  }

  /** The last plan handed out: keepState then looks only at the results it left to be evaluated. */
  private planned: { names: readonly string[]; positions: readonly number[] } | null = null;

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
    this.whole = null;
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

/** Each target's dependents, per graph (a watch keeps its graph from build to build). */
const dependentsByGraph = new WeakMap<BuildGraph, Map<string, string[]>>();

function dependentsOf(graph: BuildGraph): Map<string, string[]> {
  let dependents = dependentsByGraph.get(graph);
  if (dependents === undefined) {
    dependents = new Map();
    for (const node of graph.nodes.values())
      for (const dep of node.deps) {
        const list = dependents.get(dep);
        if (list === undefined) dependents.set(dep, [node.name]);
        else list.push(node.name);
      }
    dependentsByGraph.set(graph, dependents);
  }
  return dependents;
}
