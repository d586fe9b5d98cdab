import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { Rig, sampleHtml, writeSmallWorkspace } from '../helpers/rig.js';

/**
 * What a query says when the index it is given cannot answer, in the places a user meets it: each
 * hint names the cause that is there, not one that is not.
 */
test('query hints: a stale index copied out, a stdin-built workspace, a segmented index on stdin, a config not an object', async () => {
  const rig = new Rig();
  try {
    // A workspace of 20 documents: its search index is a manifest and segments.
    writeSmallWorkspace(rig, 20);
    assert.equal((await rig.exec(['build', '--json'])).code, 0);

    // From stdin, the segments are looked for beside --chunk-index, else here: the hint says so, and following it answers.
    const index = fs.readFileSync(rig.path('chunks/search-index.json'));
    const stdin = await rig.exec(['query', '--index', '-', '--term', 'topic1', '--json'], { input: index });
    assert.equal(stdin.json!.error!.code, 'artifact-invalid', stdin.stdout);
    assert.match(stdin.json!.error!.hint!, /segments beside --chunk-index, else in the current folder \(\.\): pass --chunk-index/);
    const followed = await rig.exec(['query', '--index', '-', '--chunk-index', 'chunks/index.json', '--term', 'topic1', '--json'], {
      input: index,
    });
    assert.equal(followed.code, 0, followed.stdout);

    // A stale index copied out of its workspace: no map came from stdin; the hint says where to rebuild.
    rig.write({ 'src/doc1.html': sampleHtml(1, '<p>An edit.</p>') });
    assert.equal((await rig.exec(['build', 'chunks/index.json', '--json'])).code, 0);
    const elsewhere = new Rig();
    fs.cpSync(rig.path('chunks'), elsewhere.path('chunks'), { recursive: true });
    const copied = await elsewhere.exec(['query', '--index', 'chunks/search-index.json', '--term', 'topic1', '--json']);
    elsewhere.cleanup();
    assert.equal(copied.json!.error!.code, 'stale-index', copied.stdout);
    assert.match(copied.json!.error!.hint!, /in the workspace it was built in \(none is above it: it was copied out of one\)/);

    // A config that is JSON but not an object: config-invalid saying so, not a leaked TypeError.
    rig.write({ 'null.json': 'null' });
    const config = await rig.exec(['query', '--config', 'null.json', '--term', 'topic1', '--json']);
    assert.equal(config.json!.error!.code, 'config-invalid');
    assert.equal(config.json!.error!.message, 'null.json must be a JSON object.');
    // A key given twice: refused as a build refuses it, not read as the last one.
    rig.write({ 'twice.json': '{"manualIngest":"map.json","outputs":{"chunks":"chunks","chunks":"other"}}' });
    const twice = await rig.exec(['query', '--config', 'twice.json', '--term', 'topic1', '--json']);
    assert.equal(twice.json!.error!.code, 'config-invalid');
    assert.match(twice.json!.error!.message, /outputs\.chunks: given twice in one object \(line 1\)/);
  } finally {
    rig.cleanup();
  }
  // A workspace built from a map on stdin keeps no config: its stale index is rebuilt the same way.
  const piped = new Rig();
  try {
    piped.write({ 'src/doc0.html': sampleHtml(0) });
    const map = JSON.stringify([{ sourceUrl: 'https://example.test/doc0/', localPath: 'src/doc0.html', contentType: 'text/html' }]);
    assert.equal((await piped.exec(['build', '--map', '-', '--json'], { input: map })).code, 0);
    piped.write({ 'src/doc0.html': sampleHtml(0, '<p>An edit.</p>') });
    assert.equal((await piped.exec(['build', '--map', '-', 'chunks/index.json', '--json'], { input: map })).code, 0);
    const stale = await piped.exec(['query', '--index', 'chunks/search-index.json', '--term', 'topic0', '--json']);
    assert.equal(stale.json!.error!.code, 'stale-index', stale.stdout);
    assert.match(stale.json!.error!.hint!, /from \., as it was made \(its map or manifest came from stdin\)/);
  } finally {
    piped.cleanup();
  }
});
