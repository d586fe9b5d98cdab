import type { DocumentBuilder, ListItem } from '../document-builder.js';
import type { PageStart, Section } from '../../document/types.js';
import { normalizeSpace } from '../text-sink.js';
import { scriptText } from '../scripts.js';
import { EpistemeError } from '../../failure.js';
import { PDF_BOUNDS, boundExceeded } from '../input-bounds.js';
import { inflatedBytesOver, pdfTreeDepths } from './pdf-streams.js';
import { QUANTUM, quantise, readRulings, type Ruling } from './ruling-lines.js';
import {
  MAX_COVERAGE_UNITS,
  MAX_WORDS_PER_PAGE,
  findPageTables,
  joinContinuations,
  type PageTables,
  type Table,
  type TextRun,
} from './table-geometry.js';

export interface PdfExtractResult {
  title: string;
  confidence: number;
  pageCount: number;
  metadata: Record<string, string>;
}

/** Deterministic limits only: the time bound is the stage pool's (a timeout is a failure, never a document). */
export interface PdfLimits {
  maxPages: number;
}

/** One positioned text run from pdfjs, in top-down page coordinates (points). */
interface Item {
  index: number;
  str: string;
  x: number;
  top: number;
  width: number;
  height: number;
  hasEOL: boolean;
  /** pdfjs's name for the run's font (one per font resource). */
  font: string;
  /** The angle the run is set at, in whole degrees counterclockwise (0 for horizontal text). */
  angle: number;
}

interface Line {
  items: Item[];
  x: number;
  top: number;
  right: number;
  height: number;
  /** Column index, or -1 for a line that spans the column gutter. */
  column: number;
  text: string;
  /** The font of all its visible runs, or '' when they mix fonts. */
  font: string;
}

interface OutlineEntry {
  title: string;
  page: number | null;
  depth: number;
  /** The destination's top (an /XYZ or /FitH destination), in top-down page points, when given. */
  top: number | null;
}

// pdfjs is loaded lazily: HTML-only workers never pay for it.
type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsModule: Promise<PdfJs> | undefined;
function loadPdfJs(): Promise<PdfJs> {
  pdfjsModule ??= withoutRenderingWarnings(() => import('pdfjs-dist/legacy/build/pdf.mjs'));
  return pdfjsModule;
}

// When it loads, pdfjs tries to polyfill the canvas classes it renders with (DOMMatrix, ImageData,
// Path2D) from the native @napi-rs/canvas, and says so with console.warn when it cannot: on Deno,
// where a native addon needs --allow-ffi, every PDF extraction printed two warnings. Episteme reads
// text and never renders, so exactly those load-time lines are dropped; anything else passes.
const RENDERING_WARNING =
  /^Warning: (Cannot load "@napi-rs\/canvas" package|Cannot access the `require` function|Cannot polyfill `\w+`, rendering may be broken)/;
async function withoutRenderingWarnings<T>(load: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]): void => {
    if (typeof args[0] !== 'string' || !RENDERING_WARNING.test(args[0])) warn.apply(console, args);
  };
  try {
    return await load();
  } finally {
    console.warn = warn;
  }
}

