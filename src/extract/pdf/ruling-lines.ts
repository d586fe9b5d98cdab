/**
 * Ruling lines of a PDF page: the horizontal and vertical strokes and thin filled rectangles that
 * draw table borders (LaTeX booktabs rules, Word cell borders, report row separators), read from the
 * pdfjs operator list. Coordinates are quantised to integer units (QUANTUM per point, top-down page
 * space) at the one place floats enter, so everything downstream is integer arithmetic.
 */

/** Integer units per PDF point: a quarter point is finer than any rule or glyph gap that matters. */
export const QUANTUM = 4;

/** A float coordinate in points to integer units (Math.round is exact IEEE arithmetic on every runtime). */
export function quantise(points: number): number {
  return Number.isFinite(points) ? Math.round(points * QUANTUM) : 0;
}

export interface Ruling {
  /** 'h': a horizontal rule at y = `at` from x = `from` to `to`; 'v': vertical at x = `at`. */
  orientation: 'h' | 'v';
  at: number;
  from: number;
  to: number;
}

/** The operator codes this reader needs (pdfjs's OPS table, passed in so this module stays pdfjs-free). */
export interface OperatorCodes {
  save: number;
  restore: number;
  transform: number;
  constructPath: number;
  paintFormXObjectBegin: number;
  paintFormXObjectEnd: number;
  stroke: number;
  closeStroke: number;
  fill: number;
  eoFill: number;
  fillStroke: number;
  eoFillStroke: number;
  closeFillStroke: number;
  closeEOFillStroke: number;
}

/** pdfjs path-buffer opcodes (DrawOPS). */
const MOVE_TO = 0;
const LINE_TO = 1;
const CURVE_TO = 2;
const CLOSE_PATH = 3;

/** Past this many rule segments on one page, rulings are not used (a page of hatching is not a table). */
export const MAX_RULINGS_PER_PAGE = 20_000;
/** A filled rectangle at most this thin (points) is a rule; a larger one contributes its four edges. */
const THIN_RULE_POINTS = 3;

type Matrix = [number, number, number, number, number, number];

/** m1 applied first, then m2 (PDF's `cm` pre-multiplies the current matrix). */
function multiply(m1: Matrix, m2: Matrix): Matrix {
  return [
    m1[0] * m2[0] + m1[1] * m2[2],
    m1[0] * m2[1] + m1[1] * m2[3],
    m1[2] * m2[0] + m1[3] * m2[2],
    m1[2] * m2[1] + m1[3] * m2[3],
    m1[4] * m2[0] + m1[5] * m2[2] + m2[4],
    m1[4] * m2[1] + m1[5] * m2[3] + m2[5],
  ];
}

function asMatrix(value: unknown): Matrix | null {
  if (value === null || typeof value !== 'object' || !('length' in value)) return null;
  const list = value as ArrayLike<unknown>;
  if (list.length !== 6) return null;
  const out: number[] = [];
  for (let i = 0; i < 6; i++) {
    const n = list[i];
    if (typeof n !== 'number' || !Number.isFinite(n)) return null;
    out.push(n);
  }
  return out as Matrix;
}

/**
 * Rulings of one page from its operator list. `view` is the page's view box [x0, y0, x1, y1] in
 * points. Returns null when the page draws more than MAX_RULINGS_PER_PAGE segments.
 */
