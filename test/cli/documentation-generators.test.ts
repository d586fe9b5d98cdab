import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rig } from '../helpers/rig.js';

/**
 * Manuals built by documentation generators, through the CLI: pages in the markup of DocBook XSL
 * (PostgreSQL's manual), AsciiDoc (git's manual pages) and Texinfo (makeinfo 6.8 and texi2html), on
 * their real hosts, which no family names: each is read with the family of the generator its
 * `<meta name="generator">` declares. Navigation bars, tables of contents and footers are not text;
 * every heading is a section at the id a reader opens (a DocBook or Texinfo section div's id, a
 * Texinfo node anchor); admonitions are notes; a DocBook table's title is its caption; a query cites
 * the passage's section. The fixtures follow each generator's markup; they are not copies of its output.
 */

const DOCBOOK = `<!DOCTYPE html><html xmlns="http://www.w3.org/1999/xhtml"><head><title>8.1. Numeric Types</title>
<meta name="generator" content="DocBook XSL Stylesheets V1.79.2" /></head><body>
<div class="navheader"><table width="100%" summary="Navigation header"><tr><th colspan="5" align="center">8.1. Numeric Types</th></tr>
<tr><td><a accesskey="p" href="datatype.html">Prev</a></td><td><a accesskey="u" href="datatype.html">Up</a></td>
<th>Chapter 8. Data Types</th><td><a accesskey="h" href="index.html">Home</a></td>
<td><a accesskey="n" href="datatype-money.html">Next</a></td></tr>
</table><hr /></div>
<div class="sect1" id="DATATYPE-NUMERIC"><div class="titlepage"><div><div><h2 class="title">8.1. Numeric Types</h2></div></div></div>
<div class="toc"><dl class="toc"><dt><span class="sect2"><a href="#DATATYPE-INT">8.1.1. Integer Types</a></span></dt></dl></div>
<p>Numeric types consist of integers and decimals.</p>
<div class="table" id="DATATYPE-NUMERIC-TABLE"><p class="title"><strong>Table 8.2. Numeric Types</strong></p>
<div class="table-contents"><table class="table" summary="Numeric Types" border="1"><colgroup><col /><col /></colgroup>
<thead><tr><th>Name</th><th>Storage Size</th></tr></thead>
<tbody><tr><td><code>smallint</code></td><td>2 bytes</td></tr></tbody></table></div></div>
<div class="sect2" id="DATATYPE-INT"><div class="titlepage"><div><div><h3 class="title">8.1.1. Integer Types</h3></div></div></div>
<a id="id-1.5.7.9.6.2" class="indexterm"></a><p>The types smallint and integer store whole numbers.</p>
<div class="note"><h3 class="title">Note</h3><p>The maximum precision of a numeric column is 1000 digits.</p></div>
<p>Attempts to store values outside the range result in an error.</p>
</div></div>
<div class="navfooter"><hr /><table width="100%" summary="Navigation footer"><tr><td><a accesskey="p" href="datatype.html">Prev</a></td>
<td><a accesskey="u" href="datatype.html">Up</a></td><td><a accesskey="n" href="datatype-money.html">Next</a></td></tr>
<tr><td>Chapter 8. Data Types</td><td><a accesskey="h" href="index.html">Home</a></td><td>8.2. Monetary Types</td></tr></table></div>
</body></html>`;

const ASCIIDOC = `<!DOCTYPE html><html><head><meta name="generator" content="AsciiDoc 10.2.0" /><title>git-widget(1)</title></head>
<body class="manpage"><div id="header"><h1>git-widget(1) Manual Page</h1><h2>NAME</h2>
<div class="sectionbody"><p>git-widget - Spin the widgets</p></div></div>
<div id="content">
<div class="sect1"><h2 id="_synopsis">SYNOPSIS</h2><div class="sectionbody"><div class="verseblock">
<pre class="content"><em>git widget</em> [--onto &lt;newbase&gt;] [&lt;branch&gt;]</pre><div class="attribution"></div></div></div></div>
<div class="sect1"><h2 id="_options">OPTIONS</h2><div class="sectionbody"><div class="dlist"><dl>
<dt class="hdlist1">--onto &lt;newbase&gt;</dt><dd><p>Starting point at which to create the new widgets.</p></dd></dl></div>
<div class="admonitionblock"><table><tr><td class="icon"><div class="title">Note</div></td>
<td class="content">ORIG_WIDGET is not guaranteed to point to the previous tip.</td></tr></table></div>
</div></div></div>
<div id="footnotes"><hr /></div>
<div id="footer"><div id="footer-text">Last updated 2030-01-01 00:00:00 UTC</div></div>
</body></html>`;

