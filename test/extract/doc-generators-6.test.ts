import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * Documentation generators, sixth sweep (man2html, roffit, YARD, MkDocs): each test is one class of
 * defect, written in the generator's markup pattern, on a host no family names.
 */
const URL = 'https://docs.example.test/page.html';

test("an empty anchor after a paragraph's last text names the heading after it (man2html's `<A NAME>&nbsp;</A>`)", async () => {
  const html =
    '<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">\n<HTML><HEAD><TITLE>Man page of GREP</TITLE>\n' +
    '</HEAD><BODY>\n<H1>GREP</H1>\nSection: User Commands (1)<BR><HR>\n\n<A NAME="lbAB">&nbsp;</A>\n<H2>NAME</H2>\n\n' +
    'grep, egrep - print lines that match patterns\n<A NAME="lbAC">&nbsp;</A>\n<H2>SYNOPSIS</H2>\n\n' +
    '<B>grep</B> [<I>OPTION</I>...] <I>PATTERNS</I>\n<A NAME="lbAD">&nbsp;</A>\n<H2>DESCRIPTION</H2>\n\n' +
    '<B>grep</B> searches for <I>PATTERNS</I> in each <I>FILE</I>.\n</BODY></HTML>\n';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.slice(1).map((s) => [s.fragment, s.heading]),
    [
      ['lbAB', 'NAME'],
      ['lbAC', 'SYNOPSIS'],
      ['lbAD', 'DESCRIPTION'],
    ],
  );
  const synopsis = doc.blocks.find((b) => b.text.startsWith('grep [OPTION'));
  assert.equal(synopsis?.fragment, 'lbAC');
  const name = doc.blocks.find((b) => b.text.startsWith('grep, egrep'));
  assert.equal(name?.fragment, 'lbAB');
  assert.ok(((name?.['anchors'] as { id: string }[] | undefined) ?? []).every((a) => a.id !== 'lbAC'));
});

test("an empty anchor at the end of a paragraph the next heading closes names that heading (roffit's `<a name>`)", async () => {
  const html =
    '<html><head><title>GREP man page</title><meta name="generator" content="roffit"></head><body>' +
    '<p class="level0"><a name="OPTIONS"></a><h2 class="nroffsh">OPTIONS</h2>' +
    '<p class="level0"><span class="manpage">--help</span> Output a usage message and exit. <a name="Pattern"></a>' +
    '<h2 class="nroffsh">Pattern Syntax</h2>' +
    '<p class="level0"><span class="manpage">-E</span> Interpret PATTERNS as extended regular expressions. <a name="Next"></a>' +
    '<p class="level0">A paragraph the anchor opens.</p></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => s.fragment),
    ['OPTIONS', 'Pattern'],
  );
  const ext = doc.blocks.find((b) => b.text.startsWith('-E'));
  assert.equal(ext?.fragment, 'Pattern');
  assert.ok(((ext?.['anchors'] as { id: string }[] | undefined) ?? []).every((a) => a.id !== 'Next'));
  // Followed by a paragraph, not a heading: the anchor opens that paragraph, as one between blocks does.
  const next = doc.blocks.find((b) => b.text.startsWith('A paragraph'));
  assert.deepEqual(next?.['anchors'], [{ id: 'Next', start: 0 }]);
});

test("a link's id around an icon (YARD's search button) does not name the heading after it; a self-link's does", async () => {
  const html =
    '<!DOCTYPE html><html><head><title>Module: YARD::Registry</title></head><body>' +
    '<div id="main"><div id="header"><div id="search"><a class="full_list_link" id="class_list_link" href="../class_list.html">' +
    '<svg width="24" height="24"><rect x="0" y="4" width="24" height="4"></rect></svg></a></div></div>' +
    '<div id="body"><h1>Module: YARD::Registry</h1><h2>Overview</h2><p>The registry is the data store.</p>' +
    '<a class="anchor" id="usage" href="#usage"></a><h2>Usage</h2><p>Load it first.</p></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  const ids = doc.sections.flatMap((s) => [s.fragment, ...((s['alternateIds'] as string[] | undefined) ?? [])]);
  assert.ok(!ids.includes('class_list_link'), `ids: ${ids.join(', ')}`);
  assert.equal(doc.blocks.find((b) => b.text.startsWith('The registry'))?.fragment, 'body');
  assert.equal(doc.sections.find((s) => s.heading === 'Usage')?.fragment, 'usage');
});

