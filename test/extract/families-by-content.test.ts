import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { EvidenceDocument, SnapshotMeta } from '../../src/document/types.js';
import { DEFAULT_EXTRACT_OPTIONS, extractionConfig, validateDocument } from '../../src/extract/extract.js';
import { xmlRootStartTag } from '../../src/extract/declared-generator.js';
import { namesGenerator } from '../../src/extract/families.js';
import { extractBytes, snapshotFor } from './helpers.js';
import {
  DOMINTRO,
  DRAFT_TEXT_HEADER,
  RFC_TEXT_HEADER,
  bikeshed,
  ecmarkup,
  kramdownRfc,
  mmarkDraft,
  respecSource,
  rfcText,
  rfcXml,
  xml2rfcHtml,
} from '../helpers/declared-generators.js';

/**
 * A document whose URL no family names (no family field, URL prefix, host or host suffix) takes the
 * family of the tool its bytes declare, as the rules list it (match.generators): the generator meta,
 * else the markup of ReSpec, Bikeshed, ecmarkup, RFC XML and the RFC text layout. The family's rules
 * then apply as on the family's own hosts (authority, notes, apparatus, document type), and the
 * document says why (info diagnostic family-from-content). A URL or an entry that names a family wins.
 */

const HOST = 'https://docs.example.test';

function section(doc: EvidenceDocument, heading: string): { normativity: string; number: string | null; level: number } {
  const found = doc.sections.find((s) => s.heading === heading);
  assert.ok(found, `section "${heading}" in ${doc.sections.map((s) => s.heading).join(' | ')}`);
  return found as never;
}

function block(doc: EvidenceDocument, text: string): { kind: string; normativity: string } {
  const found = doc.blocks.find((b) => b.text.includes(text));
  assert.ok(found, `block "${text}"`);
  return found as never;
}

function familyDiagnostic(doc: EvidenceDocument): string | undefined {
  return doc.diagnostics.find((d) => d.code === 'family-from-content')?.message;
}