/** Raw-byte check for an inverted MediaBox (pdfplumber issue 932): positions need repair. */
function invertedMediaBox(body: Uint8Array): boolean {
  const head = new TextDecoder('latin1').decode(body.subarray(0, Math.min(body.length, 2_000_000)));
  const re = /\/MediaBox\s*\[\s*(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+(-?[\d.]+)\s*\]/g;
  for (let m = re.exec(head); m !== null; m = re.exec(head)) {
    const [x0, y0, x1, y1] = [m[1], m[2], m[3], m[4]].map(Number) as [number, number, number, number];
    if (x1 < x0 || y1 < y0) return true;
  }
  return false;
}

const round = (n: number): number => Math.round(n);

/**
 * How many text items the whole PDF may have: past `textItemsActivation`, at most
 * `textItemsPerByte` per byte of the file (real PDFs have a few hundredths per byte; a content stream
 * that repeats one glyph a million times compresses a thousandfold), and never more than
 * `maxTextItems`.
 */
export function textItemLimit(bytes: number): number {
  return Math.min(PDF_BOUNDS.maxTextItems, Math.max(PDF_BOUNDS.textItemsActivation, PDF_BOUNDS.textItemsPerByte * bytes));
}

type TextItemLike = Awaited<ReturnType<PdfPage['getTextContent']>>['items'][number];
type PdfPage = Awaited<ReturnType<Awaited<ReturnType<PdfJs['getDocument']>['promise']>['getPage']>>;

/**
 * A page's text items, read as pdfjs streams them (100 at a time): past the document's item limit the
 * stream is cancelled there, so a page of millions of runs costs what the limit allows, not its size.
 */
async function readTextContent(page: PdfPage, before: number, limit: number): Promise<TextItemLike[]> {
  const reader = page.streamTextContent().getReader() as ReadableStreamDefaultReader<{ items: TextItemLike[] }>;
  const items: TextItemLike[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return items;
    for (const item of value.items) items.push(item);
    if (before + items.length > limit) {
      // The stream is left unread, not cancelled: pdfjs 5 enqueues into a cancelled stream and throws
      // from its message handler; destroying the loading task (extractPdf's finally) ends the worker.
      throw boundExceeded(
        'pdf-text-items',
        `The PDF has more than ${limit} text items (at most ${PDF_BOUNDS.textItemsPerByte} per byte of the file past ` +
          `${PDF_BOUNDS.textItemsActivation}, and never more than ${PDF_BOUNDS.maxTextItems}).`,
      );
    }
  }
}

/**
 * The page's column gutters (gutterSplits). A float set across both columns at the top or the foot of
 * a two-column page (LaTeX places its table* and figure* only there) crosses the gutter: when the whole
 * page shows none, it is looked for again between such runs, in the page's rows below those that cross
 * its middle in the top 40% and above those that cross it in the bottom 40%. A page whose middle
 * band has a run across its middle is one column.
 */
function columnSplits(items: Item[], pageWidth: number, pageHeight: number): number[] {
  const splits = gutterSplits(items, pageWidth);
  if (splits.length > 0) return splits;
  const middle = pageWidth / 2;
  let below = -Infinity;
  let above = Infinity;
  for (const it of items) {
    if (it.str.trim() === '' || it.x >= middle || it.x + it.width <= middle) continue;
    if (it.top + it.height <= pageHeight * 0.4) below = Math.max(below, it.top + it.height);
    else if (it.top >= pageHeight * 0.6) above = Math.min(above, it.top);
    else return [];
  }
  if (below === -Infinity && above === Infinity) return [];
  return gutterSplits(
    items.filter((it) => it.top >= below && it.top + it.height <= above),
    pageWidth,
  );
}

/**
 * Finds column gutters: vertical strips in the middle of the page that no narrow text run crosses,
 * with substantial text on both sides. Returns the x of each split, left to right.
 */
function gutterSplits(items: Item[], pageWidth: number): number[] {
  // Coverage is counted point by point across the page: a page wider than table detection looks at
  // (25,000 points; a MediaBox may declare any width) is read as one column, not given an array of its
  // declared width (a MediaBox of 10^12 points failed the whole document, 10^9 asked for 2 GB).
  if (!(pageWidth <= MAX_COVERAGE_UNITS / QUANTUM)) return [];
  const width = Math.max(1, Math.ceil(pageWidth));
  const coverage = new Uint16Array(width + 1);
  const narrow = items.filter((it) => it.width <= pageWidth * 0.45 && it.str.trim() !== '');
  if (narrow.length < 10) return [];
  for (const it of narrow) {
    const a = Math.max(0, Math.floor(it.x));
    const b = Math.min(width, Math.ceil(it.x + it.width));
    for (let x = a; x < b; x++) coverage[x]!++;
  }
  // A gutter may be crossed by a few centred lines (title, author): those become full-width lines.
  const tolerance = Math.max(1, Math.floor(narrow.length * 0.03));
  const candidates: { mid: number }[] = [];
  const lo = Math.floor(width * 0.2);
  const hi = Math.ceil(width * 0.8);
  let x = lo;
  while (x < hi) {
    if (coverage[x]! > tolerance) {
      x++;
      continue;
    }
    const start = x;
    while (x < hi && coverage[x]! <= tolerance) x++;
    if (x - start >= 6) candidates.push({ mid: (start + x) / 2 });
  }
  // A real column holds running text: its runs are long on average (table cells are short). The strip
  // right of a gutter, up to the next one, is measured: a two-column table of contents leaves a gutter
  // between its leaders and its column of page numbers, a strip of short runs that is no column.
  const splits: number[] = [];
  candidates.forEach(({ mid }, k) => {
    const prev = splits.length > 0 ? splits[splits.length - 1]! : 0;
    const next = candidates[k + 1]?.mid ?? Infinity;
    // Short runs without a letter (page numbers, list numbers) are measured on neither side.
    const measured = (it: Item): boolean => it.width >= 20 || /\p{L}/u.test(it.str);
    const left = narrow.filter((it) => it.x >= prev - 1 && it.x + it.width <= mid + 1 && measured(it));
    const right = narrow.filter((it) => it.x >= mid - 1 && it.x + it.width <= next + 1 && measured(it));
    const avg = (list: Item[]): number => (list.length === 0 ? 0 : list.reduce((n, it) => n + it.width, 0) / list.length);
    if (left.length >= 5 && right.length >= 5 && avg(left) >= 60 && avg(right) >= 60 && (splits.length === 0 || mid - prev > 40))
      splits.push(mid);
  });
  return splits;
}

function buildLines(items: Item[], splits: number[]): Line[] {
  const columnOf = (it: Item): number => {
    let col = 0;
    for (const s of splits) {
      if (it.x + it.width <= s + 1) return col;
      if (it.x < s - 1) return -1; // crosses the gutter
      col++;
    }
    return col;
  };
  const byColumn = new Map<number, Item[]>();
  for (const it of items) {
    if (it.str === '' && !it.hasEOL) continue;
    const col = columnOf(it);
    const list = byColumn.get(col) ?? [];
    list.push(it);
    byColumn.set(col, list);
  }
  const lines: Line[] = [];
  for (const [column, list] of [...byColumn.entries()].sort((a, b) => a[0] - b[0])) {
    // Content-stream order is kept inside a line; lines are grouped by baseline.
    const sorted = list.slice().sort((a, b) => a.top - b.top || a.x - b.x || a.index - b.index);
    let current: Item[] = [];
    let currentTop = -Infinity;
    let currentHeight = 0;
    const flush = (): void => {
      const visible = current.filter((i) => i.str !== '');
      if (visible.length > 0) {
        visible.sort((a, b) => a.x - b.x || a.index - b.index);
        // Measured before a marker glyph is read as a bullet: its box is no measure of the text.
        const measure = measuringRun(visible);
        // A marker glyph its font maps to no character (a C1 control or a private-use code point:
        // LaTeX's \textbullet from a bitmap TS1 font is U+0088) before the line's text is a bullet.
        const first = visible[0]!;
        if (visible.length >= 2 && UNMAPPED_MARKER.test(first.str.trim())) visible[0] = { ...first, str: '\u2022' };
        const text = lineText(visible, measure);
        // Loops, not Math.min(...list): a spread of a hundred thousand runs overflows the stack.
        let x = Infinity;
        let right = -Infinity;
        const height = measure.height;
        let top = Infinity;
        let font: string | null = null;
        for (const i of visible) {
          if (i.str.trim() !== '') font = font === null || font === i.font ? i.font : '';
          x = Math.min(x, i.x);
          right = Math.max(right, i.x + i.width);
          top = Math.min(top, i.top);
        }
        lines.push({
          items: visible,
          x,
          top,
          right,
          height,
          column,
          text: text.replace(/\s+/g, ' ').trim(),
          font: font ?? '',
        });
      }
      current = [];
    };
    for (const it of sorted) {
      const tolerance = Math.max(2, Math.min(currentHeight || it.height, it.height || currentHeight) * 0.5);
      if (current.length > 0 && Math.abs(it.top - currentTop) > tolerance && !scriptOfLine(it, currentTop, currentHeight)) flush();
      // A line whose first run (by top) was a raised script is measured by its full-size text.
      if (current.length > 0 && scriptOfLine({ top: currentTop, height: currentHeight }, it.top, it.height)) {
        currentTop = it.top;
        currentHeight = it.height;
      }
      if (current.length === 0) {
        currentTop = it.top;
        currentHeight = it.height;
      }
      current.push(it);
    }
    flush();
  }
  return lines.filter((l) => l.text !== '');
}

/**
 * Whether a run set smaller than a line (at most 0.8 of its height) sits within it: its vertical
 * centre inside the line's box. Raised and lowered scripts (exponents, indices, footnote markers)
 * belong to the line they are set against, however far their own top is from the line's.
 */
function scriptOfLine(it: { top: number; height: number }, lineTop: number, lineHeight: number): boolean {
  if (!(it.height > 0) || it.height > lineHeight * 0.8) return false;
  const centre2 = 2 * it.top + it.height;
  return centre2 >= 2 * lineTop && centre2 <= 2 * (lineTop + lineHeight);
}

/** The script mark of a run against its line's measuring run: '^' raised, '_' lowered, '' neither. */
function scriptMark(it: Item, main: Item): '' | '^' | '_' {
  // A space is no script, whatever its size: it separates the script from what follows.
  if (it.height > main.height * 0.8 || it.str.trim() === '') return '';
  const baseline = it.top + it.height;
  const mainBaseline = main.top + main.height;
  if (baseline < mainBaseline - main.height * 0.15) return '^';
  if (baseline > mainBaseline + main.height * 0.1) return '_';
  return '';
}

/**
 * The text of a line's runs, left to right: a space where runs stand apart. Runs set smaller and
 * raised or lowered against the line's tallest run of text (measuringRun) are scripts: `2^53`, `x_i`, `2^(n+1)` (the form the
 * HTML extractor gives `<sup>` and `<sub>`), a footnote marker too (`word^1`). Parts are joined once:
 * a string grown run by run and asked endsWith each time is rebuilt per run.
 */
function lineText(visible: Item[], main: Item): string {
  const parts: string[] = [];
  let lastRight = -Infinity;
  let endsWithSpace = true;
  for (let k = 0; k < visible.length; k++) {
    const it = visible[k]!;
    // A smaller raised letter kerned back into the run before it belongs to the word: the A of the
    // LaTeX logo overlaps its L ("L", "A", "TEX"). A script starts where what it raises ends.
    const kerned = parts.length > 0 && it.x < lastRight - main.height * 0.15;
    const mark = kerned ? '' : scriptMark(it, main);
    if (mark !== '') {
      // Consecutive runs of the same script make one group ("n", "+", "1" is "^(n+1)").
      const group: string[] = [];
      let groupRight = -Infinity;
      let j = k;
      for (; j < visible.length && scriptMark(visible[j]!, main) === mark; j++) {
        const g = visible[j]!;
        if (group.length > 0 && g.x - groupRight > Math.max(1, g.height * 0.15)) group.push(' ');
        group.push(g.str);
        groupRight = Math.max(groupRight, g.x + g.width);
      }
      const content = group.join('').replace(/\s+/g, ' ').trim();
      if (content !== '') {
        parts.push(scriptText(mark === '^' ? 'sup' : 'sub', content));
        endsWithSpace = false;
      }
      lastRight = Math.max(lastRight, groupRight);
      k = j - 1;
      continue;
    }
    if (parts.length > 0 && it.x - lastRight > Math.max(1, it.height * 0.15) && !endsWithSpace && !it.str.startsWith(' ')) parts.push(' ');
    parts.push(it.str);
    if (it.str !== '') endsWithSpace = it.str.endsWith(' ');
    lastRight = Math.max(lastRight, it.x + it.width);
  }
  return parts.join('');
}

/** Reading order: full-width lines cut the page into bands; inside a band, column by column. */
function readingOrder(lines: Line[]): Line[] {
  const full = lines.filter((l) => l.column === -1).sort((a, b) => a.top - b.top);
  // Column lines sorted by top once and taken band by band (each line once, however many bands).
  const columns = lines.filter((l) => l.column !== -1).sort((a, b) => a.top - b.top);
  const out: Line[] = [];
  let next = 0;
  const emitBand = (bottom: number): void => {
    const inBand: Line[] = [];
    while (next < columns.length && columns[next]!.top < bottom) inBand.push(columns[next++]!);
    inBand.sort((a, b) => a.column - b.column || a.top - b.top || a.x - b.x);
    for (const l of inBand) out.push(l);
  };
  for (const f of full) {
    emitBand(f.top);
    out.push(f);
  }
  emitBand(Infinity);
  return out;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/**
 * The document's Info Title when it names the document. Producing programs often write there the file
 * they printed from ("10811.exe", "Microsoft Word - draft.docx", "C:\work\report.doc"): a reader
 * would take that for the title's absence, so the title is then read from the first page, as for a
 * PDF without one. The metadata keeps the value as declared.
 */
function metadataTitle(declared: string | undefined): string {
  const title = normalizeSpace(declared ?? '');
  // Office's printer driver names the file it printed: "Microsoft Word - Annual Report.docx".
  const printed = /^Microsoft (?:Word|Excel|PowerPoint) - (.+)$/i.exec(title);
  if (printed) return FILE_EXTENSION.test(printed[1]!) ? '' : printed[1]!;
  // A file name, or a Windows path to one (a drive letter or a share).
  return (FILE_EXTENSION.test(title) && !/\s/.test(title)) || /^(?:[A-Za-z]:\\|\\\\)/.test(title) ? '' : title;
}

/**
 * The title a first page prints: its lines set in the page's largest type, at least 1.25 times the
 * body, the first of them and those that continue it below (a title wrapped over two or three lines).
 */
function firstPageTitle(lines: Line[], bodyHeight: number, furniture: Set<Line>): string {
  const candidates = lines.filter((l) => !furniture.has(l) && /\p{L}/u.test(l.text));
  let largest = 0;
  for (const l of candidates) largest = Math.max(largest, l.height);
  if (!(largest >= bodyHeight * 1.25)) return '';
  const first = candidates.findIndex((l) => l.height >= largest - 0.5);
  const parts = [candidates[first]!];
  for (let k = first + 1; k < candidates.length && parts.length < 3; k++) {
    const l = candidates[k]!;
    const prev = parts[parts.length - 1]!;
    if (l.height < largest - 0.5 || l.top - prev.top > 2 * largest || l.top <= prev.top) break;
    parts.push(l);
  }
  const title = normalizeSpace(parts.map((l) => l.text).join(' '));
  return title.length > 256 ? '' : title;
}

/** The extension of a document, image or program file. */
const FILE_EXTENSION =
  /\.(?:exe|dll|docx?|dotx?|rtf|odt|ott|pdf|ps|eps|dvi|tex|indd|qxd|pub|xlsx?|pptx?|txt|html?|wpd|tmp|tiff?|jpe?g|png|gif|bmp)$/i;

/**
 * A line's or an outline entry's title, its leading section number dropped: an outline entry may
 * carry the number its heading prints ("1 Introduction", "2.1. Directory layout") or not.
 */
const outlineTitleOf = (text: string): string => normalizeSpace(text).replace(/^[\d.]+\s*/, '');

/**
 * What an outline entry and its heading line are compared by: the title's letters and digits, case
 * folded (NFKC). The outline is plain text and the page is typeset: LaTeX's logo prints "LATEX 2ε" for
 * the outline's "LaTeX2ε", its quotes print ‘doc’ for `doc', a ligature prints "ﬁ" for "fi".
 */
const outlineKeyOf = (text: string): string =>
  outlineTitleOf(text)
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');

/** Whether a line carries an outline entry's title. */
const carriesTitle = (line: Line, entry: OutlineEntry): boolean => {
  const key = outlineKeyOf(entry.title);
  return key !== '' && outlineKeyOf(line.text) === key;
};

/** The section number a heading's text starts with ("1.5" of "1.5 Stability", "2" of "2. Methods"). */
const sectionNumberOf = (text: string): string | null => /^(\d+(?:\.\d+)*)\.?\s/.exec(text)?.[1] ?? null;

/** A heading's leading section number: "1.5 Stability", "2. Methods". */
const NUMBERED_HEADING = /^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\p{Lu}/u;

/** A number ending in a dot before a capitalised title (`3.1. RTP Speex Header Fields`). */
const DOTTED_NUMBERED_HEADING = /^(\d{1,2}(?:\.\d{1,2}){0,4})\.\s+\p{Lu}/u;

/** The same, its title starting with any letter, digit or mark: "6.1.1. child-src", set apart in bold. */
const NUMBERED_APART = /^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\S/u;

/** The font most characters of the document are set in: its body text. */
function mostCommonFont(pageLines: Line[][]): string {
  const chars = new Map<string, number>();
  for (const lines of pageLines)
    for (const l of lines) for (const i of l.items) if (i.font !== '') chars.set(i.font, (chars.get(i.font) ?? 0) + i.str.length);
  let best = '';
  let most = -1;
  for (const [font, n] of [...chars].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))) if (n > most) [best, most] = [font, n];
  return best;
}

/** Share of the page height, at its top and at its bottom, where running heads and feet always count as furniture. */
const FURNITURE_BAND = 0.08;

/**
 * Where a line sits for running heads and feet: 'top' or 'bottom' when it lies in that band of its
 * page, or is the page's top or bottom row standing apart from the text next to it by more than its
 * own height (a LaTeX or groff page keeps its head and foot well inside the page, 9 to 12% from the
 * edge, a head separation away from the body); else null.
 */
function edgeBands(lines: Line[], height: number): Map<Line, 'top' | 'bottom'> {
  const out = new Map<Line, 'top' | 'bottom'>();
  if (lines.length === 0) return out;
  let minTop = Infinity;
  let maxTop = -Infinity;
  for (const l of lines) {
    minTop = Math.min(minTop, l.top);
    maxTop = Math.max(maxTop, l.top);
  }
  const topRow = lines.filter((l) => l.top <= minTop + 2);
  const bottomRow = lines.filter((l) => l.top >= maxTop - 2);
  let topRowBottom = -Infinity;
  for (const l of topRow) topRowBottom = Math.max(topRowBottom, l.top + l.height);
  let bottomRowTop = Infinity;
  for (const l of bottomRow) bottomRowTop = Math.min(bottomRowTop, l.top);
  let belowTop = Infinity;
  let aboveBottom = -Infinity;
  for (const l of lines) {
    if (l.top > minTop + 2) belowTop = Math.min(belowTop, l.top);
    if (l.top < maxTop - 2) aboveBottom = Math.max(aboveBottom, l.top + l.height);
  }
  for (const l of topRow) if (belowTop - topRowBottom > l.height) out.set(l, 'top');
  for (const l of bottomRow) if (bottomRowTop - aboveBottom > l.height) out.set(l, 'bottom');
  for (const l of lines) {
    if (l.top + l.height <= height * FURNITURE_BAND) out.set(l, 'top');
    else if (l.top >= height * (1 - FURNITURE_BAND)) out.set(l, 'bottom');
  }
  return out;
}

/**
 * Lines of running heads and feet: at the top or bottom of their page (edgeBands), every run of them
 * with the same text (digits aside) in the same size (to half a point) at the same edge on at least one
 * other page, or a page number alone there. Runs, not lines, are compared: a head split by a column
 * gutter on one page is one line on another. The size keeps a title page's title apart from the
 * running head that repeats it in smaller type (Apache FOP's DocBook books: "Filesystem Hierarchy
 * Standard" at 25 pt on page 1, at 10 pt atop the contents pages).
 */
