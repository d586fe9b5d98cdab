import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * Documentation generators' HTML (a sweep of Sphinx, rustdoc, mdBook and javadoc pages): each test is
 * one class of defect, written in the generator's markup pattern, on a host no family names.
 */
const URL = 'https://docs.example.test/page.html';

test('headings inside <details> open sections: a folded method is a section, its docs cited at its id, not the wrapper', async () => {
  // rustdoc folds each method (its signature heading in the summary) and each top doc in <details open>.
  const html =
    '<!doctype html><title>Option</title><main><section id="main-content"><h1>Enum Option</h1>' +
    '<details class="rustdoc-toggle top-doc" open><summary class="hideme"><span>Expand</span></summary>' +
    '<div class="docblock"><p>The optional type.</p><h2 id="representation"><a href="#representation">Representation</a></h2>' +
    '<p>Niche optimised.</p></div></details>' +
    '<h2 id="implementations">Implementations</h2><div id="implementations-list">' +
    '<details class="rustdoc-toggle method-toggle" open><summary><section id="method.is_some" class="method">' +
    '<h4 class="code-header">pub fn <a href="#method.is_some" class="fnname">is_some</a>(&amp;self) -&gt; bool</h4></section></summary>' +
    '<div class="docblock"><p>Returns true if the option is a Some value.</p><h5 id="examples">Examples</h5>' +
    '<pre><code>assert!(Some(2).is_some());</code></pre></div></details>' +
    '<details class="rustdoc-toggle" open><summary><div id="tymethod.next" class="method">' +
    '<h4 class="code-header">fn <a href="#tymethod.next" class="fnname">next</a>(&amp;mut self)</h4></div></summary>' +
    '<div class="docblock"><p>Advances the iterator.</p></div></details>' +
    '</div></section></main>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [1, 'main-content', 'Enum Option'],
      [2, 'representation', 'Representation'],
      [2, 'implementations', 'Implementations'],
      [4, 'method.is_some', 'pub fn is_some(&self) -> bool'],
      [5, 'examples', 'Examples'],
      // No id of its own: the wrapper its self-link names is the id a reader opens.
      [4, 'tymethod.next', 'fn next(&mut self)'],
    ],
  );
  const citedAt = (text: string): string | null | undefined => doc.blocks.find((b) => b.text === text)?.fragment;
  assert.equal(citedAt('Niche optimised.'), 'representation');
  assert.equal(citedAt('Returns true if the option is a Some value.'), 'method.is_some', 'not the wrapper #implementations-list');
  assert.equal(citedAt('assert!(Some(2).is_some());'), 'examples');
  assert.equal(citedAt('Advances the iterator.'), 'tymethod.next');
});

test('a block after a subsection closed is still cited at the section element around it, not at the subsection', async () => {
  // ReSpec writes the IDL of a second interface after the first one's "Attributes" subsection.
  const html =
    '<!doctype html><title>t</title><section id="events"><h3>Events</h3><pre>interface A {};</pre>' +
    '<section id="attributes"><h4>Attributes</h4><p>The attributes.</p></section><pre>dictionary B {};</pre></section>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.blocks.map((b) => [b.fragment, b.text]),
    [
      ['events', 'interface A {};'],
      ['attributes', 'The attributes.'],
      ['events', 'dictionary B {};'],
    ],
  );
});

test('a heading without an id is named by the enclosing element its permalink targets (Sphinx before docutils 0.17)', async () => {
  const html =
    '<!doctype html><title>t</title><div class="body" role="main"><div class="section" id="logging-howto">' +
    '<h1>Logging HOWTO<a class="headerlink" href="#logging-howto" title="Permalink to this headline">¶</a></h1>' +
    '<div class="section" id="when-to-use-logging"><h2>When to use logging<a class="headerlink" href="#when-to-use-logging">¶</a></h2>' +
    '<p>Logging provides functions.</p></div></div></div>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.heading]),
    [
      [1, 'logging-howto', 'Logging HOWTO'],
      [2, 'when-to-use-logging', 'When to use logging'],
    ],
  );
  assert.equal(doc.blocks[0]!.fragment, 'when-to-use-logging');
});

