import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * Documentation generators, fifth sweep (Qt's qdoc, mdBook, Sphinx's own documentation, DocBook XSL's XHTML):
 * each test is one class of defect, written in the generator's markup pattern, on a host no family names.
 */
const URL = 'https://docs.example.test/page.html';

test("Sphinx's viewcode `[source]` link is chrome: not in an entry's heading, its signature or its links", async () => {
  const html =
    '<!DOCTYPE html><html><head><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />' +
    '<title>Application API</title></head><body><div role="main"><section id="application-api"><h1>Application API</h1>' +
    '<dl class="py class"><dt class="sig sig-object py" id="pkg.app.App"><em class="property"><span class="pre">class</span> </em>' +
    '<span class="sig-prename descclassname"><span class="pre">pkg.app.</span></span>' +
    '<span class="sig-name descname"><span class="pre">App</span></span>' +
    '<a class="reference internal" href="../_modules/pkg/app.html#App">' +
    '<span class="viewcode-link"><span class="pre">[source]</span></span></a>' +
    '<a class="headerlink" href="#pkg.app.App" title="Permalink to this definition">¶</a></dt>' +
    '<dd><p>The application object.</p></dd></dl></section></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  const entry = doc.sections.find((s) => s.id === 'pkg.app.App');
  assert.equal(entry?.heading, 'pkg.app.App');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.doesNotMatch(text, /\[source\]/);
  const links = doc.blocks.flatMap((b) => (b['links'] as { href: string; text: string }[] | undefined) ?? []);
  assert.ok(links.every((l) => !l.href.includes('_modules')));
});

test("mdBook: the lines a Rust example hides (`span.boring`) are not the example's code", async () => {
  const html =
    '<!DOCTYPE html><html><head><title>Variable Scope - The Book</title></head><body>' +
    '<nav id="sidebar" class="sidebar"><ol class="chapter"><li><a href="ch01.html">Getting Started</a></li></ol></nav>' +
    '<main><h2 id="variable-scope"><a class="header" href="#variable-scope">Variable Scope</a></h2>' +
    '<p>A scope is the range within a program for which an item is valid.</p>' +
    '<pre><pre class="playground"><code class="language-rust">\n' +
    '<span class="boring">#![allow(unused)]\n</span><span class="boring">fn main() {\n</span>let s = &quot;hello&quot;;\n' +
    '<span class="boring">}\n</span></code></pre></pre></main></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  const code = doc.blocks.filter((b) => b.kind === 'code');
  assert.equal(code.length, 1);
  assert.equal(code[0]!.text.trim(), 'let s = "hello";');
  assert.equal(code[0]!['language'], 'rust');
});

test('DocBook XSL in XHTML: a variable-list term that opens with `<a id>` (not `<a name>`) is an API entry', async () => {
  const html =
    '<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>Options</title>' +
    '<meta name="generator" content="DocBook XSL Stylesheets Vsnapshot" /></head><body>' +
    '<div class="section"><div class="titlepage"><h2 class="title"><a id="secOptions"></a>Options</h2></div>' +
    '<p>The following options are recognised.</p><div class="variablelist"><dl class="variablelist">' +
    '<dt><a id="cmdlineInstall"></a><span class="term"><code class="literal">install</code></span></dt>' +
    '<dd><p>Install one or more packages.</p></dd>' +
    '<dt><a id="cmdlineRemove"></a><span class="term"><code class="literal">remove</code></span></dt>' +
    '<dd><p>Remove one or more packages.</p></dd></dl></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.family, 'docbook');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading]),
    [
      ['secOptions', 'Options'],
      ['cmdlineInstall', 'install'],
      ['cmdlineRemove', 'remove'],
    ],
  );
  assert.ok(doc.blocks.some((b) => b.text === 'Remove one or more packages.' && b.id.startsWith('cmdlineRemove~')));
});

