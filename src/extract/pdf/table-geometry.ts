import { type ScriptKind, scriptText } from '../scripts.js';
import type { Ruling } from './ruling-lines.js';
import { appendAll, maxOf, minOf } from '../../array-extremes.js';

/**
 * Tables of one PDF page from geometry alone: where text runs sit and where ruling lines are drawn.
 *
 * - Grid tables: vertical and horizontal rulings that cross make cells; a word belongs to the cell
 *   its centre falls in, so a cell may hold several lines.
 * - Aligned tables (no vertical rulings: booktabs, reports, plain text tables): a run of consecutive
 *   lines whose words leave the same vertical gutters free. Gutters cut columns, so two values
 *   printed close together stay two cells as long as every row leaves the gap between them empty.
 *   Rows are lines; a horizontal ruling always starts a new row; a line set tighter than the table's
 *   row pitch that fills fewer cells than its row continues that row (a multi-line cell).
 *
 * All coordinates are integer units (see ruling-lines.ts), top-down; every decision is integer
 * arithmetic on them, so output bytes do not depend on float rounding.
 */

/** One text run (a pdfjs text item), in units. */
export interface TextRun {
  index: number;
  str: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** Font size (the run's height), in units. */
  size: number;
  /** The run's font (pdfjs fontName): glyph widths are calibrated per font. */
  font?: string;
}

export interface TableRow {
  cells: string[];
  page: number;
  top: number;
  bottom: number;
}

export interface PageTable {
  page: number;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  /** Column boundaries, left to right: columns + 1 values. */
  bounds: number[];
  rows: TableRow[];
  /** Indices of the text items that went into cells. */
  items: Set<number>;
  ruled: boolean;
}

interface Word {
  index: number;
  text: string;
  x0: number;
  x1: number;
  top: number;
  bottom: number;
  size: number;
  /** Position in the page's word list: words of one run are consecutive. */
  order: number;
  /** Whether a space separated this word from the previous word of the same run. */
  spacedFromRun: boolean;
  /** The run's font ('' when pdfjs gave none). */
  font: string;
}

interface Line {
  words: Word[];
  top: number;
  bottom: number;
  x0: number;
  x1: number;
  size: number;
}

/** Past this many words on a page, table detection is skipped (bounded work on hostile pages). */
export const MAX_WORDS_PER_PAGE = 60_000;
/** A run of table lines is closed after this many lines (bounds the gutter recomputation). */
const MAX_RUN_LINES = 200;
/** Text spread wider than this (units; 25,000 points) is no page a table sits on: detection is skipped. */
export const MAX_COVERAGE_UNITS = 100_000;
/** A column whose cells have a median length at least this is prose: columns of text are not a table. */
const PROSE_CELL_CHARS = 40;
/** ... or at least this many words. */
const PROSE_CELL_WORDS = 5;

const median = (values: number[]): number => {
  if (values.length === 0) return 0;
  const s = values.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
};

/**
 * Advance widths (1/1000 em) of Helvetica for ASCII 32-126: a model of glyph widths, used only to
 * place the words inside one pdfjs text run, which pdfjs reports as a whole. pdfjs joins text shown
 * close together into one run with a space between, so two cells a few points apart may arrive as
 * "12,345 67,890": the run's width minus its modelled glyphs is what its spaces take.
 */
const GLYPH_WIDTHS = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278,
  278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722,
  667, 944, 667, 667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, 556,
  556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
const SPACE_WIDTH = 278;
const glyphWidth = (code: number): number => (code >= 32 && code <= 126 ? GLYPH_WIDTHS[code - 32]! : 556);

const modelWidth = (text: string): number => [...text].reduce((n, c) => n + glyphWidth(c.charCodeAt(0)), 0);

/**
 * How wide each font's glyphs are against the model, in per mille: the median over its runs without
 * a space (a Courier page is wider than Helvetica, Times narrower). 1000 for a font with no such run.
 */
function fontScales(runs: TextRun[]): { scales: Map<string, number>; monospaced: Set<string> } {
  const ratios = new Map<string, number[]>();
  const perChar = new Map<string, number[]>();
  for (const run of runs) {
    if (/\s/.test(run.str) || run.str.length < 3 || run.size <= 0) continue;
    const model = modelWidth(run.str) * run.size;
    if (model <= 0) continue;
    const font = run.font ?? '';
    // Pushed, not copied: a copy per run is quadratic in the runs of one font.
    const r = ratios.get(font) ?? [];
    r.push(Math.floor(((run.x1 - run.x0) * 1_000_000) / model));
    ratios.set(font, r);
    const c = perChar.get(font) ?? [];
    c.push(Math.floor(((run.x1 - run.x0) * 1_000_000) / (run.str.length * run.size)));
    perChar.set(font, c);
  }
  // A font whose runs all advance the same per character (within 3%) is monospaced: characters
  // then sit at equal steps, whatever the model says.
  const monospaced = new Set<string>();
  for (const [font, list] of perChar) {
    const m = median(list);
    if (list.length >= 3 && list.every((v) => 100 * Math.abs(v - m) <= 3 * m)) monospaced.add(font);
  }
  return { scales: new Map([...ratios].map(([font, list]) => [font, Math.max(250, Math.min(4000, median(list)))])), monospaced };
}

/** Words of a run, placed by modelled glyph widths (integer arithmetic in 1/1000 units). */
function splitWords(runs: TextRun[]): Word[] {
  const words: Word[] = [];
  const { scales, monospaced } = fontScales(runs);
  for (const run of runs) {
    const chars = [...run.str];
    if (chars.length === 0 || run.x1 < run.x0) continue;
    const width = (run.x1 - run.x0) * 1000;
    const isSpace = chars.map((c) => /\s/.test(c));
    const spaces = isSpace.filter(Boolean).length;
    const scale = scales.get(run.font ?? '') ?? 1000;
    const mono = monospaced.has(run.font ?? '');
    const modelOf = (c: string): number => (mono ? 1000 : glyphWidth(c.charCodeAt(0)));
    const glyphs = Math.floor((chars.reduce((n, c, i) => n + (isSpace[i] ? 0 : modelOf(c)), 0) * run.size * scale) / 1000);
    // Spaces take what the glyphs leave when that is at least a quarter em each; else all scale alike.
    const spaced = !mono && spaces > 0 && width - glyphs >= spaces * 250 * run.size;
    const spaceModel = mono ? Math.floor((1000 * run.size * scale) / 1000) : SPACE_WIDTH * run.size;
    const total = spaced ? width : glyphs + spaces * spaceModel;
    const advance = (i: number): number =>
      isSpace[i]
        ? spaced
          ? Math.floor((width - glyphs) / spaces)
          : spaceModel
        : Math.floor((modelOf(chars[i]!) * run.size * scale) / 1000);
    let at = 0;
    let start = -1;
    let first = true;
    const position = (offset: number): number => run.x0 + Math.floor((offset * width) / Math.max(1, total) / 1000);
    const push = (from: number, to: number, endAt: number, startAt: number): void => {
      words.push({
        index: run.index,
        text: chars.slice(from, to).join(''),
        x0: position(startAt),
        x1: position(endAt),
        top: run.top,
        bottom: run.bottom,
        size: run.size,
        order: words.length,
        spacedFromRun: !first,
        font: run.font ?? '',
      });
      first = false;
    };
    let startAt = 0;
    for (let i = 0; i <= chars.length; i++) {
      if (i === chars.length || isSpace[i]) {
        if (start >= 0) push(start, i, at, startAt);
        start = -1;
      } else if (start < 0) {
        start = i;
        startAt = at;
      }
      if (i < chars.length) at += advance(i);
    }
  }
  return words;
}

/** Words grouped into lines: a word joins the line its vertical centre falls in. */
function buildLines(words: Word[]): Line[] {
  const sorted = words.slice().sort((a, b) => a.top - b.top || a.x0 - b.x0 || a.order - b.order);
  const lines: Line[] = [];
  for (const w of sorted) {
    const last = lines[lines.length - 1];
    const centre2 = w.top + w.bottom;
    if (last && centre2 >= 2 * last.top && centre2 <= 2 * last.bottom) {
      last.words.push(w);
      last.top = Math.min(last.top, w.top);
      last.bottom = Math.max(last.bottom, w.bottom);
      last.x0 = Math.min(last.x0, w.x0);
      last.x1 = Math.max(last.x1, w.x1);
    } else lines.push({ words: [w], top: w.top, bottom: w.bottom, x0: w.x0, x1: w.x1, size: 0 });
  }
  for (const line of lines) {
    line.words.sort((a, b) => a.x0 - b.x0 || a.order - b.order);
    line.size = Math.max(1, median(line.words.map((w) => w.size)));
  }
  return lines;
}

/** Number of pieces a line falls into when gaps of at least one em separate them. */
function segmentCount(line: Line): number {
  let count = 1;
  for (let i = 1; i < line.words.length; i++) if (line.words[i]!.x0 - line.words[i - 1]!.x1 >= line.size) count++;
  return count;
}

/**
 * Coverage of a run of lines along x: how many multi-piece lines have text over each unit. Lines are
 * added and removed one at a time, so growing a run costs the width of the line, not the run again.
 */
class Coverage {
  private readonly counts: Int32Array;
  private multiLines = 0;
  private readonly lefts: number[] = [];
  private readonly rights: number[] = [];
  private readonly sizes: number[] = [];

