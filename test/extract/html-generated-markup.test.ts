import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';
import { chunkDocument, DEFAULT_CHUNK_OPTIONS } from '../../src/chunk/chunker.js';
import { buildDocumentPart, DEFAULT_INDEX_OPTIONS, loadSearchIndex, mergeSearchIndex } from '../../src/index/search-index.js';
import { runQuery } from '../../src/query/query.js';

/**
 * Markup documentation generators write that any HTML may hold, read by the generic rules (a page on a
 * host no family names, declaring no generator): anchors with no text of their own before a heading or a
 * block, an aside titled by a heading, an id on an element around several sections, a one-row table
 * that only indents its content. Found on PostgreSQL's (DocBook XSL), git's (AsciiDoc) and GNU (Texinfo)
 * manuals; the fixtures are written in their patterns, not copied.
 */

const URL = 'https://docs.example.test/manual/page.html';
const page = (body: string): string => `<!DOCTYPE html><html><head><title>Manual</title></head><body>${body}</body></html>`;

test('empty anchors before a heading name its section; before a paragraph, they are anchors at its start', async () => {
  // Texinfo 6.7: the node's anchor, the navigation bar, the section's anchor, the heading; then index entries.
  // texi2html: <a name> pairs. Before, every one of these ids was dropped: `#Description` opened nothing.
  const doc = await extractBytes(
    page(`<hr><span id="Description"></span><nav><p>Next: <a href="#Options">Options</a></p></nav>
<span id="Description-1"></span><h3 class="section">1.1 Description</h3>
<span id="index-bc"></span><span id="index-calculator"></span>
<p>bc is a language that supports arbitrary precision numbers.</p>
<a name="Options"></a>
<a name="SEC12"></a>
<h3 class="section">1.2 Options</h3>
<p>Options are read first.</p>`),
    URL,
    'text/html',
  );
  assert.equal(doc.family, 'generic');
  const description = doc.sections.find((s) => s.heading === 'Description')!;
  assert.equal(description.fragment, 'Description');
  assert.deepEqual(description.alternateIds, ['Description-1']);
  const options = doc.sections.find((s) => s.heading === 'Options')!;
  assert.equal(options.fragment, 'Options');
  assert.deepEqual(options.alternateIds, ['SEC12']);
  const bc = doc.blocks.find((b) => b.text.startsWith('bc is'))!;
  assert.deepEqual(bc.anchors, [
    { id: 'index-bc', start: 0 },
    { id: 'index-calculator', start: 0 },
  ]);
  assert.equal(bc.fragment, 'Description');
});

test("an aside titled by its one heading is one note, and the text after it stays in the aside's section", async () => {
  // DocBook XSL's admonitions. Before, "Note" opened a section that took in everything up to the next heading.
  const doc = await extractBytes(
    page(`<h2 id="numeric">Numeric Types</h2>
<p>Numbers come in several kinds.</p>
<div class="note"><h3 class="title">Note</h3><p>The maximum precision is 1000.</p></div>
<p>Rounding happens on input.</p>
<div class="note"><h3>Limits</h3><p>First.</p><h3>More limits</h3><p>Second.</p></div>
<dl class="variablelist"><dt id="opt-a">-a</dt>
<dd><p>Echo all.</p><div class="warning"><h3 class="title">Warning</h3><p>Loud.</p></div></dd>
<dt id="opt-b">-b</dt><dd><p>Echo errors.</p></dd></dl>`),
    URL,
    'text/html',
  );
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Numeric Types', 'Limits', 'More limits'],
    'an aside with several headings is still walked as sections',
  );
  const note = doc.blocks.find((b) => b.kind === 'note')!;
  assert.equal(note.text, 'Note\nThe maximum precision is 1000.');
  assert.equal(note.normativity, 'informative');
  const after = doc.blocks.find((b) => b.text === 'Rounding happens on input.')!;
  assert.equal(after.sectionId, 'numeric');
  // A definition list whose entry holds such an aside stays one list: its terms were paragraphs, each apart from its definition.
  const options = doc.blocks.find((b) => b.kind === 'definition-list') as { entries?: { terms: string[] }[]; anchors?: { id: string }[] };
  assert.deepEqual(
    options.entries?.map((e) => e.terms),
    [['-a'], ['-b']],
  );
  assert.deepEqual(
    options.anchors?.map((a) => a.id),
    ['opt-a', 'opt-b'],
  );
});

