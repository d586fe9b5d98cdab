import { splitOverPages, tablePdf, type PageSpec, type TableSpec } from './table-pdf.js';

/**
 * Generated PDFs with tables whose cells are known, one per class of table layout: ruled (strokes,
 * thin filled rectangles, booktabs), unruled with right-aligned numbers a few points apart, empty
 * cells, multi-line cells, tables continued over pages (with and without a repeated header), and
 * pages with no table at all (columns of running text, a bulleted list).
 */
export interface TableCase {
  name: string;
  pdf: Uint8Array;
  /** Expected tables, each header row first; empty when the page has no table. */
  tables: string[][][];
  /** For each expected table, the page of every row after the header (when it matters). */
  rowPages?: number[][];
  /** Text that must stay in paragraphs, not be taken into a table. */
  prose?: string[];
}

const LOREM =
  'Evidence extraction keeps every sentence of running text in its paragraph so that a reader can cite it, ' +
  'and a table keeps its cells apart.';

const people: string[][] = [
  ['Name', 'Role', 'Office', 'Phone'],
  ['Ada Lovelace', 'Analyst', 'North wing', '555-0101'],
  ['Alan Turing', 'Cryptanalyst', '', '555-0102'],
  ['Grace Hopper', 'Compiler author\nand rear admiral', 'Annex 3', '555-0103'],
  ['Edsger Dijkstra', '', 'East wing', ''],
  ['Barbara Liskov', 'Professor', 'Building 32', '555-0105'],
];

function numbers(rows: number, columns: number, seed: number): string[][] {
  const out: string[][] = [];
  let x = seed;
  for (let r = 0; r < rows; r++) {
    const row: string[] = [`Item ${r + 1}`];
    for (let c = 0; c < columns; c++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      const v = x % 100000;
      row.push(String(v).replace(/\B(?=(\d{3})+$)/g, ','));
    }
    out.push(row);
  }
  return out;
}

const intro = (text: string): PageSpec['texts'] => [{ x: 72, top: 60, size: 10, text }];