  constructor(
    private readonly origin: number,
    span: number,
  ) {
    this.counts = new Int32Array(span + 2);
  }

  private pieces(line: Line): [number, number][] {
    // One line counts once where its words overlap each other. Words of one run a word space apart
    // (under 0.4 em: "93.2 ± 0.1") are one piece: a gutter never cuts a run at a word space, however
    // few lines cross it; half an em apart, they may be two cells pdfjs joined.
    const out: [number, number][] = [];
    let prev: Word | null = null;
    for (const w of line.words) {
      const last = out[out.length - 1];
      const wordSpace =
        prev !== null && w.index === prev.index && w.order === prev.order + 1 && 10 * (w.x0 - prev.x1) < 4 * Math.min(w.size, prev.size);
      if (last && (w.x0 <= last[1] || wordSpace)) last[1] = Math.max(last[1], w.x1);
      else out.push([w.x0, w.x1]);
      prev = w;
    }
    return out;
  }

  private apply(line: Line, multi: boolean, delta: 1 | -1): void {
    if (delta === 1) {
      this.lefts.push(line.x0);
      this.rights.push(line.x1);
      this.sizes.push(line.size);
    } else {
      this.lefts.pop();
      this.rights.pop();
      this.sizes.pop();
    }
    if (!multi) return;
    this.multiLines += delta;
    for (const [a, b] of this.pieces(line)) for (let x = a - this.origin; x < b - this.origin; x++) this.counts[x]! += delta;
  }

  add(line: Line, multi: boolean): void {
    this.apply(line, multi, 1);
  }

  /** Removes the line added last. */
  removeLast(line: Line, multi: boolean): void {
    this.apply(line, multi, -1);
  }

