import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * Documentation generators' HTML, fourth sweep (Haddock, Erlang/OTP's erl_docgen, Node.js's doc tool,
 * the Go website's page sources, the Lua manual): each test is one class of defect, written in the
 * generator's markup pattern, on a host no family names (the family comes from the generator's markup).
 */
const URL = 'https://docs.example.test/page.html';

const allText = (doc: { blocks: { text: string }[]; sections: { heading: string }[] }): string =>
  [...doc.sections.map((s) => s.heading), ...doc.blocks.map((b) => b.text)].join('\n');

test('an <article> beside other <article>s is no extraction root: every one is read', async () => {
  const html =
    '<!DOCTYPE html><html><head><title>Notes</title></head><body><h1>Notes</h1>' +
    '<article><h2 id="one">First</h2><p>The first note.</p></article>' +
    '<article><h2 id="two">Second</h2><p>The second note.</p></article></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => s.fragment),
    [null, 'one', 'two'],
  );
  assert.ok(doc.blocks.some((b) => b.text === 'The second note.' && b.fragment === 'two'));
  const single = await extractBytes(
    '<!DOCTYPE html><html><body><p>Site banner.</p><article><h1>Post</h1><p>Body.</p></article></body></html>',
    URL,
    'text/html',
  );
  assert.doesNotMatch(allText(single), /Site banner/, 'one article is still the root');
});

test('erl_docgen: functions as <article>s are all read as entries; chrome pruned; "Types" labels its function', async () => {
  const head = (id: string, name: string, since = ''): string =>
    `<h4 id="${id}" class="bold_code title-link func-head"><div class="title-anchors"><span class="ghlink-before">` +
    `<a href="#${id}" title="Link to this place!"><span class="paperclip-before"></span></a></span></div>` +
    `<span class="title-name">${name}</span>${since}</h4>`;
  const html =
    '<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">' +
    '<html xmlns:erl="http://erlang.org" xmlns:fn="http://www.w3.org/2005/02/xpath-functions"><head><title>Erlang -- lists</title>' +
    '</head><body><div id="container"><div class="topbar"><div class="topbar-title"><h1 id="lists">lists</h1></div></div>' +
    '<aside class="hide-mobile" id="leftnav"><nav class="leftnav-tube"><p class="section-title">STDLIB</p>' +
    '<ul><li><a href="lists.html#all-2">all/2</a></li></ul></nav><p class="section-version">Version 4.2</p></aside>' +
    '<div id="content"><div class="innertube"><center><h1>lists</h1></center></div>' +
    '<div class="innertube"><h3 id="export" class="title-link"><div class="title-name">Exports</div></h3></div>' +
    '<div class="exports-body"><article class="func">' +
    head('all-2', 'all(Pred, List) -&gt; boolean()') +
    '<div class="REFBODY fun-types"><h3 id="types" class="func-types-title">Types</h3>' +
    '<div class="REFTYPES rt-1"><span class="bold_code bc-2">List = [T]</span></div></div>' +
    '<div class="exports-tube"><div class="REFBODY rb-7"><p>Returns true if Pred(Elem) returns true for all elements.</p></div></div>' +
    '</article><article class="func">' +
    head('droplast-1', 'droplast(List) -&gt; InitList', '<div class="title-since"><span class="since">OTP 17.0</span></div>') +
    '<div class="REFBODY fun-types"><h3 id="types" class="func-types-title">Types</h3>' +
    '<div class="REFTYPES rt-1"><span class="bold_code bc-2">List = [T, ...]</span></div></div>' +
    '<div class="exports-tube"><div class="REFBODY rb-7"><p>Drops the last element of a List.</p></div></div>' +
    '</article><article class="func">' +
    head('seq-2', 'seq(From, To) -&gt; Seq') +
    '\n' +
    head('seq-3', 'seq(From, To, Incr) -&gt; Seq') +
    '<div class="exports-tube"><div class="REFBODY rb-7"><p>Returns a sequence of integers.</p></div></div>' +
    '</article></div><div class="footer"><hr><p>Copyright © 1997-2026 Ericsson AB. All Rights Reserved.</p></div>' +
    '</div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.family, 'erlang');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading, s.level]),
    [
      [null, 'lists', 1],
      ['export', 'Exports', 3],
      ['all-2', 'all(Pred, List) -> boolean()', 4],
      ['droplast-1', 'droplast(List) -> InitList', 4],
      ['seq-2', 'seq(From, To) -> Seq', 4],
    ],
  );
  const seq = doc.sections.find((s) => s.fragment === 'seq-2');
  assert.deepEqual(seq?.alternateIds, ['seq-3'], 'a form sharing the text is an alternate id of the entry');
  assert.deepEqual(
    doc.blocks.filter((b) => b.sectionId === seq?.id).map((b) => [b.text, b.fragment]),
    [
      ['seq(From, To, Incr) -> Seq', 'seq-3'],
      ['Returns a sequence of integers.', 'seq-2'],
    ],
  );
  for (const [text, fragment] of [
    ['List = [T]', 'all-2'],
    ['Drops the last element of a List.', 'droplast-1'],
  ]) {
    assert.equal(doc.blocks.find((b) => b.text === text)?.fragment, fragment, text);
  }
  const labels = doc.blocks.filter((b) => b.text === 'Types');
  assert.deepEqual(
    labels.map((b) => b.fragment),
    ['all-2', 'droplast-1'],
    'each "Types" label cites its function, not the id the generator repeats',
  );
  assert.doesNotMatch(allText(doc), /STDLIB|Version 4\.2|Copyright|OTP 17\.0/, 'chrome is not text');
});