test('qdoc: a group of signature headings (`div.fngroup`) is one entry, the later forms its alternate ids', async () => {
  const fn = (id: string, sig: string): string => `<h3 class="fn fngroupitem" id="${id}"><a name="${id}"></a>${sig}</h3>`;
  const html =
    '<!DOCTYPE html><html lang="en"><head><title>QObject Class | Qt Core 5.15.8</title></head><body>' +
    '<div class="content mainContent"><h1 class="title">QObject Class</h1>' +
    '<div class="func"><h2>Member Function Documentation</h2>' +
    '<h3 class="fn" id="parent"><a name="parent"></a>QObject *QObject::parent() const</h3>' +
    '<p>Returns a pointer to the parent object.</p>' +
    '<div class="fngroup">' +
    fn('qobject_cast', 'template &lt;typename T&gt; T qobject_cast(QObject *object)') +
    fn('qobject_cast-1', 'template &lt;typename T&gt; T qobject_cast(const QObject *object)') +
    '</div><p>Returns the given object cast to type T if the object is of type T.</p>' +
    '<h3 class="fn" id="tr"><a name="tr"></a>QString QObject::tr(const char *sourceText)</h3>' +
    '<p>Returns a translated version of sourceText.</p></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.level, s.fragment, s.alternateIds ?? []]),
    [
      [1, null, []],
      [2, null, []],
      [3, 'parent', []],
      [3, 'qobject_cast', ['qobject_cast-1']],
      [3, 'tr', []],
    ],
  );
  const cast = doc.blocks.filter((b) => b.id.startsWith('qobject_cast'));
  assert.deepEqual(
    cast.map((b) => [b.fragment, b.text]),
    [
      ['qobject_cast-1', 'template <typename T> T qobject_cast(const QObject *object)'],
      ['qobject_cast', 'Returns the given object cast to type T if the object is of type T.'],
    ],
  );
  // A title and its subtitle in an <hgroup>, or a wrapper of one heading, are no group.
  const hgroup = await extractBytes(
    '<!DOCTYPE html><html><body><main><hgroup><h2 id="a">Title</h2><h2 id="b">Subtitle</h2></hgroup><p>Text.</p></main></body></html>',
    URL,
    'text/html',
  );
  assert.deepEqual(
    hgroup.sections.map((s) => s.fragment),
    ['a', 'b'],
  );
});

test('an element holding anchors alone (`<p><a id></a></p>`, mdBook) names the heading after it; its own id does not', async () => {
  const html =
    '<!DOCTYPE html><html><head><title>Command-line Arguments - The rustc book</title></head><body><main>' +
    '<h1 id="command-line-arguments"><a class="header" href="#command-line-arguments">Command-line Arguments</a></h1>' +
    '<p>Here is a list of command-line arguments.</p>' +
    '<p><a id="option-help"></a></p>' +
    '<h2 id="-h--help-get-help"><a class="header" href="#-h--help-get-help"><code>-h</code>/<code>--help</code>: get help</a></h2>' +
    '<p>This flag prints help.</p>' +
    '<aside id="meta" class="alert"></aside>' +
    '<h2 id="cfg"><a class="header" href="#cfg"><code>--cfg</code></a></h2><p>Configures.</p></main></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.id, s.alternateIds ?? []]),
    [
      ['command-line-arguments', []],
      ['-h--help-get-help', ['option-help']],
      ['cfg', []],
    ],
  );
});

/**
 * Docutils writes a `.. contents::` table as `div.contents.topic` (older writers) or a navigation
 * landmark with the DPUB role `doc-toc`; each entry a link with a generated id (`toc-entry-10`). It is
 * the page's table of contents, chrome as `#toc` and `.toc` are: read as text, it listed every
 * section's name and ranked first for them, cited at a contents entry.
 */
