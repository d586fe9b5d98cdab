import type { TableCase } from './table-cases.js';
import { tablePdf, textWidth, type TextSpec } from './table-pdf.js';

/**
 * Tables laid out as published documents lay them out, not as generated grids: each case copies the
 * layout of a kind of real document (column widths, alignment, type sizes, leading, wrapped cells,
 * headers over two lines, text and page furniture around the table), with its cells known.
 *
 * - A municipal expenditure report (one page, no rules): dates, document numbers, supplier names and
 *   descriptions that wrap inside their column at the same leading as the rows, amounts right-aligned,
 *   columns from 44 to 150 points wide and as little as 6 points apart, a header over two lines, a total.
 * - A financial statement: indented line items under group labels that fill no other cell, two years
 *   of right-aligned figures with parentheses for negatives and a dollar sign on the first and total
 *   lines, a column header spanning the figures above the years.
 * - A scientific results table: booktabs rules, a caption above, a header over two lines in the body
 *   font (bottom-aligned, at the rows' pitch), mean ± standard deviation cells set a word space apart
 *   inside the cell, the best figure of each column in bold, a footnote below.
 * - A table of physical constants: booktabs, exponents and subscripts set small inside the cells.
 */

interface Column {
  width: number;
  align?: 'left' | 'right';
}

interface LaidTable {
  texts: TextSpec[];
  bottom: number;
  /** The cells as the table states them (wrapped text joined with spaces). */
  cells: string[][];
}

/** Greedy word wrap of `text` into lines at most `width` points wide. */
export function wrap(text: string, width: number, size: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    const next = line === '' ? word : `${line} ${word}`;
    if (line !== '' && textWidth(next, size) > width) {
      lines.push(line);
      line = word;
    } else line = next;
  }
  if (line !== '') lines.push(line);
  return lines;
}

/**
 * Rows of cells laid out in columns: every cell wrapped to its column, every line of a row (and of
 * the next row) `leading` apart, rows `rowGap` further apart. A header row may be given pre-split
 * with "\n" (bottom-aligned, as reports set them).
 */
function layTable(
  rows: string[][],
  columns: Column[],
  at: {
    x: number;
    top: number;
    size: number;
    leading: number;
    rowGap: number;
    gutter: number;
    boldHeader?: boolean;
    boldCells?: string[];
    /** Space under the header (booktabs' rule separation). */
    headerGap?: number;
  },
): LaidTable {
  const texts: TextSpec[] = [];
  const cells: string[][] = [];
  let y = at.top;
  rows.forEach((row, r) => {
    const header = r === 0;
    const split = row.map((cell, k) =>
      header || cell.includes('\n') ? cell.split('\n') : cell === '' ? [] : wrap(cell, columns[k]!.width, at.size),
    );
    const height = Math.max(1, ...split.map((lines) => lines.length));
    let x = at.x;
    split.forEach((lines, k) => {
      const column = columns[k]!;
      // Header cells sit on the header's last line (bottom-aligned); body cells start on its first.
      const first = header ? height - lines.length : 0;
      lines.forEach((line, n) => {
        const left = column.align === 'right' ? x + column.width - textWidth(line, at.size) : x;
        const bold = (header && at.boldHeader === true) || (at.boldCells?.includes(`${r},${k}`) ?? false);
        texts.push({ x: left, top: y + (first + n) * at.leading, size: at.size, text: line, bold });
      });
      x += column.width + at.gutter;
    });
    cells.push(split.map((lines) => lines.join(' ')));
    y += height * at.leading + at.rowGap + (header ? (at.headerGap ?? 0) : 0);
  });
  return { texts, bottom: y, cells };
}