test('Haddock: group headings take the anchor around them; each declaration is an entry named by its a.def', async () => {
  const html =
    '<!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">' +
    '<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Data.List.Split</title></head><body>' +
    '<div id="package-header"><span class="caption">split-0.2.3.5: Combinator library for splitting lists.</span>' +
    '<ul class="links" id="page-menu"><li><a href="index.html">Contents</a></li></ul></div><div id="content">' +
    '<div id="table-of-contents"><div id="contents-list"><p class="caption">Contents</p><ul><li><a href="#g:1">Convenience</a></li>' +
    '</ul></div></div><div id="synopsis"><details id="syn"><summary>Synopsis</summary><ul><li class="src short">' +
    '<a href="#v:splitOn">splitOn</a> :: Eq a =&gt; [a] -&gt; [a] -&gt; [[a]]</li></ul></details></div>' +
    '<div id="interface"><a href="#g:1" id="g:1"><h1>Convenience functions</h1></a>' +
    '<div class="top"><p class="src"><a id="v:splitOn" class="def">splitOn</a> :: Eq a =&gt; [a] -&gt; [a] -&gt; [[a]] ' +
    '<a href="src/Data.List.Split.Internals.html#splitOn" class="link">Source</a> <a href="#v:splitOn" class="selflink">#</a></p>' +
    '<div class="doc"><p>Split on the given sublist.</p><pre>splitOn ".." "a..b" == ["a","b"]</pre></div></div>' +
    '<div class="top"><p class="src"><span class="keyword">data</span> <a id="t:Splitter" class="def">Splitter</a> a ' +
    '<a href="src/Data.List.Split.Internals.html#Splitter" class="link">Source</a> <a href="#t:Splitter" class="selflink">#</a></p>' +
    '<div class="doc"><p>A splitting strategy.</p></div><div class="subs instances">' +
    '<h4 class="instances details-toggle-control details-toggle" data-details-id="i:Splitter">Instances</h4>' +
    '<details id="i:Splitter" open="open"><summary class="hide-when-js-enabled">Instances details</summary><table><tr>' +
    '<td class="src clearfix"><span class="inst-left">Show (Splitter a)</span></td><td class="doc empty">&nbsp;</td></tr>' +
    '<tr><td colspan="2"><details id="i:id:Splitter:Show:1"><summary class="hide-when-js-enabled">Instance details</summary>' +
    '<p>Defined in Data.List.Split.Internals</p></details></td></tr></table></details></div></div>' +
    '<p>After the declarations.</p></div></div>' +
    '<div id="footer"><p>Produced by <a href="http://www.haskell.org/haddock/">Haddock</a> version 2.25.1</p></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.family, 'haddock');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading, s.level]),
    [
      ['g:1', 'Convenience functions', 1],
      ['v:splitOn', 'splitOn', 2],
      ['t:Splitter', 'Splitter', 2],
    ],
  );
  const fragmentOf = (text: string): string | null | undefined => doc.blocks.find((b) => b.text === text)?.fragment;
  assert.equal(fragmentOf('splitOn :: Eq a => [a] -> [a] -> [[a]]'), 'v:splitOn', "the signature is the entry's first block");
  assert.equal(fragmentOf('Split on the given sublist.'), 'v:splitOn');
  assert.equal(doc.blocks.find((b) => b.kind === 'code')?.fragment, 'v:splitOn');
  assert.equal(fragmentOf('Instances'), 't:Splitter', '"Instances" labels the declaration, it opens no section');
  const after = doc.blocks.find((b) => b.text === 'After the declarations.');
  assert.equal(doc.sections.find((s) => s.id === after?.sectionId)?.fragment, 'g:1', 'the group goes on after its entries');
  assert.doesNotMatch(
    allText(doc),
    /Source|#|Synopsis|Contents|Combinator library|Produced by|Instance details|Defined in/,
    'chrome is not text',
  );
});

