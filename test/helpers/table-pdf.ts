import { pdfFromObjects } from '../hostile/hostile-documents.js';

/**
 * A small deterministic PDF writer for tables with known cells: Helvetica text placed cell by cell,
 * rules drawn as strokes or as thin filled rectangles, rows split over pages. Written here rather than
 * taken from a library so that every byte, and so every position pdfjs reads back, is decided by the
 * test: the same spec gives the same file on every run.
 */

/** Helvetica advance widths (1/1000 em) for ASCII 32-126, from the standard 14 fonts' AFM. */
const HELVETICA = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278,
  278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722,
  667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556,
  556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

export function textWidth(text: string, size: number): number {
  let units = 0;
  for (const ch of text) {
    const code = ch.charCodeAt(0);
    units += code >= 32 && code <= 126 ? HELVETICA[code - 32]! : 556;
  }
  return (units * size) / 1000;
}

export type Rules = 'none' | 'grid' | 'grid-filled' | 'booktabs';

export interface TableSpec {
  /**
   * Rows of cells; a cell with "\n" is a multi-line cell. The first row is the header. `^{53}` in a
   * cell is a superscript (0.7 of the size, raised 0.4 of it), `_{e}` a subscript (lowered 0.2).
   */
  rows: string[][];
  columnWidths: number[];
  align?: ('left' | 'right')[];
  x: number;
  /** Distance of the table's top from the top of the page, in points. */
  top: number;
  fontSize?: number;
  /** Baseline distance between the lines of one cell. */
  leading?: number;
  /** Padding above and below each row's text (the row pitch is leading + 2 * padding). */
  padding?: number;
  /** Space between a column's text and its boundary. */
  cellPadding?: number;
  rules?: Rules;
}

export interface TextSpec {
  x: number;
  top: number;
  size: number;
  text: string;
  /** Helvetica-Bold instead of Helvetica. */
  bold?: boolean;
  /** Courier (every glyph 0.6 em wide) instead of Helvetica: a listing's lines. */
  mono?: boolean;
  /** Baseline offset in points, upwards (a superscript is raised, a subscript lowered with a negative rise). */
  rise?: number;
}

export interface PageSpec {
  texts?: TextSpec[];
  tables?: TableSpec[];
  /** Raw content-stream operators appended to the page (drawings). */
  raw?: string;
}

const PAGE_WIDTH = 612;
const PAGE_HEIGHT = 792;

/** WinAnsiEncoding codes of the few non-Latin-1 characters tests use. */
const WIN_ANSI: Record<string, string> = { '\u2022': '\\225', '\u2013': '\\226', '\u2014': '\\227' };

function escapePdfString(text: string): string {
  return text.replace(/[\\()\u2022\u2013\u2014]/g, (c) => WIN_ANSI[c] ?? '\\' + c);
}

const num = (n: number): string => (Math.round(n * 100) / 100).toString();

function showText(x: number, baselineFromTop: number, size: number, text: string, bold = false, rise = 0, mono = false): string {
  const font = mono ? '/F3' : bold ? '/F2' : '/F1';
  // The rise is text state, kept past ET: it is set back to 0 after the run.
  const [ts, reset] = rise !== 0 ? [`${num(rise)} Ts `, ' 0 Ts'] : ['', ''];
  return `BT ${font} ${num(size)} Tf ${ts}${num(x)} ${num(PAGE_HEIGHT - baselineFromTop)} Td (${escapePdfString(text)}) Tj${reset} ET\n`;
}

function rule(x0: number, y0: number, x1: number, y1: number, filled: boolean): string {
  const [ya, yb] = [PAGE_HEIGHT - y0, PAGE_HEIGHT - y1];
  if (!filled) return `0.5 w ${num(x0)} ${num(ya)} m ${num(x1)} ${num(yb)} l S\n`;
  // A thin filled rectangle, as Word and LibreOffice draw cell borders.
  if (y0 === y1) return `${num(x0)} ${num(ya - 0.25)} ${num(x1 - x0)} 0.5 re f\n`;
  return `${num(x0 - 0.25)} ${num(Math.min(ya, yb))} 0.5 ${num(Math.abs(yb - ya))} re f\n`;
}

/** A cell line's pieces: [text, size factor, rise factor]; `^{...}` and `_{...}` are scripts. */
function scriptPieces(line: string): [string, number, number][] {
  const out: [string, number, number][] = [];
  let at = 0;
  for (const m of line.matchAll(/([\^_])\{([^}]*)\}/g)) {
    if (m.index > at) out.push([line.slice(at, m.index), 1, 0]);
    out.push([m[2]!, 0.7, m[1] === '^' ? 0.4 : -0.2]);
    at = m.index + m[0].length;
  }
  if (at < line.length) out.push([line.slice(at), 1, 0]);
  return out;
}