const expenditures: string[][] = [
  ['Payment\nDate', 'Document\nNumber', 'Supplier', 'Expense Type', 'Description', 'Amount\n(USD)'],
  [
    '03/01/2024',
    'PV-2024-00187',
    'Northside Asphalt & Paving LLC',
    'Capital Outlay',
    'Resurfacing of Elm Street, phase 2 of 3',
    '148,250.00',
  ],
  ['03/04/2024', 'PV-2024-00191', 'Bright Office Supply', 'Supplies', 'Toner and paper, city clerk', '1,212.48'],
  ['03/06/2024', 'JE-2024-00044', 'County Treasurer', 'Intergovernmental', 'Quarterly jail services agreement', '36,900.00'],
  [
    '03/11/2024',
    'PV-2024-00203',
    'Meridian Health Benefits Trust of the Midwest',
    'Employee Benefits',
    'Employer health premium, March 2024 (all departments)',
    '92,417.16',
  ],
  ['03/14/2024', 'PV-2024-00210', 'A-1 Plumbing', 'Repairs & Maintenance', 'Water heater, fire station 2', '3,480.00'],
  ['03/19/2024', 'EFT-24-0312', 'State Retirement System', 'Pension', 'Employer contribution', '57,008.91'],
  ['03/22/2024', 'PV-2024-00226', 'Greenway Landscaping', 'Contract Services', 'Park mowing, March', '4,125.00'],
  ['03/28/2024', 'PV-2024-00231', 'Lakeshore Electric Co-op', 'Utilities', 'Street lighting and signals, meter group 7', '11,362.40'],
  ['', '', '', '', 'Total payments', '354,756.95'],
];

function expenditureReport(): TableCase {
  const columns: Column[] = [{ width: 44 }, { width: 64 }, { width: 112 }, { width: 80 }, { width: 150 }, { width: 50, align: 'right' }];
  const table = layTable(expenditures, columns, { x: 36, top: 150, size: 8, leading: 10, rowGap: 0, gutter: 6, boldHeader: true });
  const texts: TextSpec[] = [
    { x: 36, top: 48, size: 14, text: 'City of Riverton', bold: true },
    { x: 36, top: 68, size: 11, text: 'Expenditure Report: Payments of $1,000 or More' },
    { x: 36, top: 86, size: 9, text: 'Period: March 1, 2024 to March 31, 2024. Fund: General Fund (101).' },
    {
      x: 36,
      top: 110,
      size: 9,
      text: 'Payments are listed in the order they were issued; amounts include applicable taxes and fees.',
    },
    ...table.texts,
    { x: 36, top: table.bottom + 16, size: 9, text: 'Prepared by the Finance Department, April 5, 2024.' },
    { x: 36, top: 756, size: 7, text: 'Riverton Finance Department' },
    { x: 540, top: 756, size: 7, text: 'Page 1 of 1' },
  ];
  return {
    name: 'real layout: municipal expenditure report (unruled, wrapped cells, two-line header)',
    pdf: tablePdf([{ texts }]),
    tables: [table.cells],
    prose: [
      'Payments are listed in the order they were issued; amounts include applicable taxes and fees.',
      'Prepared by the Finance Department, April 5, 2024.',
    ],
  };
}

const statement: string[][] = [
  ['(in thousands of dollars)', '2023', '2022'],
  ['Revenue', '', ''],
  ['Product sales', '$ 1,234,567', '$ 1,100,234'],
  ['Services and licensing', '345,678', '298,765'],
  ['Total revenue', '1,580,245', '1,398,999'],
  ['Cost of revenue', '(812,345)', '(745,001)'],
  ['Gross profit', '767,900', '653,998'],
  ['Operating expenses', '', ''],
  ['Research and development', '210,456', '189,002'],
  ['Selling, general and administrative', '198,765', '176,543'],
  ['Restructuring charges', '\u2014', '12,480'],
  ['Total operating expenses', '409,221', '378,025'],
  ['Operating income', '358,679', '275,973'],
  ['Interest expense, net', '(14,220)', '(16,871)'],
  ['Income before income taxes', '344,459', '259,102'],
  ['Provision for income taxes', '(98,781)', '(57,868)'],
  ['Net income', '$ 245,678', '$ 201,234'],
];