function runningFurniture(pageLines: Line[][], pageHeights: number[]): Set<Line> {
  const keyOf = (band: string, it: Item): string => `${band}:${it.str.trim().replace(/\d+/g, '#')}`;
  // The same size: half-point steps, a step either way (within half a point always, never a point
  // apart). Whole points rounded two runs a tenth of a point apart to different sizes (10.45, 10.55).
  const stepOf = (it: Item): number => Math.floor(it.height * 2);
  // text key -> size step -> pages
  const pagesOf = new Map<string, Map<number, Set<number>>>();
  const candidates: { line: Line; band: string; page: number }[] = [];
  pageLines.forEach((lines, p) => {
    for (const [l, band] of edgeBands(lines, pageHeights[p]!)) {
      candidates.push({ line: l, band, page: p });
      for (const it of l.items) {
        if (it.str.trim() === '') continue;
        const key = keyOf(band, it);
        const steps = pagesOf.get(key) ?? new Map<number, Set<number>>();
        pagesOf.set(key, steps);
        const pages = steps.get(stepOf(it)) ?? new Set<number>();
        steps.set(stepOf(it), pages);
        pages.add(p);
      }
    }
  });
  // Whether the run repeats on another page than `p`, at that edge, in the same text and size.
  const repeats = (band: string, it: Item, p: number): boolean => {
    const steps = pagesOf.get(keyOf(band, it));
    const step = stepOf(it);
    for (let d = -1; d <= 1; d++) {
      const pages = steps?.get(step + d);
      if (pages !== undefined && (pages.size >= 2 || !pages.has(p))) return true;
    }
    return false;
  };
  const out = new Set<Line>();
  for (const { line, band, page } of candidates)
    if (PAGE_NUMBER.test(line.text) || line.items.every((it) => it.str.trim() === '' || repeats(band, it, page))) out.add(line);
  // A lone number as the last line of the page, in its lowest 15%, is its printed page number.
  pageLines.forEach((lines, p) => {
    const last = lines[lines.length - 1];
    if (last && PAGE_NUMBER.test(last.text) && last.top > pageHeights[p]! * 0.85) out.add(last);
  });
  // A head that names the page's section beside its printed number ("Black preserving intents 29") has
  // text of its own on a section one page long: it is furniture when its number is the page's, as
  // the heads and feet found above number the pages (the same offset from the page index on at least
  // MIN_NUMBERED_PAGES pages), and it is set in their size (a numbered heading atop a page is larger).
  const numbering = pageNumbering(out, candidates);
  if (numbering !== null)
    for (const { line, page } of candidates)
      if (
        !out.has(line) &&
        edgeNumber(line.text) === page + 1 + numbering.offset &&
        [-1, 0, 1].some((d) => numbering.sizes.has(Math.floor(line.height * 2) + d))
      )
        out.add(line);
  return out;
}

/** Pages whose printed numbers must agree before a head is known by its number alone. */
const MIN_NUMBERED_PAGES = 3;

/**
 * How the running heads and feet found by their text number the pages: the printed number minus the
 * page's index (1-based) that they show on the most pages, if on at least MIN_NUMBERED_PAGES of them,
 * and the sizes (half-point steps) of the lines that show it; else null.
 */
function pageNumbering(furniture: Set<Line>, candidates: { line: Line; page: number }[]): { offset: number; sizes: Set<number> } | null {
  const byOffset = new Map<number, { pages: Set<number>; sizes: Set<number> }>();
  for (const { line, page } of candidates) {
    if (!furniture.has(line)) continue;
    const n = edgeNumber(line.text);
    if (n === null) continue;
    const seen = byOffset.get(n - (page + 1)) ?? { pages: new Set<number>(), sizes: new Set<number>() };
    byOffset.set(n - (page + 1), seen);
    seen.pages.add(page);
    seen.sizes.add(Math.floor(line.height * 2));
  }
  let best: { offset: number; sizes: Set<number> } | null = null;
  let most = MIN_NUMBERED_PAGES - 1;
  for (const [offset, seen] of [...byOffset].sort((a, b) => a[0] - b[0]))
    if (seen.pages.size > most) [best, most] = [{ offset, sizes: seen.sizes }, seen.pages.size];
  return best;
}

/** The number a head or foot line starts or ends with, set apart from its words ("Conclusion 57", "12 | Guide"); else null. */
function edgeNumber(text: string): number | null {
  const match = /^(\d{1,4})(?:\s|$)|\s(\d{1,4})$/.exec(text.trim());
  if (match === null) return null;
  return Number(match[1] ?? match[2]);
}

/** A page number alone: "12", groff's "- 12 -", a front matter's roman "-iv-" or "xii". */
const PAGE_NUMBER = /^(?:[-\u2013\u2014]\s*)?(?:\d{1,4}|(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3}))(?:\s*[-\u2013\u2014])?$/i;

/** A printed HTML table of contents's entry: a list marker, a section number, a title ("2. 4.1 Scope"). */
const LISTED_ENTRY = /^\d{1,3}[.)]\s+\d{1,2}(?:\.\d{1,2}){0,5}\.?\s+\S/;

/** A list marker and a title, as the entries without a number beside them ("9. Acknowledgments", "10.Index"). */
const LIST_MARKED = /^\d{1,3}[.)]\s*\p{L}/u;

/**
 * A table of contents entry: a title, a dot leader and a page number ("2.1 Bounds . . . . 3"). What
 * /\S.*?(?:\s*\.){4,}\s*(?:\d{1,4}|[ivxlc]{1,7})$/i answers, in one pass from the end: that
 * expression, unanchored, backtracked over every start of a long line (quadratic, cubic on dots).
 */
export function isLeaderEntry(text: string): boolean {
  // The page number: the trailing run of digits (at most 4) or of roman numeral letters (at most 7).
  let start = text.length;
  const digits = (i: number): boolean => /[0-9]/.test(text[i] ?? '');
  const roman = (i: number): boolean => /[ivxlc]/i.test(text[i] ?? '');
  const inNumber = digits(start - 1) ? digits : roman;
  while (start > 0 && inNumber(start - 1)) start--;
  const numberLength = text.length - start;
  if (numberLength === 0 || numberLength > (inNumber === digits ? 4 : 7)) return false;
  // The leader before it: the run of white space and dots, with at least four dots.
  let leader = start;
  let dots = 0;
  while (leader > 0 && (text[leader - 1] === '.' || /\s/.test(text[leader - 1]!))) {
    leader--;
    if (text[leader] === '.') dots++;
  }
  // The title: a non-space character before where the leader starts, with no line end between them
  // (the leader may start at any of its dots and spaces, so long as four dots remain after).
  let title = leader > 0;
  for (let q = leader; q < start && dots >= 4; q++) {
    if (title) return true;
    const c = text[q]!;
    if (c === '.') {
      dots--;
      title = true;
    } else if (LINE_END.test(c)) title = false;
  }
  return false;
}

/** What `.` does not match: the line terminators. */
const LINE_END = /[\n\r\u2028\u2029]/;

/**
 * Lines of a printed table of contents: entries with a dot leader to their page number, and the lines
 * next to them that end in a page number set at least two of their heights right of the words before
 * it (LaTeX's section entries have no leader); a browser's print of an HTML page's contents list, its
 * entries a list marker and a section number ("1. 4.1 Scope"), with the marked lines beside them
 * ("9. Acknowledgments"). They are neither text nor headings nor table rows: the
 * HTML extractor drops a page's table of contents too, and its entries would rank for every heading.
 */
function tableOfContents(pageLines: Line[][], furniture: Set<Line>): Set<Line> {
  const out = new Set<Line>();
  for (const all of pageLines) {
    const lines = all.filter((l) => !furniture.has(l));
    // A browser prints an HTML page's table of contents as the nested lists it is: "1. 4.1 MIME type
    // representation", a list marker before each entry's section number, and no page numbers.
    const listed = lines.map((l) => LISTED_ENTRY.test(l.text));
    // Counted once for the page, not once per line.
    const listedEntries = listed.filter(Boolean).length >= 3;
    const leader = lines.map((l, k) => isLeaderEntry(l.text) || (listed[k]! && listedEntries));
    if (leader.filter(Boolean).length < 2) continue;
    const pageNumbered = (l: Line): boolean => {
      const visible = l.items.filter((i) => i.str.trim() !== '');
      const last = visible[visible.length - 1];
      const before = visible[visible.length - 2];
      return (
        last !== undefined &&
        before !== undefined &&
        /^(?:\d{1,4}|[ivxlc]{1,7})$/i.test(last.str.trim()) &&
        last.x - (before.x + before.width) >= 2 * l.height
      );
    };
    const toc = leader.slice();
    // Grow the runs of leader entries over their neighbours that end in a page number.
    // A neighbour of another size (the first heading after the contents, "1. Introduction") is none.
    const beside = (k: number, n: number): boolean => toc[n] === true && Math.abs(lines[n]!.height - lines[k]!.height) <= 1;
    // Where entries start (their numbers' columns), from the leader entries: a numbered title that
    // wraps leaves its first line without leader or page number ("10 Alternating row colors in tables:
    // \rowcolors vs." above "\rowcolors* . . . 36"), starting where entries start, its next line right
    // of it. Numbered only: the lines of a back-of-book index or a change history start there too.
    const entryStarts = lines.filter((_, k) => leader[k]).map((l) => l.x);
    const wrappedTitle = (k: number): boolean => {
      const line = lines[k]!;
      const next = lines[k + 1];
      return (
        next !== undefined &&
        NUMBERED_HEADING.test(line.text) &&
        toc[k + 1] === true &&
        next.column === line.column &&
        next.x > line.x + line.height &&
        entryStarts.some((x) => Math.abs(x - line.x) <= 1)
      );
    };
    const grow = (k: number): void => {
      if (
        !toc[k] &&
        (beside(k, k - 1) || beside(k, k + 1)) &&
        (pageNumbered(lines[k]!) || LIST_MARKED.test(lines[k]!.text) || (beside(k, k + 1) && wrappedTitle(k)))
      )
        toc[k] = true;
    };
    // One pass down and one up reach what repeated passes would (whether a line may join does not
    // depend on the others): repeating them until nothing changed took a pass per line a run grew upwards.
    for (let k = 0; k < lines.length; k++) grow(k);
    for (let k = lines.length - 1; k >= 0; k--) grow(k);
    lines.forEach((l, k) => {
      if (toc[k]) out.add(l);
    });
  }
  return out;
}

/**
 * Headings that hang left of the text, as a man page sets them (groff -man: NAME, SYNOPSIS,
 * DESCRIPTION at the margin in bold, .SS subsections a little right of it, the text further right): a
 * line wholly in fonts the body is not set in, ending in no full stop, comma or semicolon (.SS "Exit
 * status:" may end in a colon), starting left of every
 * line of the body's font in its column (the third leftmost, so that a stray line does not count),
 * with the next line of its column starting right of it. Their level follows their indent: the
 * leftmost 2, the next 3 (an HTML man page's h2 and h3).
 */
