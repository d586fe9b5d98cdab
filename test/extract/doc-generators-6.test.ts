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