const CASES: {
  name: string;
  body: string;
  contentType: string;
  family: string;
  documentType: string;
  evidence: RegExp;
  check: (doc: EvidenceDocument) => void;
}[] = [
  {
    name: 'Bikeshed (generator meta)',
    body: bikeshed('<meta content="Bikeshed version 3f1e0c" name="generator">', 'Editor’s Draft, 1 January 2030'),
    contentType: 'text/html',
    family: 'w3c',
    documentType: 'specification',
    evidence: /made by Bikeshed \(<meta name="generator" content="Bikeshed version 3f1e0c">\)/,
    check: (doc) => {
      assert.equal(section(doc, 'Introduction').number, '1');
      assert.equal(block(doc, 'User agents must').normativity, 'normative');
      assert.equal(block(doc, 'Widgets are small').kind, 'note');
      assert.equal(block(doc, 'Widgets are small').normativity, 'informative');
      assert.equal(section(doc, 'Status of this document').normativity, 'informative', "w3c's informative headings");
      assert.equal(section(doc, 'Changes').normativity, 'informative', "w3c's informative section ids");
    },
  },
  {
    name: 'Bikeshed without a generator meta (its test renders): its settled headings',
    body: bikeshed('', 'Editor’s Draft, 1 January 2030'),
    contentType: 'text/html',
    family: 'w3c',
    documentType: 'specification',
    evidence: /made by Bikeshed \(Bikeshed's headings, class="heading settled"\)/,
    check: (doc) => assert.equal(block(doc, 'User agents must').normativity, 'normative'),
  },
  {
    name: 'Bikeshed Living Standard',
    body: bikeshed('<meta content="Bikeshed version 3f1e0c" name="generator">', 'Living Standard — Last Updated 1 January 2030', DOMINTRO),
    contentType: 'text/html',
    family: 'whatwg',
    documentType: 'living-standard',
    evidence: /made by Bikeshed .* declares the document type living-standard, so it was read with the whatwg family's rules/,
    check: (doc) => {
      // whatwg's rules: the "For web developers" box is informative (w3c's would make it normative).
      assert.equal(block(doc, 'Spins the widget').normativity, 'informative');
      assert.equal(block(doc, 'User agents must').normativity, 'normative');
    },
  },
  {
    name: 'ReSpec source (a script that loads ReSpec)',
    body: respecSource,
    contentType: 'text/html',
    family: 'w3c',
    documentType: 'specification',
    evidence: /made by ReSpec \(a script that loads ReSpec\)/,
    check: (doc) => {
      assert.equal(section(doc, 'Turning').level, 3, 'nested as ReSpec renders it');
      assert.equal(block(doc, 'A gizmo must turn').normativity, 'normative');
      assert.equal(section(doc, 'Status of This Document').normativity, 'informative');
    },
  },
  {
    name: 'xml2rfc HTML of an RFC',
    body: xml2rfcHtml('<meta content="9999" name="rfc.number">'),
    contentType: 'text/html',
    family: 'rfc',
    documentType: 'rfc',
    evidence: /made by xml2rfc \(<meta name="generator" content="xml2rfc 3\.25\.0">\) and declares the document type rfc/,
    check: (doc) => {
      assert.equal(section(doc, 'Introduction').number, '1');
      assert.equal(block(doc, 'Senders MUST greet').normativity, 'normative');
      assert.equal(section(doc, 'Acknowledgements').normativity, 'informative');
    },
  },
  {
    name: 'xml2rfc HTML of an Internet-Draft',
    body: xml2rfcHtml('<meta content="draft-example-protocol-00" name="ietf.draft">'),
    contentType: 'text/html',
    family: 'ietf-draft',
    documentType: 'internet-draft',
    evidence: /declares the document type internet-draft/,
    check: (doc) => assert.equal(block(doc, 'Senders MUST greet').normativity, 'normative'),
  },
  {
    name: 'RFC XML with a number',
    body: rfcXml('number="9999" docName="draft-example-protocol-05"'),
    contentType: 'application/rfc+xml',
    family: 'rfc',
    documentType: 'rfc',
    evidence: /made by xml2rfc \(the RFC XML root <rfc number="9999">\)/,
    check: (doc) => assert.equal(block(doc, 'Senders MUST greet').normativity, 'normative'),
  },
  {
    name: 'RFC XML of a draft',
    body: rfcXml('docName="draft-example-protocol-05"'),
    contentType: 'application/xml',
    family: 'ietf-draft',
    documentType: 'internet-draft',
    evidence: /the RFC XML root <rfc docName="draft-example-protocol-05">/,
    check: (doc) => assert.equal(block(doc, 'Senders MUST greet').normativity, 'normative'),
  },
  {
    name: 'RFC plain text',
    body: rfcText(RFC_TEXT_HEADER),
    contentType: 'text/plain',
    family: 'rfc',
    documentType: 'rfc',
    evidence: /made by xml2rfc \(the RFC plain-text layout\) and declares the document type rfc/,
    check: (doc) => {
      assert.equal(section(doc, 'Introduction').number, '1');
      assert.equal(block(doc, 'Senders MUST send').normativity, 'normative');
      assert.equal(section(doc, 'Acknowledgements').normativity, 'informative');
    },
  },
  {
    name: 'Internet-Draft plain text',
    body: rfcText(DRAFT_TEXT_HEADER),
    contentType: 'text/plain',
    family: 'ietf-draft',
    documentType: 'internet-draft',
    evidence: /declares the document type internet-draft/,
    check: (doc) => assert.equal(block(doc, 'Senders MUST send').normativity, 'normative'),
  },
  {
    name: 'ecmarkup',
    body: ecmarkup,
    contentType: 'text/html',
    family: 'tc39',
    documentType: 'specification',
    evidence: /made by ecmarkup \(ecmarkup's ecmarkup\.css\)/,
    check: (doc) => {
      assert.equal(block(doc, 'A widget must spin').normativity, 'normative');
      assert.equal(block(doc, 'Spinning is fun').normativity, 'informative');
    },
  },
  {
    name: 'kramdown-rfc Markdown',
    body: kramdownRfc('draft-example-protocol-03'),
    contentType: 'text/markdown',
    family: 'ietf-draft',
    documentType: 'internet-draft',
    evidence: /made by kramdown-rfc \(kramdown-rfc front matter, docname: draft-example-protocol-03\) and declares the document type/,
    check: (doc) => {
      assert.equal(block(doc, 'Senders MUST send').normativity, 'normative');
      assert.equal(section(doc, 'Acknowledgments').normativity, 'informative', "ietf-draft's apparatus");
      assert.equal(section(doc, 'Abstract').normativity, 'informative');
    },
  },
  {
    name: 'mmark Markdown',
    body: mmarkDraft('draft-example-protocol-04'),
    contentType: 'text/markdown',
    family: 'ietf-draft',
    documentType: 'internet-draft',
    evidence: /made by mmark \(mmark front matter, seriesInfo: Internet-Draft draft-example-protocol-04\) and declares the document type/,
    check: (doc) => {
      assert.equal(doc.title, 'The Example Protocol');
      assert.equal(section(doc, 'Abstract').normativity, 'informative');
      assert.ok(doc.blocks.some((b) => b.text === 'Senders MUST send a greeting [RFC2119].'));
      assert.equal(block(doc, 'Senders MUST send').normativity, 'normative');
      assert.equal(section(doc, 'Acknowledgments').normativity, 'informative', "ietf-draft's apparatus");
    },
  },
];

for (const c of CASES) {
  test(`on a host no family names, ${c.name} is read with the ${c.family} family`, async () => {
    const doc = await extractBytes(c.body, `${HOST}/${c.family}/`, c.contentType);
    assert.deepEqual(validateDocument(doc), { ok: true });
    assert.equal(doc.family, c.family);
    assert.equal(doc.documentType, c.documentType);
    assert.equal(doc.authority, 'normative');
    assert.match(familyDiagnostic(doc) ?? '', c.evidence);
    assert.equal(doc.diagnostics.find((d) => d.code === 'family-from-content')?.severity, 'info');
    c.check(doc);
  });
}

test('without a generator it knows, a page stays generic: unknown generators, other words, plain pages', async () => {
  for (const meta of ['', '<meta name="generator" content="Hugo 0.120.4">', '<meta name="generator" content="Bikesheds 2">']) {
    const page = `<html><head>${meta}<title>T</title></head><body><h2 id="a">A</h2><p>Users must log in.</p></body></html>`;
    const doc = await extractBytes(page, `${HOST}/page`, 'text/html');
    assert.equal(doc.family, 'generic', meta);
    assert.equal(doc.authority, 'informative');
    assert.equal(familyDiagnostic(doc), undefined);
  }
  const text = await extractBytes('A plain note.\n\nIt says nothing about RFCs.\n', `${HOST}/note.txt`, 'text/plain');
  assert.equal(text.family, 'generic');
  const xml = await extractBytes('<?xml version="1.0"?><manual><title>M</title></manual>', `${HOST}/m.xml`, 'application/xml');
  assert.equal(xml.family, 'generic');
  // A Jekyll or Hugo page's front matter names no draft.
  const jekyll = await extractBytes(
    '---\ntitle: Notes\nlayout: post\n---\n\n# Notes\n\nUsers must log in.\n',
    `${HOST}/notes.md`,
    'text/markdown',
  );
  assert.equal(jekyll.family, 'generic');
});

test('the diagnostic quotes a generator meta cut short, without control characters', async () => {
  const content = `Bikeshed \u001b[31mversion\u0007 ${'x'.repeat(300)}`;
  const doc = await extractBytes(bikeshed(`<meta name="generator" content="${content}">`, 'Draft'), `${HOST}/w`, 'text/html');
  assert.equal(doc.family, 'w3c');
  const message = familyDiagnostic(doc)!;
  assert.ok(![...message].some((c) => c.charCodeAt(0) < 0x20), message);
  assert.match(message, /content="Bikeshed \[31mversion x+…">/);
  assert.ok(message.length < 400, message);
});

test('a family named by the entry or the URL wins over what the content declares', async () => {
  const page = bikeshed('<meta content="Bikeshed version 3f1e0c" name="generator">', 'Living Standard');
  const named = await extractBytes(page, `${HOST}/named`, 'text/html', { family: 'generic' });
  assert.equal(named.family, 'generic');
  assert.equal(familyDiagnostic(named), undefined);
  const onW3c = await extractBytes(page, 'https://www.w3.org/TR/widget/', 'text/html');
  assert.equal(onW3c.family, 'w3c', 'the URL names w3c; the Living Standard subtitle does not move it');
  assert.equal(familyDiagnostic(onW3c), undefined);
  const rfcOnW3c = await extractBytes(rfcXml('number="9999"'), 'https://www.w3.org/TR/odd.xml', 'application/rfc+xml');
  assert.equal(rfcOnW3c.family, 'w3c');
  // The same bytes under the family's own URL and under an unknown host give the same structure.
  const own = await extractBytes(
    xml2rfcHtml('<meta content="9999" name="rfc.number">'),
    'https://www.rfc-editor.org/rfc/rfc9999.html',
    'text/html',
  );
  const mirrored = await extractBytes(xml2rfcHtml('<meta content="9999" name="rfc.number">'), `${HOST}/rfc9999.html`, 'text/html');
  assert.deepEqual(
    mirrored.blocks.map((b) => [b.kind, b.text, b.normativity]),
    own.blocks.map((b) => [b.kind, b.text, b.normativity]),
  );
  assert.deepEqual(mirrored.sections, own.sections);
});

test('a draft on a host the rfc family names is read as a draft; an RFC there, or a family the entry names, is kept', async () => {
  const draftUrl = 'https://httpwg.org/http-extensions/draft-ietf-httpbis-widget.html';
  const draft = await extractBytes(xml2rfcHtml('<meta content="draft-ietf-httpbis-widget-03" name="ietf.draft">'), draftUrl, 'text/html');
  assert.equal(draft.family, 'ietf-draft');
  assert.equal(draft.documentType, 'internet-draft');
  assert.match(familyDiagnostic(draft) ?? '', /^The URL names the rfc family \(documents of type rfc\); .* internet-draft/);
  const rfc = await extractBytes(
    xml2rfcHtml('<meta content="9999" name="rfc.number">'),
    'https://httpwg.org/specs/rfc9999.html',
    'text/html',
  );
  assert.equal(rfc.family, 'rfc');
  assert.equal(familyDiagnostic(rfc), undefined);
  const undeclared = await extractBytes(xml2rfcHtml(''), draftUrl, 'text/html');
  assert.equal(undeclared.family, 'rfc', 'a document that declares no type keeps its URL family');
  const named = await extractBytes(xml2rfcHtml('<meta content="draft-x-00" name="ietf.draft">'), draftUrl, 'text/html', { family: 'rfc' });
  assert.equal(named.family, 'rfc', 'a family the entry names is final');
  const archived = await extractBytes(rfcText(RFC_TEXT_HEADER), 'https://www.ietf.org/archive/id/draft-x-00.txt', 'text/plain');
  assert.equal(archived.family, 'rfc', 'an RFC in the drafts archive is an RFC');
});

test('the extraction config of a document no URL assigns covers every family its content may select, and no other', () => {
  const snap = (url: string, type: string): SnapshotMeta => snapshotFor(url, type, new Uint8Array([1]));
  const ids = (config: Record<string, unknown>): string[] | undefined =>
    (config['familiesByContent'] as { id: string }[] | undefined)?.map((f) => f.id);
  const unknown = extractionConfig({ url: `${HOST}/x` }, snap(`${HOST}/x`, 'text/html'), DEFAULT_EXTRACT_OPTIONS);
  assert.deepEqual(
    ids(unknown),
    [
      'asciidoc',
      'docbook',
      'doxygen',
      'erlang',
      'groff',
      'haddock',
      'ietf-draft',
      'javadoc',
      'jsdoc',
      'mandoc',
      'mediawiki',
      'nodejs',
      'pod2html',
      'rdoc',
      'rfc',
      'rustdoc',
      'tc39',
      'texinfo',
      'typedoc',
      'w3c',
      'whatwg',
      'yard',
    ],
    'the families that list generators, by file name',
  );
  assert.equal((unknown['family'] as { id: string }).id, 'generic', 'the last resort');
  // A URL or an entry that names a family: that family's rules alone, and a URL's family's siblings
  // (the families that read exactly its tools: rfc and ietf-draft), whose type the document may declare.
  for (const [url, family, expected] of [
    ['https://www.w3.org/TR/x/', undefined, undefined],
    ['https://www.rfc-editor.org/rfc/rfc1.txt', undefined, ['ietf-draft']],
    ['https://www.ietf.org/archive/id/draft-x-00.txt', undefined, ['rfc']],
    ['https://www.rfc-editor.org/rfc/rfc1.txt', 'rfc', undefined],
    [`${HOST}/x`, 'generic', undefined],
  ] as const) {
    const config = extractionConfig({ url, ...(family ? { family } : {}) }, snap(url, 'text/html'), DEFAULT_EXTRACT_OPTIONS);
    assert.deepEqual(ids(config), expected, url);
  }
  // A PDF declares no generator Episteme reads: generic alone.
  assert.equal(
    ids(extractionConfig({ url: `${HOST}/a.pdf` }, snap(`${HOST}/a.pdf`, 'application/pdf'), DEFAULT_EXTRACT_OPTIONS)),
    undefined,
  );
});

test('generator names match as whole words, case-insensitively', () => {
  assert.equal(namesGenerator('Bikeshed version 3f1e', 'Bikeshed'), true);
  assert.equal(namesGenerator('bikeshed 1.0.0', 'Bikeshed'), true);
  assert.equal(namesGenerator('https://github.com/mnot/RFCBootstrap XSLT vendor: Saxonica', 'RFCBootstrap'), true);
  assert.equal(namesGenerator('xml2rfc version 2.4.7 - http://tools.ietf.org/tools/xml2rfc', 'xml2rfc'), true);
  assert.equal(namesGenerator('http://greenbytes.de/tech/webdav/rfc2629.xslt, Revision 1.1000', 'rfc2629.xslt'), true);
  assert.equal(namesGenerator('Bikesheds 2', 'Bikeshed'), false);
  assert.equal(namesGenerator('NotReSpec', 'ReSpec'), false);
  assert.equal(namesGenerator('', 'ReSpec'), false);
});

test("an XML text's root start tag is read past its prolog: declaration, comments, instructions, a DOCTYPE subset holding markup", () => {
  const root = xmlRootStartTag(rfcXml('number="9999" docName=\'draft-x-01\' sub=a'));
  assert.equal(root?.name, 'rfc');
  assert.deepEqual(
    [...root!.attributes],
    [
      ['number', '9999'],
      ['docName', 'draft-x-01'],
      ['sub', 'a'],
      ['category', 'std'],
    ],
  );
  assert.equal(xmlRootStartTag('\uFEFF<x:rfc xmlns:x="urn:x" number="1"/>')?.name, 'x:rfc');
  assert.equal(xmlRootStartTag('<?xml version="1.0"?><!-- never closed'), null);
  assert.equal(xmlRootStartTag('<!DOCTYPE rfc [ <!ENTITY a "]>"> <!-- ]> --> ]><rfc/>')?.name, 'rfc');
  assert.equal(xmlRootStartTag('no markup at all'), null);
});
