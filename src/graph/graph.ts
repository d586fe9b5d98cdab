import type { Workspace, WorkspaceSource } from '../config/workspace.js';
import { EpistemeError } from '../failure.js';

/**
 * The build graph, derived from the workspace on every run. Each source becomes a chain
 * snapshot -> extract -> chunk; every chain feeds the stage indexes; the chunk index feeds the search
 * index. A target is named by the output path it stands for, relative to the workspace root.
 */
export type RuleId = 'snapshot' | 'extract' | 'chunk' | 'snapshot-index' | 'document-index' | 'chunk-index' | 'search-index';

export interface TargetNode {
  name: string;
  rule: RuleId;
  deps: string[];
  source: WorkspaceSource | null;
}

export interface BuildGraph {
  nodes: Map<string, TargetNode>;
  /** Target names in a topological order (dependencies first), stable for the same workspace. */
  order: string[];
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
  const snapshots: string[] = [];
  const extracts: string[] = [];
  const chunks: string[] = [];
  for (const source of ws.sources) {
    const names = targetNames(ws, source.documentId);
    add({ name: names.snapshot, rule: 'snapshot', deps: [], source });
    add({ name: names.extract, rule: 'extract', deps: [names.snapshot], source });
    add({ name: names.chunk, rule: 'chunk', deps: [names.extract], source });
    snapshots.push(names.snapshot);
    extracts.push(names.extract);
    chunks.push(names.chunk);
  }
  const agg = aggregateNames(ws);
  add({ name: agg.snapshotIndex, rule: 'snapshot-index', deps: snapshots, source: null });
  add({ name: agg.documentIndex, rule: 'document-index', deps: extracts, source: null });
  add({ name: agg.chunkIndex, rule: 'chunk-index', deps: chunks, source: null });
  add({ name: agg.searchIndex, rule: 'search-index', deps: [agg.chunkIndex], source: null });
  return { nodes, order };
}

/**
 * Two targets with one name would make one file the output of two rules (and could close a cycle).
 * Document ids never take a reserved name (source-url.ts) and output folders never coincide
 * (owned-folders.ts); this names the entry should either defence ever be bypassed.
 */
function duplicateTarget(node: TargetNode, earlier: TargetNode): EpistemeError {
  const source = node.source ?? earlier.source;
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
      const examples = graph.order.filter((n) => !n.includes('/index.json')).slice(0, 3);
      throw new EpistemeError('unknown-target', `No target named ${JSON.stringify(name)} in this workspace.`, {
        hint:
          'Targets are output paths relative to the workspace root (or, from another folder, paths to those outputs), ' +
          `e.g. ${[...examples, ...graph.order.slice(-2)].join(', ')}. List them all with \`episteme build --dry-run\`.`,
        details: { target: name },
      });
    }
    visit(name);
  }
  return graph.order.filter((name) => wanted.has(name));
}