  /**
   * Free vertical strips inside the lines' extent that at most `crossings` of the multi-piece lines
   * cross (a few lines, such as a header spanning several columns, may cross a gutter of many rows),
   * each at least 0.3 em wide. Returns [start, end) intervals, left to right.
   */
  gutters(): [number, number][] {
    if (this.multiLines === 0) return [];
    const crossings = this.multiLines >= 8 ? Math.floor(this.multiLines / 8) : 0;
    // Wider than a word space (a quarter em) and then some: values set closer than that read as one.
    const minWidth = Math.max(2, Math.floor((median(this.sizes) * 3) / 10));
    const x0 = minOf(this.lefts) - this.origin;
    const x1 = maxOf(this.rights) - this.origin;
    const out: [number, number][] = [];
    let x = x0;
    while (x < x1) {
      if (this.counts[x]! > crossings) {
        x++;
        continue;
      }
      const start = x;
      while (x < x1 && this.counts[x]! <= crossings) x++;
      if (x - start >= minWidth && start > x0 && x < x1) out.push([start + this.origin, x + this.origin]);
    }
    return out;
  }
}

function crossesGutter(line: Line, gaps: [number, number][]): boolean {
  return line.words.some((w) => gaps.some(([a, b]) => w.x0 < b && w.x1 > a));
}

/** Whether `w` follows `prev` after a space: the source had one, or the glyphs stand apart, or it is on a later line. */
function apart(prev: Word, w: Word): boolean {
  const sameRunNext = w.index === prev.index && w.order === prev.order + 1;
  return sameRunNext ? w.spacedFromRun : w.x0 - prev.x1 > Math.floor(Math.min(w.size, prev.size) / 7) || w.top >= prev.bottom;
}

/**
 * Joins a cell's words: a space where the source had one or the glyphs stand apart. With `scripts`,
 * consecutive words of one superscript or subscript are one script, written as the prose of a PDF
 * and the HTML extractor write them (`2^53`, `m_e`, `10^(-11)`): the mark right after what it
 * raises or lowers (a space before it only when it starts a later line of the cell).
 */
function joinWords(words: Word[], scripts?: Map<Word, ScriptKind>): string {
  const parts: string[] = [];
  let prev: Word | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    const kind = scripts?.get(w);
    if (kind === undefined) {
      if (prev !== null && apart(prev, w)) parts.push(' ');
      parts.push(w.text);
      prev = w;
      continue;
    }
    let j = i + 1;
    while (j < words.length && scripts!.get(words[j]!) === kind) j++;
    if (prev !== null && w.top >= prev.bottom) parts.push(' ');
    parts.push(scriptText(kind, joinWords(words.slice(i, j))));
    prev = words[j - 1]!;
    i = j - 1;
  }
  return parts.join('');
}

/**
 * The script a word is against the tallest word of its cell on its line, by the rule of PDF prose
 * (pdf-extractor.ts, scriptMark): set at most 0.8 of its height, its baseline raised by more than
 * 0.15 of that height is a superscript, lowered by more than 0.1 a subscript; smaller text on the
 * baseline (small capitals, a unit) is neither. Integer arithmetic on units.
 */
function scriptOf(w: Word, main: Word): ScriptKind | undefined {
  if (10 * w.size > 8 * main.size) return undefined;
  const raised = 100 * (main.bottom - w.bottom);
  if (raised > 15 * main.size) return 'sup';
  if (-raised > 10 * main.size) return 'sub';
  return undefined;
}

/** The scripts among the words of each cell of each line (a cell's words on one line: `cellsOf[line][column]`). */
function cellScripts(cellsOf: Word[][][]): Map<Word, ScriptKind> {
  const scripts = new Map<Word, ScriptKind>();
  for (const cells of cellsOf)
    for (const cell of cells) {
      if (cell.length < 2) continue;
      let main = cell[0]!;
      for (const w of cell) if (w.size > main.size) main = w;
      cell.forEach((w, k) => {
        // Kerned back into the word before it (the A of the LaTeX logo): part of that word, as in prose.
        const prev = k > 0 ? cell[k - 1]! : null;
        const kind = prev !== null && 100 * w.x0 < 100 * prev.x1 - 15 * main.size ? undefined : scriptOf(w, main);
        if (kind !== undefined) scripts.set(w, kind);
      });
    }
  return scripts;
}