function hangingHeadings(pageLines: Line[][], skip: Set<Line>, bodyFont: string): Map<Line, number> {
  const bodyXs = new Map<number, number[]>();
  for (const lines of pageLines)
    for (const l of lines)
      if (!skip.has(l) && l.items.some((i) => i.font === bodyFont && i.str.trim() !== '')) {
        const xs = bodyXs.get(l.column) ?? [];
        xs.push(l.x);
        bodyXs.set(l.column, xs);
      }
  const textLeft = new Map<number, number>();
  for (const [column, xs] of bodyXs) if (xs.length >= 3) textLeft.set(column, xs.sort((a, b) => a - b)[2]!);
  const found: Line[] = [];
  for (const all of pageLines) {
    const lines = all.filter((l) => !skip.has(l));
    // Each line's next line in its column, found in one pass from the end rather than a search per line.
    const nextInColumn: (Line | undefined)[] = new Array<Line | undefined>(lines.length);
    const below = new Map<number, Line>();
    for (let k = lines.length - 1; k >= 0; k--) {
      nextInColumn[k] = below.get(lines[k]!.column);
      below.set(lines[k]!.column, lines[k]!);
    }
    lines.forEach((l, k) => {
      const left = textLeft.get(l.column);
      const next = nextInColumn[k];
      if (
        left !== undefined &&
        l.x < left - 4 &&
        next !== undefined &&
        next.x > l.x + 4 &&
        l.text.length <= 90 &&
        /\p{L}/u.test(l.text) &&
        !/[.,;]$/.test(l.text) &&
        l.items.every((i) => i.str.trim() === '' || (i.font !== '' && i.font !== bodyFont))
      )
        found.push(l);
    });
  }
  // Indents a point or two apart are one (quantised to 4 points).
  const indents = [...new Set(found.map((l) => Math.round(l.x / 4)))].sort((a, b) => a - b);
  return new Map(found.map((l) => [l, 2 + Math.min(3, indents.indexOf(Math.round(l.x / 4)))]));
}

/**
 * Each column's right edge: where most of its lines end, give or take a point and a half (justified
 * lines end together; a margin note or a wide listing further right is no edge). Whole points, so
 * that the same lines give the same edge.
 */
function justifiedEdges(lines: Line[]): Map<number, number> {
  const counts = new Map<number, Map<number, number>>();
  for (const l of lines) {
    const column = counts.get(l.column) ?? new Map<number, number>();
    const right = Math.round(l.right);
    column.set(right, (column.get(right) ?? 0) + 1);
    counts.set(l.column, column);
  }
  const out = new Map<number, number>();
  for (const [column, rights] of counts) {
    let best = 0;
    let most = 0;
    for (const right of [...rights.keys()].sort((a, b) => a - b)) {
      const n = (rights.get(right - 1) ?? 0) + (rights.get(right) ?? 0) + (rights.get(right + 1) ?? 0);
      if (n >= most) [best, most] = [right, n];
    }
    // A column without two lines ending together has no justified edge.
    if (most >= 2) out.set(column, best);
  }
  return out;
}

/**
 * The runs of watermarks and stamps, as "page:index" keys: text set at an angle whose words recur at
 * that angle on two pages or more ("draft" across every page of a TUGboat preprint, arXiv's identifier
 * up the left margin, "CONFIDENTIAL"). Like running heads they are no text of the page: as lines they
 * were headings in their large type, and the words of the lines they crossed.
 */
function stampItems(pageItems: Item[][]): Set<string> {
  const keyOf = (it: Item): string => `${it.angle}:${it.str.trim().replace(/\d+/g, '#')}`;
  const pagesOf = new Map<string, Set<number>>();
  pageItems.forEach((items, p) => {
    for (const it of items) {
      if (it.angle === 0 || it.str.trim() === '') continue;
      const pages = pagesOf.get(keyOf(it)) ?? new Set<number>();
      pages.add(p);
      pagesOf.set(keyOf(it), pages);
    }
  });
  const out = new Set<string>();
  pageItems.forEach((items, p) => {
    for (const it of items) if (it.angle !== 0 && (pagesOf.get(keyOf(it))?.size ?? 0) >= 2) out.add(`${p + 1}:${it.index}`);
  });
  return out;
}

/** Where a list item's text starts, right of its marker, when the marker is a text run of its own. */
function itemTextX(line: Line): number | null {
  const visible = line.items.filter((i) => i.str.trim() !== '');
  return visible.length >= 2 && MARKER.test(visible[0]!.str.trim()) ? visible[1]!.x : null;
}

/** C0 controls other than tab, line feed and carriage return. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is replaced.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;
const CONTROLS = new RegExp(CONTROL.source, 'g');

/**
 * One glyph a font maps to no character: a C1 control, a private-use code point, or U+FFFD (what a
 * C0 control became when the page was read: a Type 3 bullet of Ghostscript's reads as U+0000).
 */
const UNMAPPED_MARKER = /^[\u0080-\u009f\ue000-\uf8ff\ufffd]$/;

/**
 * Glyphs a font maps to no character (UNMAPPED_MARKER's), with spaces: a run of only these has no
 * readable text, and its box no size to measure a line by.
 */
const UNREADABLE_ONLY = /^[\s\u0080-\u009f\ue000-\uf8ff\ufffd]*$/;

/**
 * The run a line is measured by: its tallest run of readable text. A glyph the font maps to no
 * character has a box that says nothing of the text's size (Ghostscript's Type 3 bullet is 1.5 lines
 * tall): measured by it, an item of a list read as a heading and its text as a lowered script. A line
 * of such glyphs only is measured by its tallest.
 */
function measuringRun<T extends { str: string; height: number }>(runs: readonly T[]): T {
  let tallest: T | null = null;
  let tallestReadable: T | null = null;
  for (const run of runs) {
    if (tallest === null || run.height > tallest.height) tallest = run;
    if (!UNREADABLE_ONLY.test(run.str) && (tallestReadable === null || run.height > tallestReadable.height)) tallestReadable = run;
  }
  return (tallestReadable ?? tallest)!;
}

/** A list marker alone: a bullet or dash, "1." or "1)", "(a)". */
const MARKER = /^(?:[\u2022\u25cf\u25aa\u2013\-*]|\d+[.)]|\([a-z0-9]+\))$/;

const BULLET = /^(?:[\u2022\u25cf\u25aa\u2013\-*]|\d+[.)]|\([a-z0-9]+\))\s+/;

export async function extractPdf(body: Uint8Array, builder: DocumentBuilder, limits: PdfLimits): Promise<PdfExtractResult> {
  const result: PdfExtractResult = { title: '', confidence: 0, pageCount: 0, metadata: {} };
  if (body.length === 0) {
    builder.error('pdf-empty', 'The PDF file is empty (0 bytes); nothing to extract.');
    return result;
  }
  // A Flate bomb is refused before pdfjs inflates it into memory it cannot bound.
  const inflateLimit = Math.min(
    PDF_BOUNDS.maxInflatedBytes,
    Math.max(PDF_BOUNDS.amplificationActivationBytes, PDF_BOUNDS.amplificationFactor * body.length),
  );
  if (await inflatedBytesOver(body, inflateLimit)) {
    throw boundExceeded(
      'pdf-inflated-bytes',
      `The PDF's compressed streams inflate to more than ${inflateLimit} bytes ` +
        `(${PDF_BOUNDS.amplificationFactor} times its size past ${PDF_BOUNDS.amplificationActivationBytes} bytes, ` +
        `at most ${PDF_BOUNDS.maxInflatedBytes}).`,
    );
  }
  // Trees pdfjs cannot bear deep (its outline overflows the stack; its field names take quadratic time).
  const depths = await pdfTreeDepths(body, inflateLimit);
  const maxDepth = PDF_BOUNDS.maxTreeDepth;
  const readTrees = { outline: depths.outline <= maxDepth, fields: depths.fields <= maxDepth };
  if (!readTrees.outline)
    builder.warn('pdf-outline-too-deep', `The PDF's outline nests ${depths.outline} levels (more than ${maxDepth}): it is not read.`);
  if (!readTrees.fields)
    builder.warn(
      'pdf-fields-too-deep',
      `A form field of the PDF is nested ${depths.fields} levels deep (more than ${maxDepth}): form fields are not read.`,
    );
  const pdfjs = await loadPdfJs();
  // pdfjs may transfer (detach) the buffer it is given: always pass a copy.
  const task = pdfjs.getDocument({
    data: new Uint8Array(body),
    verbosity: 0,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    stopAtErrors: false,
  });
  try {
    await extractLoaded(task, body, builder, limits, result, readTrees);
  } catch (error) {
    if (error instanceof EpistemeError) throw error;
    const name = error instanceof Error ? error.name : '';
    if (name === 'PasswordException') {
      builder.error('pdf-encrypted', 'The PDF is encrypted with a password; its content cannot be extracted.');
    } else if (
      name === 'InvalidPDFException' ||
      name === 'FormatError' ||
      name === 'UnknownErrorException' ||
      name === 'MissingPDFException'
    ) {
      builder.error('pdf-malformed', `The PDF cannot be parsed: ${error instanceof Error ? error.message : String(error)}`);
    } else {
      builder.error('pdf-malformed', `PDF extraction failed: ${error instanceof Error ? error.message : String(error)}`);
    }
    result.confidence = 0;
  } finally {
    await task.destroy().catch(() => undefined);
  }
  return result;
}

