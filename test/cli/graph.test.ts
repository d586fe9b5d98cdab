import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { Rig, sampleHtml, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * `episteme graph`: targets, edges and each target's state, as DOT (rendered by Graphviz itself),
 * Mermaid and JSON, over a workspace with one up-to-date, one edited and one failed source.
 */

const DOT_SKIP =
  spawnSync('dot', ['-V'], { stdio: 'ignore' }).status === 0
    ? false
    : 'Graphviz `dot` is not installed (apt-get install graphviz; .ci/run does): DOT rendering test skipped';

/** Three sources built; then doc1 edited, and doc2 grown past the file bound so its snapshot fails. */
async function workspaceInThreeStates(): Promise<Rig> {
  const rig = new Rig('episteme-graph-');
  writeSmallWorkspace(rig, 3);
  rig.write({ 'episteme.json': JSON.stringify({ manualIngest: 'map.json', limits: { maxFileBytes: 4096 } }) });
  assert.equal((await rig.exec(['build'])).code, 0);
  fs.writeFileSync(rig.path('src/doc1.html'), sampleHtml(1, ' edited'));
  fs.writeFileSync(rig.path('src/doc2.html'), sampleHtml(2, ' x'.repeat(4096)));
  const failing = await rig.exec(['build', 'chunks/example-test-doc2.json']);
  assert.equal(failing.code, 1, failing.stderr);
  return rig;
}

interface JsonTarget {
  target: string;
  rule: string;
  deps: string[];
  state: string;
  reasons: string[];
  error?: { code: string; message: string };
}

test('graph --format json: every target with its edges and state (up to date, dirty and why, failed)', async () => {
  const rig = await workspaceInThreeStates();
  try {
    const result = await rig.exec(['graph', '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const graph = JSON.parse(result.stdout) as { targets: JsonTarget[]; edges: [string, string][] };
    const byName = new Map(graph.targets.map((t) => [t.target, t]));
    assert.equal(graph.targets.length, 13);
    const states = new Set(['up-to-date', 'dirty', 'maybe-dirty', 'failed', 'skipped']);
    for (const t of graph.targets) {
      assert.ok(states.has(t.state), t.state);
      for (const dep of t.deps) assert.ok(byName.has(dep), `edge from unknown ${dep}`);
    }
    // Edges are exactly the deps, dependency -> dependent; the search index hangs off the chunk index.
    assert.equal(
      graph.edges.length,
      graph.targets.reduce((n, t) => n + t.deps.length, 0),
    );
    assert.ok(graph.edges.some(([from, to]) => from === 'chunks/index.json' && to === 'chunks/search-index.json'));
    assert.ok(graph.edges.some(([from, to]) => from === 'snapshots/example-test-doc0.json' && to === 'specs/example-test-doc0.json'));

    assert.equal(byName.get('chunks/example-test-doc0.json')!.state, 'up-to-date');
    const edited = byName.get('snapshots/example-test-doc1.json')!;
    assert.equal(edited.state, 'dirty');
    assert.ok(
      edited.reasons.some((r) => r.includes('src/doc1.html')),
      JSON.stringify(edited.reasons),
    );
    assert.equal(byName.get('specs/example-test-doc1.json')!.state, 'maybe-dirty');
    const failed = byName.get('snapshots/example-test-doc2.json')!;
    assert.equal(failed.state, 'failed');
    assert.equal(typeof failed.error?.code, 'string');
    assert.equal(byName.get('specs/example-test-doc2.json')!.state, 'skipped');

    // The envelope carries the same view.
    const envelope = await rig.exec(['graph', '--format', 'json', '--json']);
    assert.deepEqual(envelope.json!.data.targets, graph.targets);

    // Once rebuilt, nothing is failed or dirty any more.
    fs.writeFileSync(rig.path('src/doc2.html'), sampleHtml(2));
    assert.equal((await rig.exec(['build'])).code, 0);
    const after = JSON.parse((await rig.exec(['graph', '--format', 'json'])).stdout) as { targets: JsonTarget[] };
    assert.deepEqual([...new Set(after.targets.map((t) => t.state))], ['up-to-date']);
  } finally {
    rig.cleanup();
  }
});

test('graph TARGET draws only that target and what it depends on', async () => {
  const rig = await workspaceInThreeStates();
  try {
    const graph = JSON.parse((await rig.exec(['graph', 'chunks/example-test-doc1.json', '--format', 'json'])).stdout) as {
      targets: JsonTarget[];
    };
    assert.deepEqual(
      graph.targets.map((t) => t.target),
      ['snapshots/example-test-doc1.json', 'specs/example-test-doc1.json', 'chunks/example-test-doc1.json'],
    );
    const unknown = await rig.exec(['graph', 'chunks/nope.json', '--json']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.json!.error!.code, 'unknown-target');
  } finally {
    rig.cleanup();
  }
});

test('graph --format dot is valid Graphviz input: dot -Tsvg renders every target', { skip: DOT_SKIP }, async () => {
  const rig = await workspaceInThreeStates();
  try {
    const result = await rig.exec(['graph']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^digraph episteme \{/);
    const svg = spawnSync('dot', ['-Tsvg'], { input: result.stdout, encoding: 'utf8' });
    assert.equal(svg.status, 0, svg.stderr);
    assert.equal(svg.stderr, '', 'dot warned about the input');
    assert.match(svg.stdout, /<svg[\s>]/);
    // One SVG node group per target, one edge group per dependency (the search index depends on the
    // chunk index and, below 257 documents, on each chunk target: 3 x 2 + 3 + 3 + 3 + 4 = 19).
    assert.equal((svg.stdout.match(/class="node"/g) ?? []).length, 13);
    assert.equal((svg.stdout.match(/class="edge"/g) ?? []).length, 19);
    // A hostile-looking name survives quoting: Graphviz still parses a label with quotes and backslashes.
    const canary = spawnSync('dot', ['-Tsvg'], {
      input: result.stdout.replace('rankdir=LR;', 'rankdir=LR; "a\\"b\\\\" -> "c";'),
      encoding: 'utf8',
    });
    assert.equal(canary.status, 0, canary.stderr);
  } finally {
    rig.cleanup();
  }
});

test('graph --format mermaid: a flowchart with one node per target, one arrow per edge, a class per state', async () => {
  const rig = await workspaceInThreeStates();
  try {
    const result = await rig.exec(['graph', '--format', 'mermaid']);
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trimEnd().split('\n');
    assert.equal(lines[0], 'flowchart LR');
    const nodes = lines.filter((l) => /^ {2}t\d+\[".*"\]:::[a-z_]+$/.test(l));
    const arrows = lines.filter((l) => /^ {2}t\d+ --> t\d+$/.test(l));
    const classes = lines.filter((l) => /^ {2}classDef [a-z_]+ fill:#[0-9a-f]{6},stroke:#[0-9a-f]{6}$/.test(l));
    assert.equal(nodes.length, 13);
    assert.equal(arrows.length, 19);
    assert.equal(classes.length, 5);
    assert.equal(nodes.length + arrows.length + classes.length + 1, lines.length, 'no line of another shape');
    // Every arrow joins declared nodes; node labels carry no raw quote that would end the label.
    const ids = new Set(nodes.map((l) => l.trim().split('[')[0]));
    for (const arrow of arrows) for (const id of arrow.trim().split(' --> ')) assert.ok(ids.has(id), id);
    for (const node of nodes) assert.equal((node.match(/"/g) ?? []).length, 2);
    assert.ok(nodes.some((l) => l.includes('failed') && l.endsWith(':::failed')));
  } finally {
    rig.cleanup();
  }
});
