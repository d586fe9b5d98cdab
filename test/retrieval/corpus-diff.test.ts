import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { devCorpusDirectory, extractBytes } from '../../bench/retrieval/dev-corpus.js';
import { diffArtifactBytes, diffCorpora, DIFF_FORMAT_VERSION } from '../../src/diff/corpus-diff.js';
import type { EvidenceDocument } from '../../src/document/types.js';
import { EpistemeError } from '../../src/failure.js';
import { parseArtifact } from '../../src/store/artifact.js';
import { DEV_CORPUS_MISSING, loadDevCorpus, repoRoot } from './corpus-helpers.js';
import { FETCH_DOC, HTTP_DOC, PDF_DOC, shuffled } from './fixtures.js';

function clone(doc: EvidenceDocument): EvidenceDocument {
  return JSON.parse(JSON.stringify(doc)) as EvidenceDocument;
}

test('identical corpora: nothing added, removed or changed, in any order', () => {
  const diff = diffCorpora([HTTP_DOC, FETCH_DOC], shuffled([clone(FETCH_DOC), clone(HTTP_DOC)], 2));
  assert.deepEqual(diff, {
    summary: { before: 2, after: 2, added: 0, removed: 0, changed: 0, unchanged: 2 },
    added: [],
    removed: [],
    changed: [],
  });
});

test('fixture edits are reported exactly: block inserted (ids shift), block edited, section renamed, metadata', () => {
  const edited = clone(HTTP_DOC);
  // Insert a block at the start of the If-Match section; the extractor's ordinal ids shift after it.
  const insertAt = edited.blocks.findIndex((b) => b.id === 'b3');
  edited.blocks.splice(insertAt, 0, { ...edited.blocks[insertAt]!, id: 'b3', text: 'A new first paragraph.' });
  for (let i = insertAt + 1; i < edited.blocks.length; i++) edited.blocks[i]!.id = `b${i + 1}`;
  // Edit the text of the caching paragraph (now b6) and move every span (spans are ignored).
  const caching = edited.blocks.find((b) => b.text.startsWith('Caching'))!;
  caching.text = 'Caching is described in RFC 9111.';
  for (const block of edited.blocks) block.span = { start: 1, end: 2 };
  edited.sections[2]!.heading = '14. HTTP Caching';
  edited.title = 'RFC 9110 (revised)';
  const diff = diffCorpora([HTTP_DOC, PDF_DOC], [edited, clone(PDF_DOC)]);
  assert.deepEqual(diff.summary, { before: 2, after: 2, added: 0, removed: 0, changed: 1, unchanged: 1 });
  const change = diff.changed[0]!;
  assert.deepEqual(change.fields, ['title']);
  assert.deepEqual(
    change.sections.changed.map((s) => [s.id, s.fields, s.after.heading]),
    [['caching', ['heading'], '14. HTTP Caching']],
  );
  assert.deepEqual(change.sections.added, []);
  assert.deepEqual(
    change.blocks.added.map((b) => [b.id, b.excerpt]),
    [['b3', 'A new first paragraph.']],
  );
  assert.deepEqual(change.blocks.removed, []);
  assert.deepEqual(
    change.blocks.changed.map((c) => [c.before.id, c.after.id, c.fields, c.after.excerpt]),
    [['b5', 'b6', ['text'], 'Caching is described in RFC 9111.']],
  );
});

test('duplicate source URLs in one corpus are refused', () => {
  assert.throws(
    () => diffCorpora([HTTP_DOC, clone(HTTP_DOC)], []),
    (e) => e instanceof EpistemeError && e.code === 'usage-error',
  );
});

test('the diff artifact is deterministic and verifiable', () => {
  const a = diffArtifactBytes(diffCorpora([HTTP_DOC], [FETCH_DOC]));
  const b = diffArtifactBytes(diffCorpora([HTTP_DOC], [FETCH_DOC]));
  assert.equal(a, b);
  const artifact = parseArtifact<{ added: { documentId: string }[] }>(a, 'diff', DIFF_FORMAT_VERSION, 'diff.json');
  assert.deepEqual(
    artifact.payload.added.map((d) => d.documentId),
    ['fetch'],
  );
});

test('dev corpus copy: one document added, one removed, one edited at the source, reported exactly', async (t) => {
  const before = await loadDevCorpus();
  if (before === undefined) return t.skip(DEV_CORPUS_MISSING);
  const target = before.find((doc) => doc.sourceUrl === 'https://httpwg.org/specs/rfc6265.html')!;
  const removed = before.find((doc) => doc.sourceUrl === 'https://infra.spec.whatwg.org/')!;
  // Edit the source bytes and extract again: one sentence changed, one paragraph inserted.
  const html = readFileSync(path.join(devCorpusDirectory(repoRoot), 'rfc/rfc6265.html'), 'utf8');
  const sentence = 'Each cookie-pair represents a cookie stored by the user agent.';
  assert.ok(html.includes(sentence));
  const editedHtml = html
    .replace(sentence, 'Each cookie-pair represents one cookie that the user agent stored.')
    .replace('<p>Finally, to remove a cookie,', '<p>An inserted paragraph about cookie removal.</p><p>Finally, to remove a cookie,');
  const edited = await extractBytes(target.documentId, target.sourceUrl, 'text/html', new TextEncoder().encode(editedHtml));
  const added = { ...clone(HTTP_DOC), sourceUrl: 'https://example.org/new-spec', documentId: 'example-org-new-spec' };
  const after = [...before.filter((doc) => doc !== target && doc !== removed), edited, added];
  const diff = diffCorpora(before, shuffled(after, 4));
  assert.deepEqual(diff.summary, {
    before: before.length,
    after: before.length,
    added: 1,
    removed: 1,
    changed: 1,
    unchanged: before.length - 2,
  });
  assert.deepEqual(
    diff.added.map((d) => d.sourceUrl),
    ['https://example.org/new-spec'],
  );
  assert.deepEqual(
    diff.removed.map((d) => d.sourceUrl),
    ['https://infra.spec.whatwg.org/'],
  );
  const change = diff.changed[0]!;
  assert.equal(change.sourceUrl, 'https://httpwg.org/specs/rfc6265.html');
  assert.deepEqual(change.fields, ['provenance.snapshotId', 'provenance.sourceSha256']);
  assert.deepEqual(change.sections, { added: [], removed: [], changed: [] });
  assert.deepEqual(change.blocks.removed, []);
  assert.deepEqual(
    change.blocks.added.map((b) => b.excerpt),
    ['An inserted paragraph about cookie removal.'],
  );
  assert.equal(change.blocks.changed.length, 1);
  assert.deepEqual(change.blocks.changed[0]!.fields, ['text']);
  assert.match(change.blocks.changed[0]!.after.excerpt, /^Each cookie-pair represents one cookie that the user agent stored\./);
});