async function extractLoaded(
  task: ReturnType<PdfJs['getDocument']>,
  body: Uint8Array,
  builder: DocumentBuilder,
  limits: PdfLimits,
  result: PdfExtractResult,
  readTrees: { outline: boolean; fields: boolean },
): Promise<void> {
  const doc = await task.promise;
  result.pageCount = doc.numPages;
  if (invertedMediaBox(body)) {
    builder.error(
      'pdf-malformed',
      'The PDF declares an inverted MediaBox: raw character positions fall outside the page; ' +
        'positions were normalised (repaired) by the parser.',
    );
  }
  const meta = await doc.getMetadata().catch(() => null);
  const info = (meta?.info ?? {}) as Record<string, unknown>;
  for (const key of ['Title', 'Author', 'Subject', 'Keywords', 'Creator', 'Producer']) {
    const v = info[key];
    if (typeof v === 'string' && v.trim() !== '') result.metadata[key.toLowerCase()] = v.trim();
  }
  const outline = readTrees.outline ? await readOutline(doc) : [];
  // An outline's top entries are the document's sections (level 2, under its title), unless its first
  // top entry is the title itself, the rest below it: a browser's outline of an HTML page's h1 to h6.
  // A page's h1 in an example (CSS Flexbox's "Computer Starter Kit") is another top entry: the first
  // one is the title still when the Info Title names it and the other top entries are fewer than the
  // nested ones.
  const roots = outline.filter((e) => e.depth === 1).length;
  const declared = normalizeSpace(result.metadata['title'] ?? '').toLowerCase();
  const first = normalizeSpace(outline[0]?.title ?? '').toLowerCase();
  const titled = first !== '' && declared !== '' && (declared.includes(first) || first.includes(declared));
  const outlineShift =
    outline.length > 1 && outline[0]!.depth === 1 && (roots === 1 || (titled && roots - 1 < outline.length - roots)) ? 0 : 1;
  // Tagged PDFs carry a structure tree (MarkInfo /Marked true); its heading tags are not read yet.
  const tagged = (await doc.getMarkInfo().catch(() => null))?.Marked === true;
  const pages = Math.min(doc.numPages, limits.maxPages);
  if (pages < doc.numPages)
    builder.warn('pdf-pages-truncated', `Only the first ${pages} of ${doc.numPages} pages were extracted (pdfMaxPages).`);

  const fields: FieldMap = new Map();
  const bodyHeights: number[] = [];
  const pageLines: Line[][] = [];
  const pageItems: Item[][] = [];
  const pageSplits: number[][] = [];
  const pageHeights: number[] = [];
  const pageTables: PageTables[] = [];
  // Tables are found once every page is read: running heads and feet, known only then, are no rows.
  const tableInputs: { height: number; runs: TextRun[]; rulings: Ruling[] | null; splits: number[] }[] = [];
  let rulingsSkipped = 0;
  let tablesSkipped = 0;
  let tablesFailed = 0;
  let textItems = 0;
  let allItems = 0;
  let outside = 0;
  const itemLimit = textItemLimit(body.length);
  for (let p = 1; p <= pages; p++) {
    const page = await doc.getPage(p);
    const [vx0, vy0, vx1, vy1] = page.view as [number, number, number, number];
    const pageWidth = vx1 - vx0;
    const pageHeight = vy1 - vy0;
    pageHeights.push(pageHeight);
    const content = await readTextContent(page, allItems, itemLimit);
    allItems += content.length;
    const items: Item[] = [];
    const runs: TextRun[] = [];
    content.forEach((raw, index) => {
      if (!('str' in raw)) return;
      // A pilcrow alone in its run is a paragraph's self-link (Bikeshed and ReSpec print one in the margin
      // beside each paragraph and heading), not text: the HTML extractor drops self-links too.
      if (raw.str.trim() === '\u00b6') return;
      // A glyph the font maps to a C0 control (a browser's .notdef for an emoji it has no font for reads
      // as U+0000) is an unreadable character: U+FFFD says so, as a decoder does, instead of a NUL.
      if (CONTROL.test(raw.str)) raw = { ...raw, str: raw.str.replace(CONTROLS, '\ufffd') };
      const t = raw.transform as number[];
      const x = (t[4] ?? 0) - vx0;
      const baseline = (t[5] ?? 0) - vy0;
      const height = raw.height || Math.abs(t[3] ?? 0);
      const top = pageHeight - baseline - height;
      // A size or matrix past the largest double (a font size of 400 digits) places the run nowhere
      // (NaN): it is no text of the page. Kept, it compared as neither above nor below any run, so
      // every run of its column joined one line with no place, and the page read as empty. A run
      // placed well that pdfjs ended with such a one's space has no width (NaN): none, then.
      if (!Number.isFinite(x) || !Number.isFinite(top) || !Number.isFinite(height)) return;
      if (!Number.isFinite(raw.width)) raw = { ...raw, width: 0 };
      // Whole degrees: the angle is compared between pages, never written out.
      const angle = (t[1] ?? 0) !== 0 || (t[2] ?? 0) !== 0 ? Math.round((Math.atan2(t[1] ?? 0, t[0] ?? 0) * 180) / Math.PI) : 0;
      items.push({ index, str: raw.str, x, top, width: raw.width, height, hasEOL: raw.hasEOL, font: raw.fontName, angle });
      if (raw.str.trim() !== '' && height > 0)
        runs.push({
          index,
          str: raw.str,
          x0: quantise(x),
          x1: quantise(x + raw.width),
          top: quantise(top),
          bottom: quantise(top + height),
          size: quantise(height),
          font: raw.fontName,
        });
      if (raw.str.trim() !== '') {
        textItems++;
        if (x < -2 || x > pageWidth + 2 || top < -height - 2 || top > pageHeight + 2) outside++;
      }
    });
    // Text set at an angle crosses the columns (a watermark) or runs up a margin: no gutter is measured by it.
    const splits = columnSplits(
      items.filter((i) => i.angle === 0),
      pageWidth,
      pageHeight,
    );
    // Tables need text: the operator list (for ruling lines) is read only for pages with some. A page
    // whose drawing pdfjs cannot list costs that page its tables only.
    let rulings: Ruling[] | null = [];
    try {
      // A page past the words bound gets no tables: its drawing is not listed either.
      if (runs.length >= 4 && runs.length <= MAX_WORDS_PER_PAGE) {
        const operators = await page.getOperatorList();
        const read = readRulings(operators.fnArray, operators.argsArray, (await loadPdfJs()).OPS, page.view);
        if (read === null) rulingsSkipped++;
        else rulings = read;
      }
    } catch (error) {
      if (error instanceof EpistemeError) throw error;
      rulings = null;
    }
    tableInputs.push({ height: quantise(pageHeight), runs, rulings, splits: splits.map(quantise) });
    pageItems.push(items);
    pageSplits.push(splits);
    // Form fields are widget annotations.
    if (readTrees.fields) collectFields((await page.getAnnotations()) as Record<string, unknown>[], p, fields);
    page.cleanup();
  }
  // Lines are built once every page is read: a watermark or stamp is known only then.
  const stamps = stampItems(pageItems);
  pageItems.forEach((items, k) => {
    const lines = readingOrder(
      buildLines(
        items.filter((i) => !stamps.has(`${k + 1}:${i.index}`)),
        pageSplits[k]!,
      ),
    );
    pageLines.push(lines);
    for (const l of lines) bodyHeights.push(round(l.height));
  });
  pageItems.length = 0;
  const furniture = runningFurniture(pageLines, pageHeights);
  const contents = tableOfContents(pageLines, furniture);
  // Running heads and feet, a table of contents's entries and watermarks are no rows of a table.
  const furnitureItems = new Set<string>(stamps);
  pageLines.forEach((lines, k) => {
    for (const l of lines) if (furniture.has(l) || contents.has(l)) for (const it of l.items) furnitureItems.add(`${k + 1}:${it.index}`);
  });
  tableInputs.forEach((input, k) => {
    const p = k + 1;
    // A page whose drawing pdfjs cannot list, or any slip in table finding, costs that page its tables only.
    try {
      if (input.rulings === null) throw new Error('rulings unreadable');
      const runs = input.runs.filter((r) => !furnitureItems.has(`${p}:${r.index}`));
      const found = findPageTables(p, input.height, runs, input.rulings, input.splits);
      if (found.skipped) tablesSkipped++;
      pageTables.push(found);
    } catch (error) {
      if (error instanceof EpistemeError) throw error;
      tablesFailed++;
    }
  });
  tableInputs.length = 0;
  if (rulingsSkipped > 0)
    builder.warn(
      'pdf-rulings-skipped',
      `${rulingsSkipped} page(s) draw too many line segments; their tables were found from text alignment only.`,
    );
  if (tablesFailed > 0)
    builder.warn('pdf-tables-failed', `Table detection failed on ${tablesFailed} page(s); their tables are kept as text only.`);
  if (tablesSkipped > 0)
    builder.warn(
      'pdf-tables-skipped',
      `${tablesSkipped} page(s) hold too many words to look for tables; their text is kept as paragraphs.`,
    );
  const bodyFont = mostCommonFont(pageLines);
  const monospaced = monospacedFonts(pageLines);
  const fontOfItem = new Map<string, string>();
  pageLines.forEach((lines, k) => {
    for (const l of lines) for (const it of l.items) fontOfItem.set(`${k + 1}:${it.index}`, it.font);
  });
  const listingFont = (key: string): boolean => {
    const font = fontOfItem.get(key);
    return font !== undefined && monospaced.has(font) && font !== bodyFont;
  };
  // Aligned lines set in a monospaced font the body is not set in, a third of them or more with
  // code's punctuation, are a listing (a grammar's "cookie-pair = cookie-name", an IDL block, a style
  // sheet whose comments line up), kept as code; a table of code names ("onload | load") stays a table.
  // Nine runs in ten in such a font and none in the body's: a listing's links may be set in a font too
  // rare to be measured as monospaced.
  const listing = (table: Table): boolean => {
    const keys = table.parts.flatMap((part) => [...part.items].map((index) => `${part.page}:${index}`));
    return (
      keys.every((key) => fontOfItem.get(key) !== bodyFont) &&
      10 * keys.filter(listingFont).length >= 9 * keys.length &&
      3 * table.rows.filter((r) => r.cells.some((c) => /[=;{}()<>[\]]/.test(c))).length >= table.rows.length
    );
  };
  const tables = joinContinuations(pageTables).filter((table) => !listing(table));
  const tableOfItem = new Map<string, Table>();
  for (const table of tables)
    for (const part of table.parts) for (const index of part.items) tableOfItem.set(`${part.page}:${index}`, table);
  const emittedTables = new Set<Table>();
  if (outside > 0) builder.error('pdf-malformed', `${outside} of ${textItems} text runs lie outside the page box.`);
  if (textItems === 0) {
    builder.warn('pdf-no-text', 'The PDF has no extractable text (scanned or image-only pages; OCR is not performed).');
  }

  const bodyHeight = median(bodyHeights);
  // The first page's largest type, when no later page sets a line as large: a title's size.
  let firstPageLargest = 0;
  for (const l of pageLines[0] ?? [])
    if (!furniture.has(l) && /\p{L}/u.test(l.text)) firstPageLargest = Math.max(firstPageLargest, l.height);
  if (pageLines.slice(1).some((lines) => lines.some((l) => !furniture.has(l) && l.height >= firstPageLargest - 0.5)))
    firstPageLargest = Infinity;
  const hung = outline.length === 0 ? hangingHeadings(pageLines, new Set([...furniture, ...contents]), bodyFont) : new Map<Line, number>();
  const periodTitles =
    outline.length === 0 ? periodEndedTitles(pageLines, new Set([...furniture, ...contents]), bodyFont, bodyHeight) : new Set<Line>();
  result.title = metadataTitle(result.metadata['title']);
  // Headings come from the outline, which rarely names the document: its first page's title does.
  if (result.title === '' && outline.length > 0 && pageLines[0]) result.title = firstPageTitle(pageLines[0], bodyHeight, furniture);
  let outlineIndex = 0;
  // The paragraph being gathered. One that a page's end interrupts mid-sentence is carried to the next
  // page, where a line set as its continuation (continuesParagraph) ends it.
  let para: Paragraph | null = null;
  const flush = (): void => {
    if (!para) return;
    if (para.code) emitCode(builder, para.lines, para.page, para.start, para.end);
    else emitParagraph(builder, para);
    para = null;
  };
  // Where the paragraph's last line starts against its column's left edge, on its own page.
  let paraIndent = 0;
  // The section the outline opened last: numbered headings below the outline's depth go under it.
  let outlined: Section | null = null;
  // The level of the last heading set larger than the body (or numbered): a heading in bold body type
  // below it is one level further in.
  let typeLevel = 1;
  for (let p = 1; p <= pages; p++) {
    const lines = pageLines[p - 1]!;
    let offset = 0;
    // Each column's left edge: where its lines start when not indented; and its right edge, where a
    // justified line ends.
    const leftEdge = new Map<number, number>();
    // Running heads and feet are no column's edge: a browser prints them in the page's margin; nor is a
    // mark alone there (a specification's self-link pilcrows, a change bar), without a letter or digit.
    for (const l of lines)
      if (!furniture.has(l) && /[\p{L}\p{N}]/u.test(l.text)) leftEdge.set(l.column, Math.min(leftEdge.get(l.column) ?? Infinity, l.x));
    const rightEdge = justifiedEdges(lines.filter((l) => !furniture.has(l) && !contents.has(l)));
    const indentOf = (l: Line): number => l.x - (leftEdge.get(l.column) ?? l.x);
    // A line fills its column's measure when it ends at the column's right edge: justified text not at
    // its paragraph's last line (TeX, groff and word processors leave that one short).
    const fills = (l: Line): boolean => l.right >= (rightEdge.get(l.column) ?? Infinity) - 3;
    const isApart = (l: Line): boolean =>
      l.items.every((i) => i.str.trim() === '' || (i.font !== '' && i.font !== bodyFont && !monospaced.has(i.font)));
    const isListingLine = (l: Line | undefined): boolean =>
      l?.items.some((i) => i.str.trim() !== '') === true &&
      l.items.every((i) => i.str.trim() === '' || (i.font !== '' && i.font !== bodyFont && monospaced.has(i.font)));
    const standsApart = (l: Line, above: Line | undefined, below: Line | undefined): boolean =>
      l.text.length <= 60 &&
      /^\p{Lu}/u.test(l.text.trim()) &&
      !/[.,;:!?]$/.test(l.text.trim()) &&
      !readsAsSentence(l.text) &&
      // A code name (`SPEEX_PREPROCESS_SET_DENOISE`, set in bold as a term of a list of constants) is no title.
      !l.text.includes('_') &&
      isApart(l) &&
      l.height >= bodyHeight * 0.95 &&
      l.height < bodyHeight * 1.15 &&
      indentOf(l) <= 2 &&
      !hasWideGap(l, bodyHeight) &&
      below !== undefined &&
      below.column === l.column &&
      !furniture.has(below) &&
      // The text it heads starts below it after a little space (a term of a glossary runs straight into
      // its definition; a title in a list of books into its publisher).
      below.top - (l.top + l.height) >= bodyHeight * 0.4 &&
      below.items.some((i) => i.font === bodyFont && i.str.trim() !== '') &&
      // Not the second line of a bold passage: the line above, if in its column and bold too, is
      // another size or set apart by space (a heading over it).
      (above === undefined ||
        above.column !== l.column ||
        furniture.has(above) ||
        !isApart(above) ||
        Math.abs(above.height - l.height) > l.height * 0.05 ||
        l.top - (above.top + above.height) >= bodyHeight * 0.4);
    // Outline entries of this page whose title no line carries open where their destination points.
    const titled = new Set<OutlineEntry>();
    for (const e of outline) if (e.page === p && lines.some((l) => carriesTitle(l, e))) titled.add(e);
    for (let li = 0; li < lines.length; li++) {
      const line = lines[li]!;
      const start = offset;
      const end = offset + line.text.length;
      offset = end + 1;
      // Outline sections open at the line that carries their title (else at the top of their page).
      while (outlineIndex < outline.length && outline[outlineIndex]!.page !== null && outline[outlineIndex]!.page! < p) {
        flush();
        outlined = openOutlineSection(builder, outlineShift, outline[outlineIndex]!, null, p);
        outlineIndex++;
      }
      // ... or, when no line of their page carries the title (it wraps, or is spelt otherwise), at
      // the first line below their destination (a destination without a height, /Fit, is the page's
      // top): the text after a heading is not left in the section before.
      for (let e = outline[outlineIndex]; e && e.page === p && !titled.has(e) && (e.top === null || line.top >= e.top - 2); ) {
        flush();
        outlined = openOutlineSection(builder, outlineShift, e, null, p);
        outlineIndex++;
        e = outline[outlineIndex];
      }
      const entry = outline[outlineIndex];
      if (entry && entry.page === p && carriesTitle(line, entry)) {
        flush();
        outlined = openOutlineSection(builder, outlineShift, entry, line, p, start, end);
        outlineIndex++;
        continue;
      }
      // Running heads and feet (the same words, numbers aside, in the same band on several pages) and
      // page numbers are furniture: neither headings nor text of the section they happen to fall in.
      if (furniture.has(line) || contents.has(line)) continue;
      // A line whose text all went into table cells is the table: it is emitted once, where it starts.
      const visible = line.items.filter((it) => it.str.trim() !== '');
      const table = visible.length > 0 ? tableOfItem.get(`${p}:${visible[0]!.index}`) : undefined;
      if (table && visible.every((it) => tableOfItem.get(`${p}:${it.index}`) === table)) {
        if (!emittedTables.has(table)) {
          flush();
          emittedTables.add(table);
          emitTable(builder, table);
        }
        continue;
      }
      // Set apart from the body: no run of the line in the body's font. A heading may mix fonts (a
      // bold heading with a bold italic variable or a bold code name: "4.1.1. Set response's CSP list").
      const apart = line.items.every((i) => i.str.trim() === '' || (i.font !== '' && i.font !== bodyFont));
      // A numbered title's words set apart, its number in the body's type (amsart sets "1." in roman and
      // "A Simple Example" in small capitals): runs without a letter may be in any font. Only for a title
      // that starts with a capital (NUMBERED_HEADING): a formula after a number is no title.
      const titleApart = wordsApart(line, bodyFont);
      // A line of a listing (it and a line next to it all in a monospaced font the body is not set in):
      // a number opening it is a line number or output (an R session's `9 NA 7 6`, a macro listing's
      // `2 \newcount`), not a section's, unless a dot ends it as an RFC reprinted in typewriter type
      // numbers them ("3.1. RTP ..."). A heading in such a font stands between lines of the body's.
      const listingLine = isListingLine(line) && (isListingLine(lines[li - 1]) || isListingLine(lines[li + 1]));
      // A numbered line set apart may start its title in lower case, with a code name ("6.1.1. child-src").
      const numbered = listingLine
        ? DOTTED_NUMBERED_HEADING.exec(line.text)
        : (NUMBERED_HEADING.exec(line.text) ?? (apart ? NUMBERED_APART.exec(line.text) : null));
      // Three levels deep and set apart, a number is a heading at a browser's h5 size (0.83 of the body).
      const deep = numbered !== null && numbered[1]!.split('.').length >= 3 ? 0.8 : 0.95;
      // Below the outline's depth: LaTeX's bookmarks stop at the contents' depth, so a \subsubsection
      // ("2.7.1 Loading other files") has no entry. A numbered line set apart at body size or more whose
      // number extends the number of the section the outline opened last ("2.7") is a heading below it.
      const outlinedNumber = outlined?.number ?? null;
      const belowOutline =
        outlined !== null &&
        outlinedNumber !== null &&
        numbered !== null &&
        apart &&
        numbered[1]!.startsWith(`${outlinedNumber}.`) &&
        line.text.length <= 90 &&
        !/[.,;:]$/.test(line.text) &&
        line.height >= bodyHeight * 0.95;
      // Unnumbered, a line at body size in a font of its own, alone between the text above and the text
      // it heads below, at its column's left edge: reports set their headings in bold body type (the
      // Federal Register's "Comments Invited", "Background" in Helvetica Bold over Melior text).
      const bodyTypeHeading = outline.length === 0 && numbered === null && standsApart(line, lines[li - 1], lines[li + 1]);
      const isHeading =
        belowOutline ||
        (outline.length === 0 &&
          line.text.length <= 90 &&
          /[A-Za-z]/.test(line.text) &&
          (line.height >= bodyHeight * 1.25 ||
            // A numbered line set in a font of its own (bold) at body size or more: LaTeX's subsections
            // are 1.2 times the body, many reports' headings are bold body text.
            (numbered !== null &&
              (!/[.,;:]$/.test(line.text) || periodTitles.has(line)) &&
              (line.height >= bodyHeight * 1.15 || ((titleApart || periodTitles.has(line)) && line.height >= bodyHeight * deep))) ||
            // Unnumbered, a line 1.15 times the body in a font of its own at its column's left edge:
            // LaTeX's \subsection* ("Preamble"); a title page's centred author and date lines are not.
            (line.height >= bodyHeight * 1.15 &&
              apart &&
              !/[.,;:]$/.test(line.text) &&
              line.x <= (leftEdge.get(line.column) ?? line.x) + 2) ||
            // A man page's headings hang left of its text.
            hung.has(line) ||
            bodyTypeHeading));
      if (isHeading) {
        flush();
        // A title too long for its column wraps onto the lines below it, in its type.
        const wrapped = headingContinuations(lines, li, furniture, contents, bodyFont);
        let headingEnd = end;
        for (const next of wrapped) {
          headingEnd = offset + next.text.length;
          offset = headingEnd + 1;
        }
        li += wrapped.length;
        const headingLines = [line, ...wrapped];
        const headingText = joinLines(headingLines.map((l) => l.text));
        if (result.title === '' && p === 1) result.title = headingText;
        // A section number gives the level below the document's title, as an outline's top entries and
        // an HTML page's h2 have it ("1" 2, "1.5" 3); else the type size does. The first page's first
        // heading in its largest type, a type no later page sets, is the title, level 1, however large
        // (LaTeX's \LARGE title is 1.58 times an 11 pt body).
        const titleLine = p === 1 && builder.sections.length === 0 && line.height >= firstPageLargest - 0.5;
        const sized = belowOutline
          ? outlined!.level + numbered![1]!.split('.').length - outlinedNumber!.split('.').length
          : numbered
            ? numbered[1]!.split('.').length + 1
            : (hung.get(line) ?? (titleLine || line.height >= bodyHeight * 1.6 ? 1 : 2));
        const bodyType = bodyTypeHeading && !hung.has(line) && line.height < bodyHeight * 1.15;
        const level = bodyType ? Math.min(typeLevel + 1, 6) : sized;
        if (!bodyType) typeLevel = level;
        builder.openSection({
          fragment: null,
          heading: headingText,
          level,
          number: sectionNumberOf(line.text),
          page: p,
          span: lineSpan(p, headingLines, start, headingEnd),
          confidence: 50,
        });
        continue;
      }
      const prev = para ? para.lines[para.lines.length - 1]! : null;
      const gap = prev ? line.top - (prev.top + prev.height) : 0;
      // A listing's lines (in fonts the body is not set in, mostly monospaced) keep their line breaks and
      // indentation: they are one code block, however they are indented or spaced.
      // A link in a listing may be set in a font of its own: half its characters monospaced suffice.
      let monoChars = 0;
      let chars = 0;
      for (const i of line.items) {
        if (i.str.trim() === '') continue;
        chars += i.str.length;
        if (monospaced.has(i.font)) monoChars += i.str.length;
      }
      const code = apart && chars > 0 && 2 * monoChars >= chars;
      const open = (): Paragraph => ({ lines: [line], page: p, start, endPage: p, end, turn: 1, turns: [], code });
      const extend = (into: Paragraph): void => {
        if (into.endPage !== p) {
          into.turn = into.lines.length;
          into.turns.push({ line: into.lines.length, page: p });
        }
        into.lines.push(line);
        into.end = end;
        into.endPage = p;
      };
      if (para !== null && (para.code || code)) {
        if (para.code !== code || para.endPage !== p || prev!.column !== line.column || gap > Math.max(prev!.height, line.height) * 3)
          flush();
        if (para === null) para = open();
        else extend(para);
        paraIndent = indentOf(line);
        continue;
      }
      // A paragraph the page's end or its column's end interrupts mid-sentence goes on at this line
      // when the line is set as its next line: see continuesParagraph.
      if (
        para !== null &&
        (para.endPage !== p ||
          (prev!.column !== line.column && prev!.column !== -1 && line.column > prev!.column && line.top < prev!.top)) &&
        continuesParagraph(para, line, paraIndent, indentOf(line))
      ) {
        extend(para);
        paraIndent = indentOf(line);
        continue;
      }
      // A list item's later lines hang under its text, right of its marker: they continue the item; a
      // line back at the marker's x, left of the item's text, is the paragraph after the list.
      const item = para !== null && BULLET.test(para.lines[0]!.text) ? para.lines[0]! : null;
      // A line indented under a first line that fills its measure continues it too: the hanging indent
      // of a LaTeX description item or a groff tagged paragraph (.TP), its label left of the text. A
      // line back at that first line's x is the next item, when the first line starts with a label in
      // a font of its own and goes on in the body's, or its text after the label starts where the later
      // lines do (groff's .TP sets the tag in the indent); a heading run into its paragraph is neither.
      const first = para !== null ? para.lines[0]! : null;
      const hangs =
        para !== null &&
        para.lines.length >= 2 &&
        para.endPage === p &&
        fills(first!) &&
        para.lines[1]!.x > first!.x + 6 &&
        (labelled(first!, bodyFont) || tagInIndent(first!, para.lines[1]!.x));
      const hanging = (item !== null && line.x > item.x + 2) || (para !== null && para.lines.length === 1 && fills(first!));
      const backOut = hangs && line.x <= first!.x + 2;
      // A line led by a tag whose text starts where the text after the paragraph's first tag does is
      // the next item of a tagged list (groff's .TP with tags shorter than the indent: "%F", "%g").
      const firstTag = first !== null ? tagTextX(first) : null;
      const lineTag = firstTag !== null ? tagTextX(line) : null;
      const nextTag = firstTag !== null && lineTag !== null && Math.abs(lineTag - firstTag) <= 2 && Math.abs(line.x - first!.x) <= 2;
      const textX = item !== null ? itemTextX(item) : null;
      const outdented = textX !== null && line.x < textX - 2;
      // A term led by a font of its own (bold), set two ems or more left of the line before it, starts
      // a paragraph: a man page's next option ("-A, --almost-all") after the description of the last.
      const lead = line.items.find((i) => i.str.trim() !== '');
      const term = prev !== null && lead !== undefined && lead.font !== bodyFont && line.x < prev.x - 2 * line.height;
      const breaks =
        prev !== null &&
        (prev.column !== line.column ||
          (line.x - prev.x > 6 && line.x - prev.x < 40 && line.column !== -1 && !hanging) ||
          gap > Math.max(prev.height, line.height) * 0.9 ||
          gap < -prev.height * 2 ||
          Math.abs(line.height - prev.height) > 1.5 ||
          outdented ||
          backOut ||
          nextTag ||
          term ||
          BULLET.test(line.text));
      if (breaks || (para !== null && para.endPage !== p)) flush();
      if (para === null) para = open();
      else extend(para);
      paraIndent = indentOf(line);
    }
    // A paragraph the page's end interrupts mid-sentence may go on at the next page's first line.
    const last = para !== null ? (para as Paragraph) : null;
    if (last !== null && (last.code || p === pages || SENTENCE_END.test(last.lines[last.lines.length - 1]!.text))) flush();
  }
  flush();
  while (outlineIndex < outline.length) {
    openOutlineSection(builder, outlineShift, outline[outlineIndex]!, null, outline[outlineIndex]!.page ?? pages);
    outlineIndex++;
  }
  if (outline.length === 0) {
    // Without an outline, headings are guessed from type size alone (see isHeading): say so.
    builder.limits.add('pdf-headings-guessed-from-font-size');
    if (tagged) builder.limits.add('pdf-structure-tree-not-used');
  }
  emitFields(builder, fields);
  if (result.title === '' && builder.sections[0]) result.title = builder.sections[0].heading;
  result.confidence = textItems === 0 ? 10 : outline.length > 0 ? 70 : 55;
}