export function readRulings(
  fnArray: ArrayLike<number>,
  argsArray: ArrayLike<unknown>,
  ops: OperatorCodes,
  view: readonly number[],
): Ruling[] | null {
  const [vx0 = 0, , , vy1 = 0] = view;
  const strokes = new Set([ops.stroke, ops.closeStroke, ops.fillStroke, ops.eoFillStroke, ops.closeFillStroke, ops.closeEOFillStroke]);
  const fills = new Set([ops.fill, ops.eoFill, ops.fillStroke, ops.eoFillStroke, ops.closeFillStroke, ops.closeEOFillStroke]);
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  const out: Ruling[] = [];
  const tolerance = 1; // units: a rule drawn a hair off-axis is still a rule
  const thin = THIN_RULE_POINTS * QUANTUM;
  const toPage = (x: number, y: number): [number, number] => [
    quantise(ctm[0] * x + ctm[2] * y + ctm[4] - vx0),
    quantise(vy1 - (ctm[1] * x + ctm[3] * y + ctm[5])),
  ];
  const push = (r: Ruling): boolean => {
    if (r.to - r.from < QUANTUM) return true; // a dot, not a rule
    out.push(r);
    return out.length <= MAX_RULINGS_PER_PAGE;
  };
  const segment = (a: [number, number], b: [number, number]): boolean => {
    if (Math.abs(a[1] - b[1]) <= tolerance)
      return push({ orientation: 'h', at: Math.round((a[1] + b[1]) / 2), from: Math.min(a[0], b[0]), to: Math.max(a[0], b[0]) });
    if (Math.abs(a[0] - b[0]) <= tolerance)
      return push({ orientation: 'v', at: Math.round((a[0] + b[0]) / 2), from: Math.min(a[1], b[1]), to: Math.max(a[1], b[1]) });
    return true;
  };
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i] as unknown[] | null;
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm;
    else if (fn === ops.transform) {
      const m = asMatrix(args);
      if (m) ctm = multiply(m, ctm);
    } else if (fn === ops.paintFormXObjectBegin) {
      stack.push(ctm);
      const m = asMatrix(args?.[0]);
      if (m) ctm = multiply(m, ctm);
    } else if (fn === ops.paintFormXObjectEnd) ctm = stack.pop() ?? ctm;
    else if (fn === ops.constructPath && Array.isArray(args)) {
      const paint = args[0] as number;
      const buffer = (args[1] as unknown[] | undefined)?.[0] as ArrayLike<number> | null | undefined;
      if (!buffer || (!strokes.has(paint) && !fills.has(paint))) continue;
      for (const sub of subpaths(buffer)) {
        const points = sub.points.map(([x, y]) => toPage(x, y));
        if (strokes.has(paint) && !sub.curved) {
          for (let k = 1; k < points.length; k++) if (!segment(points[k - 1]!, points[k]!)) return null;
          if (sub.closed && points.length > 2 && !segment(points[points.length - 1]!, points[0]!)) return null;
        }
        if (fills.has(paint) && !strokes.has(paint)) {
          const box = rectangle(points, sub.curved);
          if (!box) continue;
          const [x0, y0, x1, y1] = box;
          // A larger filled area is shading (zebra rows, column-group backgrounds): its edges are not rules.
          let ok = true;
          if (y1 - y0 <= thin && x1 - x0 > y1 - y0) ok = push({ orientation: 'h', at: Math.round((y0 + y1) / 2), from: x0, to: x1 });
          else if (x1 - x0 <= thin && y1 - y0 > x1 - x0) ok = push({ orientation: 'v', at: Math.round((x0 + x1) / 2), from: y0, to: y1 });
          if (!ok) return null;
        }
      }
    }
  }
  return mergeRulings(out);
}

interface Subpath {
  points: [number, number][];
  closed: boolean;
  curved: boolean;
}

function subpaths(buffer: ArrayLike<number>): Subpath[] {
  const out: Subpath[] = [];
  let current: Subpath | null = null;
  for (let i = 0; i < buffer.length; ) {
    const op = buffer[i++];
    if (op === MOVE_TO) {
      current = { points: [[buffer[i]!, buffer[i + 1]!]], closed: false, curved: false };
      out.push(current);
      i += 2;
    } else if (op === LINE_TO) {
      if (!current) {
        current = { points: [], closed: false, curved: false };
        out.push(current);
      }
      current.points.push([buffer[i]!, buffer[i + 1]!]);
      i += 2;
    } else if (op === CURVE_TO) {
      if (current) current.curved = true;
      i += 6;
    } else if (op === CLOSE_PATH) {
      if (current) current.closed = true;
      current = null;
    } else break; // unknown opcode: the rest of the buffer cannot be parsed
  }
  return out;
}

/** The box of an axis-aligned rectangle subpath (4 corners, optionally repeating the first), else null. */
function rectangle(points: [number, number][], curved: boolean): [number, number, number, number] | null {
  if (curved) return null;
  let pts = points;
  if (pts.length === 5 && pts[0]![0] === pts[4]![0] && pts[0]![1] === pts[4]![1]) pts = pts.slice(0, 4);
  if (pts.length !== 4) return null;
  for (let k = 0; k < 4; k++) {
    const a = pts[k]!;
    const b = pts[(k + 1) % 4]!;
    if (Math.abs(a[0] - b[0]) > 1 && Math.abs(a[1] - b[1]) > 1) return null;
  }
  const xs = pts.map((p) => p[0]);
  const ys = pts.map((p) => p[1]);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

/** Collinear rulings that touch or overlap become one; the result is sorted. */
export function mergeRulings(rulings: Ruling[]): Ruling[] {
  const sorted = rulings
    .slice()
    .sort((a, b) =>
      a.orientation < b.orientation ? -1 : a.orientation > b.orientation ? 1 : a.at - b.at || a.from - b.from || a.to - b.to,
    );
  const out: Ruling[] = [];
  const near = 2; // units
  for (const r of sorted) {
    // Only rulings at (nearly) the same position and overlapping extents merge.
    let merged = false;
    for (let k = out.length - 1; k >= 0; k--) {
      const o = out[k]!;
      if (o.orientation !== r.orientation || r.at - o.at > near) break;
      if (r.from <= o.to + near && r.to >= o.from - near) {
        o.from = Math.min(o.from, r.from);
        o.to = Math.max(o.to, r.to);
        merged = true;
        break;
      }
    }
    if (!merged) out.push({ ...r });
  }
  return out;
}
