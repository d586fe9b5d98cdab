import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { readRulings, QUANTUM } from '../../src/extract/pdf/ruling-lines.js';
import { SKIP_CORPUS, corpusDir, extractBytes, extractCorpusFile } from './helpers.js';
import { bestAgreement, blockRows, texTables } from '../helpers/table-agreement.js';
import { tableCases } from '../helpers/table-cases.js';
import { realLayoutCases, wrap } from '../helpers/real-layouts.js';
import { tablePdf } from '../helpers/table-pdf.js';
import { findPageTables, type TextRun } from '../../src/extract/pdf/table-geometry.js';
import { mergedRunPdf, widePagePdf } from '../hostile/pdf-runs.js';

/**
 * PDF tables from geometry, on PDFs generated with known cells (every class of layout in
 * table-cases.ts) and on the dev corpus PDF whose LaTeX source shows its table. Every cell must come
 * out at its row and column, as its own string.
 */

const extractPdf = (pdf: Uint8Array) => extractBytes(pdf, 'https://example.test/table.pdf', 'application/pdf');

for (const c of [...tableCases(), ...realLayoutCases()]) {
  test(`generated PDF: ${c.name}`, async () => {
    const doc = await extractPdf(c.pdf);
    const tables = doc.blocks.filter((b) => b.kind === 'table');
    assert.equal(tables.length, c.tables.length, `tables: ${JSON.stringify(tables.map(blockRows))}`);
    c.tables.forEach((expected, i) => {
      const got = blockRows(tables[i]!);
      assert.deepEqual(got, expected);
      const a = bestAgreement(expected, tables);
      assert.equal(a.matched, a.expected);
      if (c.rowPages) {
        assert.deepEqual(tables[i]!['rowPages'], c.rowPages[i]);
        const pages = c.rowPages[i]!;
        const span = tables[i]!.span as { page: number; endPage?: number };
        assert.equal(span.page, pages[0]);
        assert.equal(span.endPage, pages[pages.length - 1] !== pages[0] ? pages[pages.length - 1] : undefined);
      }
    });
    const paragraphs = doc.blocks.filter((b) => b.kind !== 'table').map((b) => b.text);
    for (const text of c.prose ?? [])
      assert.ok(
        paragraphs.some((p) => p.includes(text)),
        `"${text}" is not in a paragraph: ${JSON.stringify(paragraphs)}`,
      );
    // No cell text is also left in the running text (a table is emitted once).
    for (const table of tables)
      for (const cell of blockRows(table).flat())
        if (cell.length > 12) assert.ok(!paragraphs.some((p) => p.includes(cell)), `"${cell}" also in a paragraph`);
  });
}

test('a table is emitted where it starts, between the text before and after it', async () => {
  const c = tableCases().find((x) => x.name.startsWith('booktabs'))!;
  const doc = await extractPdf(c.pdf);
  const kinds = doc.blocks.map((b) => b.kind);
  const at = kinds.indexOf('table');
  assert.ok(at > 0 && at < kinds.length - 1, kinds.join());
  assert.match(doc.blocks[at - 1]!.text, /^Evidence extraction/);
  assert.match(doc.blocks[at + 1]!.text, /^The table above/);
});

test('table extraction is deterministic: the same bytes give the same document bytes', async () => {
  for (const c of tableCases().slice(0, 4)) {
    const a = canonicalJson(await extractPdf(c.pdf));
    const b = canonicalJson(await extractPdf(c.pdf));
    assert.equal(a, b, c.name);
  }
});

test('ruling lines: a stroke under a transformation matrix lands at page coordinates, quantised', () => {
  const OPS = {
    save: 1,
    restore: 2,
    transform: 3,
    constructPath: 4,
    paintFormXObjectBegin: 5,
    paintFormXObjectEnd: 6,
    stroke: 10,
    closeStroke: 11,
    fill: 12,
    eoFill: 13,
    fillStroke: 14,
    eoFillStroke: 15,
    closeFillStroke: 16,
    closeEOFillStroke: 17,
  };
  // cm 1 0 0 1 72 698.8; 0 0 m 447.26 0 l S -> y = 792 - 698.8 from the top; then a thin filled bar and a big shaded box.
  const fn = [OPS.save, OPS.transform, OPS.constructPath, OPS.restore, OPS.constructPath, OPS.constructPath];
  const args = [
    null,
    [1, 0, 0, 1, 72, 698.8],
    [OPS.stroke, [new Float32Array([0, 0, 0, 1, 447.26, 0])], null],
    null,
    [OPS.fill, [new Float32Array([0, 100, 50, 1, 300, 50, 1, 300, 50.5, 1, 100, 50.5, 3])], null],
    [OPS.fill, [new Float32Array([0, 100, 100, 1, 300, 100, 1, 300, 200, 1, 100, 200, 3])], null],
  ];
  const rules = readRulings(fn, args, OPS, [0, 0, 612, 792]);
  assert.deepEqual(rules, [
    { orientation: 'h', at: Math.round((792 - 698.8) * QUANTUM), from: 72 * QUANTUM, to: Math.round((72 + 447.26) * QUANTUM) },
    { orientation: 'h', at: Math.round((792 - 50.25) * QUANTUM), from: 100 * QUANTUM, to: 300 * QUANTUM },
  ]);
});

