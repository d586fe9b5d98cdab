import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig, writeSmallWorkspace } from '../helpers/rig.js';
import { loadWorkspace } from '../../src/config/workspace.js';
import { buildGraph, type BuildGraph, type TargetNode } from '../../src/graph/graph.js';
import { SEARCH_SINGLE_FILE_MAX_DOCUMENTS, SEGMENT_MAX_DOCUMENTS, SINGLE_FILE_MAX_DOCUMENTS } from '../../src/index/index-layout.js';

/**
 * The shape of the graph (graph.ts): every target has a bounded number of inputs, whatever the size
 * of the corpus, so an edit re-keys a bounded set of targets. Up to 256 documents a stage index depends
 * on its documents' targets (the search index from 17 documents on: on segments); above, every index
 * on segments, each over a run of at most 1,024 documents, cut by the document ids alone.
 */

function dependents(graph: BuildGraph): Map<string, TargetNode[]> {
  const of = new Map<string, TargetNode[]>();
  for (const node of graph.nodes.values()) for (const dep of node.deps) of.set(dep, [...(of.get(dep) ?? []), node]);
  return of;
}

/** Every target downstream of `name` (what an edit of its output re-keys at most). */
function downstream(graph: BuildGraph, name: string): Set<string> {
  const of = dependents(graph);
  const seen = new Set<string>();
  const queue = [name];
  while (queue.length > 0)
    for (const next of of.get(queue.pop()!) ?? [])
      if (!seen.has(next.name)) {
        seen.add(next.name);
        queue.push(next.name);
      }
  return seen;
}

test('up to 256 documents the stage indexes depend on the documents directly; the search index on the chunk index first', async () => {
  const rig = new Rig('episteme-graph-shape-');
  try {
    writeSmallWorkspace(rig, SINGLE_FILE_MAX_DOCUMENTS);
    const graph = buildGraph(await loadWorkspace(rig.dir, {}));
    for (const name of ['snapshots/index.json', 'specs/index.json', 'chunks/index.json'])
      assert.equal(graph.nodes.get(name)!.deps.length, SINGLE_FILE_MAX_DOCUMENTS, name);
    // The search index is cut from 17 documents on (planSearchSegments): about eight segments here.
    const segments = [...graph.nodes.values()].filter((node) => node.kind === 'segment');
    assert.ok(segments.length >= 2 && segments.every((node) => node.rule === 'search-index-segment'), `${segments.length} segments`);
    assert.equal(graph.nodes.size, 3 * SINGLE_FILE_MAX_DOCUMENTS + 4 + segments.length);
    const search = graph.nodes.get('chunks/search-index.json')!;
    assert.equal(search.kind, 'index');
    assert.equal(search.deps[0], 'chunks/index.json');
    assert.deepEqual(
      search.deps.slice(1),
      segments.map((node) => node.name),
    );
    // Document-id order (code units), whatever the map's order, across the segments.
    const ids = segments.flatMap((node) => node.deps);
    assert.equal(ids.length, SINGLE_FILE_MAX_DOCUMENTS);
    assert.deepEqual(
      ids,
      [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  } finally {
    rig.cleanup();
  }
});

test('up to 16 documents every index depends on the documents directly', async () => {
  const rig = new Rig('episteme-graph-shape-');
  try {
    writeSmallWorkspace(rig, SEARCH_SINGLE_FILE_MAX_DOCUMENTS);
    const graph = buildGraph(await loadWorkspace(rig.dir, {}));
    assert.equal(graph.nodes.size, 3 * SEARCH_SINGLE_FILE_MAX_DOCUMENTS + 4);
    assert.equal(graph.nodes.get('chunks/search-index.json')!.deps.length, 1 + SEARCH_SINGLE_FILE_MAX_DOCUMENTS);
  } finally {
    rig.cleanup();
  }
});

test('at 5,000 documents every target has a bounded number of inputs, and one document re-keys one segment per index', async () => {
  const rig = new Rig('episteme-graph-shape-');
  try {
    const count = 5000;
    writeSmallWorkspace(rig, count);
    const graph = buildGraph(await loadWorkspace(rig.dir, {}));
    const segments = [...graph.nodes.values()].filter((node) => node.kind === 'segment');
    const perIndex = segments.length / 4;
    assert.ok(Number.isInteger(perIndex) && perIndex >= 5, `${segments.length} segments`);
    assert.equal(graph.nodes.size, 3 * count + 4 + segments.length);
    for (const node of graph.nodes.values()) {
      const bound = node.kind === 'index' ? perIndex + 1 : node.kind === 'segment' ? SEGMENT_MAX_DOCUMENTS : 1;
      assert.ok(node.deps.length <= bound, `${node.name} has ${node.deps.length} inputs`);
    }
    // Every document's targets belong to exactly one segment of each index that lists them.
    const of = dependents(graph);
    const chunk = 'chunks/example-test-doc1234.json';
    assert.deepEqual((of.get(chunk) ?? []).map((node) => node.rule).sort(), ['chunk-index-segment', 'search-index-segment']);
    // An edit of one source re-keys its chain, one segment of each index and the indexes: 3 + 4 + 4.
    const rekeyed = downstream(graph, 'snapshots/example-test-doc1234.json');
    assert.equal(rekeyed.size, 2 + 4 + 4, JSON.stringify([...rekeyed]));
    // The segment names carry their index and first document id.
    for (const segment of segments)
      assert.match(segment.name, /^(snapshots|specs|chunks)\/(index|search-index)\.json#example-test-doc\d+$/);
  } finally {
    rig.cleanup();
  }
});