const TEXINFO = `<!DOCTYPE html><html><!-- Created by GNU Texinfo 6.8, https://www.gnu.org/software/texinfo/ -->
<head><title>Widget Reference Manual</title><meta name="Generator" content="makeinfo"></head><body lang="en">
<h1 class="settitle">Widget Reference Manual</h1>
<div class="top" id="Top"><div class="header"><p>Next: <a href="#Introduction" accesskey="n" rel="next">Introduction</a>
 &nbsp; [<a href="#SEC_Contents" title="Table of contents" rel="contents">Contents</a>]</p></div>
<span id="Widget-Features-1"></span><h1 class="top">Widget Features</h1>
<ul class="section-toc"><li><a href="#Introduction" accesskey="1">Introduction</a></li></ul>
<hr></div>
<div class="chapter" id="Introduction"><div class="header"><p>Previous: <a href="#Top" accesskey="p" rel="prev">Top</a>,
 Up: <a href="#Top" accesskey="u" rel="up">Top</a></p></div>
<span id="Introduction-1"></span><h2 class="chapter">1 Introduction</h2>
<span id="index-spinning"></span><p>Widgets spin when their axle is greased.</p>
<dl compact="compact"><dt id="index-WIDGET_005fSPEED"><span><code>WIDGET_SPEED</code>
<a href="#index-WIDGET_005fSPEED" class="copiable-anchor"> &para;</a></span></dt>
<dd><p>The speed at which widgets spin.</p></dd>
<dt><code>--verbose</code></dt><dd><p>Say more while spinning.</p></dd></dl>
<dl><dt><a name="index-WIDGET_005fPATH"></a><code>WIDGET_PATH</code></dt>
<dd><p>Where widgets are looked for (as makeinfo 4 wrote it).</p></dd></dl>
<span id="Invoked-non_002dinteractively"></span><h4 class="subsubheading">Invoked non-interactively</h4>
<p>A widget started by a script reads no startup file.</p>
<div class="example"><pre class="example">widget --spin
</pre></div>
</div>
<h2 class="contents-heading">Table of Contents</h2>
<div class="contents"><ul class="no-bullet"><li><a id="toc-Introduction" href="#Introduction">1 Introduction</a></li></ul></div>
</body></html>`;

const TEXI2HTML = `<!DOCTYPE html PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN"><html><!-- Created on July, 26 2030 by texi2html 1.78a -->
<head><title>GNU widgets: 10. Producing Widgets</title><meta name="Generator" content="texi2html 1.78a"></head><body>
<table cellpadding="1" cellspacing="1" border="0"><tr><td valign="middle" align="left">[<a href="w_9.html#SEC86"
 title="Beginning of this chapter or previous chapter"> &lt;&lt; </a>]</td><td valign="middle" align="left">[<a href="w_toc.html#SEC_Top"
 title="Cover (top) of document">Top</a>]</td>
<td valign="middle" align="left">[<a href="w_toc.html#SEC_Contents" title="Table of contents">Contents</a>]</td></tr></table>
<hr size="2">
<a name="Producing"></a>
<a name="SEC172"></a>
<h1 class="chapter"> <a href="w_toc.html#TOC166">10. Producing Widgets</a> </h1>
<table><tr><td>&nbsp;</td><td><pre class="example">widgetfmt [option] filename.w
</pre></td></tr></table>
<p>The widgetfmt program produces widgets.</p>
<p>The manual is converted by <a href="https://www.nongnu.org/texi2html/">texi2html</a>, whose page says how.</p>
<p><font size="-1">This document was generated by <em>A. Hacker</em> on <em>July, 26 2030</em> using
<a href="https://www.nongnu.org/texi2html/"><em>texi2html 1.78a</em></a>.</font><br></p>
</body></html>`;

