import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import path from 'node:path';
import { assertNoStackTrace, REPO_ROOT, Rig } from '../helpers/rig.js';

/**
 * `episteme diff` end to end on the example workspace: build, keep a copy of specs/, then edit one
 * source, drop one and add one, build again and diff against the copy.
 */
function exampleRig(): Rig {
  const rig = new Rig('episteme-diff-');
  for (const name of [
    'episteme.json',
    'manual-ingest.json',
    'sources/caching.html',
    'sources/conditional-requests.html',
    'sources/glossary.txt',
  ]) {
    rig.write({ [name]: fs.readFileSync(path.join(REPO_ROOT, 'examples', name)) });
  }
  return rig;
}

test('diff reports an added, a removed and an edited document exactly, and writes diffs/diff.json deterministically', async () => {
  const rig = exampleRig();
  try {
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    fs.cpSync(rig.path('specs'), rig.path('before-specs'), { recursive: true });
    const map = JSON.parse(rig.read('manual-ingest.json')) as { sourceUrl: string; localPath: string; contentType: string }[];
    const kept = map.filter((entry) => !entry.localPath.endsWith('glossary.txt'));
    kept.push({ sourceUrl: 'https://example.org/specs/new/', localPath: 'sources/new.html', contentType: 'text/html' });
    rig.write({
      'manual-ingest.json': JSON.stringify(kept, null, 2),
      'sources/new.html': '<!doctype html><title>New</title><h1 id="intro">Intro</h1><p>A brand new document.</p>',
      'sources/caching.html': rig.read('sources/caching.html').replace(/<p>([^<]*)<\/p>/, '<p>$1 Edited.</p>'),
    });
    assert.equal((await rig.exec(['build', '--json'])).code, 0);

    const result = await rig.exec(['diff', '--before', 'before-specs', '--json']);
    assertNoStackTrace(result);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(result.json!.data.summary, { before: 3, after: 3, added: 1, removed: 1, changed: 1, unchanged: 1 });
    assert.equal(result.json!.data.out, 'diffs/diff.json');
    const written = rig.read('diffs/diff.json');
    const report = JSON.parse(written) as { artifact: string; payload: any };
    assert.equal(report.artifact, 'diff');
    assert.deepEqual(
      report.payload.added.map((d: any) => d.sourceUrl),
      ['https://example.org/specs/new/'],
    );
    assert.deepEqual(
      report.payload.removed.map((d: any) => d.sourceUrl),
      ['https://example.org/notes/glossary.txt'],
    );
    const change = report.payload.changed[0];
    assert.equal(change.sourceUrl, 'https://example.org/specs/caching/');
    assert.deepEqual(change.blocks.added, []);
    assert.deepEqual(change.blocks.removed, []);
    assert.equal(change.blocks.changed.length, 1);
    assert.deepEqual(change.blocks.changed[0].fields, ['text']);
    assert.match(change.blocks.changed[0].after.excerpt, /Edited\.$/);

    // Same corpora, same bytes; --out - returns the same artifact.
    assert.equal((await rig.exec(['diff', '--before', 'before-specs'])).code, 0);
    assert.equal(rig.read('diffs/diff.json'), written);
    const inline = await rig.exec(['diff', '--before', 'before-specs/index.json', '--after', 'specs', '--out', '-', '--json']);
    assert.equal(inline.code, 0);
    assert.deepEqual(inline.json!.data.artifact, JSON.parse(written));
  } finally {
    rig.cleanup();
  }
});

test('diff refuses --out - without --json, missing, incomplete and tampered corpora', async () => {
  const rig = exampleRig();
  try {
    assert.equal((await rig.exec(['build', '--json'])).code, 0);
    const noJson = await rig.exec(['diff', '--before', 'specs', '--out', '-']);
    assert.equal(noJson.code, 2);
    assert.match(noJson.stderr, /requires --json/);
    const missing = await rig.exec(['diff', '--before', 'nowhere', '--json']);
    assert.equal(missing.json!.error!.code, 'input-not-found');

    // An incomplete corpus: a document index that lists a failed source.
    fs.cpSync(rig.path('specs'), rig.path('partial'), { recursive: true });
    const index = JSON.parse(rig.read('partial/index.json'));
    index.payload.missingSources = ['https://example.org/broken'];
    const { makeArtifact, artifactBytes } = await import('../../src/store/artifact.js');
    rig.write({ 'partial/index.json': artifactBytes(makeArtifact('document-index', index.formatVersion, index.payload)) });
    const partial = await rig.exec(['diff', '--before', 'partial', '--after', 'specs', '--out', '-', '--json']);
    assert.equal(partial.json!.error!.code, 'artifact-invalid');
    assert.equal(partial.code, 2);

    // A tampered document.
    fs.cpSync(rig.path('specs'), rig.path('tampered'), { recursive: true });
    const entry = JSON.parse(rig.read('tampered/index.json')).payload.entries[0];
    fs.appendFileSync(rig.path('tampered', entry.file), ' ');
    const tampered = await rig.exec(['diff', '--before', 'tampered', '--after', 'specs', '--out', '-', '--json']);
    assertNoStackTrace(tampered);
    assert.equal(tampered.json!.error!.code, 'artifact-invalid');
  } finally {
    rig.cleanup();
  }
});