/** A YARD class page as its default template writes it (yard 0.9: div#main, #header, #content, #footer). */
function yardPage(footerHref: string): string {
  return (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>Module: YARD::Registry — YARD 0.9.28 Documentation</title>' +
    '<script type="text/javascript" charset="utf-8" src="../js/app.js"></script></head><body>' +
    '<div class="nav_wrap"><iframe id="nav" src="../class_list.html?1"></iframe><div id="resizer"></div></div>' +
    '<div id="main" tabindex="-1"><div id="header"><div id="menu"><a href="../_index.html">Index (R)</a> &raquo; ' +
    '<span class="title"><a href="../YARD.html">YARD</a></span> &raquo; <span class="title">Registry</span></div>' +
    '<div id="search"><a class="full_list_link" id="class_list_link" href="../class_list.html"><svg width="24" height="24">' +
    '<rect x="0" y="4" width="24" height="4"></rect></svg></a></div><div class="clear"></div></div>' +
    '<div id="content"><h1>Module: YARD::Registry</h1><div class="box_info"><dl><dt>Inherits:</dt><dd>' +
    '<span class="inheritName">Object</span><ul class="fullTree"><li>Object</li><li class="next">YARD::Registry</li></ul>' +
    '<a href="#" class="inheritanceTree">show all</a></dd></dl></div>' +
    '<h2>Overview</h2><div class="docstring"><div class="discussion"><p>The Registry is the centralized data store.</p></div></div>' +
    '<h2>Class Method Summary <small><a href="#" class="summary_toggle">collapse</a></small></h2><ul class="summary">' +
    '<li class="public "><span class="summary_signature"><a href="#clear-class_method" title="clear (class method)">' +
    '.<strong>clear</strong>  &#x21d2; void </a></span><span class="summary_desc"><div class="inline"><p>Clears the registry.</p>' +
    '</div></span></li></ul><div id="class_method_details" class="method_details_list"><h2>Class Method Details</h2>' +
    '<div class="method_details first"><h3 class="signature first" id="clear-class_method">.<strong>clear</strong>  &#x21d2; ' +
    '<tt>void</tt></h3><div class="docstring"><div class="discussion"><p>Clears the registry</p></div></div>' +
    '<table class="source_code"><tr><td><pre class="lines">\n\n\n200\n201</pre></td><td><pre class="code">' +
    '<span class="info file"># File \'lib/yard/registry.rb\', line 200</span>\n\ndef clear\n  self.thread_local_store = nil\nend</pre>' +
    `</td></tr></table></div></div></div><div id="footer">Generated by <a href="${footerHref}" ` +
    'title="Yay! A Ruby Documentation Tool" target="_parent">yard</a> 0.9.28 (ruby-3.1.2).</div></div></body></html>'
  );
}

test("YARD (chosen by its footer's link to yardoc.org): breadcrumb, search, footer, toggles and folded source are chrome", async () => {
  const doc = await extractBytes(yardPage('https://yardoc.org'), URL, 'text/html');
  assert.equal(doc.family, 'yard');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading]),
    [
      [null, 'Module: YARD::Registry'],
      [null, 'Overview'],
      [null, 'Class Method Summary'],
      [null, 'Class Method Details'],
      ['clear-class_method', '.clear ⇒ void'],
    ],
  );
  const text = doc.blocks.map((b) => b.text).join('\n');
  for (const chrome of ['Index (R)', 'Generated by', 'collapse', 'show all', "# File 'lib/yard/registry.rb'", 'thread_local_store']) {
    assert.ok(!text.includes(chrome), `${chrome} in ${text}`);
  }
  assert.deepEqual(
    doc.blocks.filter((b) => b.fragment === 'clear-class_method').map((b) => b.text),
    ['Clears the registry'],
  );
  // YARD before 0.9 linked its home page over http; a page that only mentions yardoc.org is not YARD's.
  assert.equal((await extractBytes(yardPage('http://yardoc.org/'), URL, 'text/html')).family, 'yard');
  const mention = yardPage('https://yardoc.org').replace('<div id="footer">', '<div id="credits">');
  assert.equal((await extractBytes(mention, URL, 'text/html')).family, 'generic');
});

