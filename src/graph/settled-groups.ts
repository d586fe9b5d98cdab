import * as path from 'node:path';
import type { BuildGraph, ProofGroup } from './graph.js';
import { proofLayout } from './noop-proof.js';
import type { TargetResult } from './scheduler.js';
import type { TargetRecord } from './state.js';

/**
 * The watch's no-op proof: per proof group (graph.ts ProofGroup), the memo that the group's last check
 * held, kept in memory and fed by file events instead of stats. It stands on what the on-disk proof
 * (noop-proof.ts) stands on: the group's source files and each of its targets' outputs and snapshot
 * bodies. The on-disk proof records their stamps and a later build stats them; here the kernel reports
 * every change to them as it happens (watch/inputs.ts FolderWatches watches their folders), and an
 * event on any of them drops the group's memo. A group whose memo holds is settled as a whole by the
 * next build, exactly as a proven group is in a one-shot build (build.ts, scheduler.ts pass 1).
 *
 * A memo is taken only from a check: at the end of a build, for a group all of whose targets that
 * build found up to date (not built: a group a build wrote to is checked again by the next one, once
 * the events of its own writes are in), none of whose files had an event since the build began, and
 * all of whose files are in folders watched without a gap since before it began. Everything is
 * dropped when a watched folder is lost or replaced, when the graph changes (a config, map, manifest or
 * rules change reloads the workspace), and when the build state is read from disk again because
 * another process committed (build-memory.ts takeState). What it cannot see is what the kernel does
 * not report: see docs/design.md, "What watch trusts".
 */

/** Where file events come from: which folders have been watched, without a gap, since when. */
export interface FileEventSource {
  /** A mark of the watches as they are now. */
  mark(): number;
  /** Whether `folder` (absolute) has been watched directly, without a gap, since `mark` was taken. */
  watchedSince(folder: string, mark: number): boolean;
}

export class SettledGroups {
  private events: FileEventSource | null = null;
  /** The graph the memos are of; another graph drops them all. */
  private graph: BuildGraph | null = null;
  /** Group id -> its targets' results as its last check found them (every one up to date). */
  private readonly held = new Map<string, TargetResult[]>();
  /** Absolute path -> the group whose memo rests on that file. */
  private readonly owner = new Map<string, string>();
  /** Group id -> the files its memo rests on (their owner entries go when it is derived again). */
  private readonly filesOf = new Map<string, string[]>();
  /** While a build is in flight: the files with an event since it began, and whether a folder was lost. */
  private inFlight: { mark: number; touched: Set<string>; lost: boolean } | null = null;

  /** Memos are kept only while file events come from `events` (watch); without it, none is. */
  listen(events: FileEventSource): void {
    this.events = events;
  }

  /** A file event (any kind) on a watched file: the group resting on it is checked by the next build. */
  noteFile(file: string): void {
    const group = this.owner.get(file);
    if (group !== undefined) this.held.delete(group);
    this.inFlight?.touched.add(file);
  }

  /** A watched folder was removed, replaced or lost its watch: its files may have changed unseen. */
  noteFolderLost(): void {
    this.forgetAll();
    if (this.inFlight !== null) this.inFlight.lost = true;
  }

  forgetAll(): void {
    this.held.clear();
    this.owner.clear();
    this.filesOf.clear();
  }

  /** How many targets the last build took as settled, unchecked (for reports). */
  lastSettled = 0;

  /**
   * At the start of a build, before any target is checked: the results of every target of the groups
   * whose memo holds, up to date. Empty for another graph than the memos' (they are dropped).
   */
  begin(graph: BuildGraph): Map<string, TargetResult> {
    if (graph !== this.graph) {
      this.forgetAll();
      this.graph = graph;
    }
    this.inFlight = { mark: this.events?.mark() ?? 0, touched: new Set(), lost: false };
    const proven = new Map<string, TargetResult>();
    for (const results of this.held.values()) for (const result of results) proven.set(result.target, result);
    this.lastSettled = proven.size;
    return proven;
  }

  /**
   * After the build committed: the memo of each group it found up to date, unless an event since it
   * began touched one of the group's files. `results`: the build's results in graph order; `records`:
   * the state as committed. A build that did not commit calls `abandon` instead.
   */
  end(graph: BuildGraph, results: readonly TargetResult[], records: { get(name: string): TargetRecord | undefined }, root: string): void {
    const build = this.inFlight;
    this.inFlight = null;
    const events = this.events;
    if (build === null || events === null || build.lost || graph !== this.graph || results.length !== graph.order.length) {
      this.forgetAll();
      return;
    }
    const { position } = proofLayout(graph);
    for (const group of graph.groups) {
      if (this.held.has(group.id)) continue; // settled by this build, and no event since
      const found: TargetResult[] = [];
      for (const name of group.targets) {
        const result = results[position.get(name) ?? -1];
        if (result === undefined || result.target !== name || result.status !== 'up-to-date') break;
        found.push(result);
      }
      if (found.length !== group.targets.length) continue;
      const files = groupFiles(group, graph, records, root);
      if (files === null || files.some((file) => build.touched.has(file) || !events.watchedSince(path.dirname(file), build.mark))) continue;
      for (const file of this.filesOf.get(group.id) ?? []) if (this.owner.get(file) === group.id) this.owner.delete(file);
      for (const file of files) this.owner.set(file, group.id);
      this.filesOf.set(group.id, files);
      this.held.set(group.id, found);
    }
  }

  /** A build that ended without committing (it threw): nothing it saw is taken as a memo. */
  abandon(): void {
    this.inFlight = null;
  }
}

/**
 * The files a group's memo rests on (absolute): its manual-ingest sources, and each target's output
 * and snapshot body, as the state records them. Null when a target has no record.
 */
function groupFiles(
  group: ProofGroup,
  graph: BuildGraph,
  records: { get(name: string): TargetRecord | undefined },
  root: string,
): string[] | null {
  const files: string[] = [];
  for (const name of group.targets) {
    const record = records.get(name);
    if (record === undefined) return null;
    files.push(path.join(root, record.output));
    if (record.facts?.body) files.push(path.join(root, record.facts.body));
    const node = graph.nodes.get(name);
    if (node?.kind === 'source' && node.rule === 'snapshot' && node.source.capture.method === 'manual-ingest')
      files.push(node.source.capture.absolutePath);
  }
  return files;
}
