import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { summarySections } from '../../src/chunk/summary-sections.js';
import { runQuery } from '../../src/query/query.js';
import { extractBytes } from '../extract/helpers.js';
import { indexOfParts } from './fixtures.js';

/**
 * A reference page's member table summarises the entries below it (qdoc's "Public Functions", Javadoc's
 * "Method Summary"): each row is named by a link to its member's entry. It is the document's apparatus,
 * as a contents list is: a question about a member finds the entry that documents it first. So is a
 * list whose items are links and nothing else ("See also"), to any page. A list of steps that refers to
 * other sections as it goes, and a list of links that say what each is about, are text.
 */
const URL = 'https://doc.example.test/qt-5/qstring.html';
const member = (id: string, signature: string, text: string): string => `<h3 id="${id}">${signature}</h3><p>${text}</p>`;
const PAGE =
  '<!doctype html><title>QString Class</title><h1>QString Class</h1><p>The QString class provides a Unicode string.</p>' +
  '<h2 id="public-functions">Public Functions</h2><table>' +
  [
    ['QString &amp;', 'append', '(const QString &amp;str)'],
    ['QString &amp;', 'prepend', '(const QString &amp;str)'],
    ['int', 'capacity', '() const'],
    ['void', 'reserve', '(int size)'],
  ]
    .map(
      ([type, name, rest]) =>
        `<tr><td>${type}</td><td><b><a href="#${name}">${name}</a></b>${rest} appends, prepends or reserves string capacity</td></tr>`,
    )
    .join('') +
  '</table>' +
  '<h2 id="steps">Growing a string</h2><ol>' +
  ['append', 'prepend', 'capacity', 'reserve']
    .map((name) => `<li>When growing, the string calls <a href="#${name}">${name}</a> as needed.</li>`)
    .join('') +
  '</ol>' +
  '<h2 id="see-also">See also</h2><ul>' +
  ['QByteArray', 'QStringView', 'QChar', 'QLatin1String']
    .map((name) => `<li><a href="https://doc.example.test/qt-5/${name.toLowerCase()}.html#details">${name}</a></li>`)
    .join('') +
  '</ul>' +
  '<h2 id="member-docs">Member Function Documentation</h2>' +
  member(
    'append',
    'QString &amp;QString::append(const QString &amp;str)',
    'Appends the string str onto the end of this string and returns a reference to it.',
  ) +
  member('prepend', 'QString &amp;QString::prepend(const QString &amp;str)', 'Prepends the string str to the beginning of this string.') +
  member(
    'capacity',
    'int QString::capacity() const',
    'Returns the maximum number of characters that can be stored without forcing a reallocation.',
  ) +
  member('reserve', 'void QString::reserve(int size)', 'Attempts to allocate memory for at least size characters.');

test("a section of links naming the page's other sections, or only of links, is apparatus; steps naming sections are not", async () => {
  const doc = await extractBytes(PAGE, URL, 'text/html');
  const headingOf = new Map(doc.sections.map((s) => [s.id, s.heading]));
  assert.deepEqual(
    [...summarySections(doc)].map((id) => headingOf.get(id)),
    ['Public Functions', 'See also'],
  );
  const apparatus = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS)
    .filter((chunk) => chunk.apparatus === true)
    .map((chunk) => chunk.citation.headingPath.at(-1));
  assert.deepEqual([...new Set(apparatus)], ['Public Functions', 'See also']);

  // The member's entry answers before the row that names it.
  const index = indexOfParts([doc]);
  const hits = runQuery(index, { terms: ['append', 'string', 'end'], limit: 3, offset: 0, maxSnippetChars: 300, maxTotalChars: 4000 }).hits;
  assert.equal(hits[0]?.citation.fragment, 'append');
});

test('a list of links that say what each is about is text; one whose items are only links is apparatus', async () => {
  const page =
    '<!doctype html><title>Tools</title><h1>Tools</h1><h2 id="tools">Tools</h2><ul>' +
    '<li><a href="https://a.example.test/">lint</a>: checks the style of every file</li>' +
    '<li><a href="https://b.example.test/">fmt</a>: rewrites files in the house style</li></ul>' +
    '<h2 id="related">Related</h2><ul><li><a href="https://a.example.test/">lint</a></li>' +
    '<li><a href="https://b.example.test/">fmt</a></li></ul>';
  const doc = await extractBytes(page, 'https://doc.example.test/tools.html', 'text/html');
  const headingOf = new Map(doc.sections.map((s) => [s.id, s.heading]));
  assert.deepEqual(
    [...summarySections(doc)].map((id) => headingOf.get(id)),
    ['Related'],
  );
});

test("a contents sidebar before the first heading (rows of a number or mark and a link) is the page's apparatus", async () => {
  // Scribble (Racket's documentation) writes its contents as tables outside any <nav>: "1.3 | The
  // Reader", "► | Language Model", "1.3.1 Delimiters and Dispatch".
  const row = (cells: string[]): string => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`;
  const link = (href: string, text: string): string => `<a href="${href}">${text}</a>`;
  const page =
    '<!doctype html><title>1.3 The Reader</title><div class="tocset"><table>' +
    row(['&#9658;', link('index.html', 'The Racket Reference')]) +
    row(['1', link('model.html', 'Language Model')]) +
    row(['1.3', link('reader.html', 'The Reader')]) +
    '</table><table>' +
    row([`1.3.1 ${link('#(part._dispatch)', 'Delimiters and Dispatch')}`]) +
    row([`1.3.2 ${link('#(part._pair)', 'Reading Pairs and Lists')}`]) +
    '</table></div><div class="maincolumn"><h4 id="(part._reader)">The Reader</h4><p>Reading is the process of parsing.</p>' +
    '<h5 id="(part._pair)">Reading Pairs and Lists</h5><p>A dot between two data reads as a pair.</p></div>';
  const doc = await extractBytes(page, 'https://doc.example.test/reference/reader.html', 'text/html');
  const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
  assert.ok(chunks.some((chunk) => chunk.text.includes('Language Model') && chunk.apparatus === true));
  assert.ok(chunks.some((chunk) => chunk.text.includes('A dot between two data') && chunk.apparatus !== true));
  // A preamble that is the page's own text is not.
  const prose = await extractBytes(
    '<!doctype html><title>t</title><p>This page explains how the reader works, at length, for people who write parsers.</p>' +
      `<ul><li>${link('a.html', 'one')}</li><li>${link('b.html', 'two')}</li></ul><h2 id="x">X</h2><p>Body.</p>`,
    'https://doc.example.test/t.html',
    'text/html',
  );
  assert.ok(chunkDocument(prose, DEFAULT_CHUNK_OPTIONS).every((chunk) => chunk.apparatus !== true));
});
