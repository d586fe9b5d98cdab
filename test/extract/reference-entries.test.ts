import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * Reference entries (DocBook's div.refentry): a manual page inside a book of them is a section headed
 * by its name line and named by its id, its "Name", "Synopsis" and "Description" headings (all h2,
 * whatever the depth) nested below it, and the chapter around goes on after it.
 */
const URL = 'https://docs.example.test/book.html';
const HEAD =
  '<!DOCTYPE html><html><head><title>Tool Reference</title>' +
  '<meta name="generator" content="DocBook XSL Stylesheets Vsnapshot" /></head><body>';

function refentry(id: string, name: string, purpose: string, separator = false): string {
  return (
    '<div class="refentry">' +
    (separator ? '<div class="refentry.separator"><hr /></div>' : '') +
    `<a id="${id}"></a><div class="titlepage"></div>` +
    `<div class="refnamediv"><h2>Name</h2><p>${name} — ${purpose}</p></div>` +
    '<div class="refsynopsisdiv"><h2>Synopsis</h2>' +
    `<div class="cmdsynopsis"><p><code class="command">${name}</code> [OPTION...]</p></div></div>` +
    `<div class="refsect1"><a id="${id}-d"></a><h2>Description</h2><p>${name} does its ${id} work.</p></div>` +
    `<div class="refsect1"><a id="${id}-f"></a><h2>File format</h2><p>The ${id} file is a key file.</p>` +
    `<div class="refsect2"><a id="${id}-g"></a><h3>[group]</h3><p>Keys of the ${id} group.</p></div></div>` +
    '</div>'
  );
}

test('a book of reference entries: each entry is a section headed by its name line, its headings below it', async () => {
  const html =
    HEAD +
    '<div class="book"><div class="titlepage"><h1 class="title"><a id="book"></a>Tool Reference</h1></div>' +
    '<div class="chapter"><div class="titlepage"><h2 class="title"><a id="commands"></a>Commands</h2></div>' +
    refentry('tool-remote', 'tool-remote', 'Configuration for a remote') +
    refentry('tool-install', 'tool-install', 'Install a package', true) +
    '</div>' +
    '<div class="chapter"><div class="titlepage"><h2 class="title"><a id="formats"></a>Formats</h2></div>' +
    '<p>Formats are described below.</p></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.family, 'docbook');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [1, 'book', 'Tool Reference'],
      [2, 'commands', 'Commands'],
      [3, 'tool-remote', 'tool-remote — Configuration for a remote'],
      [4, null, 'Synopsis'],
      [4, 'tool-remote-d', 'Description'],
      [4, 'tool-remote-f', 'File format'],
      [5, 'tool-remote-g', '[group]'],
      [3, 'tool-install', 'tool-install — Install a package'],
      [4, null, 'Synopsis'],
      [4, 'tool-install-d', 'Description'],
      [4, 'tool-install-f', 'File format'],
      [5, 'tool-install-g', '[group]'],
      [2, 'formats', 'Formats'],
    ],
  );
  // The label "Name" heads nothing and is no block; every other word is read once, in its entry.
  assert.ok(!doc.blocks.some((b) => b.text === 'Name'));
  const sectionOf = (text: string): string | null | undefined => {
    const block = doc.blocks.find((b) => b.text === text);
    return doc.sections.find((s) => s.id === block?.sectionId)?.fragment;
  };
  assert.equal(sectionOf('Keys of the tool-install group.'), 'tool-install-g');
  assert.equal(sectionOf('The tool-remote file is a key file.'), 'tool-remote-f');
  assert.equal(sectionOf('Formats are described below.'), 'formats');
  const entry = doc.sections.find((s) => s.fragment === 'tool-install')!;
  const group = doc.sections.find((s) => s.fragment === 'tool-install-g')!;
  const file = doc.sections.find((s) => s.id === group.parentId)!;
  assert.equal(file.parentId, entry.id);
});

test('a page that is one entry with its own id: the entry heads the page, its sections nest below it', async () => {
  const html =
    HEAD +
    '<div class="refentry" id="SQL-INSERT"><div class="titlepage"></div><a id="id-1.9.3.152.1" class="indexterm"></a>' +
    '<div class="refnamediv"><h2>INSERT</h2><p>INSERT — create new rows in a table</p></div>' +
    '<div class="refsect1" id="id-1.9.3.152.5"><h2>Description</h2><p>INSERT inserts new rows into a table.</p></div>' +
    '<div class="refsect1" id="SQL-INSERT-PARAMS"><h2>Parameters</h2><p>OVERRIDING SYSTEM VALUE overrides identity values.</p></div>' +
    '</div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [1, 'SQL-INSERT', 'INSERT — create new rows in a table'],
      [2, 'id-1.9.3.152.5', 'Description'],
      [2, 'SQL-INSERT-PARAMS', 'Parameters'],
    ],
  );
  // "INSERT" is in the name line: no paragraph repeats it.
  assert.ok(!doc.blocks.some((b) => b.text === 'INSERT'));
});

test('a name heading that says more than the name line is read as the entry’s first paragraph, its ids the entry’s', async () => {
  const html =
    HEAD +
    '<div class="refentry"><a name="boost.container.static_vector"></a><div class="titlepage"></div>' +
    '<div class="refnamediv"><h2><span class="refentrytitle"><a name="top"></a>Class template static_vector</span></h2>' +
    '<p>boost::container::static_vector — A variable-size array container with fixed capacity.</p></div>' +
    '<div class="refsect1"><a name="desc"></a><h2>Description</h2><p>A static_vector never allocates.</p></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  const entry = doc.sections[0]!;
  assert.equal(entry.fragment, 'boost.container.static_vector');
  assert.equal(entry.heading, 'boost::container::static_vector — A variable-size array container with fixed capacity.');
  assert.ok(entry.alternateIds?.includes('top') === true);
  const first = doc.blocks.find((b) => b.sectionId === entry.id);
  assert.equal(first?.text, 'Class template static_vector');
  assert.equal(doc.sections.find((s) => s.fragment === 'desc')?.parentId, entry.id);
});

test('an entry with text before its name division is read as written', async () => {
  const html =
    HEAD +
    '<div class="chapter"><div class="titlepage"><h2 class="title"><a id="commands"></a>Commands</h2></div>' +
    '<div class="refentry"><p>Deprecated.</p><div class="refnamediv"><h2>Name</h2><p>old — an old command</p></div>' +
    '<div class="refsect1"><h2>Description</h2><p>Old text.</p></div></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.heading]),
    [
      [2, 'Commands'],
      [2, 'Name'],
      [2, 'Description'],
    ],
  );
  assert.ok(doc.blocks.some((b) => b.text === 'old — an old command'));
});

test('a name division holding more than its heading and name line is read as written: no word is lost', async () => {
  const html =
    HEAD +
    '<div class="chapter"><div class="titlepage"><h2 class="title"><a id="commands"></a>Commands</h2></div>' +
    '<div class="refentry"><a id="tool-sync"></a><div class="refnamediv"><h2>Name</h2><p>tool-sync — Sync a mirror</p>' +
    '<p>Deprecated since 2.0: use tool-mirror.</p></div>' +
    '<div class="refsect1"><h2>Description</h2><p>Sync text.</p></div></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.ok(doc.blocks.some((b) => b.text === 'Deprecated since 2.0: use tool-mirror.'));
  assert.ok(doc.blocks.some((b) => b.text === 'tool-sync — Sync a mirror'));
});
