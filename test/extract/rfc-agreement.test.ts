import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { EXTERNAL_SOURCES_LIMIT, compare } from './rfc-agreement.js';
import { SKIP_CORPUS, corpusDir, extractCorpusFile, ingestMap } from './helpers.js';

/**
 * The HTML and XML renderings of one RFC must give the same evidence: every RFC with both files in
 * the dev corpus is extracted twice and compared block by block (kind, normativity, text modulo
 * whitespace). Sections pair by an id both renderings name (the XML's derived aliases included);
 * a section only one rendering has may only be boilerplate the renderer generates.
 */

/**
 * Every RFC with both an HTML and an XML rendering in the corpus map (same file name but for the
 * extension), so a pair added to the corpus is covered. Each must agree fully: every block paired, with
 * equal kind, normativity and text. The one discount is what an XML declares it cannot hold
 * (EXTERNAL_SOURCES_LIMIT: content rfc2629.xslt reads from the documents `<x:source>` names).
 */
function htmlXmlPairs(): string[] {
  if (SKIP_CORPUS) return [];
  const paths = new Set(ingestMap().map((e) => e.localPath));
  return [...paths]
    .filter((p) => p.startsWith('rfc/') && p.endsWith('.html') && paths.has(p.replace(/\.html$/, '.xml')))
    .map((p) => p.slice('rfc/'.length, -'.html'.length))
    .sort();
}
const PAIRS = htmlXmlPairs();

test('the corpus map has RFC HTML/XML pairs to compare', { skip: SKIP_CORPUS }, () => {
  // The three the corpus README lists; more may be added, none may silently disappear.
  for (const name of ['rfc6265', 'rfc9001.canonical', 'rfc9110'])
    assert.ok(PAIRS.includes(name), `${name} not paired: ${PAIRS.join(', ')}`);
});

for (const name of PAIRS) {
  test(`RFC renderings agree block by block: ${name} HTML vs XML (100%)`, async () => {
    const html = await extractCorpusFile(`rfc/${name}.html`);
    const xml = await extractCorpusFile(`rfc/${name}.xml`);
    const result = compare(html, xml);
    const firstProblems = [...result.unpairedSections, ...result.problems].slice(0, 25).join('\n');
    const report = `${name}: ${result.paired}/${result.total} blocks paired\n${firstProblems}`;
    assert.deepEqual(result.unpairedSections, [], report);
    assert.deepEqual(result.problems, [], report);
    assert.equal(result.paired, result.total, report);
    assert.ok(result.total > 100, report);
  });
}

test('an XML whose content comes from <x:source> documents declares it; the others do not', { skip: SKIP_CORPUS }, async () => {
  const withSources = await extractCorpusFile('rfc/rfc9110.xml');
  assert.ok(withSources.limits.includes(EXTERNAL_SOURCES_LIMIT));
  // The cross-reference keeps its target: the section in the other document, as the renderer links it.
  const smuggling = withSources.blocks.find((b) => /request smuggling attacks \(\[HTTP\/1\.1\]\)/.test(b.text))!;
  assert.ok(
    (smuggling['links'] as { href: string }[]).some((l) => l.href === 'https://httpwg.org/specs/rfc9112.html#request.smuggling'),
    JSON.stringify(smuggling['links']),
  );
  for (const name of ['rfc6265', 'rfc9001.canonical']) {
    const xml = await extractCorpusFile(`rfc/${name}.xml`);
    assert.ok(!xml.limits.includes(EXTERNAL_SOURCES_LIMIT), name);
  }
});

test('RFC front matter is metadata, not a block, and agrees between renderings', { skip: SKIP_CORPUS }, async () => {
  const html = await extractCorpusFile('rfc/rfc9001.canonical.html');
  const xml = await extractCorpusFile('rfc/rfc9001.canonical.xml');
  const hm = html['metadata'] as Record<string, string>;
  const xm = xml['metadata'] as Record<string, string>;
  for (const key of ['stream', 'rfc', 'category', 'published', 'authors']) assert.equal(hm[key], xm[key], key);
  assert.equal(hm['stream'], 'Internet Engineering Task Force (IETF)');
  for (const d of [html, xml])
    assert.ok(
      !d.blocks.some((b) => /Internet Engineering Task Force \(IETF\)/.test(b.text) && b.kind === 'table'),
      'front matter as a table',
    );
});

