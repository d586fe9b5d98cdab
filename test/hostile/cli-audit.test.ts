import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, assertNoStackTrace, sampleHtml } from '../helpers/rig.js';

/**
 * Classes of failure found by an adversarial audit through the CLI (a careless user or an attacker
 * calling it), each pinned by its smallest instance: what used to crash, grow without bound or print a
 * hint that does not work now gives a structured answer, and the workspace stays consistent (the
 * next build equals a clean build, queries answer).
 */

function chunkFiles(rig: Rig): string[] {
  return fs
    .readdirSync(rig.path('chunks'))
    .filter((name) => name.endsWith('.json') && name !== 'index.json' && !name.startsWith('search-index'))
    .map((name) => rig.path('chunks', name));
}

test('an empty map or manifest builds an empty workspace (no internal error), and a later build equals a clean one', async () => {
  const rig = new Rig();
  try {
    rig.write({ 'empty.json': '[]\n', 'doc.html': sampleHtml(1) });
    const empty = await rig.exec(['build', '--map', 'empty.json', '--json']);
    assertNoStackTrace(empty);
    assert.equal(empty.code, 0, empty.stdout);
    assert.equal(empty.json!.ok, true);
    // The empty workspace answers queries, a no-op build, explain and graph.
    const none = await rig.exec(['query', '--term', 'zebra1', '--json']);
    assert.equal(none.code, 0, none.stdout);
    assert.equal(none.json!.data.total, 0);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    assert.equal((await rig.exec(['explain', 'chunks/search-index.json', '--json'])).code, 0);
    assert.equal((await rig.exec(['graph', '--format', 'json', '--json'])).code, 0);
    // Entries arrive: the build equals a clean build of the same map, and the query finds them.
    rig.write({ 'empty.json': JSON.stringify([{ sourceUrl: 'https://example.test/one', localPath: 'doc.html' }]) });
    const filled = await rig.exec(['build', '--json']);
    assert.equal(filled.code, 0, filled.stdout);
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 1);
    const clean = new Rig();
    try {
      clean.write({ 'empty.json': rig.read('empty.json'), 'doc.html': sampleHtml(1) });
      assert.equal((await clean.exec(['build', '--map', 'empty.json', '--json'])).code, 0);
      assert.deepEqual(rig.artifacts(), clean.artifacts());
    } finally {
      clean.cleanup();
    }
    // And back to empty: the documents leave every index.
    rig.write({ 'empty.json': '[]' });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    assert.equal((await rig.exec(['query', '--term', 'zebra1', '--json'])).json!.data.total, 0);
    // An empty manifest too.
    const manifest = new Rig();
    try {
      manifest.write({ 'manifest.json': '[]' });
      const built = await manifest.exec(['build', '--manifest', 'manifest.json', '--json']);
      assert.equal(built.code, 0, built.stdout);
    } finally {
      manifest.cleanup();
    }
  } finally {
    rig.cleanup();
  }
});
