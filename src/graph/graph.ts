import type { Workspace, WorkspaceSource } from '../config/workspace.js';
import { EpistemeError } from '../failure.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { planSearchSegments, planSegments } from '../index/index-layout.js';

/**
 * The build graph, derived from the workspace on every run. Each source becomes a chain
 * snapshot -> extract -> chunk. The indexes over all sources are hierarchical: each index depends on
 * its per-document targets directly while there are few of them (one segment), else on index segments,
 * each of which depends on a bounded set of per-document targets. The cut is a function of the document
 * ids only (index-layout.ts: planSegments for the stage indexes, planSearchSegments for the search
 * index, which is cut from 17 documents on), so a clean build and an incremental one cut alike, and an edit
 * re-keys one segment and its index. A target is named by the output path it stands for, relative to
 * the workspace root; a segment by its index's name and its first document id.
 */
export type SourceRuleId = 'snapshot' | 'extract' | 'chunk';
export type SegmentRuleId = 'snapshot-index-segment' | 'document-index-segment' | 'chunk-index-segment' | 'search-index-segment';
export type IndexRuleId = 'snapshot-index' | 'document-index' | 'chunk-index' | 'search-index';
export type RuleId = SourceRuleId | SegmentRuleId | IndexRuleId;

/** One source's snapshot, extract or chunk target. */
export interface SourceTarget {
  kind: 'source';
  name: string;
  rule: SourceRuleId;
  deps: string[];
  source: WorkspaceSource;
}

/** A segment of an index: the entries of a bounded run of documents (in document-id order). */
export interface SegmentTarget {
  kind: 'segment';
  name: string;
  rule: SegmentRuleId;
  /** The per-document targets it lists, in document-id order. */
  deps: string[];
}

/**
 * An index over every source. Unsegmented, its dependencies are the per-document targets (in document-id
 * order); segmented, its segments. The search index depends on the chunk index first (its provenance).
 */
export interface IndexTarget {
  kind: 'index';
  name: string;
  rule: IndexRuleId;
  deps: string[];
  segmented: boolean;
}

export type TargetNode = SourceTarget | SegmentTarget | IndexTarget;

export interface BuildGraph {
  nodes: Map<string, TargetNode>;
  /** Target names in a topological order (dependencies first), stable for the same workspace. */
  order: string[];
  /**
   * The targets of each run of documents the indexes are cut into (one run while the indexes are not
   * segmented): the run's per-document targets and its segments. The no-op proof is kept per group
   * (noop-proof.ts), so an edit re-proves one group, not the corpus.
   */
  groups: ProofGroup[];
}

/** A run of documents, in document-id order, and the targets that are theirs alone. */
export interface ProofGroup {
  /** The run's first document id. */
  id: string;
  /** Its per-document targets (in graph order), then its segments. */
  targets: string[];
  /** Its documents' manual-ingest source files (workspace-relative), whose stamps the proof holds too. */
  sources: string[];
}

/** The source a target is of, or null for a segment or an index. */
export function sourceOf(node: TargetNode): WorkspaceSource | null {
  return node.kind === 'source' ? node.source : null;
}

export function targetNames(ws: Workspace, documentId: string): { snapshot: string; extract: string; chunk: string } {
  return {
    snapshot: `${ws.outputs.snapshots}/${documentId}.json`,
    extract: `${ws.outputs.specs}/${documentId}.json`,
    chunk: `${ws.outputs.chunks}/${documentId}.json`,
  };
}

export function aggregateNames(ws: Workspace): { snapshotIndex: string; documentIndex: string; chunkIndex: string; searchIndex: string } {
  return {
    snapshotIndex: `${ws.outputs.snapshots}/index.json`,
    documentIndex: `${ws.outputs.specs}/index.json`,
    chunkIndex: `${ws.outputs.chunks}/index.json`,
    searchIndex: `${ws.outputs.chunks}/search-index.json`,
  };
}

/** A segment's target name: its index's name and the id of its first document. */
export function segmentName(indexName: string, firstDocumentId: string): string {
  return `${indexName}#${firstDocumentId}`;
}