test('a docutils table of contents (div.contents.topic, role=doc-toc) is chrome', async () => {
  const html =
    '<!DOCTYPE html><html><head><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />' +
    '<title>Directives</title></head><body><main><h1>Directives</h1>' +
    '<div class="contents topic" id="contents"><p class="topic-title">Contents</p><ul class="simple">' +
    '<li><a class="reference internal" href="#include" id="toc-entry-1">Including an External Document Fragment</a></li></ul></div>' +
    '<div role="doc-toc"><ul><li><a href="#include">Including again</a></li></ul></div>' +
    '<section id="include"><h2><a class="toc-backref" href="#toc-entry-1">Including an External Document Fragment</a></h2>' +
    '<p>The include directive reads a file.</p></section></main></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.doesNotMatch(text, /Contents|Including/);
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading]),
    [
      [null, 'Directives'],
      ['include', 'Including an External Document Fragment'],
    ],
  );
});

/**
 * Docutils' HTML4 writer (docutils' own pages, Sphinx before its HTML5 writer) wraps each section in
 * `<div class="section" id="table-of-contents">`, the same construct as HTML5's `<section id>`, and
 * writes an explicit target's label as an empty `<span id>` before the heading. The section is named
 * by the div's id, the label an alternate id; it was named by the label, and the div's id, the one
 * docutils derives from the title, was nowhere.
 */
test("docutils' HTML4 sections (div.section[id]) are named by the div's id, a label before the heading an alternate", async () => {
  const html =
    '<!DOCTYPE html><html><head><meta name="generator" content="Docutils 0.19: https://docutils.sourceforge.io/" />' +
    '<title>Directives</title></head><body><div class="document"><h1 class="title">Directives</h1>' +
    '<div class="section" id="document-parts"><h1>Document Parts</h1>' +
    '<div class="section" id="table-of-contents"><span id="contents-1"></span><h2>Table of Contents</h2>' +
    '<p>The contents directive generates a table of contents.</p></div></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.alternateIds ?? [], s.heading]),
    [
      [null, [], 'Directives'],
      ['document-parts', [], 'Document Parts'],
      ['table-of-contents', ['contents-1'], 'Table of Contents'],
    ],
  );
});

/**
 * A page that declares itself XHTML writes every empty element as `<tag/>`; read as HTML, a non-void
 * one stays open. ImageMagick's pages put `<iframe .../>` in their menu: the iframe held the rest of
 * the page and nothing after the menu was text. Declared XHTML, `/>` closes the element; declared
 * HTML, it does not (a browser's reading).
 */
test('a page declaring XHTML reads <tag/> as an empty element; a page declaring HTML does not', async () => {
  const body =
    '<body><nav><ul><li><iframe src="https://example.test/button" title="Sponsor"/></li></ul></nav>' +
    '<main><h1>Options</h1><div><h3><a class="anchor" id="limit"/>-limit <var>type value</var></h3></div>' +
    '<p>Set the pixel cache resource limit.</p></main></body></html>';
  const xhtml = await extractBytes(
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.1//EN" "http://www.w3.org/TR/xhtml11/DTD/xhtml11.dtd"><html lang="en"><head>' +
      `<title>Options</title></head>${body}`,
    URL,
    'text/html',
  );
  assert.ok(xhtml.blocks.some((b) => b.text === 'Set the pixel cache resource limit.'));
  assert.deepEqual(
    xhtml.sections.map((s) => [s.fragment, s.heading]),
    [
      [null, 'Options'],
      ['limit', '-limit type value'],
    ],
  );
  const namespaced = await extractBytes(
    `<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Options</title></head>${body}`,
    URL,
    'text/html',
  );
  assert.ok(namespaced.blocks.some((b) => b.text === 'Set the pixel cache resource limit.'));
  // Declared HTML: the iframe's `/>` is ignored, as a browser ignores it, and the iframe holds the rest.
  const html = await extractBytes(`<!DOCTYPE html><html><head><title>Options</title></head>${body}`, URL, 'text/html');
  assert.ok(!html.blocks.some((b) => b.text === 'Set the pixel cache resource limit.'));
});