/** The column x falls in: how many inner boundaries lie at or left of it (a binary search: a line may have thousands). */
function columnOf(bounds: number[], x: number): number {
  let lo = 0;
  let hi = bounds.length - 2;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (x >= bounds[mid]!) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Cells of one line: each word goes to the column its centre lies in. With `verticals` (a grid), a
 * boundary that no vertical ruling draws across the line does not cut it: the words of such a
 * spanning cell all go to its first column.
 */
function lineCells(line: Line, bounds: number[], verticals?: Ruling[]): Word[][] {
  const cells: Word[][] = Array.from({ length: bounds.length - 1 }, () => []);
  for (const w of line.words) cells[columnOf(bounds, Math.floor((w.x0 + w.x1) / 2))]!.push(w);
  if (verticals) {
    const middle2 = line.top + line.bottom;
    let first = 0;
    for (let k = 1; k < cells.length; k++) {
      const b = bounds[k]!;
      const drawn = verticals.some((v) => Math.abs(v.at - b) <= 2 && 2 * v.from <= middle2 && 2 * v.to >= middle2);
      if (drawn || !textFlowsAcross(line, b)) first = k;
      else {
        appendAll(cells[first]!, cells[k]!);
        cells[k] = [];
      }
    }
  }
  return cells;
}

/** Whether a line's text runs across x = b: a word straddles it, or words on both sides stand less than an em apart. */
function textFlowsAcross(line: Line, b: number): boolean {
  let left: Word | null = null;
  let right: Word | null = null;
  for (const w of line.words) {
    if (w.x0 < b && w.x1 > b) return true;
    if (w.x1 <= b && (left === null || w.x1 > left.x1)) left = w;
    if (w.x0 >= b && (right === null || w.x0 < right.x0)) right = w;
  }
  return left !== null && right !== null && right.x0 - left.x1 < line.size;
}

const hasRuleBetween = (rules: Ruling[], upper: Line, lower: Line, x0: number, x1: number): boolean =>
  rules.some(
    (r) =>
      r.orientation === 'h' &&
      r.at >= upper.bottom - 1 &&
      r.at <= lower.top + 1 &&
      r.from < x1 &&
      r.to > x0 &&
      Math.min(r.to, x1) - Math.max(r.from, x0) >= Math.floor((x1 - x0) / 2),
  );

/**
 * Rows of a table from its lines. A horizontal ruling always starts a new row. Otherwise a line that
 * fills fewer cells than its row's first line continues that row (a multi-line cell) when it is set
 * tighter than the table's row pitch (aligned tables) or shares the row's ruled band (grids, where
 * lines filling as many cells are rows a report grouped between rules).
 */
function tableRows(lines: Line[], bounds: number[], rules: Ruling[], page: number, grid: boolean): TableRow[] {
  const x0 = bounds[0]!;
  const x1 = bounds[bounds.length - 1]!;
  const verticals = grid ? rules.filter((r) => r.orientation === 'v') : undefined;
  const cellsOf = lines.map((l) => lineCells(l, bounds, verticals));
  const filled = cellsOf.map((cells) => cells.filter((c) => c.length > 0).length);
  const ruleAbove = lines.map((l, i) => i > 0 && hasRuleBetween(rules, lines[i - 1]!, l, x0, x1));
  // Row pitch: the most common baseline distance between lines not separated by a rule.
  const pitches = new Map<number, number>();
  const size = median(lines.map((l) => l.size));
  const pitchOf = (i: number): number => lines[i]!.bottom - lines[i - 1]!.bottom;
  const bucket = Math.max(1, Math.floor(size / 5));
  for (let i = 1; i < lines.length; i++)
    if (!ruleAbove[i]) {
      const p = Math.floor(pitchOf(i) / bucket);
      pitches.set(p, (pitches.get(p) ?? 0) + 1);
    }
  const distinct = [...pitches.keys()].sort((a, b) => a - b);
  // Two pitch classes (in-cell leading, row pitch) exist when the tightest pitch is clearly tighter than the most common.
  let rowPitch = -1;
  let best = 0;
  for (const p of distinct) if (pitches.get(p)! >= best) [rowPitch, best] = [p, pitches.get(p)!];
  const rowPitchUnits = rowPitch * bucket;
  const tight = (i: number): boolean => grid || (distinct.length > 1 && pitchOf(i) + Math.floor(size / 4) < rowPitchUnits);
  const header = grid ? 0 : headerLines(lines, cellsOf, ruleAbove);
  const key = keyColumn(cellsOf.slice(header));
  const rows: TableRow[] = [];
  const cellWords: Word[][][] = [];
  let rowFilled = 0;
  let rowColumns: boolean[] = [];
  lines.forEach((line, i) => {
    const continues =
      i > 0 &&
      (i < header ||
        (i > header &&
          !ruleAbove[i] &&
          filled[i]! < rowFilled &&
          (tight(i) || (!grid && wrappedLine(cellsOf[i]!, key, rowColumns) && pitchOf(i) <= rowPitchUnits + bucket))));
    if (!continues) {
      rowColumns = cellsOf[i]!.map((c) => c.length > 0);
      rows.push({ cells: [], page, top: line.top, bottom: line.bottom });
      cellWords.push(cellsOf[i]!.map((c) => c.slice()));
      rowFilled = filled[i]!;
      return;
    }
    const row = rows[rows.length - 1]!;
    row.bottom = Math.max(row.bottom, line.bottom);
    cellsOf[i]!.forEach((c, k) => {
      if (c.length > 0) rowColumns[k] = true;
    });
    if (i < header) rowFilled = Math.max(rowFilled, filled[i]!);
    cellsOf[i]!.forEach((c, k) => {
      appendAll(cellWords[cellWords.length - 1]![k]!, c);
    });
  });
  const scripts = cellScripts(cellsOf);
  rows.forEach((row, r) => {
    row.cells = cellWords[r]!.map((c) => joinWords(c, scripts));
  });
  return rows;
}

/** A value that stands alone in its cell: a number, amount, percentage or date, never the rest of a wrapped text. */
const VALUE = /^[-+\u2212$\u20ac\u00a3\u00a5(]*[\d.,:/\u2013-]*\d[\d.,:/%\u2013-]*\)?%?$/;

/**
 * The column the fullest lines fill most (the leftmost of equals): in a report, the date, code or
 * label that starts every row and that the wrapped lines of a long cell leave empty. Only the lines
 * filling the most cells count: wrapped lines would otherwise make their own column the key.
 */
function keyColumn(cellsOf: Word[][][]): number {
  const filled = cellsOf.map((cells) => cells.filter((c) => c.length > 0).length);
  const most = filled.reduce((m, n) => Math.max(m, n), 0);
  const counts: number[] = [];
  for (const [i, cells] of cellsOf.entries())
    cells.forEach((c, k) => {
      if (filled[i] !== most) return;
      counts[k] = (counts[k] ?? 0) + (c.length > 0 ? 1 : 0);
    });
  let best = 0;
  counts.forEach((n, k) => {
    if (n > counts[best]!) best = k;
  });
  return best;
}

/**
 * Whether a line is the continuation of wrapped cells in the row above, set at the row's own pitch (as
 * reports exported from spreadsheets set them): it leaves the key column empty, holds no value of its
 * own (a number or date starts a row), and each of its cells continues a cell the row has filled.
 */
function wrappedLine(cells: Word[][], key: number, rowColumns: boolean[]): boolean {
  if (cells[key]!.length > 0) return false;
  return cells.every((c, k) => c.length === 0 || (rowColumns[k] === true && !VALUE.test(joinWords(c))));
}

/**
 * Lines at the top of an unruled table that make one header row: two lines or more, none holding a
 * value, and either all above the table's first rule (two or three lines over a booktabs midrule) or
 * all in a font the body does not use (bold headings), with no rule between them. Reports set a
 * header's words over two lines, bottom-aligned ("Payment / Date", "Amount / (USD)"). Returns how
 * many lines the header takes, or 0.
 */
function headerLines(lines: Line[], cellsOf: Word[][][], ruleAbove: boolean[]): number {
  const valueFree = (i: number): boolean => cellsOf[i]!.every((c) => c.length === 0 || !VALUE.test(joinWords(c)));
  // A rule under the first two or three lines (booktabs' midrule) closes a header of those lines.
  const ruled = ruleAbove.findIndex((r, i) => i > 0 && r);
  if (ruled >= 2 && ruled <= 3 && ruled < lines.length && lines.slice(0, ruled).every((_, i) => valueFree(i))) return ruled;
  const counts = new Map<string, number>();
  for (const l of lines) for (const w of l.words) counts.set(w.font, (counts.get(w.font) ?? 0) + 1);
  let bodyFont = '';
  let most = -1;
  for (const [font, n] of [...counts].sort((a, b) => (a[0] < b[0] ? -1 : 1))) if (n > most) [bodyFont, most] = [font, n];
  let n = 0;
  while (
    n < lines.length - 1 &&
    (n === 0 || !ruleAbove[n]) &&
    lines[n]!.words.every((w) => w.font !== bodyFont) &&
    cellsOf[n]!.every((c) => c.length === 0 || !VALUE.test(joinWords(c)))
  )
    n++;
  return n >= 2 ? n : 0;
}

/** Cells that are only a currency sign: the sign printed at a figure column's left edge, not a column of its own. */
const CURRENCY = /^[$\u20ac\u00a3\u00a5]$/;

/**
 * Drops the boundary right of a column whose every filled cell is a currency sign ("$" on a
 * statement's first and total lines, the figures right-aligned further on): the sign joins its figure.
 */
function mergeCurrencyColumns(lines: Line[], bounds: number[]): number[] {
  const columns = bounds.length - 1;
  const only = new Array<boolean>(columns).fill(true);
  const any = new Array<boolean>(columns).fill(false);
  for (const l of lines)
    lineCells(l, bounds).forEach((c, k) => {
      if (c.length === 0) return;
      any[k] = true;
      if (!CURRENCY.test(joinWords(c))) only[k] = false;
    });
  return bounds.filter((_, b) => b === 0 || b === columns || !(any[b - 1] && only[b - 1]));
}

/** A cell of list markers: bullets, dashes, "1.", "a)", "(iv)". */
const LIST_MARKER =
  /^(?:[\u2022\u2023\u2043\u25aa\u25ab\u25cf\u25cb\u25a0\u25a1\u25e6\u00b7\u2013\u2014*-]|\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxlcdm]+\))$/;