function financialStatement(): TableCase {
  const size = 9;
  const texts: TextSpec[] = [
    { x: 72, top: 56, size: 12, text: 'Example Industries, Inc.', bold: true },
    { x: 72, top: 74, size: 10, text: 'Consolidated Statements of Operations' },
    { x: 72, top: 100, size: 9, text: 'The accompanying notes are an integral part of these financial statements.' },
  ];
  // Labels indented under their group; figures right-aligned in 80-point columns, the dollar sign at
  // the column's left edge on the first and the last line, as annual reports print them.
  const labelX = 72;
  const right = [390, 480];
  const top = 150;
  texts.push({ x: 330, top: top - 14, size, text: 'Year ended December 31', bold: true });
  const groups = new Set(['Revenue', 'Operating expenses']);
  const totals = new Set(['Total revenue', 'Gross profit', 'Total operating expenses', 'Operating income', 'Net income']);
  statement.forEach((row, r) => {
    const y = top + r * 13;
    const indent = r === 0 || groups.has(row[0]!) || totals.has(row[0]!) ? 0 : 10;
    texts.push({ x: labelX + indent, top: y, size, text: row[0]!, bold: r === 0 || groups.has(row[0]!) });
    row.slice(1).forEach((cell, k) => {
      if (cell === '') return;
      const dollar = cell.startsWith('$ ');
      const figure = dollar ? cell.slice(2) : cell;
      if (dollar) texts.push({ x: right[k]! - 62, top: y, size, text: '$' });
      texts.push({ x: right[k]! - textWidth(figure, size), top: y, size, text: figure, bold: r === 0 });
    });
  });
  const after = top + statement.length * 13 + 20;
  texts.push(
    { x: 72, top: after, size: 9, text: 'Figures for 2022 were restated for the discontinued marine segment; see Note 3.' },
    { x: 300, top: 750, size: 8, text: '47' },
  );
  return {
    name: 'real layout: financial statement (indented labels, group rows, dollar signs, negatives)',
    pdf: tablePdf([{ texts }]),
    tables: [statement],
    prose: ['Figures for 2022 were restated for the discontinued marine segment; see Note 3.'],
  };
}

const results: string[][] = [
  ['Method', 'Params', 'CIFAR-10', 'CIFAR-100', 'ImageNet\ntop-1', 'Time\n(h)'],
  ['ResNet-50', '25.6M', '93.2 \u00b1 0.1', '76.4 \u00b1 0.3', '76.1', '31.5'],
  ['DenseNet-121', '8.0M', '94.1 \u00b1 0.2', '77.0 \u00b1 0.4', '74.9', '40.2'],
  ['ViT-B/16', '86.6M', '95.1 \u00b1 0.2', '80.3 \u00b1 0.2', '79.9', '52.7'],
  ['ConvNeXt-T', '28.6M', '95.4 \u00b1 0.1', '80.9 \u00b1 0.3', '82.1', '44.0'],
  ['Ours (small)', '12.3M', '95.0 \u00b1 0.2', '79.8 \u00b1 0.2', '78.6', '18.9'],
  ['Ours (base)', '24.9M', '95.8 \u00b1 0.1', '81.2 \u00b1 0.2', '82.4', '29.3'],
];