export function buildGraph(ws: Workspace): BuildGraph {
  const nodes = new Map<string, TargetNode>();
  const order: string[] = [];
  const add = (node: TargetNode): void => {
    const earlier = nodes.get(node.name);
    if (earlier !== undefined) throw duplicateTarget(node, earlier);
    // Every dependency is added before its dependents, so `order` is topological and the graph acyclic
    // by construction; checked here so no input can make it otherwise.
    for (const dep of node.deps)
      if (!nodes.has(dep))
        throw new EpistemeError('internal-error', `Target ${node.name} depends on ${dep}, which is not (yet) in the graph.`);
    nodes.set(node.name, node);
    order.push(node.name);
  };
  const namesOf = new Map<string, ReturnType<typeof targetNames>>();
  for (const source of ws.sources) {
    const names = targetNames(ws, source.documentId);
    namesOf.set(source.documentId, names);
    add({ kind: 'source', name: names.snapshot, rule: 'snapshot', deps: [], source });
    add({ kind: 'source', name: names.extract, rule: 'extract', deps: [names.snapshot], source });
    add({ kind: 'source', name: names.chunk, rule: 'chunk', deps: [names.extract], source });
  }
  // Indexes list documents in document-id order (code units) and cut them where their plan says: the
  // stage indexes planSegments, the search index planSearchSegments (finer below 256 documents).
  const ids = ws.sources.map((source) => source.documentId).sort(compareCodeUnits);
  const runsOf = (ends: number[]): string[][] => ends.map((end, i) => ids.slice(i === 0 ? 0 : ends[i - 1], end));
  const stageRuns = runsOf(planSegments(ids));
  // Proof groups follow the stage indexes' runs; a segment joins the group that holds all its documents
  // (the search index's finer runs fall inside them), else it stays outside every group and is checked
  // target by target, never vouched for by a group whose stamps say nothing of its other documents.
  // An empty workspace (a map or manifest with no entries) has one empty run and no group: a group is
  // named by its first document, and the no-op proof of zero documents is its root alone.
  const groupRuns = stageRuns.filter((run) => run.length > 0);
  const groups: ProofGroup[] = groupRuns.map((run) => ({
    id: run[0]!,
    targets: run.flatMap((id) => {
      const names = namesOf.get(id)!;
      return [names.snapshot, names.extract, names.chunk];
    }),
    sources: [],
  }));
  const groupOf = new Map<string, ProofGroup>();
  for (const [i, run] of groupRuns.entries()) for (const id of run) groupOf.set(id, groups[i]!);
  for (const source of ws.sources)
    if (source.capture.method === 'manual-ingest') groupOf.get(source.documentId)!.sources.push(source.capture.relativePath);
  for (const group of groups) group.sources = [...new Set(group.sources)].sort(compareCodeUnits);
  const agg = aggregateNames(ws);
  const indexOver = (
    name: string,
    rule: IndexRuleId,
    segmentRule: SegmentRuleId,
    runs: string[][],
    member: (id: string) => string,
    first: string[],
  ) => {
    const segmented = runs.length > 1;
    let deps = ids.map(member);
    if (segmented) {
      deps = runs.map((run) => {
        const segment = segmentName(name, run[0]!);
        add({ kind: 'segment', name: segment, rule: segmentRule, deps: run.map(member) });
        const group = groupOf.get(run[0]!)!;
        if (run.every((id) => groupOf.get(id) === group)) group.targets.push(segment);
        return segment;
      });
    }
    add({ kind: 'index', name, rule, deps: [...first, ...deps], segmented });
  };
  const names = (id: string) => namesOf.get(id)!;
  indexOver(agg.snapshotIndex, 'snapshot-index', 'snapshot-index-segment', stageRuns, (id) => names(id).snapshot, []);
  indexOver(agg.documentIndex, 'document-index', 'document-index-segment', stageRuns, (id) => names(id).extract, []);
  indexOver(agg.chunkIndex, 'chunk-index', 'chunk-index-segment', stageRuns, (id) => names(id).chunk, []);
  const searchRuns = runsOf(planSearchSegments(ids));
  indexOver(agg.searchIndex, 'search-index', 'search-index-segment', searchRuns, (id) => names(id).chunk, [agg.chunkIndex]);
  return { nodes, order, groups };
}

/**
 * Two targets with one name would make one file the output of two rules (and could close a cycle).
 * Document ids never take a reserved name (source-url.ts) and output folders never coincide
 * (owned-folders.ts); this names the entry should either defence ever be bypassed.
 */
function duplicateTarget(node: TargetNode, earlier: TargetNode): EpistemeError {
  const source = sourceOf(node) ?? sourceOf(earlier);
  const message = `Two targets of the graph are both named ${node.name} (${earlier.rule} and ${node.rule}).`;
  if (source === null) {
    return new EpistemeError('config-invalid', `${message} The output folders overlap.`, {
      hint: 'Give each output folder its own path.',
      details: { target: node.name },
    });
  }
  if (source.capture.method === 'http') {
    return new EpistemeError(
      'manifest-invalid',
      `${message} Manifest entry ${source.capture.entryIndex} (${source.spec.url}) collides with it.`,
      {
        details: { target: node.name, entry: source.capture.entryIndex, url: source.spec.url },
      },
    );
  }
  return new EpistemeError(
    'map-invalid',
    `${message} The manual-ingest entry for ${source.spec.url} (${source.capture.relativePath}) collides with it.`,
    {
      details: { target: node.name, url: source.spec.url },
    },
  );
}

/** The requested targets plus everything they depend on, in topological order. */
export function closure(graph: BuildGraph, requested: string[]): string[] {
  if (requested.length === 0) return graph.order;
  const wanted = new Set<string>();
  const visit = (name: string): void => {
    if (wanted.has(name)) return;
    wanted.add(name);
    for (const dep of graph.nodes.get(name)!.deps) visit(dep);
  };
  for (const name of requested) {
    if (!graph.nodes.has(name)) {
      const examples = graph.order.filter((n) => graph.nodes.get(n)!.kind === 'source').slice(0, 3);
      const indexes = graph.order.filter((n) => graph.nodes.get(n)!.kind === 'index').slice(-2);
      throw new EpistemeError('unknown-target', `No target named ${JSON.stringify(name)} in this workspace.`, {
        hint:
          'Targets are output paths relative to the workspace root (or, from another folder, paths to those outputs), ' +
          `e.g. ${[...examples, ...indexes].join(', ')}. List them all with \`episteme build --dry-run\`.`,
        details: { target: name },
      });
    }
    visit(name);
  }
  return graph.order.filter((name) => wanted.has(name));
}