/** Cells that number consecutive lines (1, 2, 3, ...): line-numbered text, not a column of data. */
function lineNumbering(cells: string[]): boolean {
  if (cells.length < 3 || !cells.every((c) => /^\d{1,5}$/.test(c))) return false;
  return cells.every((c, i) => i === 0 || Number(c) === Number(cells[i - 1]) + 1);
}

/**
 * Whether the lines, cut by `bounds`, look like a table rather than running text laid out in columns.
 * A column is running text when its line pieces are sentence-length (median five words or forty
 * characters). Newspaper columns are all running text; line-numbered text is running text beside a
 * count; a list is running text beside its markers. A table keeps at least two columns of values.
 */
function tableLike(lines: Line[], bounds: number[], checkRunningText: boolean, layoutGutter: boolean): boolean {
  const columns = bounds.length - 1;
  if (columns < 2 || lines.length < 2) return false;
  const perColumn: string[][] = Array.from({ length: columns }, () => []);
  let multiCellLines = 0;
  let fusedLines = 0;
  let flowingLines = 0;
  for (const line of lines) {
    const cells = lineCells(line, bounds);
    let filled = 0;
    cells.forEach((c, k) => {
      if (c.length === 0) return;
      filled++;
      perColumn[k]!.push(joinWords(c));
    });
    if (filled >= 2) multiCellLines++;
    // Cells filled by words no em apart: a line of text flowing across the boundaries, not a row.
    if (filled >= 2 && segmentCount(line) === 1) flowingLines++;
    if (cells.some((c) => c.some((w, k) => k > 0 && w.x0 - c[k - 1]!.x1 >= 2 * line.size))) fusedLines++;
  }
  if (multiCellLines < 2 || multiCellLines * 2 < lines.length) return false;
  if (perColumn.some((cells) => cells.length === 0)) return false;
  if (!checkRunningText) return true;
  // Cells holding two pieces set far apart in several lines: the gutters were lost to other lines.
  if (fusedLines >= 2) return false;
  // A table's rows leave an em between some of their cells (the gutters a run starts from); a
  // paragraph cut at the word spaces of a few such lines (a heading, a line of code) has most of its
  // lines flowing across every boundary.
  if (2 * flowingLines > multiCellLines) return false;
  // Without rulings, a table shows its columns in several rows: three lines with two cells or more,
  // and two of every three columns filled at least twice.
  if (multiCellLines < 3 || 3 * perColumn.filter((cells) => cells.length >= 2).length < 2 * columns) return false;
  const running = perColumn.map(
    (cells) => median(cells.map((c) => c.length)) >= PROSE_CELL_CHARS || median(cells.map((c) => c.split(' ').length)) >= PROSE_CELL_WORDS,
  );
  const runningCount = running.filter(Boolean).length;
  // Most of the text in sentence-length pieces: running text, whatever else sits beside it.
  const runningCells = perColumn.reduce((n, cells, k) => n + (running[k] ? cells.length : 0), 0);
  if (2 * runningCells > perColumn.reduce((n, cells) => n + cells.length, 0)) return false;
  // Running text on a page laid out in columns, cut at the layout's gutter, is that layout.
  if (layoutGutter && runningCount > 0) return false;
  if (columns >= 3) return runningCount < columns - 1;
  if (runningCount === 2 || perColumn.some((cells) => lineNumbering(cells))) return false;
  return !perColumn[0]!.every((c) => LIST_MARKER.test(c));
}