/** The content stream of one table; returns its bottom (points from the top) too. */
export function tableContent(spec: TableSpec): { content: string; bottom: number } {
  const size = spec.fontSize ?? 10;
  const leading = spec.leading ?? size * 1.2;
  const padding = spec.padding ?? 3;
  const cellPadding = spec.cellPadding ?? 4;
  const rules = spec.rules ?? 'none';
  const filled = rules === 'grid-filled';
  const bounds = [spec.x];
  for (const w of spec.columnWidths) bounds.push(bounds[bounds.length - 1]! + w);
  let content = '';
  let y = spec.top;
  const rowEdges = [y];
  spec.rows.forEach((row) => {
    const lines = Math.max(1, ...row.map((c) => c.split('\n').length));
    row.forEach((cell, k) => {
      cell.split('\n').forEach((line, n) => {
        if (line === '') return;
        const baseline = y + padding + size + n * leading;
        const left = bounds[k]! + cellPadding;
        const pieces = scriptPieces(line);
        const width = pieces.reduce((w, [text, factor]) => w + textWidth(text, size * factor), 0);
        let x = spec.align?.[k] === 'right' ? bounds[k + 1]! - cellPadding - width : left;
        for (const [text, factor, rise] of pieces) {
          content += showText(x, baseline, size * factor, text, false, size * rise);
          x += textWidth(text, size * factor);
        }
      });
    });
    y += 2 * padding + size + (lines - 1) * leading + size * 0.25;
    rowEdges.push(y);
  });
  const x0 = bounds[0]!;
  const x1 = bounds[bounds.length - 1]!;
  if (rules === 'grid' || rules === 'grid-filled') {
    for (const edge of rowEdges) content += rule(x0, edge, x1, edge, filled);
    for (const b of bounds) content += rule(b, rowEdges[0]!, b, rowEdges[rowEdges.length - 1]!, filled);
  } else if (rules === 'booktabs') {
    content += rule(x0, rowEdges[0]!, x1, rowEdges[0]!, false);
    content += rule(x0, rowEdges[1]!, x1, rowEdges[1]!, false);
    content += rule(x0, y, x1, y, false);
  }
  return { content, bottom: y };
}

/** An outline (bookmark) entry: its title and the page (1-based) and top (points from the top) it points to. */
export interface OutlineSpec {
  title: string;
  /** No page: an entry without a destination (a group that only holds its children). */
  page?: number;
  /** No top: a destination that shows the whole page (/Fit). */
  top?: number;
  /** Entries nested below this one (a browser's outline of h1 to h6). */
  children?: OutlineSpec[];
}

/**
 * A PDF of US Letter pages with the given texts and tables (Helvetica, uncompressed content), and a
 * flat outline whose entries point at /XYZ destinations when `outline` is given.
 */
export function tablePdf(pages: PageSpec[], outline: OutlineSpec[] = [], info: { title?: string } = {}): Uint8Array {
  const pageIds = pages.map((_, i) => 4 + i * 2);
  const bold = pages.some((p) => p.texts?.some((t) => t.bold));
  const mono = pages.some((p) => p.texts?.some((t) => t.mono));
  // The bold and Courier fonts, when used, are the last objects: files without them keep their bytes.
  const boldId = 4 + pages.length * 2;
  const monoId = boldId + (bold ? 1 : 0);
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  pages.forEach((page, i) => {
    let content = '';
    for (const t of page.texts ?? []) content += showText(t.x, t.top + t.size, t.size, t.text, t.bold, t.rise, t.mono);
    for (const table of page.tables ?? []) content += tableContent(table).content;
    content += page.raw ?? '';
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${PAGE_WIDTH} ${PAGE_HEIGHT}] /Contents ${pageIds[i]! + 1} 0 R ` +
        `/Resources << /Font << /F1 3 0 R${bold ? ` /F2 ${boldId} 0 R` : ''}${mono ? ` /F3 ${monoId} 0 R` : ''} >> >> >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`);
  });
  if (bold) objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  if (mono) objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>');
  if (outline.length > 0) {
    const root = objects.length + 1;
    objects[0] = `<< /Type /Catalog /Pages 2 0 R /Outlines ${root} 0 R >>`;
    objects.push('');
    // Entries are written depth first; each level's ids are reserved before its children are written.
    const writeLevel = (entries: OutlineSpec[], parent: number): { first: number; last: number; count: number } => {
      const ids = entries.map(() => {
        objects.push('');
        return objects.length;
      });
      let count = entries.length;
      entries.forEach((o, i) => {
        const id = ids[i]!;
        const links = `${i > 0 ? ` /Prev ${ids[i - 1]} 0 R` : ''}${i < ids.length - 1 ? ` /Next ${ids[i + 1]} 0 R` : ''}`;
        const at = o.top === undefined ? '/Fit' : `/XYZ 0 ${num(PAGE_HEIGHT - o.top)} 0`;
        const dest = o.page === undefined ? '' : ` /Dest [${pageIds[o.page - 1]} 0 R ${at}]`;
        let kids = '';
        if (o.children && o.children.length > 0) {
          const below = writeLevel(o.children, id);
          kids = ` /First ${below.first} 0 R /Last ${below.last} 0 R /Count ${below.count}`;
          count += below.count;
        }
        objects[id - 1] = `<< /Title (${escapePdfString(o.title)}) /Parent ${parent} 0 R${links}${kids}${dest} >>`;
      });
      return { first: ids[0]!, last: ids[ids.length - 1]!, count };
    };
    const top = writeLevel(outline, root);
    objects[root - 1] = `<< /Type /Outlines /First ${top.first} 0 R /Last ${top.last} 0 R /Count ${top.count} >>`;
  }
  if (info.title === undefined) return pdfFromObjects(objects);
  objects.push(`<< /Title (${escapePdfString(info.title)}) >>`);
  return pdfFromObjects(objects, objects.length);
}

/** Splits a long table over pages: `perPage` body rows a page, the header repeated on each when asked. */
export function splitOverPages(table: TableSpec, perPage: number, repeatHeader: boolean, pageTop = 72): TableSpec[] {
  const [header, ...body] = table.rows;
  const out: TableSpec[] = [];
  for (let i = 0; i < body.length; i += perPage) {
    const rows = body.slice(i, i + perPage);
    out.push({ ...table, top: i === 0 ? table.top : pageTop, rows: i === 0 || repeatHeader ? [header!, ...rows] : rows });
  }
  return out;
}

export const PAGE = { width: PAGE_WIDTH, height: PAGE_HEIGHT };
