import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A table of contents holds its list, not the sections after it. npm's documentation heads its
 * contents h2 and its sections h3: every section was a subsection of "Table of contents", so the whole
 * page inherited the contents' reason and was the document's apparatus, its matches weighed half.
 */
test('sections after a contents heading of a higher level are not inside the contents', async () => {
  const html =
    '<!doctype html><title>package-lock.json</title><main id="content"><h1>package-lock.json</h1>' +
    '<h2 id="table-of-contents">Table of contents</h2><ul><li><a href="#description">Description</a></li>' +
    '<li><a href="#file-format">File Format</a></li></ul>' +
    '<h3 id="description">Description</h3><p>The lockfile describes the exact tree that was generated.</p>' +
    '<h3 id="file-format">File Format</h3><p>The file is JSON.</p><h4 id="name">name</h4><p>The name of the package.</p>' +
    '</main>';
  const doc = await extractBytes(html, 'https://docs.example.test/cli/package-lock-json', 'text/html');
  const byId = new Map(doc.sections.map((s) => [s.fragment, s]));
  const top = doc.sections[0]!;
  assert.equal(byId.get('table-of-contents')?.parentId, top.id);
  assert.equal(byId.get('description')?.parentId, top.id);
  assert.equal(byId.get('file-format')?.parentId, top.id);
  assert.equal(byId.get('name')?.parentId, byId.get('file-format')?.id);
  assert.equal(byId.get('table-of-contents')?.normativityReason, 'heading:table of contents');
  for (const id of ['description', 'file-format', 'name']) assert.equal(byId.get(id)?.normativityReason, undefined, id);
  // The contents list stays in the contents section.
  const list = doc.blocks.find((b) => b.kind === 'list');
  assert.equal(list?.sectionId, byId.get('table-of-contents')?.id);
});

test('a section inside references, acknowledgements or an index is still theirs', async () => {
  const html =
    '<!doctype html><title>Spec</title><h1>Spec</h1><h2 id="references">References</h2>' +
    '<h3 id="normative">Normative References</h3><p>[RFC2119] Key words.</p>';
  const doc = await extractBytes(html, 'https://docs.example.test/spec.html', 'text/html');
  const byId = new Map(doc.sections.map((s) => [s.fragment, s]));
  assert.equal(byId.get('normative')?.parentId, byId.get('references')?.id);
});