/** Grid tables: cells bounded by crossing rulings. */
function gridTables(words: Word[], rules: Ruling[], page: number, used: Set<Word>): PageTable[] {
  const horizontal = rules.filter((r) => r.orientation === 'h');
  const vertical = rules.filter((r) => r.orientation === 'v');
  if (horizontal.length < 2 || vertical.length < 2 || horizontal.length * vertical.length > 250_000) return [];
  const slack = 2;
  // Connected groups of rulings that touch.
  const all = [...horizontal, ...vertical];
  const parent = all.map((_, i) => i);
  const find = (i: number): number => {
    if (parent[i] === i) return i;
    const root = find(parent[i]!);
    parent[i] = root;
    return root;
  };
  horizontal.forEach((h, i) => {
    vertical.forEach((v, j) => {
      if (v.at >= h.from - slack && v.at <= h.to + slack && h.at >= v.from - slack && h.at <= v.to + slack)
        parent[find(i)] = find(horizontal.length + j);
    });
  });
  const groups = new Map<number, Ruling[]>();
  all.forEach((r, i) => {
    const root = find(i);
    const list = groups.get(root) ?? [];
    list.push(r);
    groups.set(root, list);
  });
  const tables: PageTable[] = [];
  for (const group of [...groups.values()]) {
    const hs = group.filter((r) => r.orientation === 'h');
    const vs = group.filter((r) => r.orientation === 'v');
    if (hs.length < 2 || vs.length < 2) continue;
    const ys = distinctPositions(
      hs.map((r) => r.at),
      slack,
    );
    const xs = distinctPositions(
      vs.map((r) => r.at),
      slack,
    );
    if (ys.length < 3 || xs.length < 3) continue; // at least 2 x 2 cells
    const top = ys[0]!;
    const bottom = ys[ys.length - 1]!;
    const left = xs[0]!;
    const right = xs[xs.length - 1]!;
    // Column boundaries that run the table's height only partly still cut the rows they cross.
    const boxed = words.filter(
      (w) =>
        !used.has(w) && w.top + w.bottom > 2 * top && w.top + w.bottom < 2 * bottom && w.x0 + w.x1 > 2 * left && w.x0 + w.x1 < 2 * right,
    );
    if (boxed.length === 0) continue;
    const inside = buildLines(boxed);
    const rowsOut = tableRows(inside, xs, group, page, true);
    const items = new Set<number>();
    for (const l of inside) for (const w of l.words) items.add(w.index);
    const multi = rowsOut.filter((r) => r.cells.filter((c) => c !== '').length >= 2).length;
    if (rowsOut.length < 2 || multi < 1) continue;
    for (const w of boxed) used.add(w);
    tables.push({ page, x0: left, x1: right, top, bottom, bounds: xs, rows: rowsOut, items, ruled: true });
  }
  return tables;
}

function distinctPositions(values: number[], slack: number): number[] {
  const sorted = values.slice().sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of sorted) if (out.length === 0 || v - out[out.length - 1]! > slack) out.push(v);
  return out;
}

/** Where a column is filled in one line: the positions (in the line's words) of its first and last word. */
interface FilledCell {
  line: number;
  first: number;
  last: number;
}

/**
 * Drops boundaries that only cut a word space: when a column is filled in at most one line (a header
 * like "Population (millions)" over right-aligned numbers leaves the space between its words free), its
 * boundary toward the neighbour that the text runs into (in every line holding both, the words meet
 * inside one text run or stand less than an em apart) goes.
 *
 * The leftmost such column goes first, and the test runs again; a column's test reads only its own
 * cells and its neighbours', so after a merge only the merged column and the one left of it are read
 * again (the columns further left passed and have not changed). Columns are a linked list whose cells
 * are kept per column, by line: a line that pdfjs gives as one text run of thousands of words a gutter
 * apart costs its words once, not its words times its columns times its columns (issue 31).
 */