/** One table block: the first row is its header; `rowPages` gives the page of every other row. */
function emitTable(builder: DocumentBuilder, table: Table): void {
  const rows = table.rows.map((r) => r.cells.map((c) => normalizeSpace(c)));
  const first = table.parts[0]!;
  const lastPage = table.parts[table.parts.length - 1]!.page;
  const points = (units: number): number => Math.round(units / QUANTUM);
  const lines = rows.map((r) => r.join(' | '));
  // Where each later page's first row begins in the text (row k + 1 is table.rows[k + 1]).
  const pageStarts: PageStart[] = [];
  let start = 0;
  let page = first.page;
  lines.forEach((line, k) => {
    const rowPage = k === 0 ? first.page : table.rows[k]!.page;
    if (rowPage > page) {
      page = rowPage;
      pageStarts.push({ page, start });
    }
    start += line.length + 1;
  });
  builder.addBlock({
    kind: 'table',
    text: lines.join('\n'),
    fragment: null,
    header: rows.slice(0, 1),
    rows: rows.slice(1),
    rowPages: table.rows.slice(1).map((r) => r.page),
    page: first.page,
    pageStarts,
    span: {
      page: first.page,
      ...(lastPage !== first.page ? { endPage: lastPage } : {}),
      x: points(first.x0),
      y: points(first.top),
      width: points(first.x1 - first.x0),
      height: points(first.bottom - first.top),
    },
    confidence: first.ruled ? 70 : 60,
  });
}