test('dev corpus: the table multicolumn.tex typesets comes out cell for cell', { skip: SKIP_CORPUS }, async () => {
  const expected = texTables(readFileSync(path.join(corpusDir, 'pdf/multicolumn.tex'), 'utf8'));
  assert.equal(expected.length, 1);
  const doc = await extractCorpusFile('pdf/multicolumn.pdf');
  const a = bestAgreement(expected[0]!, doc.blocks);
  assert.deepEqual(a, { matched: 30, expected: 30, extracted: 30 });
});

test('dev corpus: columns of running text and line-numbered transcripts are not tables', { skip: SKIP_CORPUS }, async () => {
  for (const p of ['pdf/scotus-transcript-p1.pdf', 'pdf/pdflatex-outline.pdf']) {
    const doc = await extractCorpusFile(p);
    assert.ok(doc.blocks.length > 0);
  }
  const scotus = await extractCorpusFile('pdf/scotus-transcript-p1.pdf');
  assert.equal(scotus.blocks.filter((b) => b.kind === 'table').length, 0);
  const register = await extractCorpusFile('pdf/federal-register-2020-17221.pdf');
  // Three columns of regulatory prose on 15 pages: any table found must not hold running text.
  for (const t of register.blocks.filter((b) => b.kind === 'table'))
    assert.ok(blockRows(t).length <= 12, `a ${blockRows(t).length}-row table on page ${t.page}`);
});

test('a page drawing more line segments than the bound keeps its table (found from alignment alone)', async () => {
  const c = tableCases().find((x) => x.name.startsWith('unruled numbers'))!;
  const table = tableCases().find((x) => x.name.startsWith('unruled numbers'))!.tables[0]!;
  // 25,000 short vertical hairlines in the bottom margin: more than MAX_RULINGS_PER_PAGE.
  let hatch = '0.1 w\n';
  for (let i = 0; i < 25_000; i++) {
    const x = (72 + (i % 5000) * 0.09).toFixed(2);
    const rowOffset = Math.floor(i / 5000) * 6;
    hatch += `${x} ${20 + rowOffset} m ${x} ${24 + rowOffset} l S\n`;
  }
  const rows = table;
  const pdf = tablePdf([
    {
      tables: [
        {
          rows,
          columnWidths: [40, 36, 36, 36, 36, 36],
          align: ['left', 'right', 'right', 'right', 'right', 'right'],
          x: 72,
          top: 90,
          cellPadding: 2.5,
          padding: 2,
        },
      ],
      raw: hatch,
    },
  ]);
  assert.ok(c.pdf.length < pdf.length);
  const doc = await extractPdf(pdf);
  assert.ok(
    doc.diagnostics.some((d) => d.code === 'pdf-rulings-skipped'),
    JSON.stringify(doc.diagnostics),
  );
  const tables = doc.blocks.filter((b) => b.kind === 'table');
  assert.equal(tables.length, 1);
  assert.deepEqual(blockRows(tables[0]!), table);
});

/**
 * A line that pdfjs gives as one text run of thousands of words, each a gutter from the next (issue
 * 31): every gap a column boundary. Dropping the boundaries that only cut a word space once read every
 * line's cells again after each boundary it dropped, finding each word's column by a scan of the
 * boundaries: words times columns times columns (a 700-byte PDF of 2,000 such words took 5 s, 8,000
 * minutes). Now linear: the best CPU time of three runs (not wall time: a loaded machine waits), at n
 * and 4n words; linear is about 4x, the old way 60x.
 */
test('a line that is one text run of 4n words a gutter apart is read in about 4x the CPU time of n words', () => {
  // 'a' is 1.1 units wide at size 2 (half a point): 9 units a word leaves gaps of almost four ems.
  const page = (words: number): TextRun[] => [
    {
      index: 0,
      str: new Array<string>(words).fill('a').join(' '),
      x0: 80,
      x1: 80 + 9 * words,
      top: 1600,
      bottom: 1602,
      size: 2,
      font: 'F1',
    },
  ];
  const cpuMs = (runs: TextRun[]): number => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 3; i++) {
      const start = process.cpuUsage();
      findPageTables(1, 3168, runs, []);
      const used = process.cpuUsage(start);
      best = Math.min(best, (used.user + used.system) / 1000);
    }
    return Math.max(best, 10);
  };
  const small = cpuMs(page(500));
  const large = cpuMs(page(2000));
  assert.ok(large <= 10 * small, `4n words took ${large.toFixed(0)} ms of CPU, n words ${small.toFixed(0)} ms`);
});