function pruneSpaceGutters(lines: Line[], bounds: number[]): number[] {
  const columns = bounds.length - 1;
  if (columns < 2) return bounds;
  // cells[c]: the lines column c is filled in, in line order.
  const cells: FilledCell[][] = Array.from({ length: columns }, () => []);
  lines.forEach((line, l) => {
    line.words.forEach((w, at) => {
      const list = cells[columnOf(bounds, Math.floor((w.x0 + w.x1) / 2))]!;
      const last = list[list.length - 1];
      if (last !== undefined && last.line === l) last.last = at;
      else list.push({ line: l, first: at, last: at });
    });
  });
  const next = Array.from({ length: columns }, (_, c) => (c + 1 < columns ? c + 1 : -1));
  const prev = Array.from({ length: columns }, (_, c) => c - 1);
  let count = columns;
  /** The entry of `list` for line l, by binary search (or the index where it would go, negated minus one). */
  const find = (list: FilledCell[], l: number): number => {
    let lo = 0;
    let hi = list.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const at = list[mid]!.line;
      if (at === l) return mid;
      if (at < l) lo = mid + 1;
      else hi = mid - 1;
    }
    return -lo - 1;
  };
  // Whether the text runs from column `left` into column `right` in every line filling both (checked
  // over the lines of the sparse one, `few`), and at least one line fills both.
  const flowsInto = (left: number, right: number, few: FilledCell[]): boolean => {
    let shared = false;
    for (const cell of few) {
      const a = cells[left]![find(cells[left]!, cell.line)];
      const b = cells[right]![find(cells[right]!, cell.line)];
      if (a === undefined || b === undefined) continue;
      shared = true;
      const words = lines[cell.line]!.words;
      const wa = words[a.last]!;
      const wb = words[b.first]!;
      if (!(wa.index === wb.index || wb.x0 - wa.x1 < Math.max(wa.size, wb.size))) return false;
    }
    return shared;
  };
  // Merges column `right` into column `left` (its left neighbour): the boundary between them goes.
  const merge = (left: number, right: number): void => {
    const into = cells[left]!;
    for (const cell of cells[right]!) {
      const at = find(into, cell.line);
      if (at >= 0) {
        into[at]!.first = Math.min(into[at]!.first, cell.first);
        into[at]!.last = Math.max(into[at]!.last, cell.last);
      } else into.splice(-at - 1, 0, { ...cell });
    }
    cells[right] = [];
    next[left] = next[right]!;
    if (next[right]! !== -1) prev[next[right]!] = left;
    count--;
  };
  let k = 0;
  while (k !== -1 && count >= 2) {
    const own = cells[k]!;
    let merged = -1;
    if (own.length <= 1) {
      // Boundary left of column k first, then right of it.
      if (prev[k]! !== -1 && flowsInto(prev[k]!, k, own)) {
        merged = prev[k]!;
        merge(merged, k);
      } else if (next[k]! !== -1 && flowsInto(k, next[k]!, own)) {
        merged = k;
        merge(k, next[k]!);
      }
    }
    if (merged === -1) k = next[k]!;
    else k = prev[merged]! !== -1 ? prev[merged]! : merged;
  }
  const out = [bounds[0]!];
  for (let c = 0; c !== -1; c = next[c]!) out.push(bounds[next[c]! === -1 ? columns : next[c]!]!);
  return out;
}

/** Aligned tables: runs of lines that share free gutters. */
/** Whether a line is set at least 1.15 times the size of another (a heading beside a table's rows). */
const larger = (line: Line, than: Line): boolean => line.size * 20 >= than.size * 23;

function alignedTables(free: Line[], rules: Ruling[], page: number, layoutSplits: number[], pageHeight: number): PageTable[] {
  const furnitureBand = Math.floor((pageHeight * FURNITURE_PERCENT) / 100);
  const multi = free.map((l) => segmentCount(l) >= 2);
  const tables: PageTable[] = [];
  if (free.length === 0) return tables;
  const origin = free.reduce((m, l) => Math.min(m, l.x0), Infinity);
  const span = free.reduce((m, l) => Math.max(m, l.x1), -Infinity) - origin;
  if (span > MAX_COVERAGE_UNITS) return tables;
  let i = 0;
  while (i < free.length) {
    // A line set larger than the line below it (a numbered heading over a table: "3 | Extracting
    // evidence") is no row of it.
    const below = free[i + 1];
    if (!multi[i] || (below !== undefined && larger(free[i]!, below))) {
      i++;
      continue;
    }
    const coverage = new Coverage(origin, span);
    const run: Line[] = [free[i]!];
    const runMulti: boolean[] = [true];
    coverage.add(free[i]!, true);
    let gaps = coverage.gutters();
    let j = i + 1;
    for (; j < free.length && run.length < MAX_RUN_LINES; j++) {
      const line = free[j]!;
      const prev = run[run.length - 1]!;
      if (line.top - prev.bottom > 2 * Math.max(line.size, prev.size)) break;
      // A running head or page number is no row, however close it stands to the table.
      if (!multi[j] && (line.bottom <= furnitureBand || line.top >= pageHeight - furnitureBand)) break;
      // Nor is a heading set larger than the rows, however close it follows the table.
      if (larger(line, prev)) break;
      if (multi[j]) {
        coverage.add(line, true);
        const next = coverage.gutters();
        if (next.length === 0 && run.length > 1) {
          coverage.removeLast(line, true);
          break;
        }
        run.push(line);
        runMulti.push(true);
        gaps = next;
      } else {
        // Only a gutter an em wide or more is a column gap a spanning line must not cross: the
        // narrower ones of a few first lines may be word spaces that later lines fill.
        if (
          gaps.length === 0 ||
          crossesGutter(
            line,
            gaps.filter(([a, b]) => b - a >= line.size),
          )
        )
          break;
        coverage.add(line, false);
        run.push(line);
        runMulti.push(false);
      }
    }
    // Trailing single-piece lines set further apart than the rows are text after the table.
    while (run.length > 1 && !runMulti[run.length - 1]) {
      const last = run[run.length - 1]!;
      const before = run[run.length - 2]!;
      const pitch = median(run.slice(1).map((l, k) => l.bottom - run[k]!.bottom));
      if (last.bottom - before.bottom <= pitch) break;
      coverage.removeLast(run.pop()!, runMulti.pop()!);
      j--;
    }
    const x0 = minOf(run.map((l) => l.x0));
    const x1 = maxOf(run.map((l) => l.x1));
    gaps = coverage.gutters();
    const bounds = mergeCurrencyColumns(run, pruneSpaceGutters(run, [x0, ...gaps.map(([a, b]) => Math.floor((a + b) / 2)), x1]));
    const layoutGutter = gaps.some(([a, b]) => layoutSplits.some((x) => x >= a && x <= b));
    if (bounds.length > 2 && tableLike(run, bounds, true, layoutGutter)) {
      const rows = tableRows(run, bounds, rules, page, false);
      const items = new Set<number>();
      for (const l of run) for (const w of l.words) items.add(w.index);
      tables.push({
        page,
        x0,
        x1,
        top: minOf(run.map((l) => l.top)),
        bottom: maxOf(run.map((l) => l.bottom)),
        bounds,
        rows,
        items,
        ruled: false,
      });
      i = j;
    } else i += run.length > 20 ? Math.floor(run.length / 2) : 1; // a long rejected run is not rescanned line by line
  }
  return tables;
}