// Asciidoctor: the same sections and admonitions as AsciiDoc, a table of contents in div#toc, icons as fonts.
const ASCIIDOCTOR = `<!DOCTYPE html><html lang="en"><head><meta name="generator" content="Asciidoctor 2.0.18">
<title>Widget Guide</title></head><body class="article toc2 toc-left">
<div id="header"><h1>Widget Guide</h1><div id="toc" class="toc2"><div id="toctitle">Table of Contents</div>
<ul class="sectlevel1"><li><a href="#_spinning">1. Spinning</a></li></ul></div></div>
<div id="content"><div class="sect1"><h2 id="_spinning"><a class="anchor" href="#_spinning"></a>1. Spinning</h2>
<div class="sectionbody"><div class="paragraph"><p>Widgets spin clockwise.</p></div>
<div class="admonitionblock warning"><table><tr><td class="icon"><i class="fa icon-warning" title="Warning"></i></td>
<td class="content">Never spin a widget backwards.</td></tr></table></div></div></div></div>
<div id="footer"><div id="footer-text">Last updated 2030-01-01 00:00:00 UTC</div></div></body></html>`;

// texi2any 7 (Texinfo 7): the node's div is a *-level-extent, the heading has an id and a copiable link of its own.
const TEXI2ANY = `<!DOCTYPE html><html><!-- Created by GNU Texinfo 7.0, https://www.gnu.org/software/texinfo/ -->
<head><title>Overview (GNU widget)</title><meta name="Generator" content="texi2any"></head><body lang="en">
<div class="chapter-level-extent" id="Overview">
<div class="nav-panel"><p>Next: <a href="Introduction.html" accesskey="n" rel="next">Introduction</a>,
 Previous: <a href="index.html" accesskey="p" rel="prev">Top</a></p></div>
<hr>
<h2 class="chapter" id="Overview-of-widget"><span>1 Overview of <code class="code">widget</code><a class="copiable-link"
 href="#Overview-of-widget"> &para;</a></span></h2>
<p>The widget utility spins automatically.</p>
<ul class="mini-toc"><li><a href="Preparing.html" accesskey="1">Preparing and Running Widget</a></li></ul>
<div class="section-level-extent" id="Preparing">
<h3 class="section" id="Preparing-and-Running-Widget"><span>1.1 Preparing and Running Widget<a class="copiable-link"
 href="#Preparing-and-Running-Widget"> &para;</a></span></h3>
<p>To prepare, write a widgetfile.</p>
<dl class="vtable">
<dt><a class="index-entry-id" id="index-WIDGET_005fHOME"></a><span><code class="code">WIDGET_HOME</code><a class="copiable-link"
 href="#index-WIDGET_005fHOME"> &para;</a></span></dt>
<dd><p>The folder widgets are prepared in.</p></dd></dl>
</div></div>
</body></html>`;

interface Doc {
  sourceUrl: string;
  family: string;
  sections: { id: string; heading: string; level: number; number: string | null; fragment: string | null; alternateIds?: string[] }[];
  blocks: { kind: string; text: string; fragment: string | null; sectionId: string | null; caption?: string; anchors?: { id: string }[] }[];
}