test("the id of a titled aside's heading names the blocks after it, as an empty anchor's does; an inline term's id does not", async () => {
  // Apache's manual: a directive's notes are titled asides, `<h3><a id="what_is_matched">`; the blocks
  // after the note cited the anchor before it (`#regexp`, two blocks up) where the note's id is nearer.
  const doc = await extractBytes(
    page(`<h2 id="rewriterule">RewriteRule Directive</h2>
<p><a id="patterns" name="patterns"></a>Pattern is a <a id="regexp">regular expression</a> matched against the path.</p>
<p>A leading ! negates it.</p>
<div class="note"><h3><a id="what_is_matched" name="what_is_matched">What is matched?</a></h3><p>The URL-path.</p></div>
<div class="note"><h3>Per-directory Rewrites</h3><p>The prefix is removed, so ^/ never matches.</p></div>
<p>Rules apply in order.</p>`),
    URL,
    'text/html',
  );
  const fragmentOf = (start: string): string | null => doc.blocks.find((b) => b.text.startsWith(start))!.fragment;
  assert.equal(fragmentOf('A leading'), 'patterns', 'an inline term (regexp) opens no passage; the empty anchor does');
  assert.equal(fragmentOf('Per-directory'), 'what_is_matched');
  assert.equal(fragmentOf('Rules apply'), 'what_is_matched');
});

test("the blocks after a titled aside cite its heading's own id, not the last id written inside the heading", async () => {
  // A heading keeps a renamed note's old ids as empty spans (Bikeshed), or its self-link before an
  // alias: the last id written named the passage after the note (#older, #alias).
  const doc = await extractBytes(
    page(`<h2 id="rewriterule">RewriteRule Directive</h2>
<p>Pattern is matched against the path.</p>
<div class="note"><h3 id="what-is-matched"><span id="old-name"></span><span id="older"></span>What is matched?</h3>
<p>The URL-path.</p></div>
<p>Rules apply in order.</p>
<div class="note"><h3><a id="per-dir" href="#per-dir">Per-directory Rewrites</a><a id="alias"></a></h3>
<p>The prefix is removed.</p></div>
<p>Flags change that.</p>`),
    URL,
    'text/html',
  );
  const fragmentOf = (start: string): string | null => doc.blocks.find((b) => b.text.startsWith(start))!.fragment;
  assert.equal(fragmentOf('Rules apply'), 'what-is-matched');
  assert.equal(fragmentOf('Flags change'), 'per-dir');
});

test('a block cites the heading of its section when the element whose id encloses it also encloses other sections', async () => {
  // AsciiDoc's <div id="content"> around every section. Before, every block of the page cited #content.
  const doc = await extractBytes(
    page(`<div id="header"><h1>git-widget(1)</h1></div>
<div id="content">
<div class="sect1"><h2 id="_description">DESCRIPTION</h2><div class="sectionbody"><p>Spins widgets.</p></div></div>
<div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody"><p>--fast spins faster.</p>
<h3>Defaults</h3><p>Slow by default.</p></div></div>
<div class="sect1" id="see-also"><h2>SEE ALSO</h2><p>git-gadget(1).</p><p id="tail">The end.</p></div>
</div>`),
    URL,
    'text/html',
  );
  const cited = (text: string): string | null => doc.blocks.find((b) => b.text === text)!.fragment;
  assert.equal(cited('Spins widgets.'), '_description');
  assert.equal(cited('--fast spins faster.'), '_options');
  assert.equal(cited('Slow by default.'), '_options', 'a section without an id: the nearest enclosing one that has one');
  assert.equal(cited('git-gadget(1).'), 'see-also', 'the section element that gives its heading its id');
  assert.equal(cited('The end.'), 'tail', "a block's own id first");
});