/** A TypeDoc 0.28 class page (default theme): toolbar, breadcrumb, member index, one member group, sidebar, footer. */
function typedocPage(generator: string): string {
  return (
    '<!DOCTYPE html><html class="default" lang="en"><head><meta charset="utf-8"/><title>MiniSearch | minisearch</title>' +
    '<script defer src="../assets/main.js"></script></head><body><header class="tsd-page-toolbar">' +
    '<div class="tsd-toolbar-contents container"><a href="../index.html" class="title">minisearch</a>' +
    '<button id="tsd-search-trigger" class="tsd-widget" aria-label="Search"></button><dialog id="tsd-search" aria-label="Search">' +
    '<input role="combobox" id="tsd-search-input"/><div id="tsd-search-status"><div>Preparing search index...</div></div></dialog>' +
    '</div></header><div class="container container-main"><div class="col-content"><div class="tsd-page-title">' +
    '<ul class="tsd-breadcrumb" aria-label="Breadcrumb"><li><a href="" aria-current="page">MiniSearch</a></li></ul>' +
    '<h1>Class MiniSearch</h1></div><section class="tsd-panel tsd-comment"><div class="tsd-comment tsd-typography">' +
    '<p>MiniSearch is the main entrypoint class.</p></div></section>' +
    '<section class="tsd-panel-group tsd-index-group"><section class="tsd-panel tsd-index-panel">' +
    '<details class="tsd-index-content tsd-accordion" open><summary class="tsd-accordion-summary tsd-index-summary">' +
    '<h5 class="tsd-index-heading uppercase">Index</h5></summary><div class="tsd-accordion-details"><section class="tsd-index-section">' +
    '<h3 class="tsd-index-heading tsd-anchor-link" id="properties">Properties</h3><div class="tsd-index-list">' +
    '<a href="#_options" class="tsd-index-link tsd-is-protected"><span>_<wbr/>options</span></a></div></section></div>' +
    '</details></section></section><details class="tsd-panel-group tsd-member-group tsd-accordion" open>' +
    '<summary class="tsd-accordion-summary" data-key="section-Properties"><h2 class="tsd-anchor-link" id="properties-1">Properties' +
    '<a href="#properties-1" aria-label="Permalink" class="tsd-anchor-icon"></a></h2></summary><section>' +
    '<section class="tsd-panel tsd-member tsd-is-protected"><h3 class="tsd-anchor-link" id="_options">' +
    '<code class="tsd-tag">Protected</code>' +
    '<span>_<wbr/>options</span><a href="#_options" aria-label="Permalink" class="tsd-anchor-icon"></a></h3>' +
    '<div class="tsd-signature"><span class="tsd-kind-property">_options</span>: <span class="tsd-signature-type">Options</span></div>' +
    '<div class="tsd-comment tsd-typography"><p>The options the instance was created with.</p></div>' +
    '<aside class="tsd-sources"><ul><li>Defined in index.d.ts:804</li></ul></aside></section></section></details></div>' +
    '<div class="col-sidebar"><div class="page-menu"><div class="tsd-navigation settings"><details class="tsd-accordion">' +
    '<summary class="tsd-accordion-summary"><h3>Settings</h3></summary><div class="tsd-accordion-details">' +
    '<span class="settings-label">Member Visibility</span></div></details></div><details open class="tsd-accordion tsd-page-navigation">' +
    '<summary class="tsd-accordion-summary"><h3>On This Page</h3></summary><div class="tsd-accordion-details">' +
    '<a href="#_options"><span>_options</span></a></div></details></div></div></div>' +
    `<footer>${generator}</footer></body></html>`
  );
}

test("TypeDoc (chosen by its footer's tsd-generator link): toolbar, index, sidebar are chrome; flags are no part of a name", async () => {
  const footer = '<p class="tsd-generator">Generated using <a href="https://typedoc.org/" target="_blank">TypeDoc</a></p>';
  const doc = await extractBytes(typedocPage(footer), URL, 'text/html');
  assert.equal(doc.family, 'typedoc');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading]),
    [
      [null, 'Class MiniSearch'],
      ['properties-1', 'Properties'],
      ['_options', '_options'],
    ],
  );
  const text = doc.blocks.map((b) => b.text).join('\n');
  for (const chrome of ['Preparing search index', 'Member Visibility', 'On This Page', 'Generated using']) {
    assert.ok(!text.includes(chrome), `${chrome} in ${text}`);
  }
  assert.equal(doc.blocks[0]?.text, 'MiniSearch is the main entrypoint class.');
  // TypeDoc before 0.23 wrote its generator line as div.tsd-generator > p.
  const old = '<div class="tsd-generator"><p>Generated using <a href="https://typedoc.org/" target="_blank">TypeDoc</a></p></div>';
  assert.equal((await extractBytes(typedocPage(old), URL, 'text/html')).family, 'typedoc');
  const credit = '<p>Documentation made with <a href="https://typedoc.org/">TypeDoc</a></p>';
  assert.equal((await extractBytes(typedocPage(credit), URL, 'text/html')).family, 'generic');
});

