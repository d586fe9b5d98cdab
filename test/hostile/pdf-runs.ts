import { deflateSync } from 'node:zlib';
import { pdfFromObjects } from './hostile-documents.js';
import { tablePdf, type TableSpec } from '../helpers/table-pdf.js';

/**
 * PDFs with many text runs, one construct each, for the linearity tests and benchmarks: every run a
 * separate pdfjs text item (pdfjs joins runs of one font that follow each other on a line, so runs
 * here change line or font). Content streams are Flate-compressed, as in real files, so a few
 * kilobytes hold millions of runs.
 */

function onePagePdf(content: string, width = 612, height = 792): Uint8Array {
  const data = deflateSync(Buffer.from(content, 'latin1'), { level: 9 });
  return pdfFromObjects([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${width} ${height}] /Contents 4 0 R /Resources << /Font << /F1 5 0 R /F2 6 0 R >> >> >>`,
    Buffer.concat([
      Buffer.from(`<< /Filter /FlateDecode /Length ${data.length} >>\nstream\n`, 'latin1'),
      data,
      Buffer.from('\nendstream', 'latin1'),
    ]),
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>',
  ]);
}

/**
 * `runs` one-glyph runs down columns of 760 lines a point apart, 110 columns across the page, then
 * over the same place again: every run its own text item, all of them on the page. Two million runs
 * take about 60 KB.
 */
export function manyRunsPdf(runs: number): Uint8Array {
  const line = '(a) Tj 0 -1 Td ';
  const column = line.repeat(760) + '5 760 Td ';
  const layer = column.repeat(110) + '-550 0 Td ';
  const perLayer = 760 * 110;
  const parts = ['BT /F1 4 Tf 20 780 Td '];
  let left = runs;
  for (; left >= perLayer; left -= perLayer) parts.push(layer);
  for (; left >= 760; left -= 760) parts.push(column);
  parts.push(line.repeat(left), 'ET');
  return onePagePdf(parts.join(''));
}

/** `runs` runs on one baseline, the font alternating so that pdfjs keeps each its own item, over the same few points. */
export function oneLineRunsPdf(runs: number): Uint8Array {
  const pair = '/F1 8 Tf (a) Tj /F2 8 Tf (b) Tj -9.2 0 Td ';
  return onePagePdf(`BT 72 400 Td ${pair.repeat(Math.ceil(runs / 2))}ET`);
}

/**
 * A page whose text is one pdfjs text item: `words` words, each set a gutter from the next. The gaps
 * are TJ adjustments of half an em of the font (pdfjs joins glyphs closer than about 0.6 em into one
 * item, with a space), and the text matrix scales x four times as much as y, so on the page each gap is
 * two ems of the run's height: every gap a column gutter, thousands of columns in one run. The page is
 * as wide as the line (pdfjs drops glyphs outside it): 2.1 points a word, so 8,000 words are within the
 * 25,000 points table detection looks at.
 */
export function mergedRunPdf(words: number): Uint8Array {
  return onePagePdf(`BT /F1 1 Tf 2 0 0 0.5 20 400 Tm [${'(a) -500 '.repeat(words)}] TJ ET`, Math.ceil(40 + 2.15 * words));
}

/** Twenty lines of words at the left of a page whose MediaBox declares it `width` points wide. */
export function widePagePdf(width: number): Uint8Array {
  const lines = Array.from({ length: 20 }, (_, i) => `(Line ${i + 1} of words on a page too wide to be one.) Tj 0 -14 Td `);
  return onePagePdf(`BT /F1 10 Tf 72 700 Td ${lines.join('')}ET`, width);
}

/** A table of `cells` numeric cells, 8 columns, 40 rows a page, no rules (aligned-table detection). */
export function manyCellsPdf(cells: number): Uint8Array {
  const columns = 8;
  const rows = Math.max(2, Math.ceil(cells / columns));
  const body: string[][] = [];
  for (let r = 0; r < rows; r++) body.push(Array.from({ length: columns }, (_, c) => String(((r * 7919 + c * 104729) % 90000) + 10000)));
  const header = Array.from({ length: columns }, (_, c) => `Col ${c + 1}`);
  const perPage = 40;
  const tables: TableSpec[] = [];
  for (let i = 0; i < body.length; i += perPage)
    tables.push({
      rows: [header, ...body.slice(i, i + perPage)],
      columnWidths: new Array<number>(columns).fill(56),
      align: new Array<'right'>(columns).fill('right'),
      x: 72,
      top: 72,
    });
  return tablePdf(tables.map((t) => ({ tables: [t] })));
}

/** One line of `chars` characters, one text run at a tiny size ("ABAB…"): each table of contents test reads all of it. */
export function longLinePdf(chars: number): Uint8Array {
  return onePagePdf(`BT /F1 0.0005 Tf 72 720 Td (${'AB'.repeat(Math.ceil(chars / 2))}) Tj ET`);
}

/** `entries` lines of a browser-printed table of contents ("1. 1.1 Scope") on one page tall enough for all. */
export function listedEntriesPdf(entries: number): Uint8Array {
  const height = Math.ceil(1.5 * entries + 40);
  return onePagePdf(`BT /F1 1 Tf 72 ${height - 10} Td ${'0 -1.5 Td (1. 1.1 Scope) Tj '.repeat(entries)}ET`, 612, height);
}