test('a heading wrapped alone (ReSpec header-wrapper) is bounded by its section element: a block after it cites the parent', async () => {
  // ReSpec wraps each heading with its self-link (pruned by the w3c family) in div.header-wrapper. The
  // IDL after </section> of "Attributes" is in the outline's "Attributes" section, but the element
  // around it is the Events section: it cites #events, not #attributes. The wrapper, which holds only
  // the heading, does not bound the subsection; its <section> does.
  const wrapped = (id: string, level: number, text: string): string =>
    `<div class="header-wrapper"><h${level} id="x-${id}">${text}</h${level}><a class="self-link" href="#${id}"></a></div>`;
  const doc = await extractBytes(
    page(`<section id="events">${wrapped('events', 5, 'Events')}<pre class="idl">interface E {};</pre>
<section id="attributes">${wrapped('attributes', 6, 'Attributes')}<dl><dt>type</dt><dd>The type.</dd></dl></section>
<pre class="idl">dictionary EInit {};</pre></section>`),
    'https://www.w3.org/TR/gizmo-events/',
    'text/html',
  );
  const cited = (text: string): string | null => doc.blocks.find((b) => b.text.includes(text))!.fragment;
  assert.equal(cited('interface E'), 'events');
  assert.equal(cited('The type.'), 'attributes');
  assert.equal(cited('dictionary EInit'), 'events');
});

test('table cells written inside a block separate cells, never start a line with " | "', async () => {
  // AsciiDoc's admonition: a table of an icon cell (a label, or an icon with no text) and a content cell.
  const doc = await extractBytes(
    page(`<div class="note"><table><tr><td class="icon"><div class="title">Note</div></td><td>Keep it.</td></tr></table></div>
<div class="note"><table><tr><td class="icon"><i class="icon-note"></i></td><td>Spin it.</td></tr></table></div>
<div class="note"><table><tr><td>a</td><td>b</td></tr></table></div>
<table><tr><td></td><td>Chrome</td></tr><tr><td>Flex</td><td>yes</td></tr></table>`),
    URL,
    'text/html',
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['Note\nKeep it.', 'Spin it.', 'a | b', ' | Chrome\nFlex | yes'],
    'a table block keeps its grid',
  );
});

test('a one-row table whose cells are empty but one that holds blocks is layout: its content is read as such', async () => {
  // texi2html indents each example with a table. Before, the example was a table " | msgfmt ...".
  const doc = await extractBytes(
    page(`<h2 id="invoking">Invoking msgfmt</h2>
<table><tr><td>&nbsp;</td><td><pre>msgfmt [option] filename.po</pre></td></tr></table>
<table><tr><td>&nbsp;</td><td>only text</td></tr></table>
<table><tr><td>Name</td><td><p>Value</p></td></tr></table>`),
    URL,
    'text/html',
  );
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text]),
    [
      ['code', 'msgfmt [option] filename.po'],
      ['table', ' | only text'],
      ['table', 'Name | \nValue'],
    ],
  );
});

test('"Chapter 8." before a heading is its number, as "Appendix A." is', async () => {
  const doc = await extractBytes(
    page('<h2>Chapter 8. Data Types</h2><p>Types.</p><h2>Appendix A. Quick Reference</h2><p>Ref.</p>'),
    URL,
    'text/html',
  );
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.heading]),
    [
      ['8', 'Data Types'],
      ['A', 'Quick Reference'],
    ],
  );
});