export interface PageTables {
  page: number;
  tables: PageTable[];
  /** Top of the first and bottom of the last line outside the furniture bands (running heads, folios). */
  contentTop: number;
  contentBottom: number;
  /** Median font size of the page, in units. */
  em: number;
  /** Whether the page had too many words to look for tables. */
  skipped: boolean;
}

/** Share of the page height, at the top and at the bottom, where running heads and page numbers sit. */
const FURNITURE_PERCENT = 8;

/**
 * The tables of one page, top to bottom. `runs`, `rules` and `layoutSplits` (the x of the gutters
 * between the page's text columns) are in units, top-down.
 */
export function findPageTables(
  page: number,
  pageHeight: number,
  runs: TextRun[],
  rules: Ruling[],
  layoutSplits: number[] = [],
): PageTables {
  // Every run holds a word at least: a page past the bound in runs is skipped before splitting them.
  const words = runs.length > MAX_WORDS_PER_PAGE ? [] : splitWords(runs);
  const none: PageTables = {
    page,
    tables: [],
    contentTop: 0,
    contentBottom: pageHeight,
    em: 1,
    skipped: runs.length > MAX_WORDS_PER_PAGE || words.length > MAX_WORDS_PER_PAGE,
  };
  if (none.skipped || words.length < 4) return none;
  const band = Math.floor((pageHeight * FURNITURE_PERCENT) / 100);
  const body = words.filter((w) => w.top >= band && w.bottom <= pageHeight - band);
  const used = new Set<Word>();
  const grids = gridTables(words, rules, page, used);
  const tables = [...grids, ...alignedTables(buildLines(words.filter((w) => !used.has(w))), rules, page, layoutSplits, pageHeight)];
  tables.sort((a, b) => a.top - b.top || a.x0 - b.x0);
  return {
    page,
    tables,
    contentTop: body.reduce((m, w) => Math.min(m, w.top), pageHeight),
    contentBottom: body.reduce((m, w) => Math.max(m, w.bottom), 0),
    em: Math.max(1, median(words.map((w) => w.size))),
    skipped: false,
  };
}

/** A table whose rows may come from several pages. */
export interface Table {
  parts: PageTable[];
  rows: TableRow[];
}

/**
 * Joins a table continued on the next page: the last table of a page and the first of the next with
 * the same number of columns at the same place (each boundary within two ems), with nothing but page
 * furniture (`furniture` units from the page edge) after the one and before the other. A header row
 * repeated on the continuation page is dropped.
 */
export function joinContinuations(pages: PageTables[]): Table[] {
  const out: Table[] = [];
  let previous: { table: Table; page: number; last: PageTable; endsPage: boolean } | null = null;
  for (const p of pages) {
    p.tables.forEach((t, k) => {
      const first = k === 0;
      const startsPage = first && t.top <= p.contentTop;
      let joined = false;
      if (first && previous && previous.page === p.page - 1 && previous.endsPage && startsPage && aligned(previous.last, t, 2 * p.em)) {
        const header = previous.table.rows[0]!;
        const rows = t.rows[0] && sameCells(t.rows[0].cells, header.cells) ? t.rows.slice(1) : t.rows;
        appendAll(previous.table.rows, rows);
        previous.table.parts.push(t);
        joined = true;
      }
      if (!joined) out.push({ parts: [t], rows: t.rows.slice() });
      const table = joined ? previous!.table : out[out.length - 1]!;
      previous = { table, page: p.page, last: t, endsPage: k === p.tables.length - 1 && t.bottom >= p.contentBottom };
    });
  }
  return out;
}

function aligned(a: PageTable, b: PageTable, tolerance: number): boolean {
  if (a.bounds.length !== b.bounds.length) return false;
  return a.bounds.every((x, i) => Math.abs(x - b.bounds[i]!) <= tolerance || i === 0 || i === a.bounds.length - 1);
}

const sameCells = (a: string[], b: string[]): boolean => a.length === b.length && a.every((c, i) => c === b[i]);
