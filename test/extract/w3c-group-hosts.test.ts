import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * W3C community and working groups publish Bikeshed and ReSpec drafts on github.io hosts of their own
 * (wicg.github.io, gpuweb.github.io, ...). Read with the generic family, such a draft was informative
 * throughout (generic's default authority) and lost its abstract and status (generic reads `<main>`
 * first, and Bikeshed writes both before it).
 */

// As Bikeshed renders a WICG draft (abridged): head, abstract and status outside <main>.
const bikeshed = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Gadget Fragments</title>
<meta content="Bikeshed version 4416b18d5, updated Tue Jan 2 15:52:39 2024 -0800" name="generator"></head>
<body class="h-entry"><div class="head"><h1 class="p-name no-ref" id="title">Gadget Fragments</h1>
<h2 class="no-num no-toc no-ref heading settled" id="profile-and-date"><span class="content">Draft Community Group Report,
<time class="dt-updated" datetime="2024-01-10">10 January 2024</time></span></h2></div>
<div class="p-summary" data-fill-with="abstract"><h2 class="no-num no-toc no-ref heading settled" id="abstract"><span
 class="content">Abstract</span></h2><p>Gadget fragments let a URL point at a gadget.</p></div>
<nav data-fill-with="table-of-contents" id="toc"><h2 class="no-num no-toc no-ref" id="contents">Table of Contents</h2>
<ol class="toc" role="directory"><li><a href="#processing"><span class="secno">1</span> <span
 class="content">Processing</span></a></ol></nav>
<main><h2 class="heading settled" data-level="1" id="processing"><span class="secno">1. </span><span class="content">Processing</span><a
 class="self-link" href="#processing"></a></h2>
<p>A user agent <em class="rfc2119" title="MUST">must</em> scroll to the first gadget.</p>
<div class="note" role="note">Scrolling is not focusing.</div></main></body></html>`;

test('a W3C group draft on its github.io host is read with the w3c family', async () => {
  const doc = await extractBytes(bikeshed, 'https://wicg.github.io/gadget-fragments/', 'text/html');
  assert.equal(doc.family, 'w3c');
  assert.equal(doc.authority, 'normative');
  assert.deepEqual(
    doc.blocks.map((b) => [b.sectionId, b.kind, b.normativity]),
    [
      ['abstract', 'paragraph', 'informative'],
      ['processing', 'paragraph', 'normative'],
      ['processing', 'note', 'informative'],
    ],
  );
});
