import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvidenceDocument } from '../../src/document/types.js';
import { extractBytes } from './helpers.js';

/**
 * XML that is not well-formed builds a document with the warning xml-malformed naming what the parser
 * met, and the content it could keep; before, each of these built silently (exit 0, no diagnostic)
 * and the unterminated comment's or second root's content was simply gone.
 */

const extract = (source: string): Promise<EvidenceDocument> => extractBytes(source, 'https://example.org/doc.xml', 'application/xml');
const malformed = (doc: EvidenceDocument): string[] =>
  doc.diagnostics.filter((d) => d.code === 'xml-malformed').map((d) => `${d.severity}: ${d.message}`);
const texts = (doc: EvidenceDocument): string[] => doc.blocks.map((b) => b.text);

test('each way XML is badly formed is named, with its line; what the parser can keep is kept', async () => {
  const cases: [string, RegExp, string[]][] = [
    ['<doc><t>ok</t><!-- never closed <t>lost</t></doc>', /a comment is never closed \(no "-->"\); the rest is in it \(line 1\)/, ['ok']],
    ['<doc><t>ok</t>\n<![CDATA[kept <b>', /a CDATA section is never closed \(no "]]>"\) \(line 2\)/, ['ok kept <b>']],
    ['<a>first</a>\n<b>second</b>', /a second root element <b> \(line 2\)/, ['first', 'second']],
    ['<doc><section><title>T</title><p>one</p><p>two', /the input ends with 3 elements open \(<doc> <section> <p>\)/, ['one', 'two']],
    ['<doc><p>one</q><p>two</p></doc>', /the end tag <\/q> matches no open element/, ['onetwo']],
    ['<doc><p>one</p><p>two</doc>', /the end tag <\/doc> closes <p> too/, ['one', 'two']],
    ['<doc><p>ok</p><p a="x', /the input ends inside the start tag <p>/, ['ok']],
  ];
  for (const [source, named, kept] of cases) {
    const doc = await extract(source);
    const found = malformed(doc);
    assert.equal(found.length, 1, `${source}: ${found.join(' | ')}`);
    assert.match(found[0]!, /^warning: The XML is not well-formed: /);
    assert.match(found[0]!, named, source);
    assert.deepEqual(texts(doc), kept, source);
  }
});

test('well-formed XML carries no xml-malformed; more errors than are described are counted', async () => {
  assert.deepEqual(malformed(await extract('<?xml version="1.0"?>\n<!-- a comment -->\n<doc><p>ok</p><![CDATA[x]]></doc>\n')), []);
  const many = await extract(`<doc>${'</x>'.repeat(8)}<p>ok</p></doc>`);
  assert.match(malformed(many)[0]!, /; 3 more\. /);
});

test('XML with no root element is still an error', async () => {
  assert.deepEqual(malformed(await extract('<!-- only a comment -->')), ['error: The XML has no root element.']);
});