test('permalink glyphs (¶, #, 🔗) are not text: not in API entry terms, captions or headings, and not links', async () => {
  const html =
    '<!doctype html><title>t</title><div role="main"><section id="module-http.cookies">' +
    '<h1>http.cookies<a class="headerlink" href="#module-http.cookies">¶</a></h1>' +
    '<dl class="py class"><dt class="sig sig-object py" id="http.cookies.SimpleCookie"><em class="property">class </em>' +
    '<span class="sig-prename">http.cookies.</span><span class="sig-name">SimpleCookie</span>([<em>input</em>])' +
    '<a class="headerlink" href="#http.cookies.SimpleCookie" title="Permalink to this definition">¶</a></dt>' +
    '<dd><p>This class derives from BaseCookie.</p></dd></dl>' +
    '<table class="docutils" id="id1"><caption><span class="caption-text">Flags</span>' +
    '<a class="headerlink" href="#id1" title="Permalink to this table">¶</a></caption><tr><th>Flag</th></tr><tr><td>x</td></tr></table>' +
    // Hugo's and Jekyll's anchors carry no class the family strips and are not aria-hidden: each glyph
    // is dropped as a permalink (isPermalinkGlyph), not by headingStripSelectors or pruneSelectors.
    '<h2 id="usage">Usage <a href="#usage">#</a></h2><h3 id="more">More <a href="#more">🔗</a></h3>' +
    '<h4 id="notes">Notes<a href="#notes">¶</a></h4>' +
    '<p>See <a href="#usage">#</a> and <a id="x" href="#x">¶</a> kept.</p></section></div>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    // The API entry is a section (api-entries.test.ts) headed by its name.
    ['http.cookies', 'http.cookies.SimpleCookie', 'Usage', 'More', 'Notes'],
  );
  const signature = doc.blocks.find((b) => b.text.startsWith('class '))!;
  assert.equal(signature.text, 'class http.cookies.SimpleCookie([input])');
  assert.equal(signature.fragment, 'http.cookies.SimpleCookie', 'the entry is citable at its id');
  assert.deepEqual(signature.links ?? [], [], 'the glyph is no link of the text');
  assert.equal(doc.blocks.find((b) => b.text === 'This class derives from BaseCookie.')?.fragment, 'http.cookies.SimpleCookie');
  assert.equal(doc.blocks.find((b) => b.kind === 'table')!.caption, 'Flags');
  assert.equal(doc.blocks.at(-1)!.text, 'See # and ¶ kept.', 'a glyph linking elsewhere and an anchor that names a place are text');
});

test('a lone capital letter without a dot is a word of the heading, not an appendix number', async () => {
  const html =
    '<!doctype html><title>t</title><h2 id="a">A simple example</h2><h2 id="b">A. Acknowledgments</h2>' +
    '<h2 id="c">Appendix B Changes</h2><h2 id="d">2 Terminology</h2><h3 id="e">A.1 Details</h3><h2 id="f">I Want It</h2>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.number, s.heading]),
    [
      [null, 'A simple example'],
      ['A', 'Acknowledgments'],
      ['B', 'Changes'],
      ['2', 'Terminology'],
      ['A.1', 'Details'],
      [null, 'I Want It'],
    ],
  );
});

test('a code block takes its language from its <code> (CommonMark, mdBook) or its Pygments wrapper (Sphinx)', async () => {
  const html =
    '<!doctype html><title>t</title><h1 id="t">T</h1>' +
    '<pre><pre class="playground"><code class="language-rust">let s = "hello";</code></pre></pre>' +
    '<div class="highlight-python3 notranslate"><div class="highlight"><pre><span></span>import logging</pre></div></div>' +
    '<div class="highlight-default notranslate"><div class="highlight"><pre>x = 1</pre></div></div>' +
    '<div class="highlight highlight-source-js"><pre>let a;</pre></div>' +
    '<pre class="lang-css">a { }</pre><pre><code>plain</code> text</pre>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.language, b.text]),
    [
      ['code', 'rust', 'let s = "hello";'],
      ['code', 'python3', 'import logging'],
      ['code', undefined, 'x = 1'],
      ['code', 'js', 'let a;'],
      ['code', 'css', 'a { }'],
      ['code', undefined, 'plain text'],
    ],
  );
});

