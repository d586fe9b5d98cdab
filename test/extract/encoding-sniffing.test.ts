import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PRESCAN_BYTES, charsetFromContent, declaredCharset } from '../../src/extract/encoding-sniffing.js';
import { decideCharset, documentDeclaredCharset } from '../../src/capture/charset.js';
import { DEFAULT_EXTRACT_OPTIONS, extractDocument } from '../../src/extract/extract.js';
import { extractBytes, snapshotFor } from './helpers.js';

/**
 * The charset a document declares in itself, one rule of the WHATWG prescan
 * (https://html.spec.whatwg.org/#prescan-a-byte-stream-to-determine-its-encoding) or of the XML
 * declaration per case, then the four documents the sweep found garbled, end to end.
 */

const bytes = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'latin1'));
const html = (s: string): string | null => declaredCharset(bytes(s), 'html');
const xml = (s: string): string | null => declaredCharset(bytes(s), 'xml');

test('prescan: <meta charset>, any case, quoted or not, after a slash', () => {
  assert.equal(html('<meta charset="ISO-8859-2"><p>x'), 'iso-8859-2');
  assert.equal(html('<META CHARSET=koi8-r>'), 'koi8-r');
  assert.equal(html("<meta charset='  shift_jis  '>"), 'shift_jis');
  assert.equal(html('<meta/charset=euc-kr>'), 'euc-kr');
  assert.equal(html('<p>no declaration</p>'), null);
  assert.equal(html('<metax charset=koi8-r>'), null, '"<meta" must end its name');
});

