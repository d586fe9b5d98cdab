/**
 * Small documents as their tools write them, for the tests of families chosen by content
 * (test/extract/families-by-content.test.ts, test/cli/families-by-content.test.ts): Bikeshed (with and
 * without its generator meta, W3C-style or a Living Standard), a ReSpec source, xml2rfc v3 HTML, RFC
 * XML, RFC / Internet-Draft plain text, ecmarkup and kramdown-rfc Markdown.
 */

export const bikeshed = (generatorMeta: string, subtitle: string, extra = ''): string => `<!doctype html><html lang="en"><head>
${generatorMeta}<title>Widget API</title></head><body class="h-entry">
<div class="head"><h1 class="p-name no-ref" id="title">Widget API</h1>
<h2 class="no-num no-toc no-ref heading settled" id="subtitle"><span class="content">${subtitle}</span></h2></div>
<h2 class="no-num no-toc no-ref heading settled" id="sotd"><span class="content">Status of this document</span></h2>
<p>This is a draft.</p>
<h2 class="heading settled" data-level="1" id="intro"><span class="secno">1. </span><span class="content">Introduction</span></h2>
<p>User agents must support widgets.</p>
<div class="note" role="note"><p>Widgets are small.</p></div>
${extra}
<h2 class="heading settled" data-level="2" id="changes"><span class="secno">2. </span><span class="content">Changes</span></h2>
<p>None yet.</p>
</body></html>`;

export const DOMINTRO = '<dl class="domintro"><dt><code>widget . spin()</code><dd><p>Spins the widget.</dd></dl>';

export const respecSource = `<!DOCTYPE html><html><head><title>Gizmo</title>
<script src="https://www.w3.org/Tools/respec/respec-w3c" class="remove" defer></script>
<script class="remove">var respecConfig = { specStatus: "ED" };</script></head><body>
<section id="abstract"><p>Gizmos.</p></section>
<section id="sotd"><p>Draft.</p></section>
<section><h2>Model</h2><p>A gizmo must turn.</p><section><h2>Turning</h2><p>It turns.</p></section></section>
</body></html>`;

export const xml2rfcHtml = (meta: string): string => `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta content="xml2rfc 3.25.0" name="generator">${meta}<title>The Example Protocol</title></head><body>
<section id="section-1"><h2 id="name-introduction"><a href="#section-1" class="section-number selfRef">1. </a>
<a href="#name-introduction" class="section-name selfRef">Introduction</a></h2>
<p id="section-1-1">Senders <span class="bcp14">MUST</span> greet.</p></section>
<section id="section-2"><h2 id="name-acknowledgements"><a href="#section-2" class="section-number selfRef">2. </a>
<a href="#name-acknowledgements" class="section-name selfRef">Acknowledgements</a></h2>
<p id="section-2-1">Thanks.</p></section></body></html>`;

export const rfcXml = (attributes: string): string => `<?xml version="1.0" encoding="UTF-8"?>
<!-- a comment <rfc number="1"> -->
<!DOCTYPE rfc [
  <!ENTITY MUST "<bcp14 xmlns='http://purl.org/net/xml2rfc/ext'>MUST</bcp14>">
]>
<?rfc toc="yes"?>
<rfc ${attributes} category="std"><front><title>The Example Protocol</title></front>
<middle><section anchor="intro" title="Introduction"><t>Senders <bcp14>MUST</bcp14> greet.</t></section></middle></rfc>`;

export const rfcText = (header: string): string => `


${header}


                       The Example Protocol

Abstract

   This document defines an example protocol.

1.  Introduction

   Senders MUST send a greeting.

2.  Acknowledgements

   Thanks to everyone.
`;

export const ecmarkup = `<!doctype html><meta charset="utf-8"><link rel="stylesheet" href="https://tc39.es/ecmarkup/ecmarkup.css?cache=1">
<title>Proposal: Widgets</title><body>
<emu-clause id="sec-widgets"><h1><span class="secnum">1</span> Widgets</h1><p>A widget must spin.</p>
<emu-note><span class="note">Note</span><div class="note-contents"><p>Spinning is fun.</p></div></emu-note></emu-clause>
</body>`;

export const RFC_TEXT_HEADER =
  'Internet Engineering Task Force (IETF)                         A. Author\n' +
  'Request for Comments: 9999                                   Example Org\n' +
  'Category: Standards Track                                   January 2030';

export const DRAFT_TEXT_HEADER =
  'Example Working Group                                          A. Author\n' +
  'Internet-Draft                                               Example Org\n' +
  'Intended status: Standards Track                        January 10, 2030';

/** A kramdown-rfc source: YAML front matter naming the draft, kramdown-rfc's part markers. */
export const kramdownRfc = (docname: string): string => `---
title: "The Example Protocol"
docname: ${docname}
category: std
---

--- abstract

This document defines an example protocol.

--- middle

# Introduction

Senders MUST send a greeting.

--- back

# Acknowledgments
{:numbered="false"}

Thanks to everyone.
`;

/** An mmark draft: TOML front matter between `%%%` lines, its series in `[seriesInfo]`. */
export const mmarkDraft = (value: string): string => `%%%
title = "The Example Protocol"
# a TOML comment, not a heading
[seriesInfo]
name = "Internet-Draft"
value = "${value}"
stream = "IETF"

[[author]]
fullname = "A. Author"
%%%

.# Abstract

This document defines an example protocol.

{mainmatter}

# Introduction

Senders **MUST** send a greeting [@!RFC2119].

{backmatter}

# Acknowledgments

Thanks to everyone.
`;