test('javadoc: summaries laid out as grids are tables, also inside its layout lists; breadcrumbs and tabs are chrome', async () => {
  const html =
    '<!DOCTYPE html><html><head><meta name="generator" content="javadoc/ClassWriterImpl"><title>ArrayList (Java SE 17)</title></head>' +
    '<body><main role="main"><div class="header"><div class="sub-title"><span>Module</span>&nbsp;<a href="m.html">java.base</a></div>' +
    '<div class="sub-title"><span>Package</span>&nbsp;<a href="p.html">java.util</a></div>' +
    '<h1 class="title">Class ArrayList&lt;E&gt;</h1></div>' +
    '<section class="summary"><ul class="summary-list"><li><section class="method-summary" id="method-summary"><h2>Method Summary</h2>' +
    '<div id="method-summary-table"><div class="table-tabs" role="tablist"><button class="active-table-tab">All Methods</button>' +
    '<button class="table-tab">Instance Methods</button></div><div id="method-summary-table.tabpanel" role="tabpanel">' +
    '<div class="summary-table three-column-summary"><div class="table-header col-first">Modifier and Type</div>' +
    '<div class="table-header col-second">Method</div><div class="table-header col-last">Description</div>' +
    '<div class="col-first even-row-color"><code>void</code></div><div class="col-second even-row-color"><code>' +
    '<a href="#add(int,E)" class="member-name-link">add</a>(int&nbsp;index, E&nbsp;element)</code></div>' +
    '<div class="col-last even-row-color"><div class="block">Inserts the specified element.</div></div>' +
    '<div class="col-first odd-row-color"><code>boolean</code></div><div class="col-second odd-row-color"><code>' +
    '<a href="#add(E)" class="member-name-link">add</a>(E&nbsp;e)</code></div>' +
    '<div class="col-last odd-row-color"><div class="block">Appends the specified element.</div></div>' +
    '</div></div></div></section></li></ul></section>' +
    // No heading in this list: it is walked as a container for its grid table alone.
    '<section class="summary"><ul class="summary-list"><li><div id="related-package-summary">' +
    '<div class="caption"><span>Related Packages</span></div>' +
    '<div class="summary-table two-column-summary"><div class="table-header col-first">Package</div>' +
    '<div class="table-header col-last">Description</div><div class="col-first"><a href="c.html">java.util.concurrent</a></div>' +
    '<div class="col-last"><div class="block">Utility classes.</div><div class="block">Callers <em class="rfc2119">MUST</em> lock.</div>' +
    '</div></div></div></li></ul></section>' +
    // A grid that opens with no header cell is no table: its text stays.
    '<div class="summary-table"><div class="col-first">loose</div></div></main></body></html>';
  const doc = await extractBytes(
    html,
    'https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/util/ArrayList.html',
    'text/html',
  );
  assert.equal(doc.family, 'javadoc');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.fragment, b.text]),
    [
      [
        'table',
        'method-summary-table.tabpanel',
        'Modifier and Type | Method | Description\nvoid | add(int index, E element) | Inserts the specified element.\n' +
          'boolean | add(E e) | Appends the specified element.',
      ],
      ['table', 'related-package-summary', 'Package | Description\njava.util.concurrent | Utility classes. Callers MUST lock.'],
      ['paragraph', 'method-summary', 'loose'],
    ],
  );
  const methods = doc.blocks[0]!;
  assert.deepEqual(methods.header, [['Modifier and Type', 'Method', 'Description']]);
  assert.deepEqual(methods.rows, [
    ['void', 'add(int index, E element)', 'Inserts the specified element.'],
    ['boolean', 'add(E e)', 'Appends the specified element.'],
  ]);
  assert.deepEqual(
    (methods.links as { href: string }[]).map((l) => l.href),
    [
      'https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/util/ArrayList.html#add(int,E)',
      'https://docs.oracle.com/en/java/javase/17/docs/api/java.base/java/util/ArrayList.html#add(E)',
    ],
  );
  // A summary's div.caption is its table's caption, not a paragraph before it.
  assert.equal(doc.blocks[1]!.caption, 'Related Packages');
  // A keyword a grid cell marks is kept, at its place in the table's text (its cell's blocks on one line).
  const related = doc.blocks[1]!;
  const keywords = (related.keywords ?? []) as { keyword: string; start: number; end: number; marked?: boolean }[];
  assert.deepEqual(
    keywords.map((k) => [k.keyword, related.text.slice(k.start, k.end), k.marked]),
    [['MUST', 'MUST', true]],
  );
});