test('a PDF page that is one text item of 2,000 words a gutter apart is one paragraph with every word', async () => {
  const doc = await extractPdf(mergedRunPdf(2000));
  assert.deepEqual(
    doc.blocks.map((b) => b.kind),
    ['paragraph'],
  );
  assert.equal(doc.blocks[0]!.text, new Array<string>(2000).fill('a').join(' '));
});

test('a page whose MediaBox declares it 10^9 or 10^12 points wide keeps its text, read as one column', async () => {
  for (const width of [1e9, 1e12]) {
    const doc = await extractPdf(widePagePdf(width));
    assert.deepEqual(doc.diagnostics, [], `${width}`);
    assert.equal(
      doc.blocks
        .map((b) => b.text)
        .join(' ')
        .split('Line ').length - 1,
      20,
      `${width}`,
    );
  }
});

test('running text under two headings whose word spaces line up is paragraphs, not a table', async () => {
  // As camlidl's manual sets "6 Hints on writing IDL files" (14 pt) and "6.1 Writing an IDL file for a
  // C library" (12 pt) above a justified paragraph: each number stands an em from its title, and the
  // strip both headings leave free there, narrower than the body's em, was a gutter the paragraph's
  // lines were cut at ("When | writing an IDL file for a | C library that has no...").
  const heading = (top: number, size: number, words: [string, number][]) => words.map(([text, x]) => ({ x, top, size, text, bold: true }));
  const texts = [
    ...heading(100, 14, [
      ['6', 72],
      ['Hints on writing IDL files', 96],
    ]),
    ...heading(125, 12, [
      ['6.1', 72],
      ['Writing an IDL file for a C library', 102.6],
    ]),
  ];
  const prose =
    'When writing an IDL file for a C library that has no IDL interface already, the include files for that library are a ' +
    'good starting point: copy the relevant type and function declarations to the IDL file, then annotate them with IDL ' +
    'attributes that describe their actual behaviour more precisely. The documentation of the library must be read ' +
    'carefully to determine the mode of function parameters, the actual sizes of arrays and which pointers may be null.';
  let top = 146;
  for (const line of wrap(prose, 468, 10)) {
    texts.push({ x: 72, top, size: 10, text: line, bold: false });
    top += 13;
  }
  const doc = await extractPdf(tablePdf([{ texts }]));
  assert.deepEqual(doc.blocks.filter((b) => b.kind === 'table').map(blockRows), []);
  assert.ok(
    doc.blocks.some((b) => b.kind === 'paragraph' && b.text.startsWith('When writing an IDL file') && b.text.endsWith('may be null.')),
    JSON.stringify(doc.blocks.map((b) => b.text)),
  );
});

test('a table cell keeps a raised capital kerned back into the letter before it in its word, as prose does', () => {
  // Units are quarter points; 10 pt text is 40 units. The cell "LATEX" is set as TeX sets the logo:
  // "L", then a 7 pt "A" raised 2 pt and moved back over the L, then "TEX".
  const run = (index: number, str: string, x0: number, width: number, top: number, size = 40): TextRun => ({
    index,
    str,
    x0,
    x1: x0 + width,
    top,
    bottom: top + size,
    size,
    font: 'F1',
  });
  const runs: TextRun[] = [];
  const rows = [
    ['Program', 'Version'],
    ['Word', '2.1'],
    ['Excel', '3.5'],
    ['Writer', '4.0'],
  ];
  rows.forEach(([name, version], r) => {
    const top = 400 + r * 60;
    runs.push(run(runs.length, name!, 320, 24 * name!.length, top), run(runs.length + 1, version!, 1200, 72, top));
  });
  const top = 400 + rows.length * 60;
  runs.push(run(runs.length, 'L', 320, 24, top));
  runs.push(run(runs.length, 'A', 330, 20, top - 8 + 12, 28));
  runs.push(run(runs.length, 'TEX', 344, 80, top));
  runs.push(run(runs.length, '5.0', 1200, 72, top));
  const found = findPageTables(1, 3168, runs, []);
  const cells = found.tables.flatMap((t) => t.rows.map((r) => r.cells[0]));
  assert.ok(cells.includes('LATEX'), JSON.stringify(cells));
});