test('an element whose only id is generated names no passage: blocks cite the section; the id anchors only uncovered text', async () => {
  // Sphinx's `<dl class="simple" id="index-0">` (an index target) and pandoc's `<div class="sourceCode" id="cb1">`
  // count what comes before them; docutils' `<section id="id3">` (a duplicate title) is still its section's name.
  const doc = await extractBytes(
    page(`<section id="syntax"><h2>Regular Expression Syntax</h2><p>The special characters are:</p>
<dl class="simple" id="index-0"><dt><code>.</code></dt><dd><p>(Dot.) Matches any character.</p></dd></dl>
<div class="sourceCode" id="cb1"><pre class="sourceCode"><code>re.compile("a.b")</code></pre></div>
<div id="wrapper"><p>A stable wrapper still names its blocks.</p></div></section>
<section id="id3"><h2>Examples</h2><p>Duplicate titles get a generated id.</p></section>`),
    URL,
    'text/html',
  );
  const fragmentOf = (start: string): [string | null, string[]] => {
    const block = doc.blocks.find((b) => b.text.startsWith(start))!;
    return [block.fragment, (block.anchors ?? []).map((a) => a.id)];
  };
  // The section's stable id covers the whole list, so its own generated id is no anchor (it would hide the fragment in a chunk).
  assert.deepEqual(fragmentOf('.\n(Dot.)'), ['syntax', []]);
  assert.deepEqual(fragmentOf('re.compile'), ['syntax', []], 'a wrapper with a generated id names nothing');
  assert.deepEqual(fragmentOf('A stable wrapper'), ['wrapper', []]);
  assert.deepEqual(fragmentOf('Duplicate titles'), ['id3', []]);
});

test("a block whose own id is generated, inside an element with a stable id, is cited by that id, not the block's before it", async () => {
  const doc = await extractBytes(
    page(`<h2 id="top">Top</h2><p><a id="lead"></a>A paragraph opened by an anchor.</p>
<div id="stable"><p id="cb5">Frobnicate the zanzibar widget.</p></div>`),
    URL,
    'text/html',
  );
  assert.equal(doc.blocks.find((b) => b.text.startsWith('Frobnicate'))!.fragment, 'stable');
  const part = buildDocumentPart(doc.documentId, chunkDocument(doc, DEFAULT_CHUNK_OPTIONS));
  const index = loadSearchIndex(
    mergeSearchIndex([part], { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS),
    'gen',
  );
  const response = runQuery(index, {
    terms: ['frobnicate zanzibar widget'],
    limit: 1,
    offset: 0,
    maxSnippetChars: 400,
    maxTotalChars: 8000,
  });
  assert.equal(response.hits[0]!.citation.fragment, 'stable');
});

test('a generated id written at the start of a block with a stable id of its own does not hide that id in the chunk', async () => {
  // Sphinx writes an index target inside the paragraph it indexes: `<p id="x"><span id="index-3"></span>…`.
  // Both ids start at one offset of the chunk, which keeps one id per offset: the stable one.
  const doc = await extractBytes(
    page(`<h2 id="top">Top</h2><p id="first">An opening paragraph about nothing in particular.</p>
<p id="second"><span id="index-3"></span>Frobnicate the zanzibar widget.</p>`),
    URL,
    'text/html',
  );
  const chunks = chunkDocument(doc, DEFAULT_CHUNK_OPTIONS);
  assert.equal(chunks.length, 1, 'both paragraphs in one chunk, so the second is cited by an anchor inside it');
  assert.ok(
    chunks[0]!.anchors!.some(([, id]) => id === 'second'),
    JSON.stringify(chunks[0]!.anchors),
  );
  const part = buildDocumentPart(doc.documentId, chunks);
  const index = loadSearchIndex(
    mergeSearchIndex([part], { chunkIndexFingerprint: 'fp', missingSources: [] }, DEFAULT_INDEX_OPTIONS),
    'gen',
  );
  for (const maxSnippetChars of [40, 400, 4000]) {
    const response = runQuery(index, { terms: ['frobnicate zanzibar widget'], limit: 1, offset: 0, maxSnippetChars, maxTotalChars: 8000 });
    assert.equal(response.hits[0]!.citation.fragment, 'second', `--max-snippet-chars ${maxSnippetChars}`);
  }
});