/** A JSDoc 4 class page (default template): the title and description precede the <article> of members. */
function jsdocPage(footerLink: string): string {
  return (
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>JSDoc: Class: MiniSearch</title>' +
    '<script src="scripts/prettify/prettify.js"> </script></head><body><div id="main">' +
    '<h1 class="page-title">Class: MiniSearch</h1><section><header>' +
    '<h2><span class="attribs"><span class="type-signature"></span></span>MiniSearch<span class="signature">(options)</span></h2>' +
    '<div class="class-description">MiniSearch is the main entrypoint class, implementing a full-text search engine in memory.</div>' +
    '</header><article><div class="container-overview"><h2>Constructor</h2>' +
    '<h4 class="name" id="MiniSearch">new MiniSearch<span class="signature">(options)</span></h4></div>' +
    '<h3 class="subsection-title">Methods</h3><h4 class="name" id="search">search<span class="signature">(query)</span></h4>' +
    '<div class="description">Search for documents matching the given search query.</div></article></section></div>' +
    '<nav><h2><a href="index.html">Home</a></h2><h3>Classes</h3><ul><li><a href="MiniSearch.html">MiniSearch</a></li></ul></nav>' +
    `<br class="clear"><footer>Documentation generated by <a href="${footerLink}">JSDoc 4.0.5</a> on Sat Dec 05 2026</footer>` +
    '<script> prettyPrint(); </script></body></html>'
  );
}

test("JSDoc (chosen by its footer's link to JSDoc): the page's title and description before the members' <article> are read", async () => {
  const doc = await extractBytes(jsdocPage('https://github.com/jsdoc/jsdoc'), URL, 'text/html');
  assert.equal(doc.family, 'jsdoc');
  assert.deepEqual(
    doc.sections.map((s) => s.heading),
    ['Class: MiniSearch', 'MiniSearch(options)', 'Constructor', 'new MiniSearch(options)', 'Methods', 'search(query)'],
  );
  assert.equal(doc.blocks[0]?.text, 'MiniSearch is the main entrypoint class, implementing a full-text search engine in memory.');
  const text = doc.blocks.map((b) => b.text).join('\n');
  assert.ok(!text.includes('Documentation generated'), text);
  // JSDoc 3 linked its repository under jsdoc3.
  assert.equal((await extractBytes(jsdocPage('https://github.com/jsdoc3/jsdoc'), URL, 'text/html')).family, 'jsdoc');
  assert.equal((await extractBytes(jsdocPage('https://example.test/jsdoc'), URL, 'text/html')).family, 'generic');
});

