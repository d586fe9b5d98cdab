import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../../src/index/tokenizer.js';
import { containsPhrase, parseQueryTerms } from '../../src/query/query-terms.js';
import { scriptText } from '../../src/extract/scripts.js';
import { extractBytes } from './helpers.js';
import { CONSTANTS_ROWS, constantsCells, realLayoutCases } from '../helpers/real-layouts.js';

/**
 * Superscripts and subscripts (issue 31): `2<sup>53</sup>` is "2^53", never "253"; `x_i`, `2^(n+1)`,
 * `x_(i+1)`; note and reference markers keep their text and link; the RFC XML and HTML extractors
 * write the same form; and the index tells `2^53` from `253`.
 */

const html = (body: string): string => `<!doctype html><head><title>t</title></head><body><h2 id="s">S</h2>${body}`;

async function htmlBlocks(body: string, url = 'https://tc39.es/ecma262/') {
  return (await extractBytes(html(body), url, 'text/html')).blocks;
}

test('the text form: a mark, then one run of letters or digits, else the content in parentheses', () => {
  assert.equal(scriptText('sup', '53'), '^53');
  assert.equal(scriptText('sub', 'i'), '_i');
  assert.equal(scriptText('sup', 'n+1'), '^(n+1)');
  assert.equal(scriptText('sub', ' i + 1 '), '_(i + 1)');
  assert.equal(scriptText('sup', '-1'), '^(-1)');
  assert.equal(scriptText('sub', '𝔽'), '_𝔽');
  assert.equal(scriptText('sup', '  '), '');
});

test('HTML: paragraphs, list items, table cells and algorithm steps write superscripts and subscripts alike', async () => {
  const blocks = await htmlBlocks(
    '<p>The largest safe integer is 2<sup>53</sup> - 1, the sum of x<sub>i</sub> over 2<sup>n+1</sup> terms x<sub>i+1</sub>.</p>' +
      '<ul><li>up to 2<sup>53</sup></li></ul>' +
      '<table><tr><th>bound<td>2<sup>32</sup></table>' +
      '<emu-alg><ol><li>Return 𝔽(2<sup>53</sup> - 1) or +0<sub>𝔽</sub>.</li></ol></emu-alg>',
  );
  const [p, list, table, alg] = blocks;
  assert.equal(p?.text, 'The largest safe integer is 2^53 - 1, the sum of x_i over 2^(n+1) terms x_(i+1).');
  assert.equal(list?.text, '- up to 2^53');
  assert.deepEqual(list?.['items'], [{ text: 'up to 2^53' }]);
  assert.deepEqual(table?.['rows'] ?? table?.['header'], [['bound', '2^32']]);
  assert.equal(alg?.text, '1. Return 𝔽(2^53 - 1) or +0_𝔽.');
  for (const b of blocks) assert.doesNotMatch(b.text, /253|232/, `${b.kind}: a superscript read as digits`);
});

test('HTML: footnote and reference markers (a <sup> of links) keep their text and their link', async () => {
  const [p] = await htmlBlocks(
    '<p>Widely deployed<sup><a href="#fn1">1</a></sup> and specified<sup>[<a href="#ref-3">3</a>]</sup>, ' + 'squared<sup>2</sup>.</p>',
    'https://example.org/doc',
  );
  assert.equal(p?.text, 'Widely deployed1 and specified[3], squared^2.');
  assert.deepEqual(
    ((p?.['links'] ?? []) as { href: string }[]).map((l) => l.href),
    ['https://example.org/doc#fn1', 'https://example.org/doc#ref-3'],
  );
});

test('ecmarkdown source keeps inline <sup> as the rendered form does', async () => {
  const [alg] = await htmlBlocks('<emu-alg>\n  1. If _n_ ≥ 2<sup>53</sup>, return *false*.\n</emu-alg>');
  assert.equal(alg?.text, '1. If n ≥ 2^53, return false.');
});

