import { ShapingFiles } from '../../src/config/shaping-files.js';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Sandbox, assertFailure } from './harness.js';
import { sampleHtml } from '../helpers/rig.js';
import { verifyCommittedGeneration } from '../helpers/verify-commit.js';
import { aggregateNames, buildGraph } from '../../src/graph/graph.js';
import { RESERVED_DOCUMENT_IDS } from '../../src/config/source-url.js';
import type { Workspace, WorkspaceSource } from '../../src/config/workspace.js';
import { EpistemeError } from '../../src/failure.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Issue 9 section 5: the graph is always a DAG with one target per output path. Sources whose document
 * id would name an aggregate target (`specs/index.json`, `chunks/search-index.json`) keep working
 * under a suffixed id; the graph builder refuses any duplicate target as defence in depth.
 */

const BOUNDS = { maxMs: 30_000, maxRssMb: 400 };

/** URLs whose plain slug is a reserved id, in as many spellings as the URL grammar allows. */
function hostileUrls(): string[] {
  const urls = new Set<string>();
  for (const reserved of RESERVED_DOCUMENT_IDS) {
    const words = reserved.split('-');
    for (const scheme of ['http', 'https']) {
      for (const host of [reserved, words.join('.'), reserved.toUpperCase(), `${reserved}.`, `${words.join('.')}.`]) {
        urls.add(`${scheme}://${host}/`);
        urls.add(`${scheme}://${host}/?`);
        urls.add(`${scheme}://${host}/#`);
      }
      if (words.length > 1) urls.add(`${scheme}://${words[0]}/${words.slice(1).join('/')}`);
      urls.add(`${scheme}://${reserved}:8080/`.replace(':8080', ''));
      urls.add(`${scheme}://${reserved}/-/`);
      urls.add(`${scheme}://${reserved}/%2d`);
    }
  }
  return [...urls];
}

test('sources whose id would be an aggregate target build a correct graph, in every output folder', async () => {
  const box = new Sandbox();
  try {
    // Each hostile URL that is distinct after canonicalisation gets its own file; duplicates would be
    // refused as such, which is not what this test is about.
    const { canonicalSourceUrl } = await import('../../src/config/source-url.js');
    const canonical = [...new Set(hostileUrls().map((url) => (canonicalSourceUrl(url) as { url: string }).url))];
    const map = canonical.map((url, i) => ({ sourceUrl: url, localPath: `src/doc${i}.html`, contentType: 'text/html' }));
    box.write({ 'map.json': JSON.stringify(map), 'episteme.json': JSON.stringify({ manualIngest: 'map.json' }) });
    box.write(Object.fromEntries(canonical.map((_url, i) => [`src/doc${i}.html`, sampleHtml(i)])));
    const outside = box.outside();
    const built = await box.run(['build', '--json']);
    assert.equal(built.code, 0, built.stdout.slice(0, 3000));
    const targets = (built.json!.data.targets as { target: string; rule: string }[]).map((t) => t.target);
    assert.equal(new Set(targets).size, targets.length, 'two targets share a name');
    // From 17 documents on the search index is over segments (index-layout.ts planSearchSegments).
    const segments = targets.filter((t) => t.includes('#'));
    assert.ok(segments.length >= 2 && segments.every((t) => t.startsWith('chunks/search-index.json#')), segments.join(' '));
    assert.equal(targets.length, canonical.length * 3 + 4 + segments.length);
    for (const aggregate of ['snapshots/index.json', 'specs/index.json', 'chunks/index.json', 'chunks/search-index.json']) {
      assert.equal(targets.filter((t) => t === aggregate).length, 1, aggregate);
    }
    const index = JSON.parse(fs.readFileSync(path.join(box.ws, 'specs/index.json'), 'utf8')) as {
      payload: { entries: { documentId: string; sourceUrl: string }[] };
    };
    assert.deepEqual(index.payload.entries.map((e) => e.sourceUrl).sort(), [...canonical].sort());
    for (const entry of index.payload.entries) assert.ok(!RESERVED_DOCUMENT_IDS.has(entry.documentId), entry.documentId);
    assert.ok(verifyCommittedGeneration(box.ws) >= canonical.length * 3);
    const query = await box.run(['query', '--index', 'chunks/search-index.json', '--term', 'giraffe3', '--json']);
    assert.equal(query.code, 0);
    assert.equal(query.json!.data.hits.length, 1);
    // A second build is a no-op: the graph is the same graph.
    const again = await box.run(['build', '--json']);
    assert.equal(again.json!.data.actions, 0);
    // The same URLs in an HTTP manifest: the graph (a dry run fetches nothing) is just as sound.
    box.write({
      'manifest.json': JSON.stringify(canonical.map((url) => ({ url }))),
      'episteme.json': JSON.stringify({ manifest: 'manifest.json' }),
    });
    const dry = await box.run(['build', '--dry-run', '--json']);
    assert.equal(dry.code, 0, dry.stdout.slice(0, 2000));
    const dryTargets = (dry.json!.data.targets as { target: string }[]).map((t) => t.target);
    assert.equal(new Set(dryTargets).size, dryTargets.length);
    assert.equal(box.outside(), outside);
  } finally {
    box.cleanup();
  }
});

