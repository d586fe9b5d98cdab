import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractBytes } from './helpers.js';

/**
 * A v2 RFC XML's reference lists beside one another in <back> (normative, then informative) are the
 * subsections N.1 and N.2 of one "References" section N, as xml2rfc and rfc2629.xslt print them (the
 * dev corpus's RFC 6265, 6635, 6787 and 9110 in HTML and text): read as sections N and N+1, the XML
 * rendering's numbers and citations matched no other rendering. Cross-references give the same numbers.
 */
const v2 = (lists: string): string => `<?xml version="1.0" encoding="US-ASCII"?>
<rfc number="9998" category="std"><front><title>Test Lists</title></front><middle>
<section anchor="intro" title="Introduction"><t>See <xref target="informative"/> and <xref target="normative"/>.</t></section>
<section anchor="terms" title="Terms"><t>Words.</t></section>
</middle><back>${lists}
<section anchor="extra" title="Extra Material"><t>An appendix.</t></section>
</back></rfc>`;

const reference = (anchor: string): string =>
  `<reference anchor="${anchor}"><front><title>T ${anchor}</title><author initials="A." surname="B"/>` +
  '<date year="2000"/></front></reference>';

const normative = `<references title="Normative References" anchor="normative">${reference('RFC2119')}</references>`;
const informative = `<references title="Informative References" anchor="informative">${reference('RFC7231')}</references>`;

test('two reference lists in <back> are one References section with two subsections', async () => {
  const doc = await extractBytes(v2(normative + informative), 'https://www.rfc-editor.org/rfc/rfc9998.xml', 'application/xml');
  const outline = doc.sections.map((s) => [s.number, s.heading, s.level]);
  assert.deepEqual(outline.slice(2), [
    ['3', 'References', 2],
    ['3.1', 'Normative References', 3],
    ['3.2', 'Informative References', 3],
    ['A', 'Extra Material', 2],
  ]);
  const references = doc.sections.find((s) => s.heading === 'References')!;
  assert.deepEqual(references.derivedIds, ['section-3'], 'the id xml2rfc gives it, as an alias');
  for (const s of doc.sections.filter((x) => x.number?.startsWith('3.'))) assert.equal(s.parentId, references.id);
  const intro = doc.blocks.find((b) => b.text.startsWith('See '))!;
  assert.match(intro.text, /Section 3\.2/, intro.text);
  assert.match(intro.text, /Section 3\.1/, intro.text);
});

test('one reference list in <back> is a section of its own; a v3 list of lists keeps its own nesting', async () => {
  const one = await extractBytes(v2(normative), 'https://www.rfc-editor.org/rfc/rfc9998.xml', 'application/xml');
  assert.deepEqual(
    one.sections.slice(2).map((s) => [s.number, s.heading, s.level]),
    [
      ['3', 'Normative References', 2],
      ['A', 'Extra Material', 2],
    ],
  );
  const nested = await extractBytes(
    v2(
      `<references anchor="refs"><name>References</name>${normative
        .replace('title="Normative References"', '')
        .replace('<references', '<references')
        .replace('anchor="normative">', 'anchor="normative"><name>Normative References</name>')}${informative
        .replace('title="Informative References"', '')
        .replace('anchor="informative">', 'anchor="informative"><name>Informative References</name>')}</references>`,
    ),
    'https://www.rfc-editor.org/rfc/rfc9998.xml',
    'application/xml',
  );
  assert.deepEqual(
    nested.sections.slice(2).map((s) => [s.number, s.heading, s.level]),
    [
      ['3', 'References', 2],
      ['3.1', 'Normative References', 3],
      ['3.2', 'Informative References', 3],
      ['A', 'Extra Material', 2],
    ],
  );
});