test("TypeDoc: headings a member's author writes in its description nest below the member (nestedHeadingSelectors)", async () => {
  const member =
    '<details class="tsd-panel-group tsd-member-group tsd-accordion" open><summary class="tsd-accordion-summary">' +
    '<h2 class="tsd-anchor-link" id="methods">Methods</h2></summary><section>' +
    '<section class="tsd-panel tsd-member"><h3 class="tsd-anchor-link" id="loadjson"><code class="tsd-tag">Static</code>' +
    '<span>load<wbr/>JSON</span></h3><ul class="tsd-signatures"><li class=""><div class="tsd-signature tsd-anchor-link" ' +
    'id="loadjson-1">loadJSON(json: string): MiniSearch</div><div class="tsd-description"><div class="tsd-comment tsd-typography">' +
    '<p>Deserializes a JSON index.</p><h3 id="usage" class="tsd-anchor-link">Usage:</h3><pre><code>MiniSearch.loadJSON(json)</code>' +
    '</pre><h4 id="notes">Notes</h4><p>The options must be the same.</p></div><div class="tsd-parameters">' +
    '<h4 class="tsd-parameters-title">Parameters</h4><ul class="tsd-parameter-list"><li><span>json: string</span>' +
    '<div class="tsd-comment tsd-typography"><p>JSON-serialized index</p></div></li></ul></div>' +
    '<h4 class="tsd-returns-title">Returns MiniSearch</h4><p>An instance of MiniSearch.</p></div></li></ul></section>' +
    '<section class="tsd-panel tsd-member"><h3 class="tsd-anchor-link" id="tojson"><span>toJSON</span></h3></section>' +
    '</section></details>';
  const footer = '<p class="tsd-generator">Generated using <a href="https://typedoc.org/" target="_blank">TypeDoc</a></p>';
  const html = typedocPage(footer).replace(/<details class="tsd-panel-group tsd-member-group[\s\S]*<\/details><\/div>/, `${member}</div>`);
  const doc = await extractBytes(html, URL, 'text/html');
  const byHeading = new Map(doc.sections.map((s) => [s.heading, s]));
  const outline = doc.sections.map((s) => [
    s.heading,
    s.level,
    s.parentId === null ? null : doc.sections.find((p) => p.id === s.parentId)?.heading,
  ]);
  assert.deepEqual(outline, [
    ['Class MiniSearch', 1, null],
    ['Methods', 2, 'Class MiniSearch'],
    ['loadJSON', 3, 'Methods'],
    ['Usage:', 4, 'loadJSON'],
    ['Notes', 4, 'loadJSON'],
    ['Parameters', 4, 'loadJSON'],
    ['Returns MiniSearch', 4, 'loadJSON'],
    ['toJSON', 3, 'Methods'],
  ]);
  assert.equal(byHeading.get('Usage:')?.fragment, 'usage');
});

test("Hugo's Markdown sources: a line of shortcode tags alone is markup, not text; the text between them stays", async () => {
  const md = [
    '---',
    'layout: docs',
    'title: Alerts',
    '---',
    '',
    '## Examples',
    '',
    'Alerts are available for any length of text.',
    '{{< example >}}',
    '<div class="alert alert-primary" role="alert">',
    '  A simple primary alert—check it out!',
    '</div>',
    '{{< /example >}}',
    '',
    '{{< callout info >}}',
    '{{< partial "callout-warning-color-assistive-technologies.md" >}}',
    '{{< /callout >}}',
    '',
    '### Triggers',
    '',
    '{{% js-dismiss "alert" %}}',
    '',
    'Note that closing an alert will remove it from the DOM, as {{< param "name" >}} does.',
    '',
    '```go-html-template',
    '{{< example >}}',
    '```',
  ].join('\n');
  const doc = await extractBytes(md, 'https://raw.githubusercontent.com/twbs/bootstrap/main/site/content/docs/alerts.md', 'text/plain');
  assert.deepEqual(
    doc.blocks.map((b) => [b.kind, b.text]),
    [
      ['paragraph', 'Alerts are available for any length of text.'],
      ['paragraph', 'A simple primary alert—check it out!'],
      ['paragraph', 'Note that closing an alert will remove it from the DOM, as {{< param "name" >}} does.'],
      ['code', '{{< example >}}'],
    ],
  );
});

test('MediaWiki (chosen by its generator meta): tagline, subtitle, [edit] links, print footer and categories are chrome', async () => {
  const html =
    '<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8" /><title>std::sort - cppreference.com</title>' +
    '<meta name="generator" content="MediaWiki 1.21.2" /></head><body class="mediawiki ltr"><div id="cpp-content-base">' +
    '<div id="content"><a id="top"></a><h1 id="firstHeading" class="firstHeading">std::sort</h1><div id="bodyContent">' +
    '<div id="siteSub">From cppreference.com</div><div id="contentSub"><span class="subpages">&lt; <a href="../../cpp.html">cpp</a>' +
    '&lrm; | <a href="../algorithm.html">algorithm</a></span></div><div id="mw-content-text">' +
    '<div class="t-navbar" style=""><div class="t-navbar-sep"> </div><div class="t-navbar-head"><a href="../../cpp.html">C++</a>' +
    '</div><div class="t-navbar-menu"><div><table class="t-nv-begin"><tr class="t-nv"><td><a href="../language.html">Language</a>' +
    '</td></tr></table></div></div></div><p>Sorts the elements in the range in ascending order.</p>' +
    '<h3><span class="mw-editsection">[<a href="/edit?section=1" title="Edit section: Example">edit</a>]</span> ' +
    '<span class="mw-headline" id="Example">Example</span></h3><div class="t-example"><div class="t-example-live-link">' +
    '<div class="coliru-btn coliru-btn-run-init">Run this code</div></div><div class="cpp source-cpp"><pre class="de1">' +
    'std::sort(s.begin(), s.end());</pre></div></div></div><div class="printfooter">Retrieved from "<a href="http://x/?oldid=1">' +
    'http://x/?oldid=1</a>"</div><div id="catlinks" class="catlinks"><div class="mw-normal-catlinks">Category: ' +
    '<ul><li>Algorithms</li></ul></div></div></div></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.family, 'mediawiki');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading]),
    [
      ['firstHeading', 'std::sort'],
      ['Example', 'Example'],
    ],
  );
  assert.deepEqual(
    doc.blocks.map((b) => b.text),
    ['Sorts the elements in the range in ascending order.', 'std::sort(s.begin(), s.end());'],
  );
});