test('manuals built by DocBook XSL, AsciiDoc and Texinfo: sections at their ids, no navigation text, notes, captions', async () => {
  const rig = new Rig();
  try {
    const entries: [string, string, string][] = [
      ['https://www.postgresql.org/docs/15/datatype-numeric.html', 'docbook.html', DOCBOOK],
      ['https://git-scm.com/docs/git-widget', 'asciidoc.html', ASCIIDOC],
      ['https://www.gnu.org/software/widget/manual/widget.html', 'texinfo.html', TEXINFO],
      ['https://www.gnu.org/software/widget/manual/w_10.html', 'texi2html.html', TEXI2HTML],
      ['https://www.gnu.org/software/widget/manual/html_node/Overview.html', 'texi2any.html', TEXI2ANY],
      ['https://docs.example.org/widget/guide.html', 'asciidoctor.html', ASCIIDOCTOR],
    ];
    const files: Record<string, string> = {};
    for (const [, file, html] of entries) files[`src/${file}`] = html;
    files['map.json'] = JSON.stringify(
      entries.map(([sourceUrl, file]) => ({ sourceUrl, localPath: `src/${file}`, contentType: 'text/html' })),
    );
    files['episteme.json'] = JSON.stringify({ manualIngest: 'map.json' });
    rig.write(files);
    const built = await rig.exec(['build', '--json']);
    assert.equal(built.code, 0, built.stdout + built.stderr);
    const index = JSON.parse(rig.read('specs/index.json')) as { payload: { entries: { sourceUrl: string; file: string }[] } };
    const docs = new Map(
      index.payload.entries.map((e) => [e.sourceUrl, (JSON.parse(rig.read(`specs/${e.file}`)) as { payload: Doc }).payload]),
    );
    const doc = (url: string): Doc => docs.get(url)!;
    const allText = (d: Doc): string => d.blocks.map((b) => b.text).join('\n');

    const docbook = doc(entries[0]![0]);
    assert.equal(docbook.family, 'docbook');
    assert.deepEqual(
      docbook.sections.map((s) => [s.level, s.number, s.heading, s.fragment]),
      [
        [2, '8.1', 'Numeric Types', 'DATATYPE-NUMERIC'],
        [3, '8.1.1', 'Integer Types', 'DATATYPE-INT'],
      ],
      'the admonition title opens no section',
    );
    assert.doesNotMatch(allText(docbook), /Prev|Next|Home|8\.1\.1\. Integer Types/, 'navigation and contents are not text');
    const table = docbook.blocks.find((b) => b.kind === 'table')!;
    assert.equal(table.caption, 'Table 8.2. Numeric Types');
    assert.equal(table.fragment, 'DATATYPE-NUMERIC-TABLE');
    assert.ok(!docbook.blocks.some((b) => b.kind === 'paragraph' && b.text.startsWith('Table 8.2')));
    const note = docbook.blocks.find((b) => b.kind === 'note')!;
    assert.equal(note.text, 'Note\nThe maximum precision of a numeric column is 1000 digits.');
    assert.equal(docbook.blocks.find((b) => b.text.startsWith('Attempts to store'))!.sectionId, 'DATATYPE-INT');

    const asciidoc = doc(entries[1]![0]);
    assert.equal(asciidoc.family, 'asciidoc');
    assert.doesNotMatch(allText(asciidoc), /Last updated/, 'the footer is not text');
    const option = asciidoc.blocks.find((b) => b.kind === 'definition-list')!;
    assert.equal(option.fragment, '_options', 'cited at its section, not at the <div id="content"> around every section');
    assert.equal(asciidoc.blocks.find((b) => b.kind === 'code')!.fragment, '_synopsis');
    assert.match(asciidoc.blocks.find((b) => b.kind === 'note')?.text ?? '', /ORIG_WIDGET is not guaranteed/);

    const texinfo = doc(entries[2]![0]);
    assert.equal(texinfo.family, 'texinfo');
    assert.deepEqual(
      texinfo.sections.map((s) => [s.level, s.heading, s.fragment, s.alternateIds ?? []]),
      [
        [1, 'Widget Reference Manual', null, []],
        [1, 'Widget Features', 'Top', ['Widget-Features-1']],
        [2, 'Introduction', 'Introduction', ['Introduction-1']],
        // A term that carries an index entry (@vtable) is an entry of its own, headed by its name; a term without one is text of it.
        [3, 'WIDGET_SPEED', 'index-WIDGET_005fSPEED', []],
        [3, 'WIDGET_PATH', 'index-WIDGET_005fPATH', []],
        [4, 'Invoked non-interactively', 'Invoked-non_002dinteractively', []],
        [2, 'Table of Contents', null, []],
      ],
    );
    assert.doesNotMatch(allText(texinfo), /Next:|Previous:|Up:|¶|1 Introduction/, 'navigation, menus, contents and pilcrows are not text');
    const greased = texinfo.blocks.find((b) => b.text.startsWith('Widgets spin'))!;
    assert.deepEqual(
      greased.anchors?.map((a) => a.id),
      ['index-spinning'],
      'an index entry is cited at its paragraph',
    );
    assert.equal(texinfo.blocks.find((b) => b.text.startsWith('A widget started'))!.fragment, 'Invoked-non_002dinteractively');
    assert.equal(texinfo.blocks.find((b) => b.text.startsWith('Where widgets are looked'))!.fragment, 'index-WIDGET_005fPATH');
    assert.equal(texinfo.blocks.find((b) => b.text.startsWith('widget --spin'))!.kind, 'code', '@example is code');

    const texi2html = doc(entries[3]![0]);
    assert.equal(texi2html.family, 'texinfo');
    assert.deepEqual(
      texi2html.sections.map((s) => [s.number, s.heading, s.fragment, s.alternateIds ?? []]),
      [['10', 'Producing Widgets', 'Producing', ['SEC172']]],
    );
    assert.deepEqual(
      texi2html.blocks.map((b) => [b.kind, b.text]),
      [
        ['code', 'widgetfmt [option] filename.w'],
        ['paragraph', 'The widgetfmt program produces widgets.'],
        // Text that links to texi2html is text: only the generated-by footer is chrome.
        ['paragraph', 'The manual is converted by texi2html, whose page says how.'],
      ],
    );

    const texi2any = doc(entries[4]![0]);
    assert.equal(texi2any.family, 'texinfo');
    assert.deepEqual(
      texi2any.sections.map((s) => [s.level, s.number, s.heading, s.fragment, s.alternateIds ?? []]),
      [
        [2, '1', 'Overview of widget', 'Overview', ['Overview-of-widget']],
        [3, '1.1', 'Preparing and Running Widget', 'Preparing', ['Preparing-and-Running-Widget']],
        [4, null, 'WIDGET_HOME', 'index-WIDGET_005fHOME', []],
      ],
    );
    assert.deepEqual(
      texi2any.blocks.map((b) => b.text),
      ['The widget utility spins automatically.', 'To prepare, write a widgetfile.', 'WIDGET_HOME', 'The folder widgets are prepared in.'],
    );

    const asciidoctor = doc(entries[5]![0]);
    assert.equal(asciidoctor.family, 'asciidoc');
    assert.deepEqual(
      asciidoctor.sections.map((s) => [s.number, s.heading, s.fragment]),
      [
        [null, 'Widget Guide', null],
        ['1', 'Spinning', '_spinning'],
      ],
    );
    assert.deepEqual(
      asciidoctor.blocks.map((b) => [b.kind, b.text, b.fragment]),
      [
        ['paragraph', 'Widgets spin clockwise.', '_spinning'],
        ['note', 'Never spin a widget backwards.', '_spinning'],
      ],
    );

    // A query cites the passage where a reader opens it.
    const cite = async (term: string): Promise<{ sourceUrl: string; fragment: string | null }> => {
      const result = await rig.exec(['query', '--term', term, '--limit', '1', '--json']);
      assert.equal(result.code, 0, result.stdout + result.stderr);
      return (result.json!.data.hits as { citation: { sourceUrl: string; fragment: string | null } }[])[0]!.citation;
    };
    assert.equal((await cite('maximum precision')).fragment, 'DATATYPE-INT');
    assert.equal((await cite('starting point new widgets')).fragment, '_options');
    assert.equal((await cite('speed')).fragment, 'index-WIDGET_005fSPEED', 'an index entry of a definition');
    assert.equal((await cite('WIDGET_HOME folder')).fragment, 'index-WIDGET_005fHOME', 'an entry, cited at its id');
  } finally {
    rig.cleanup();
  }
});