test('every XML section id exists in the XML; HTML-style ids are derived aliases only', { skip: SKIP_CORPUS }, async () => {
  for (const name of PAIRS) {
    const xml = await extractCorpusFile(`rfc/${name}.xml`);
    const { readFileSync } = await import('node:fs');
    const source = readFileSync(path.join(corpusDir, `rfc/${name}.xml`), 'utf8');
    const inSource = new Set([...source.matchAll(/\b(?:id|anchor|pn|name)="([^"]+)"/g)].map((m) => m[1]!));
    for (const s of xml.sections) {
      for (const id of [s.fragment, ...(s.alternateIds ?? [])])
        if (id !== null) assert.ok(inSource.has(id), `${name}: section id ${id} is not in the XML`);
      if (!s.id.startsWith('~')) assert.ok(inSource.has(s.id.replace(/~\d+$/, '')), `${name}: section id ${s.id} is not in the XML`);
    }
    for (const b of xml.blocks)
      assert.doesNotMatch(b.text, /\[(?:section|appendix|figure|table)-[\w.-]+\]/, `${name}: bare [anchor] xref in ${b.id}`);
  }
});

test('fixture pair (xml2rfc v3 HTML and its prepared XML): every block agrees, each class as the RFC shows it', async () => {
  const { readFileSync } = await import('node:fs');
  const { extractBytes, fixturesDir } = await import('./helpers.js');
  const read = (name: string): Uint8Array => new Uint8Array(readFileSync(path.join(fixturesDir, name)));
  const html = await extractBytes(read('rfc-pair-v3.html'), 'https://www.rfc-editor.org/rfc/rfc9996.html', 'text/html');
  const xml = await extractBytes(read('rfc-pair-v3.xml'), 'https://www.rfc-editor.org/rfc/rfc9996.xml', 'application/rfc+xml');
  const result = compare(html, xml);
  assert.deepEqual([...result.unpairedSections, ...result.problems], []);
  assert.equal(result.paired, result.total);
  assert.ok(result.total >= 8, `only ${result.total} blocks`);
  for (const d of [html, xml]) {
    const text = d.blocks.map((b) => b.text).join('\n');
    // xref: the text the RFC shows, never "[anchor]".
    assert.match(text, /follow Section 2, shown in Figure 1; see \[RFC2119\] and Section 2 of \[RFC2119\]\./);
    assert.match(text, /see Appendix A\./);
    assert.doesNotMatch(text, /\[(?:rules|fig-layers|appendix-notes)\]/);
    // aside: a note, informative.
    const aside = d.blocks.find((b) => b.text.startsWith('Implementations often ignore'))!;
    assert.equal(aside.kind, 'note');
    assert.equal(aside.normativity, 'informative');
    // Captions belong to their figure and table, with the figure's and table's id.
    const figure = d.blocks.find((b) => b.kind === 'artwork')!;
    assert.equal(figure['caption'], 'Figure 1: Layers');
    assert.equal(figure.fragment, 'figure-1');
    const table = d.blocks.find((b) => b.kind === 'table')!;
    assert.equal(table['caption'], 'Table 1: Codes');
    assert.equal(table.fragment, 'table-1');
    assert.doesNotMatch(table.text, /Table 1/);
    // Front matter: metadata, never a block.
    assert.ok(!d.blocks.some((b) => /Standards Track/.test(b.text)), 'front matter became a block');
    const meta = d['metadata'] as Record<string, string>;
    assert.equal(meta['stream'], 'Internet Engineering Task Force (IETF)');
    assert.equal(meta['category'], 'Standards Track');
    assert.equal(meta['published'], 'May 2030');
    assert.equal(meta['authors'], 'A. Writer, Ed.');
  }
  // The XML's ids are its own: pn "section-appendix.a" is the fragment, "appendix-A" only a derived alias.
  const appendix = xml.sections.find((s) => s.heading === 'Notes')!;
  assert.equal(appendix.fragment, 'section-appendix.a');
  assert.equal(appendix.id, 'section-appendix.a');
  assert.deepEqual(appendix.derivedIds, ['appendix-A']);
  assert.ok(!xml.sections.some((s) => s.id === 'appendix-A' || s.fragment === 'appendix-A'));
});

const fixturePairTitle =
  'fixture pair (rfc2629.xslt HTML and its XML with x: extensions): every block agrees, each class as that renderer prints it';
test(fixturePairTitle, async () => {
  const { readFileSync } = await import('node:fs');
  const { extractBytes, fixturesDir } = await import('./helpers.js');
  const read = (name: string): Uint8Array => new Uint8Array(readFileSync(path.join(fixturesDir, name)));
  const html = await extractBytes(read('rfc-pair-rfc2629.html'), 'https://httpwg.org/specs/rfc9995.html', 'text/html');
  const xml = await extractBytes(read('rfc-pair-rfc2629.xml'), 'https://httpwg.org/specs/rfc9995.xml', 'application/rfc+xml');
  const result = compare(html, xml);
  assert.deepEqual([...result.unpairedSections, ...result.problems], []);
  assert.equal(result.paired, result.total);
  assert.ok(result.total >= 14, `only ${result.total} blocks`);
  const text = (d: typeof xml): string => d.blocks.map((b) => b.text).join('\n');
  for (const d of [html, xml]) {
    // ABNF is grammar in both: pre.inline (also wrapped in inline spans), artwork/sourcecode type abnf*.
    assert.deepEqual(
      d.blocks.filter((b) => b.kind === 'grammar').map((b) => b.text),
      ['message = start-line *( field CRLF ) ; see [RFC5234], Appendix B.1', 'OWS = *( SP / HTAB )'],
    );
    // x:length-of: the body's length with line ends as CRLF.
    assert.match(text(d), /Content-Length: 24\n/);
    // An xref with content names the section it points at; a counter xref to a list item, its number.
    assert.match(text(d), /as framed messages \(Section 2\) describe/);
    assert.match(text(d), /return to step 1\./);
    // Nested v2 list without a style: numbered like its enclosing list.
    assert.match(text(d), /1\. A short read fails the message\.\n\s*1\. Retrying/);
    // rdf:Description is registry metadata, never text.
    assert.doesNotMatch(text(d), /\(reserved\)/);
    // References: sorted, the day only with x:include-day, DOI and info page added, annotation after.
    assert.match(
      text(d),
      new RegExp(
        /\[BREW\]\nMasinter, L\., .Brewing Widgets., RFC 2324, DOI 10\.17487\/RFC2324, 1 April 1998, /.source +
          /<https:\/\/www\.rfc-editor\.org\/info\/rfc2324>\. See Section 2 for why\.\n\[CORE\]/.source,
      ),
    );
    assert.match(text(d), /Crocker, D\., Ed\. and P\. Overell, .Augmented BNF for Syntax Specifications: ABNF., STD 68, RFC 5234, DOI/);
    assert.doesNotMatch(text(d), /January 15, 2008|15 January 2008/);
  }
  // What only the x:source document holds is declared, and the cross-reference keeps its target.
  assert.ok(xml.limits.includes(EXTERNAL_SOURCES_LIMIT));
  const core = xml.blocks.find((b) => b.text.includes('applies to its content'))!;
  assert.ok((core['links'] as { href: string }[]).some((l) => l.href === 'https://httpwg.org/specs/rfc9994.html#message.body'));
  // The discount applies only when the XML declares the limit: without it, the blocks differ.
  const undeclared = compare(html, { ...xml, limits: xml.limits.filter((l) => l !== EXTERNAL_SOURCES_LIMIT) });
  assert.equal(undeclared.problems.length, 2, undeclared.problems.join('\n'));
});

test('an XML without the rfc2629.xslt extension namespace reads with xml2rfc conventions', async () => {
  const { readFileSync } = await import('node:fs');
  const { extractBytes, fixturesDir } = await import('./helpers.js');
  const source = readFileSync(path.join(fixturesDir, 'rfc-pair-rfc2629.xml'), 'utf8')
    .replace(' xmlns:x="http://purl.org/net/xml2rfc/ext"', '')
    .replace('<?rfc-ext xml2rfc-backend="202007"?>\n', '');
  const xml = await extractBytes(source, 'https://www.rfc-editor.org/rfc/rfc9995.xml', 'application/rfc+xml');
  const text = xml.blocks.map((b) => b.text).join('\n');
  // xml2rfc prints the day ("April 1, 1998") and adds DOIs; an xref with content is its content only.
  assert.match(text, /RFC 2324, DOI 10\.17487\/RFC2324, April 1, 1998/);
  assert.match(text, /January 15, 2008/);
  assert.match(text, /as framed messages describe/);
  // x:sec inside artwork keeps the "of" default outside rfc2629.xslt.
  assert.match(text, /see Appendix B\.1 of \[RFC5234\]/);
});

test('<?rfc-ext?> processing instructions alone mark an XML as written for rfc2629.xslt', async () => {
  const { readFileSync } = await import('node:fs');
  const { extractBytes, fixturesDir } = await import('./helpers.js');
  const source = readFileSync(path.join(fixturesDir, 'rfc-pair-rfc2629.xml'), 'utf8').replace(
    ' xmlns:x="http://purl.org/net/xml2rfc/ext"',
    '',
  );
  const xml = await extractBytes(source, 'https://httpwg.org/specs/rfc9995.xml', 'application/rfc+xml');
  const text = xml.blocks.map((b) => b.text).join('\n');
  assert.match(text, /RFC 2324, DOI 10\.17487\/RFC2324, 1 April 1998/);
  assert.match(text, /January 2008/);
  assert.doesNotMatch(text, /January 15, 2008/);
});

const bibxmlTitle =
  'bibxml references (external entities, <?rfc include?>) keep their anchors: cited as "[RFC3550]", listed, declared unread';
test(bibxmlTitle, async () => {
  const { extractBytes } = await import('./helpers.js');
  const source =
    `<?xml version="1.0"?>
<!DOCTYPE rfc [
  <!ENTITY rfc3550 SYSTEM "http://xml.resource.org/public/rfc/bibxml/reference.RFC.3550.xml">
  <!ENTITY w3c PUBLIC "-//W3C//x" 'https://bib.ietf.org/public/rfc/bibxml4/reference.W3C.REC-xml-20081126.xml'>
  <!ENTITY boiler SYSTEM "boilerplate.xml">
]>
<rfc number="9993" category="info">
<front><title>Includes</title></front>
<middle><section anchor="s" title="Uses"><t>RTP <xref target="RFC3550"/>, XML <xref target="W3C.REC-xml-20081126"/>, ` +
    `the series <xref target="RFC4844"/>.&boiler;</t></section></middle>
<back><references title="Informative References">
&rfc3550;
&w3c;
<?rfc include="https://bib.ietf.org/public/rfc/bibxml/reference.RFC.4844"?>
</references></back>
</rfc>`;
  const xml = await extractBytes(source, 'https://www.rfc-editor.org/rfc/rfc9993.xml', 'application/rfc+xml');
  const text = xml.blocks.map((b) => b.text).join('\n');
  assert.match(text, /RTP \[RFC3550\], XML \[W3C\.REC-xml-20081126\], the series \[RFC4844\]\./);
  const list = xml.blocks.find((b) => b.kind === 'definition-list')!;
  assert.deepEqual(
    (list['entries'] as { terms: string[] }[]).map((e) => e.terms[0]),
    ['[RFC3550]', '[W3C.REC-xml-20081126]', '[RFC4844]'],
  );
  assert.ok(xml.limits.includes(EXTERNAL_SOURCES_LIMIT));
  assert.ok(xml.limits.includes('xml-external-entities-not-loaded'));
});

test('v2 numbered="no" sections are unnumbered as v3 numbered="false" ones: no appendix letter, the next one takes it', async () => {
  const { extractBytes } = await import('./helpers.js');
  // As ietf-tools/xml2rfc tests/input/rfc7911.xml ends: an unnumbered Acknowledgments after the references.
  const source = `<?xml version="1.0"?>
<rfc number="9992" category="std">
<front><title>Unnumbered</title></front>
<middle><section title="Intro" anchor="intro"><t>See <xref target="ack"/> and <xref target="more"/>.</t>
<section title="Aside" numbered="no"><t>Aside.</t></section>
<section title="Numbered"><t>One.</t></section></section></middle>
<back><section title="Acknowledgments" anchor="ack" numbered="no"><t>Thanks.</t></section>
<section title="More" anchor="more"><t>More.</t></section></back>
</rfc>`;
  const xml = await extractBytes(source, 'https://www.rfc-editor.org/rfc/rfc9992.xml', 'application/rfc+xml');
  const numbers = Object.fromEntries(xml.sections.map((s) => [s.heading, s.number]));
  assert.equal(numbers['Aside'], null);
  assert.equal(numbers['Numbered'], '1.1');
  assert.equal(numbers['Acknowledgments'], null);
  assert.equal(numbers['More'], 'A');
  const ack = xml.sections.find((s) => s.heading === 'Acknowledgments')!;
  assert.equal(ack.derivedIds, undefined);
  assert.match(xml.blocks.map((b) => b.text).join('\n'), /See Acknowledgments and Appendix A\./);
});

test('XInclude bibxml references (v3 drafts) keep their anchors as <?rfc include?> does; other includes are declared unread', async () => {
  const { extractBytes } = await import('./helpers.js');
  // As httpwg/http-extensions draft-ietf-httpbis-safe-method-w-body.xml writes them: any prefix, or the default namespace.
  const source =
    `<?xml version="1.0"?>
<rfc version="3" category="std" docName="draft-x-00" xmlns:xi="http://www.w3.org/2001/XInclude">
<front><title>Includes</title></front>
<middle><section anchor="s" title="Uses"><t>Keywords <xref target="RFC2119"/>, methods <xref target="RFC7231" section="8.1"/>,` +
    ` search <xref target="RFC5323"/>, not <xref target="RFC9999"/>.</t></section>
<xi:include href="sections/more.xml"/></middle>
<back><references title="Normative References">
<xi:include href="https://bib.ietf.org/public/rfc/bibxml/reference.RFC.2119.xml"/>
<xi:include href="https://xml2rfc.tools.ietf.org/public/rfc/bibxml/reference.RFC.7231.xml"/>
<include xmlns="http://www.w3.org/2001/XInclude" href="reference.RFC.5323.xml"/>
<other:include xmlns:other="http://example.org/not-xinclude" href="reference.RFC.9999.xml"/>
</references></back>
</rfc>`;
  const xml = await extractBytes(source, 'https://www.ietf.org/archive/id/draft-x-00.xml', 'application/rfc+xml');
  const text = xml.blocks.map((b) => b.text).join('\n');
  assert.match(text, /Keywords \[RFC2119\], methods Section 8\.1 of \[RFC7231\], search \[RFC5323\], not RFC9999\./);
  const list = xml.blocks.find((b) => b.kind === 'definition-list')!;
  assert.deepEqual(
    (list['entries'] as { terms: string[] }[]).map((e) => e.terms[0]),
    ['[RFC2119]', '[RFC7231]', '[RFC5323]'],
  );
  assert.ok(xml.limits.includes(EXTERNAL_SOURCES_LIMIT));
  // An include outside the references (a section in a file of its own) is unread too.
  const section = await extractBytes(
    source.replace(/<back>[\s\S]*<\/back>/, '<back/>'),
    'https://www.ietf.org/archive/id/draft-x-00.xml',
    'application/rfc+xml',
  );
  assert.ok(section.limits.includes(EXTERNAL_SOURCES_LIMIT));
});