test('a config whose output folders coincide is refused at load, before any graph exists', async () => {
  const box = new Sandbox();
  try {
    box.write({
      'src/a.html': sampleHtml(1),
      'map.json': JSON.stringify([{ sourceUrl: 'http://search.index/', localPath: 'src/a.html' }]),
      'episteme.json': JSON.stringify({ manualIngest: 'map.json', outputs: { specs: 'out', chunks: 'out' } }),
    });
    const outside = box.outside();
    const result = await box.run(['build', '--json']);
    assertFailure(result, { code: 'config-invalid', exit: 2, ...BOUNDS });
    assert.deepEqual([...(result.json!.error!.details as { fields: string[] }).fields].sort(), ['outputs.chunks', 'outputs.specs']);
    assert.equal(box.outside(), outside);
  } finally {
    box.cleanup();
  }
});

function workspaceOf(sources: WorkspaceSource[], outputs: Partial<Workspace['outputs']> = {}): Workspace {
  return {
    root: path.resolve('/nonexistent-root'),
    configFile: null,
    stateDir: path.resolve('/nonexistent-root/.episteme'),
    outputs: { snapshots: 'snapshots', specs: 'specs', chunks: 'chunks', diffs: 'diffs', ...outputs },
    options: { extract: {}, chunk: {}, index: {} },
    shaping: new ShapingFiles(),
    limits: { maxFileBytes: 1, capture: {} as Workspace['limits']['capture'] },
    sources,
    mapFile: null,
    manifestFile: null,
    families: [],
    rulesFolder: null,
    rulesFiles: [],
  };
}

function httpSource(documentId: string, entryIndex: number): WorkspaceSource {
  const spec = { url: `https://x.example/${entryIndex}` };
  return { documentId, spec, capture: { method: 'http', spec, entryIndex } };
}

function localSource(documentId: string, n: number): WorkspaceSource {
  const spec = { url: `https://y.example/${n}` };
  return {
    documentId,
    spec,
    capture: {
      method: 'manual-ingest',
      spec,
      absolutePath: `/x/${n}`,
      relativePath: `src/${n}.html`,
      contentType: 'text/html',
      charset: null,
    } as unknown as WorkspaceSource['capture'],
  };
}

function refusal(build: () => unknown): EpistemeError {
  try {
    build();
  } catch (error) {
    assert.ok(error instanceof EpistemeError, String(error));
    return error;
  }
  assert.fail('the graph was built');
}

test('defence in depth: the graph builder refuses a duplicate target, naming the entry, and its order is always topological', () => {
  // Every aggregate name is `<folder>/<reserved id>.json`: the reserved ids cover them all.
  for (const name of Object.values(aggregateNames(workspaceOf([]))))
    assert.ok(RESERVED_DOCUMENT_IDS.has(path.basename(name, '.json')), name);

  for (const reserved of RESERVED_DOCUMENT_IDS) {
    const http = refusal(() => buildGraph(workspaceOf([httpSource('a', 0), httpSource(reserved, 3)])));
    assert.equal(http.code, 'manifest-invalid');
    assert.equal(http.details?.entry, 3);
    assert.match(http.message, /Manifest entry 3/);
    const local = refusal(() => buildGraph(workspaceOf([localSource(reserved, 1)])));
    assert.equal(local.code, 'map-invalid');
    assert.match(local.message, /src\/1\.html/);
  }
  const twin = refusal(() => buildGraph(workspaceOf([httpSource('same', 0), httpSource('same', 1)])));
  assert.equal(twin.code, 'manifest-invalid');
  const overlap = refusal(() => buildGraph(workspaceOf([], { specs: 'out', chunks: 'out' })));
  assert.equal(overlap.code, 'config-invalid');

  const random = seededRandom(11);
  for (let round = 0; round < 200; round += 1) {
    const sources = Array.from({ length: Math.floor(random() * 20) }, (_v, i) => httpSource(`doc-${i}-${Math.floor(random() * 1e6)}`, i));
    const graph = buildGraph(workspaceOf(sources));
    const position = new Map(graph.order.map((name, i) => [name, i]));
    assert.equal(position.size, graph.nodes.size);
    for (const node of graph.nodes.values())
      for (const dep of node.deps) assert.ok(position.get(dep)! < position.get(node.name)!, `${dep} after ${node.name}`);
  }
});