export function tableCases(): TableCase[] {
  const cases: TableCase[] = [];

  const grid: TableSpec = { rows: people, columnWidths: [110, 120, 90, 80], x: 72, top: 110, rules: 'grid', leading: 11 };
  cases.push({
    name: 'ruled grid (stroked rules), empty and multi-line cells',
    pdf: tablePdf([{ texts: intro('Staff directory of the project.'), tables: [grid] }]),
    tables: [people.map((r) => r.map((c) => c.replace('\n', ' ')))],
    prose: ['Staff directory of the project.'],
  });
  cases.push({
    name: 'ruled grid (thin filled rectangles)',
    pdf: tablePdf([{ tables: [{ ...grid, rules: 'grid-filled' }] }]),
    tables: [people.map((r) => r.map((c) => c.replace('\n', ' ')))],
  });

  const countries = [
    ['Country', 'Population (millions)', 'Area (km2)', 'Capital'],
    ['Austria', '8.9', '83,879', 'Vienna'],
    ['Belgium', '11.5', '30,689', 'Brussels'],
    ['Czech Republic', '10.7', '78,866', 'Prague'],
    ['Denmark', '5.8', '42,951', 'Copenhagen'],
  ];
  cases.push({
    name: 'booktabs rules, right-aligned numbers, text before and after',
    pdf: tablePdf([
      {
        texts: [
          { x: 72, top: 60, size: 10, text: LOREM.slice(0, 90) },
          { x: 72, top: 260, size: 10, text: 'The table above lists four countries and their capitals.' },
        ],
        tables: [
          {
            rows: countries,
            columnWidths: [100, 120, 80, 90],
            align: ['left', 'right', 'right', 'left'],
            x: 72,
            top: 100,
            rules: 'booktabs',
          },
        ],
      },
    ]),
    tables: [countries],
    prose: [LOREM.slice(0, 90), 'The table above lists four countries and their capitals.'],
  });

  const tight = [['Code', 'Q1', 'Q2', 'Q3', 'Q4', 'Total'], ...numbers(8, 5, 7).map((r) => [r[0]!.replace('Item ', 'K'), ...r.slice(1)])];
  cases.push({
    name: 'unruled numbers half an em apart',
    pdf: tablePdf([
      {
        tables: [
          {
            rows: tight,
            columnWidths: [40, 36, 36, 36, 36, 36],
            align: ['left', 'right', 'right', 'right', 'right', 'right'],
            x: 72,
            top: 90,
            cellPadding: 2.5,
            padding: 2,
          },
        ],
      },
    ]),
    tables: [tight],
  });

  const wrapped = [
    ['Term', 'Meaning', 'Since'],
    ['snapshot', 'bytes of a source\nas captured', '2024'],
    ['document', 'evidence extracted', '2024'],
    ['chunk', 'a passage cut\nfrom a document\nfor the index', ''],
    ['', 'an empty first cell', '2025'],
    ['index', 'terms to passages', '2025'],
  ];
  cases.push({
    name: 'unruled multi-line cells set tighter than the rows',
    pdf: tablePdf([{ tables: [{ rows: wrapped, columnWidths: [90, 150, 60], x: 72, top: 90, leading: 11, padding: 4 }] }]),
    tables: [wrapped.map((r) => r.map((c) => c.replace(/\n/g, ' ')))],
  });

  const long = [
    ['Code', 'Region', 'Count', 'Share'],
    ...numbers(70, 2, 11).map((r, i) => [`R${String(i + 1).padStart(3, '0')}`, ['North', 'South', 'East', 'West'][i % 4]!, r[1]!, r[2]!]),
  ];
  const unruledParts = splitOverPages(
    { rows: long, columnWidths: [60, 80, 70, 70], align: ['left', 'left', 'right', 'right'], x: 72, top: 90 },
    30,
    true,
  );
  cases.push({
    name: 'unruled table over three pages, header repeated',
    pdf: tablePdf(unruledParts.map((t) => ({ tables: [t], texts: [{ x: 500, top: 750, size: 9, text: 'Page' }] }))),
    tables: [long],
    rowPages: [long.slice(1).map((_, i) => Math.floor(i / 30) + 1)],
  });
  const gridParts = splitOverPages(
    { rows: long, columnWidths: [60, 80, 70, 70], align: ['left', 'left', 'right', 'right'], x: 72, top: 90, rules: 'grid' },
    32,
    false,
  );
  cases.push({
    name: 'ruled grid over three pages, header not repeated',
    pdf: tablePdf(gridParts.map((t) => ({ tables: [t] }))),
    tables: [long],
    rowPages: [long.slice(1).map((_, i) => Math.floor(i / 32) + 1)],
  });

  // No table: two columns of running text, and a bulleted list.
  const columnText: PageSpec['texts'] = [];
  const words = LOREM.split(' ');
  for (let line = 0; line < 30; line++) {
    const pick = (offset: number): string => Array.from({ length: 6 }, (_, k) => words[(line * 5 + k + offset) % words.length]!).join(' ');
    columnText.push({ x: 72, top: 72 + line * 12, size: 10, text: pick(0) }, { x: 320, top: 72 + line * 12, size: 10, text: pick(9) });
  }
  cases.push({ name: 'two columns of running text (no table)', pdf: tablePdf([{ texts: columnText }]), tables: [] });
  const list: PageSpec['texts'] = [];
  ['Capture the source', 'Extract the evidence', 'Chunk the passages', 'Index the terms'].forEach((item, i) => {
    list.push({ x: 80, top: 100 + i * 14, size: 10, text: '\u2022' }, { x: 96, top: 100 + i * 14, size: 10, text: item });
  });
  cases.push({ name: 'bulleted list (no table)', pdf: tablePdf([{ texts: list }]), tables: [] });
  return cases;
}