test('RFC XML <sup>/<sub> (v3 grammar) and their xml2rfc HTML rendering read the same', async () => {
  const sentence = 'A sequence number wraps at 2<sup>32</sup>; the window is W<sub>max</sub> or 2<sup>n-1</sup>.';
  const xml = await extractBytes(
    `<?xml version="1.0"?><rfc version="3" number="9990"><front><title>T</title></front><middle>` +
      `<section anchor="numbers" pn="section-1"><name>Numbers</name><t pn="section-1-1">${sentence}</t></section></middle></rfc>`,
    'https://www.rfc-editor.org/rfc/rfc9990.xml',
    'application/rfc+xml',
  );
  const rendered = await extractBytes(
    html(
      `<section id="section-1"><h2 id="name-numbers"><a href="#section-1" class="section-number selfRef">1. </a>` +
        `<a href="#name-numbers" class="section-name selfRef">Numbers</a></h2><p id="section-1-1">${sentence}</p></section>`,
    ),
    'https://www.rfc-editor.org/rfc/rfc9990.html',
    'text/html',
  );
  const expected = 'A sequence number wraps at 2^32; the window is W_max or 2^(n-1).';
  assert.equal(xml.blocks.find((b) => b.kind === 'paragraph')?.text, expected);
  assert.equal(rendered.blocks.find((b) => b.kind === 'paragraph')?.text, expected);
});

test('searchable: "2^53" is the tokens 2 and 53 in a row, a phrase that 253 does not contain', () => {
  assert.deepEqual(tokenize('2^53 - 1'), ['2', '53', '1']);
  assert.deepEqual(tokenize('x_(i+1)'), ['x', 'i', '1']);
  const query = parseQueryTerms(['"2^53"']);
  assert.deepEqual(query.phrases, [['2', '53']]);
  assert.ok(containsPhrase(tokenize('integers up to 2^53 - 1'), query.phrases[0]!));
  assert.ok(!containsPhrase(tokenize('port 253 and 2 or 53'), query.phrases[0]!));
  // Unquoted, 2^53 still scores by its own terms: "253" shares none of them.
  assert.deepEqual(parseQueryTerms(['2^53']).scoringTerms, ['2', '53']);
  assert.deepEqual(tokenize('253'), ['253']);
});

/**
 * A table of physical constants as a scientific paper sets it (CODATA 2018 values, the real layout of
 * test/helpers/real-layouts.ts): exponents raised and symbols' indices lowered inside the cells, 0.7
 * of the text's size. The PDF and the HTML rendering of the same table (`<sup>` and `<sub>` inside
 * `<td>`) give the same cells, in the form prose has: `10^(-11)`, `m_e`, `m^3 kg^(-1) s^(-2)`.
 */
test('PDF and HTML table cells write superscripts and subscripts as prose does, cell for cell alike', async () => {
  const rows = CONSTANTS_ROWS;
  const expected = [
    ['Quantity', 'Symbol', 'Value', 'Unit'],
    ['Speed of light in vacuum', 'c', '299792458', 'm s^(-1)'],
    ['Newtonian constant of gravitation', 'G', '6.67430 \u00d7 10^(-11)', 'm^3 kg^(-1) s^(-2)'],
    ['Planck constant', 'h', '6.62607015 \u00d7 10^(-34)', 'J Hz^(-1)'],
    ['Electron mass', 'm_e', '9.1093837015 \u00d7 10^(-31)', 'kg'],
    ['Proton mass', 'm_p', '1.67262192369 \u00d7 10^(-27)', 'kg'],
    ['Avogadro constant', 'N_A', '6.02214076 \u00d7 10^23', 'mol^(-1)'],
  ];
  // The layout is also one of the real layouts whose cell agreement bench/pdf-tables.ts reports.
  assert.deepEqual(constantsCells(rows), expected);
  const layout = realLayoutCases().find((c) => c.name.includes('physical constants'))!;
  const pdf = await extractBytes(layout.pdf, 'https://example.test/constants.pdf', 'application/pdf');
  const cell = (c: string): string => c.replace(/\^\{([^}]*)\}/g, '<sup>$1</sup>').replace(/_\{([^}]*)\}/g, '<sub>$1</sub>');
  const [head, ...body] = rows.map((r) => r.map(cell));
  const [table] = await htmlBlocks(
    `<table><caption>Table 1. CODATA 2018 values of selected constants.</caption><thead><tr>${head!.map((c) => `<th>${c}`).join('')}` +
      `<tbody>${body.map((r) => `<tr>${r.map((c) => `<td>${c}`).join('')}`).join('')}</table>`,
  );
  const rowsOf = (b: { [key: string]: unknown } | undefined): unknown[] => [
    ...((b?.['header'] as unknown[]) ?? []),
    ...((b?.['rows'] as unknown[]) ?? []),
  ];
  const pdfTable = pdf.blocks.find((b) => b.kind === 'table');
  assert.deepEqual(rowsOf(pdfTable), expected);
  assert.deepEqual(rowsOf(table), expected);
  assert.ok(!pdfTable?.text.match(/1011|1034|kg-1/), pdfTable?.text);
});
