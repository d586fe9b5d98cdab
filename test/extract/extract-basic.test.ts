import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { validateDocument } from '../../src/extract/extract.js';
import { extractBytes } from './helpers.js';

const PAGE = `<!doctype html><html><head><title>Tiny spec</title></head><body>
<p>Before any heading.</p>
<h2 id="intro"><span class="secno">1. </span>Introduction</h2>
<p>Clients MUST send a <a href="#host">Host</a> header.</p>
<ul><li>one<ul><li>nested</li></ul></li><li>two</li></ul>
<pre>
let x = 1;
</pre>
<h3 id="details">Details</h3>
<div>Loose text <em>inside</em> a div.<p>And a paragraph.</p></div>
</body></html>`;

test('generic HTML: sections, blocks, fragments, provenance, validity', async () => {
  const doc = await extractBytes(PAGE, 'https://example.org/spec', 'text/html');
  assert.deepEqual(validateDocument(doc), { ok: true });
  assert.equal(doc.title, 'Tiny spec');
  assert.equal(doc.family, 'generic');
  assert.equal(doc.contentTrust, 'untrusted-source');
  assert.deepEqual(
    doc.sections.map((s) => [s.id, s.heading, s.level, s.number, s.parentId]),
    [
      ['intro', 'Introduction', 2, '1', null],
      ['details', 'Details', 3, null, 'intro'],
    ],
  );
  assert.deepEqual(
    doc.blocks.map((b) => [b.id, b.kind, b.sectionId, b.fragment, b.text]),
    [
      ['~front~b1', 'paragraph', null, null, 'Before any heading.'],
      ['intro~b1', 'paragraph', 'intro', 'intro', 'Clients MUST send a Host header.'],
      ['intro~b2', 'list', 'intro', 'intro', '- one\n  - nested\n- two'],
      ['intro~b3', 'code', 'intro', 'intro', 'let x = 1;'],
      ['details~b1', 'paragraph', 'details', 'details', 'Loose text inside a div.'],
      ['details~b2', 'paragraph', 'details', 'details', 'And a paragraph.'],
    ],
  );
  const first = doc.blocks[1]!;
  assert.deepEqual(first['links'], [{ text: 'Host', href: 'https://example.org/spec#host' }]);
  assert.deepEqual(first['keywords'], [{ keyword: 'MUST', start: 8, end: 12 }]);
  assert.deepEqual(doc.blocks[2]!['items'], [{ text: 'one', items: [{ text: 'nested' }] }, { text: 'two' }]);
});

test('same bytes and options give identical document bytes', async () => {
  const a = await extractBytes(PAGE, 'https://example.org/spec', 'text/html');
  const b = await extractBytes(PAGE, 'https://example.org/spec', 'text/html');
  assert.equal(canonicalJson(a), canonicalJson(b));
});

test('plain text: paragraphs with line spans', async () => {
  const doc = await extractBytes(
    'Title line\n\nFirst paragraph\ncontinues here.\n\n    code line\n',
    'https://example.org/a.txt',
    'text/plain',
  );
  assert.deepEqual(validateDocument(doc), { ok: true });
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text, b.span?.['line']]),
    [
      ['paragraph', 'Title line', 1],
      ['paragraph', 'First paragraph continues here.', 3],
      ['code', 'code line', 6],
    ],
  );
});

test('unknown explicit family is config-invalid', async () => {
  await assert.rejects(extractBytes('<p>x</p>', 'https://example.org/', 'text/html', { family: 'nope' }), { code: 'config-invalid' });
});