function scientificTable(): TableCase {
  const size = 9;
  const columns: Column[] = [
    { width: 78 },
    { width: 40, align: 'right' },
    { width: 62, align: 'right' },
    { width: 62, align: 'right' },
    { width: 70, align: 'right' },
    { width: 44, align: 'right' },
  ];
  const top = 196;
  // The best figure of each column in bold, as papers print it.
  const boldCells = ['6,2', '6,3', '6,4', '5,5'];
  const table = layTable(results, columns, { x: 110, top, size, leading: 11, rowGap: 1, gutter: 10, boldCells, headerGap: 4 });
  const width = columns.reduce((n, c) => n + c.width + 10, -10);
  const y = (t: number): number => 792 - t;
  // booktabs: a heavy rule above, a light one under the header, a heavy one below.
  const rule = (t: number, w: number): string => `${w} w 110 ${y(t)} m ${110 + width} ${y(t)} l S\n`;
  // The midrule sits in the space under the two header lines (their text ends 20 points below the top).
  const raw = rule(top - 4, 0.8) + rule(top + 23 - 0.5, 0.5) + rule(table.bottom + 1, 0.8);
  const paragraph =
    'We compare against four baselines trained with the same budget. Each model is trained five times with different seeds.';
  const texts: TextSpec[] = [
    { x: 72, top: 72, size: 10, text: '5 Results', bold: true },
    ...wrap(paragraph, 468, 10).map((line, i) => ({ x: 72, top: 96 + i * 13, size: 10, text: line })),
    { x: 110, top: 170, size: 9, text: 'Table 2: Accuracy (%) on the test sets, mean \u00b1 standard deviation over five seeds.' },
    ...table.texts,
    { x: 110, top: table.bottom + 12, size: 8, text: 'Training time on eight GPUs of the same model.' },
    { x: 72, top: table.bottom + 40, size: 10, text: 'Our base model matches the strongest baseline with a third of its parameters.' },
  ];
  return {
    name: 'real layout: scientific results table (booktabs, mean \u00b1 std cells)',
    pdf: tablePdf([{ texts, raw }]),
    tables: [table.cells],
    prose: ['Our base model matches the strongest baseline with a third of its parameters.'],
  };
}

/**
 * Physical constants as a paper or handbook tabulates them (CODATA 2018 values): exponents raised and
 * symbols' indices lowered inside the cells, at 0.7 of the text's size (`^{..}` and `_{..}` in
 * table-pdf.ts's cells; `<sup>`/`<sub>` in HTML).
 */
export const CONSTANTS_ROWS = [
  ['Quantity', 'Symbol', 'Value', 'Unit'],
  ['Speed of light in vacuum', 'c', '299792458', 'm s^{-1}'],
  ['Newtonian constant of gravitation', 'G', '6.67430 \u00d7 10^{-11}', 'm^{3} kg^{-1} s^{-2}'],
  ['Planck constant', 'h', '6.62607015 \u00d7 10^{-34}', 'J Hz^{-1}'],
  ['Electron mass', 'm_{e}', '9.1093837015 \u00d7 10^{-31}', 'kg'],
  ['Proton mass', 'm_{p}', '1.67262192369 \u00d7 10^{-27}', 'kg'],
  ['Avogadro constant', 'N_{A}', '6.02214076 \u00d7 10^{23}', 'mol^{-1}'],
];

/** The cells as the extractors write them: `^53`, `_e`, the content in parentheses unless one run of letters or digits. */
export const constantsCells = (rows: string[][]): string[][] =>
  rows.map((r) =>
    r.map((c) => c.replace(/([\^_])\{([^}]*)\}/g, (_, mark: string, x: string) => mark + (/^[\p{L}\p{N}]+$/u.test(x) ? x : `(${x})`))),
  );

function constantsTable(): TableCase {
  const text = (top: number, line: string, size = 10): TextSpec => ({ x: 72, top, size, text: line });
  const texts: TextSpec[] = [
    text(72, 'The values below are exact where the 2019 SI fixes them, else the CODATA 2018 adjustment.'),
    text(100, 'Table 1. CODATA 2018 values of selected constants.', 9),
    text(240, 'Values with fewer digits carry a standard uncertainty in their last digits.', 8),
    text(264, 'The gravitational constant remains the least precisely known of them.'),
  ];
  const table = { rows: CONSTANTS_ROWS, columnWidths: [170, 44, 140, 100], x: 72, top: 114, fontSize: 9, rules: 'booktabs' as const };
  return {
    name: 'real layout: physical constants (booktabs, exponents and subscripts in cells)',
    pdf: tablePdf([{ texts, tables: [table] }]),
    tables: [constantsCells(CONSTANTS_ROWS)],
    prose: ['The gravitational constant remains the least precisely known of them.'],
  };
}

export function realLayoutCases(): TableCase[] {
  return [expenditureReport(), financialStatement(), scientificTable(), constantsTable()];
}