function openOutlineSection(
  builder: DocumentBuilder,
  shift: number,
  entry: OutlineEntry,
  line: Line | null,
  page: number,
  start?: number,
  end?: number,
): Section {
  return builder.openSection({
    fragment: null,
    heading: normalizeSpace(entry.title),
    level: entry.depth + shift,
    number: (line ? sectionNumberOf(line.text) : null) ?? sectionNumberOf(normalizeSpace(entry.title)),
    page: entry.page ?? page,
    span: line && start !== undefined && end !== undefined ? lineSpan(page, [line], start, end) : { page: entry.page ?? page },
  });
}

function lineSpan(page: number, lines: Line[], start: number, end: number): Record<string, number> {
  let x = Infinity;
  let top = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  let itemStart = Infinity;
  let itemEnd = -Infinity;
  for (const l of lines) {
    x = Math.min(x, l.x);
    top = Math.min(top, l.top);
    right = Math.max(right, l.right);
    bottom = Math.max(bottom, l.top + l.height);
    for (const i of l.items) {
      itemStart = Math.min(itemStart, i.index);
      itemEnd = Math.max(itemEnd, i.index);
    }
  }
  return {
    page,
    start,
    end,
    itemStart,
    itemEnd,
    x: round(x),
    y: round(top),
    width: round(right - x),
    height: round(bottom - top),
    column: Math.max(0, lines[0]!.column),
  };
}

/** The first two runs of a line that hold more than spaces (scanned only as far as they are). */
function firstTwoRuns(line: Line): [Item | undefined, Item | undefined] {
  let first: Item | undefined;
  for (const i of line.items) {
    if (i.str.trim() === '') continue;
    if (first === undefined) first = i;
    else return [first, i];
  }
  return [first, undefined];
}

/**
 * Whether a line is led by a label in a font the body is not set in (bold), its text going on in the
 * body's. Memoised: it is asked of a paragraph's first line at each of its lines.
 */
const labelledLines = new WeakMap<Line, boolean>();
function labelled(line: Line, bodyFont: string): boolean {
  const known = labelledLines.get(line);
  if (known !== undefined) return known;
  const [label, second] = firstTwoRuns(line);
  const out =
    label !== undefined &&
    second !== undefined &&
    label.font !== bodyFont &&
    line.items.some((i) => i.font === bodyFont && i.str.trim() !== '');
  labelledLines.set(line, out);
  return out;
}

/** A line whose text after its first run starts at `x`, set apart from that run by more than a word space: a tag in the indent. */
function tagInIndent(line: Line, x: number): boolean {
  const at = tagTextX(line);
  return at !== null && Math.abs(at - x) <= 2;
}

/**
 * Where a line's text starts after its first run, when that run is a tag: it stands apart by more than a
 * word space and holds at most a quarter of the line (a paragraph's line with a margin note beside
 * it, "New feature", is no tag and its text).
 */
function tagTextX(line: Line): number | null {
  const [tag, text] = firstTwoRuns(line);
  if (tag === undefined || text === undefined || 4 * tag.width > line.right - line.x) return null;
  return text.x - (tag.x + tag.width) >= line.height * 0.5 ? text.x : null;
}

/**
 * A paragraph being gathered: its lines, where it starts (page, offset into that page's text) and
 * where it ends; a paragraph continued on the next page ends there, its lines from `turn` on.
 */
interface Paragraph {
  lines: Line[];
  page: number;
  start: number;
  endPage: number;
  end: number;
  turn: number;
  /** The lines that start a later page: the index in `lines` of each, with its page. */
  turns: { line: number; page: number }[];
  code: boolean;
}

