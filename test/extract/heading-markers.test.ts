import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A heading that says its section is informative ("Semantics (Non-Normative)", "Examples
 * (informative)") makes that section and the sections under it informative in every extractor and
 * every family: RFC 6265 writes it in its HTML and XML renderings, where only the W3C, WHATWG, TC39
 * and generic HTML rules read it before. A heading that only mentions the word stays normative.
 */
const CASES: { name: string; url: string; contentType: string; body: string }[] = [
  {
    name: 'RFC XML (xml2rfc v3)',
    url: 'https://www.rfc-editor.org/rfc/rfc9999.xml',
    contentType: 'application/xml',
    body: `<?xml version="1.0" encoding="UTF-8"?>
<rfc number="9999" category="std" version="3"><front><title>Test Cookies</title></front><middle>
<section anchor="syntax"><name>Syntax</name><t>The cookie MUST be sent.</t>
<section anchor="sane-semantics"><name>Semantics (Non-Normative)</name><t>Servers usually send cookies.</t>
<section anchor="deeper"><name>Expires</name><t>An expiry date.</t></section></section>
<section anchor="informative-word"><name>Informative Words in a Heading</name><t>The user agent MUST keep it.</t></section>
</section></middle></rfc>`,
  },
  {
    name: 'RFC HTML (xml2rfc)',
    url: 'https://www.rfc-editor.org/rfc/rfc9999.html',
    contentType: 'text/html',
    body: `<!DOCTYPE html><html><head><title>RFC 9999</title></head><body>
<section id="syntax"><h2 id="name-syntax">
<a href="#syntax" class="section-number selfRef">1. </a>Syntax</h2>
<p>The cookie MUST be sent.</p>
<section id="sane-semantics"><h3 id="name-semantics">
<a href="#sane-semantics" class="section-number selfRef">1.1. </a>Semantics (Non-Normative)</h3>
<p>Servers usually send cookies.</p>
<section id="deeper"><h4 id="name-expires">
<a href="#deeper" class="section-number selfRef">1.1.1. </a>Expires</h4>
<p>An expiry date.</p></section></section>
<section id="informative-word"><h3 id="name-informative-words">
<a href="#informative-word" class="section-number selfRef">1.2. </a>Informative Words in a Heading</h3>
<p>The user agent MUST keep it.</p></section>
</section></body></html>`,
  },
  {
    name: 'Unicode report',
    url: 'https://www.unicode.org/reports/tr99/',
    contentType: 'text/html',
    body: `<!DOCTYPE html><html><head><title>UAX #99</title></head><body><h1>UAX #99: Test</h1>
<h2><a name="Syntax" href="#Syntax">1 Syntax</a></h2><p>A conformant process MUST do it.</p>
<h3><a name="Sane_Semantics" href="#Sane_Semantics">1.1 Semantics (Informative)</a></h3><p>Processes usually do it.</p>
<h4><a name="Deeper" href="#Deeper">1.1.1 Expires</a></h4><p>An expiry date.</p>
<h3><a name="Informative_Word" href="#Informative_Word">1.2 Informative Words in a Heading</a></h3><p>A process MUST keep it.</p>
</body></html>`,
  },
];

for (const c of CASES) {
  test(`heading markers: ${c.name}`, async () => {
    const doc = await extractBytes(c.body, c.url, c.contentType);
    const byHeading = new Map(doc.sections.map((s) => [s.heading.replace(/^[\d.]+\s*/, ''), s]));
    const semantics = [...byHeading.entries()].find(([h]) => /^Semantics/.test(h))?.[1];
    assert.ok(semantics, `a Semantics section in ${JSON.stringify([...byHeading.keys()])}`);
    assert.equal(semantics.normativity, 'informative');
    assert.match(semantics.normativityReason ?? '', /^heading-marker:\((non-normative|informative)\)$/);
    assert.equal(byHeading.get('Expires')?.normativity, 'informative', 'a section under it inherits it');
    assert.equal(byHeading.get('Syntax')?.normativity, 'normative');
    assert.equal(byHeading.get('Informative Words in a Heading')?.normativity, 'normative', 'the word alone is no marker');
    for (const block of doc.blocks.filter((b) => b.sectionId === semantics.id)) assert.equal(block.normativity, 'informative', block.text);
  });
}