test('Node.js doc tool: the "#" mark naming its heading is no text; the navigation column and page header are chrome', async () => {
  const html =
    '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><meta name="nodejs.org:node-version" content="v18.20.4">' +
    '<title>Path | Node.js v18.20.4 Documentation</title></head><body class="alt apidoc" id="api-section-path">' +
    '<div id="content" class="clearfix"><div id="column2" class="interior"><ul><li><a href="fs.html">File system</a></li></ul></div>' +
    '<div id="column1" data-id="path" class="interior"><header class="header"><div class="header-container">' +
    '<h1>Node.js v18.20.4 documentation</h1></div><div id="gtoc"><ul><li class="pinned-header">Node.js v18.20.4</li></ul></div>' +
    '<hr></header><details id="toc" open><summary>Table of contents</summary><ul><li><a href="#path">Path</a></li></ul></details>' +
    '<div id="apicontent"><h2>Path<span><a class="mark" href="#path" id="path">#</a></span>' +
    '<a aria-hidden="true" class="legacy" id="path_path"></a></h2><p>The <code>node:path</code> module provides utilities.</p>' +
    '<section><h3><code>path.basename(path[, suffix])</code><span><a class="mark" href="#pathbasenamepath-suffix" ' +
    'id="pathbasenamepath-suffix">#</a></span><a aria-hidden="true" class="legacy" id="path_path_basename_path_suffix"></a></h3>' +
    '<p>The <code>path.basename()</code> method returns the last portion of a path.</p></section></div></div></div></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.family, 'nodejs');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.heading, s.alternateIds]),
    [
      ['path', 'Path', ['path_path']],
      ['pathbasenamepath-suffix', 'path.basename(path[, suffix])', ['path_path_basename_path_suffix']],
    ],
  );
  assert.doesNotMatch(allText(doc), /documentation|File system|Table of contents|v18\.20\.4/, 'chrome is not text');
});

test('a "#" glyph with an id of its own outside a heading is kept: its id is citable', async () => {
  const html = '<!DOCTYPE html><html><body><h2 id="s">S</h2><p>Text <a href="#here" id="here">#</a> more.</p></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.blocks[0]?.text, 'Text # more.');
});

test('a printed section number parted from its title by a dash (the Lua 5.1 and 5.2 manuals) is the number', async () => {
  const html =
    '<!DOCTYPE html><html><head><title>Lua 5.2 Reference Manual</title></head><body>' +
    '<h1><a href="http://www.lua.org/"><img src="logo.gif" alt=""></a>Lua 5.2 Reference Manual</h1>' +
    '<h2>2 &ndash; <a name="2">Basic Concepts</a></h2><p>This section describes the basic concepts.</p>' +
    '<h3>2.1 &ndash; <a name="2.1">Values and Types</a></h3><p>Lua is a dynamically typed language.</p>' +
    '<h2>5 - <a name="5">Standard Libraries</a></h2><p>The standard libraries.</p>' +
    '<h3><a name="pdf-assert"><code>assert (v [, message])</code></a></h3><p>Issues an error.</p></body></html>';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.deepEqual(
    doc.sections.map((s) => [s.fragment, s.number, s.heading]),
    [
      [null, null, 'Lua 5.2 Reference Manual'],
      ['2', '2', 'Basic Concepts'],
      ['2.1', '2.1', 'Values and Types'],
      ['5', '5', 'Standard Libraries'],
      ['pdf-assert', null, 'assert (v [, message])'],
    ],
  );
});

test("a Go website page source is titled by its metadata comment's Title", async () => {
  const html =
    '<!--{\n\t"Title": "The Go Programming Language Specification",\n\t"Subtitle": "Version of June 29, 2022",\n' +
    '\t"Path": "/ref/spec"\n}-->\n\n<h2 id="Introduction">Introduction</h2>\n<p>This is the reference manual.</p>\n';
  const doc = await extractBytes(html, URL, 'text/html');
  assert.equal(doc.title, 'The Go Programming Language Specification');
  assert.equal(doc.sections[0]?.fragment, 'Introduction');
  const broken = await extractBytes('<!--{ "Title": -->\n<h2 id="a">Alpha</h2><p>x</p>', URL, 'text/html');
  assert.equal(broken.title, 'Alpha', 'a comment that is not JSON names no title');
});