test('prescan: comments, other tags, declarations and instructions hide what they contain', () => {
  assert.equal(html('<!-- <meta charset="windows-1251"> --><meta charset="utf-8">'), 'utf-8');
  assert.equal(html('<!--><meta charset=koi8-r>'), 'koi8-r', '"<!-->" is a whole comment');
  assert.equal(html('<!-- -- > --><meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html('<div title="<meta charset=windows-1251>"><meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html('</p charset=windows-1251><meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html('<!DOCTYPE html><?php echo "<meta charset=windows-1251>" ?><meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html('<!-- never closed <meta charset=koi8-r>'), null);
});

test('prescan: http-equiv content-type with content, in either order; content alone is no declaration', () => {
  assert.equal(html('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">'), 'iso-8859-1');
  assert.equal(html('<meta content="text/html; charset=koi8-r" http-equiv=content-type>'), 'koi8-r');
  assert.equal(html('<meta content="text/html; charset=koi8-r"><meta charset=euc-jp>'), 'euc-jp');
  assert.equal(html('<meta http-equiv=refresh content="charset=koi8-r"><meta charset=euc-jp>'), 'euc-jp');
});

test('prescan: the first of a repeated attribute counts; charset beats a later content', () => {
  assert.equal(html('<meta charset=koi8-r charset=euc-jp>'), 'koi8-r');
  assert.equal(html('<meta charset=koi8-r http-equiv=content-type content="charset=euc-jp">'), 'koi8-r');
});

test('prescan: a label naming no encoding is skipped; UTF-16 means UTF-8; x-user-defined windows-1252', () => {
  assert.equal(html('<meta charset="no-such-charset"><meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html('<meta charset="utf-16">'), 'utf-8');
  assert.equal(html('<meta charset="UTF-16BE">'), 'utf-8');
  assert.equal(html('<meta http-equiv=content-type content="text/html; charset=utf-16le">'), 'utf-8');
  assert.equal(html('<meta charset="x-user-defined">'), 'windows-1252');
});

test('prescan: only the first PRESCAN_BYTES bytes are read', () => {
  const pad = (n: number): string => `<p>${'x'.repeat(n)}</p>`;
  assert.equal(html(pad(PRESCAN_BYTES - 60) + '<meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html(pad(PRESCAN_BYTES) + '<meta charset=koi8-r>'), null);
  assert.equal(html(`${pad(PRESCAN_BYTES - 20)}<meta charset=koi8-r>`), null, 'a <meta> cut by the window names nothing');
});

test('HTML without a <meta>: an XML declaration at the first byte decides; a <meta> wins over it', () => {
  assert.equal(html('<?xml version="1.0" encoding="ISO-8859-1"?><html>'), 'iso-8859-1');
  assert.equal(html('<?xml version="1.0" encoding="ISO-8859-1"?><meta charset=koi8-r>'), 'koi8-r');
  assert.equal(html(' <?xml version="1.0" encoding="ISO-8859-1"?>'), null, 'only at the first byte');
  assert.equal(html('<?xml version="1.0" encoding="utf-16"?>'), 'utf-8');
});

test('XML and XHTML: the XML declaration decides, never a <meta>', () => {
  const decl = '<?xml version="1.0" encoding="UTF-8"?>';
  assert.equal(xml(`${decl}<html><head><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/>`), 'utf-8');
  assert.equal(xml('<?xml version="1.0"?><!-- <meta charset="koi8-r"> --><doc/>'), null);
  assert.equal(xml('<html><meta charset="koi8-r"/></html>'), null);
  assert.equal(xml("<?xml version='1.0' encoding = 'windows-1252' ?><doc/>"), 'windows-1252');
  assert.equal(xml('<?xml version="1.0" encoding="UTF-16"?><doc/>'), 'utf-8', 'a declaration read as ASCII is not in UTF-16');
  assert.equal(xml('<?xml version="1.0" encoding="no-such"?><doc/>'), 'no-such', 'extraction reports it (charset-unknown)');
  assert.equal(declaredCharset(new Uint8Array(Buffer.from('<?xml version="1.0"?><doc/>', 'utf16le')), 'xml'), 'utf-16le');
});

test('"extracting a character encoding from a meta element" (content)', () => {
  assert.equal(charsetFromContent('text/html; charset=koi8-r'), 'koi8-r');
  assert.equal(charsetFromContent('text/html;CHARSET = "koi8-r" ; x'), 'koi8-r');
  assert.equal(charsetFromContent("charset='euc-jp'"), 'euc-jp');
  assert.equal(charsetFromContent('charsetx charset=euc-jp'), 'euc-jp');
  assert.equal(charsetFromContent('charset="koi8-r'), null, 'an unmatched quote');
  assert.equal(charsetFromContent('text/html'), null);
  assert.equal(charsetFromContent('charset=nonesuch'), null);
});

test('capture records what extraction decodes by: one implementation', () => {
  const xhtml = bytes(
    '<?xml version="1.0" encoding="UTF-8"?><html><meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/>',
  );
  assert.equal(documentDeclaredCharset(xhtml, 'application/xhtml+xml'), 'utf-8');
  assert.equal(documentDeclaredCharset(bytes('<!-- <meta charset=koi8-r> --><meta charset=utf-8>'), 'text/html'), 'utf-8');
  assert.equal(documentDeclaredCharset(bytes('<meta charset=koi8-r>'), 'text/plain'), null);
  assert.deepEqual(decideCharset(bytes('<meta charset="utf-16">'), 'text/html', null), {
    charset: 'utf-8',
    source: 'meta',
    headerCharset: null,
    documentCharset: 'utf-8',
  });
});

test('the four documents the sweep found garbled decode as their declarations say', async () => {
  const utf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
  const headingOf = async (source: string, contentType: string): Promise<string> => {
    const doc = await extractBytes(utf8(source), 'https://example.org/doc', contentType);
    assert.deepEqual(
      doc.diagnostics.filter((d) => d.severity !== 'info'),
      [],
      source,
    );
    return doc.sections[0]?.heading ?? '';
  };
  assert.equal(await headingOf('<!-- <meta charset="windows-1251"> --><meta charset="utf-8"><h1>Café</h1>', 'text/html'), 'Café');
  assert.equal(
    await headingOf(
      '<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><head>' +
        '<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1"/><title>T</title></head><body><h1>Café</h1></body></html>',
      'application/xhtml+xml',
    ),
    'Café',
  );
  assert.equal(await headingOf('<meta charset="utf-16"><h1>Plain ASCII</h1>', 'text/html'), 'Plain ASCII');
  assert.equal(
    await headingOf(
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- <meta charset="koi8-r"> -->\n' +
        '<doc><section><title>Café</title><p>x</p><p>y</p></section></doc>',
      'application/xml',
    ),
    'Café',
  );
});

test("a snapshot whose charset came from the document's own declaration is read again from its bytes", async () => {
  const url = 'https://example.org/doc';
  const body = new Uint8Array(Buffer.from('<!-- <meta charset="windows-1251"> --><meta charset="utf-8"><h1>Café</h1>', 'utf8'));
  const extract = (charset: string, charsetSource: 'meta' | 'header') =>
    extractDocument({
      documentId: 'doc-test',
      source: { url },
      snapshot: { ...snapshotFor(url, 'text/html', body), charset, charsetSource },
      body,
      options: DEFAULT_EXTRACT_OPTIONS,
    });
  // As a capture before the prescan recorded it: the commented-out <meta> won.
  assert.equal((await extract('windows-1251', 'meta')).sections[0]?.heading, 'Café');
  // A Content-Type header's charset is the transport's word, and still wins.
  assert.equal((await extract('windows-1251', 'header')).sections[0]?.heading, 'CafГ©');
});
