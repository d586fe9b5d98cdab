import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * An Internet-Draft's front notes ("Editorial Note", "About This Document", "Discussion Venues": where
 * the draft is discussed, its repository, "to be removed before publication") are about the document,
 * not part of what it specifies: informative in every rendering, as the abstract is. Seen on
 * httpwg/http-extensions draft-ietf-httpbis-safe-method-w-body.xml; i-d-template drafts all carry one.
 */

const note = 'This note is to be removed before publishing as an RFC.';
const rule = 'A client MUST send the field.';

const xml = `<?xml version="1.0"?>
<rfc version="3" category="std" docName="draft-x-widget-00">
<front><title>Widgets</title><abstract><t>Widgets.</t></abstract>
<note title="About This Document" removeInRFC="true"><t>${note}</t></note></front>
<middle><section anchor="intro" title="Introduction"><t>${rule}</t></section></middle>
</rfc>`;

// As xml2rfc v3 writes the same note in HTML.
const html = `<!DOCTYPE html><html lang="en" class="Internet-Draft"><head><title>Widgets</title></head><body>
<section id="section-abstract"><h2 id="abstract"><a href="#abstract" class="selfRef">Abstract</a></h2><p
 id="section-abstract-1">Widgets.</p></section>
<div id="note"><section id="section-note.1"><h2 id="name-about-this-document"><a href="#name-about-this-document"
 class="section-name selfRef">About This Document</a></h2><p id="section-note.1-1">${note}</p></section></div>
<div id="intro"><section id="section-1"><h2 id="name-introduction"><a href="#section-1" class="section-number selfRef">1. </a><a
 href="#name-introduction" class="section-name selfRef">Introduction</a></h2><p id="section-1-1">${rule}</p></section></div>
</body></html>`;

const text = `Network Working Group                                          A. Author
Internet-Draft                                              Example Inc.
Intended status: Standards Track                            January 2026


                                Widgets
                           draft-x-widget-00

Abstract

   Widgets.

About This Document

   ${note}

1.  Introduction

   ${rule}
`;

const cases: [string, string, string][] = [
  ['XML', xml, 'https://www.ietf.org/archive/id/draft-x-widget-00.xml'],
  ['HTML (ietf-draft)', html, 'https://www.ietf.org/archive/id/draft-x-widget-00.html'],
  ['HTML (rfc)', html, 'https://www.rfc-editor.org/rfc/rfc9986.html'],
  ['text', text, 'https://www.ietf.org/archive/id/draft-x-widget-00.txt'],
];
for (const [rendering, source, url] of cases) {
  test(`a draft's front note is informative, its body stays normative: ${rendering}`, async () => {
    const type = url.endsWith('.xml') ? 'application/rfc+xml' : url.endsWith('.html') ? 'text/html' : 'text/plain';
    const doc = await extractBytes(source, url, type);
    const about = doc.sections.find((s) => s.heading === 'About This Document')!;
    assert.equal(about.normativity, 'informative');
    assert.equal(doc.blocks.find((b) => b.text === note)?.normativity, 'informative');
    assert.equal(doc.sections.find((s) => s.heading === 'Introduction')?.normativity, 'normative');
    assert.equal(doc.blocks.find((b) => b.text === rule)?.normativity, 'normative');
  });
}