/** A line's end that ends a sentence: a full stop, question or exclamation mark or colon, a closing quote or bracket after it. */
const SENTENCE_END = /[.!?:][\p{Pf}\p{Pe}"']*$/u;

/**
 * Whether a line that starts a page (or a column) continues the paragraph the last page (or column)
 * ended: that paragraph's last line ends mid-sentence, and the line is set as the paragraph's next line
 * would be: the same size, at the same indent from its column's left edge as the paragraph's later
 * lines (the margin of its own page: a two-sided LaTeX document moves it) or at their x, not a list item, and not
 * starting with a capital (a figure's caption or a new heading-less paragraph at the page's top).
 */
function continuesParagraph(para: Paragraph, line: Line, lastIndent: number, indent: number): boolean {
  const prev = para.lines[para.lines.length - 1]!;
  const expected = para.lines.length >= 2 ? lastIndent : 0;
  return (
    !para.code &&
    !SENTENCE_END.test(prev.text) &&
    !/^\p{Lu}/u.test(line.text) &&
    !BULLET.test(line.text) &&
    Math.abs(line.height - prev.height) <= 1.5 &&
    // A man page's text hangs under headings set further left, on some pages only: the same x as the
    // paragraph's later lines counts as much as the same indent from the page's edge.
    (Math.abs(indent - expected) <= 2 || (para.lines.length >= 2 && Math.abs(line.x - prev.x) <= 2))
  );
}

/**
 * The lines of a text set line by line, joined: a hyphen at a line end followed by a lower-case start
 * is a soft hyphen break. Parts joined once, each break decided on the previous line alone (asking a
 * growing string about its end flattens it every time: quadratic in the paragraph's length).
 */
function joinLines(texts: string[]): string {
  return joinedLines(texts).text;
}

/** joinLines, with the UTF-16 offset in the text where each line starts. */
function joinedLines(texts: string[]): { text: string; starts: number[] } {
  const parts: string[] = [];
  const starts: number[] = [];
  let length = 0;
  for (const text of texts) {
    const last = parts.length > 0 ? parts[parts.length - 1]! : '';
    if (parts.length === 0) parts.push(text);
    else if (last.endsWith('-') && /[a-z]/.test(last.charAt(last.length - 2)) && /^[a-z]/.test(text)) {
      parts[parts.length - 1] = last.slice(0, -1);
      length -= 1;
      parts.push(text);
    } else {
      parts.push(' ', text);
      length += 1;
    }
    starts.push(length);
    length += text.length;
  }
  return { text: parts.join(''), starts };
}

/** At most this many lines continue a heading: a longer run in a heading's type is a display block. */
const MAX_HEADING_CONTINUATIONS = 2;

/**
 * The lines after the heading line `lines[at]` that continue its title: a title too long for its column
 * wraps (FOP's "1.3. Building and Installing SCons on Any Sys-" / "tem", a chapter's "4 Building and
 * Linking with Li-" / "braries"), and each wrapped line was read as a heading of its own, its words
 * ("tem", "braries") a section one level up. A line continues the one above it when it is set in the
 * same type as the title's last words (their height, a font of the heading's, none the body's: a code
 * name may be set in a font of its own), right below them
 * (no wider gap than 0.6 of that height), in the same column, starting where the heading or its title
 * starts, and holds no number of its own.
 */
function headingContinuations(lines: Line[], at: number, furniture: Set<Line>, contents: Set<Line>, bodyFont: string): Line[] {
  const heading = lines[at]!;
  const visibleOf = (line: Line): Item[] => line.items.filter((it) => it.str.trim() !== '');
  const headingItems = visibleOf(heading);
  const fonts = new Set(headingItems.map((it) => it.font));
  // Where the heading starts, and where its title starts after a number set apart ("1", "2.1.").
  const starts = headingItems.slice(0, 2).map((it) => it.x);
  const found: Line[] = [];
  let prev = heading;
  for (let i = at + 1; i < lines.length && found.length < MAX_HEADING_CONTINUATIONS; i++) {
    const next = lines[i]!;
    const visible = visibleOf(next);
    const last = visibleOf(prev).at(-1);
    if (last === undefined || visible.length === 0) break;
    // A chapter's number may be set larger than its title: the title's last words give the type.
    const height = last.height;
    const gap = next.top - (last.top + last.height);
    if (
      furniture.has(next) ||
      contents.has(next) ||
      next.column !== heading.column ||
      !visible.every((it) => it.font !== bodyFont && Math.abs(it.height - height) <= 0.5) ||
      !visible.some((it) => fonts.has(it.font)) ||
      gap < -height / 2 ||
      gap > height * 0.6 ||
      // Set under the heading's start or title, or centred under it (a title page's wrapped title).
      (!starts.some((x) => Math.abs(next.x - x) <= 2) && Math.abs(next.x + next.right - (heading.x + heading.right)) > 4) ||
      next.text.length > 90 ||
      !/\p{L}/u.test(next.text) ||
      NUMBERED_APART.test(next.text)
    )
      break;
    found.push(next);
    prev = next;
  }
  return found;
}

function emitParagraph(builder: DocumentBuilder, para: Paragraph): void {
  const { lines, page } = para;
  const { text, starts } = joinedLines(lines.map((l) => l.text));
  // A paragraph the page's end interrupts: where its later pages begin, so a chunk of its second
  // half cites the page that half is on.
  const pageStarts = para.turns.map(({ line, page }) => ({ page, start: starts[line]! }));
  const bullet = lines.length > 0 && BULLET.test(lines[0]!.text);
  const items: ListItem[] | undefined = bullet ? [{ text: text.replace(BULLET, '') }] : undefined;
  builder.addBlock({
    kind: bullet ? 'list' : 'paragraph',
    text,
    fragment: null,
    items,
    ordered: bullet ? /^\d|^\(/.test(lines[0]!.text) : undefined,
    page,
    pageStarts,
    span: { unit: 'utf16-page-text', ...paragraphSpan(para) },
  });
}

/**
 * A paragraph's span: on one page, its lines' box and text item range. Continued on the next page, the
 * box, the start and `itemStart` are its first page's; `endPage`, `end` and `itemEnd` say where it ends.
 */
function paragraphSpan(para: Paragraph): Record<string, number> {
  if (para.endPage === para.page) return lineSpan(para.page, para.lines, para.start, para.end);
  const span = lineSpan(para.page, para.lines.slice(0, para.turn), para.start, para.end);
  let itemEnd = -Infinity;
  for (const l of para.lines.slice(para.turn)) for (const i of l.items) itemEnd = Math.max(itemEnd, i.index);
  return { ...span, endPage: para.endPage, itemEnd };
}

/** A listing: one code block, a line per line, each indented by its offset from the leftmost in characters. */
function emitCode(builder: DocumentBuilder, lines: Line[], page: number, start: number, end: number): void {
  let left = Infinity;
  let advance = 0;
  let chars = 0;
  for (const l of lines) {
    left = Math.min(left, l.x);
    for (const i of l.items) {
      advance += i.width;
      chars += i.str.length;
    }
  }
  const step = chars > 0 && advance > 0 ? advance / chars : 0;
  // Each run at its own column, as a <pre> keeps it: a grammar's "=" and a style sheet's comments line up.
  const lineText = (l: Line): string => {
    if (!(step > 0)) return l.text;
    let out = '';
    let right = -Infinity;
    for (const it of l.items) {
      const str = it.str.trim() === '' ? '' : it.str;
      if (str === '') continue;
      const column = Math.min(160, Math.round((it.x - left) / step));
      if (column > out.length) out += ' '.repeat(column - out.length);
      else if (out !== '' && it.x - right > step / 2 && !out.endsWith(' ')) out += ' ';
      out += str;
      right = it.x + it.width;
    }
    return out.replace(/\s+$/, '');
  };
  const text = lines.map(lineText).join('\n');
  builder.addBlock({
    kind: 'code',
    text,
    fragment: null,
    page,
    span: { unit: 'utf16-page-text', ...lineSpan(page, lines, start, end) },
  });
}

/**
 * Fonts whose glyphs all advance alike, as listings are set: over five different runs of three
 * characters or more, nine in ten advance the same per character (within 3%) as the median.
 */
function monospacedFonts(pageLines: Line[][]): Set<string> {
  const perFont = new Map<string, { ratios: number[]; texts: Set<string> }>();
  for (const lines of pageLines)
    for (const l of lines)
      for (const i of l.items) {
        if (i.font === '' || i.str.length < 3 || !(i.width > 0) || !(i.height > 0)) continue;
        const entry = perFont.get(i.font) ?? { ratios: [], texts: new Set<string>() };
        entry.ratios.push(i.width / i.str.length / i.height);
        if (entry.texts.size < 5) entry.texts.add(i.str);
        perFont.set(i.font, entry);
      }
  const out = new Set<string>();
  for (const [font, { ratios, texts }] of perFont) {
    if (texts.size < 5) continue;
    const m = median(ratios);
    if (10 * ratios.filter((r) => Math.abs(r - m) <= m * 0.03).length >= 9 * ratios.length) out.add(font);
  }
  return out;
}

type FieldMap = Map<
  string,
  { page: number; type: string; value: string | boolean | null; options: string[]; optionSet: Set<string>; readOnly: boolean }
>;

/** Widget annotations grouped into fields (a radio group has one widget per option). */
function collectFields(annotations: Record<string, unknown>[], page: number, map: FieldMap): void {
  for (const a of annotations) {
    if (a['subtype'] !== 'Widget' || typeof a['fieldName'] !== 'string') continue;
    const name = a['fieldName'];
    const fieldType = String(a['fieldType'] ?? '');
    let type = 'unknown';
    if (fieldType === 'Tx') type = 'text';
    else if (fieldType === 'Ch') type = a['combo'] === true ? 'combo-box' : 'list-box';
    else if (fieldType === 'Sig') type = 'signature';
    else if (fieldType === 'Btn') type = a['checkBox'] === true ? 'checkbox' : a['radioButton'] === true ? 'radio' : 'push-button';
    const raw = a['fieldValue'];
    let value: string | boolean | null = null;
    if (type === 'checkbox') value = raw !== undefined && raw !== 'Off' && raw !== '';
    else if (type === 'radio') value = raw === undefined || raw === 'Off' || raw === '' ? null : String(raw);
    else if (Array.isArray(raw)) value = raw.filter((v) => v !== '').join(', ') || null;
    else if (typeof raw === 'string') value = raw === '' ? null : raw;
    const options: string[] = [];
    if (Array.isArray(a['options']))
      for (const o of a['options'] as { displayValue?: string; exportValue?: string }[])
        options.push(String(o.displayValue ?? o.exportValue ?? ''));
    if (type === 'radio' && typeof a['buttonValue'] === 'string') options.push(a['buttonValue']);
    const known = map.get(name);
    if (known) {
      // A set beside the list: a field's widgets may bring thousands of options each.
      for (const o of options)
        if (!known.optionSet.has(o)) {
          known.optionSet.add(o);
          known.options.push(o);
        }
      continue;
    }
    map.set(name, { page, type, value, options, optionSet: new Set(options), readOnly: a['readOnly'] === true });
  }
}

/** One form-field block per field, in the order fields first appear. */
function emitFields(builder: DocumentBuilder, map: FieldMap): void {
  for (const [name, f] of map) {
    const shown = f.value === null ? '(empty)' : typeof f.value === 'boolean' ? (f.value ? 'checked' : 'unchecked') : f.value;
    builder.addBlock({
      kind: 'form-field',
      text: `${name} (${f.type}): ${shown}`,
      fragment: null,
      field: { name, type: f.type, value: f.value, ...(f.options.length > 0 ? { options: f.options } : {}), readOnly: f.readOnly },
      page: f.page,
      span: { page: f.page },
    });
  }
}

async function readOutline(doc: Awaited<ReturnType<PdfJs['getDocument']>['promise']>): Promise<OutlineEntry[]> {
  const outline = await doc.getOutline().catch(() => null);
  if (!outline) return [];
  const out: OutlineEntry[] = [];
  const visit = async (nodes: typeof outline, depth: number): Promise<void> => {
    for (const node of nodes) {
      let page: number | null = null;
      let top: number | null = null;
      try {
        const dest = typeof node.dest === 'string' ? await doc.getDestination(node.dest) : node.dest;
        const ref = Array.isArray(dest) ? dest[0] : null;
        if (ref && typeof ref === 'object') page = (await doc.getPageIndex(ref as { num: number; gen: number })) + 1;
        else if (typeof ref === 'number') page = ref + 1;
        // [page /XYZ left top zoom] or [page /FitH top]: the y the viewer scrolls to, bottom-up.
        const kind = Array.isArray(dest) ? (dest[1] as { name?: string } | undefined)?.name : undefined;
        const y = Array.isArray(dest) ? (kind === 'XYZ' ? dest[3] : kind === 'FitH' || kind === 'FitBH' ? dest[2] : null) : null;
        if (page !== null && typeof y === 'number') {
          const view = (await doc.getPage(page)).view as number[];
          top = (view[3] ?? 0) - y;
        }
      } catch {
        page = null;
      }
      out.push({ title: node.title, page, depth, top });
      if (node.items.length > 0) await visit(node.items, depth + 1);
    }
  };
  await visit(outline, 1);
  // An entry without a destination (a group that only holds its children: Prawn's manual writes one for
  // each "Basics" chapter part) starts where the next entry with one starts. Left without a page it
  // held back every entry after it, whose sections opened empty at the end of the document.
  for (let i = out.length - 1, next: OutlineEntry | null = null; i >= 0; i--) {
    const entry = out[i]!;
    if (entry.page !== null) next = entry;
    else if (next !== null) out[i] = { ...entry, page: next.page, top: next.top };
  }
  // Outline order is reading order only when pages never go backwards.
  return out;
}

/** Whether a line's words are all in fonts other than the body's: runs without a letter (a number, a stop) may be in any. */
function wordsApart(line: Line, bodyFont: string): boolean {
  return line.items.every((i) => !/\p{L}/u.test(i.str) || (i.font !== '' && i.font !== bodyFont));
}

/** Pages that must hold a numbered title ending in a full stop before such lines are read as headings. */
const MIN_PERIOD_TITLE_PAGES = 3;

/**
 * The numbered titles that end in a full stop, as plain TeX and some LaTeX classes set them ("1.
 * Greetings!.", "12.4. Class Field Theory, bnr."): a line in a font of its own (bold) at body size or
 * more, its number ending in a dot, a short capitalised title after it that does not read as a sentence
 * and holds no other full stop. A document's own style, so only when it sets such titles on
 * MIN_PERIOD_TITLE_PAGES pages at least: a page of bold numbered steps ("1. Open the file.") is not one.
 */
function periodEndedTitles(pageLines: Line[][], skip: ReadonlySet<Line>, bodyFont: string, bodyHeight: number): Set<Line> {
  const found = new Set<Line>();
  const pages = new Set<number>();
  pageLines.forEach((lines, p) => {
    for (const line of lines) {
      if (skip.has(line) || line.height < bodyHeight * 0.95 || !line.text.endsWith('.')) continue;
      const numbered = DOTTED_NUMBERED_HEADING.exec(line.text);
      if (numbered === null) continue;
      const title = line.text.slice(numbered[0].length - 1, -1);
      if (title.length > 60 || title.includes('. ') || readsAsSentence(title)) continue;
      // Its words in a font of its own; the stop after them may be the body's (plain TeX sets "Greetings!" in
      // bold and the full stop in roman).
      if (!wordsApart(line, bodyFont)) continue;
      found.add(line);
      pages.add(p);
    }
  });
  return pages.size >= MIN_PERIOD_TITLE_PAGES ? found : new Set();
}

/**
 * Whether a line reads as a sentence rather than a title: five words or more, all lower case after the
 * first ("This is the definition of the factory", set in bold before a listing), where a title
 * capitalises its words or is short ("Proposed AD Requirements", "Ink limiting device links").
 */
function readsAsSentence(text: string): boolean {
  const words = text.trim().split(/\s+/);
  return words.length >= 5 && words.slice(1).every((w) => !/^\p{Lu}/u.test(w));
}

/** Whether a line's runs stand apart by more than one and a half ems somewhere: a table's row, not a title. */
function hasWideGap(line: Line, em: number): boolean {
  const visible = line.items.filter((i) => i.str.trim() !== '');
  for (let k = 1; k < visible.length; k++) if (visible[k]!.x - (visible[k - 1]!.x + visible[k - 1]!.width) > em * 1.5) return true;
  return false;
}
