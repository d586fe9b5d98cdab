import { type AnyNode, type Element, isCDATA, isTag, isText } from 'domhandler';
import type { KeywordSpan } from '../bcp14.js';
import type { Link, TableSpan } from '../document-builder.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import type { HtmlWalk, WalkContext } from './walk.js';
import { firstStableId } from './anchors.js';

/** Block content that a layout table's one filled cell holds (a table of data holds none of these in its only row). */
const LAYOUT_CONTENT = new Set(['pre', 'p', 'div', 'ul', 'ol', 'dl', 'blockquote', 'table']);

/**
 * The one cell with content of a layout table, else undefined: a table of one row without caption whose
 * cells are empty but one, and that one holds blocks (texi2html indents every example as
 * `<table><tr><td>&nbsp;</td><td><pre class="example">`). Such a table is no data: its cell is read as if
 * the table were not there, so the example is a code block, not a table " | msgfmt ...". A cell the
 * family prunes counts as empty (GTK-Doc's td.listing_lines, the line numbers beside an example's code).
 */
export function layoutTableCell(el: Element, prune: (el: Element) => boolean): Element | undefined {
  const rows = layoutRows(el);
  if (rows === undefined || rows.length !== 1) return undefined;
  const cells = rows[0]!.children.filter((c): c is Element => isTag(c) && (c.name === 'td' || c.name === 'th'));
  const filled = cells.filter((c) => !prune(c) && holdsVisibleText(c));
  if (cells.length < 2 || filled.length !== 1) return undefined;
  const cell = filled[0]!;
  return cell.children.some((c) => isTag(c) && LAYOUT_CONTENT.has(c.name)) ? cell : undefined;
}

/**
 * Whether a cell holds blocks (a paragraph, a list, a table) beside whatever else: a page's text laid
 * out in a table does, where a heading row of a table of data (Doxygen's `<td colspan="2"><h2>Functions`)
 * holds only its heading.
 */
export function holdsLayoutContent(cell: Element): boolean {
  return cell.children.some((c) => isTag(c) && LAYOUT_CONTENT.has(c.name));
}

/** A layout table that boxes a part of the page (layoutBox): its title cell, if it has one, and its filled cells. */
export interface LayoutBox {
  title: Element | undefined;
  cells: Element[];
}

/** Longest text of a box's title cell: a title, not a paragraph set alone in the first row. */
const MAX_BOX_TITLE = 160;

/**
 * A table of several rows that boxes a part of the page, else undefined: no caption, no row with more
 * than one filled cell (the others empty or no-break spaces: indents and coloured margins), and a
 * cell that holds blocks (a list, a paragraph, a table), which a table of data has none of. Its
 * filled cells are read in order as if the table were not there. A first row whose one cell is
 * short text with rows after it is the box's title (pydoc sets each class and each of "Classes",
 * "Functions" so: `<tr><td colspan=3><a name="JSONDecoder">class <strong>JSONDecoder</strong></a>`).
 */
export function layoutBox(el: Element, prune: (el: Element) => boolean): LayoutBox | undefined {
  const rows = layoutRows(el);
  if (rows === undefined || rows.length < 2) return undefined;
  const cells: Element[] = [];
  let holdsBlocks = false;
  let titleRow = false;
  for (const [k, row] of rows.entries()) {
    const rowCells = cellsOf(row);
    const filled = rowCells.filter((c) => !prune(c) && holdsVisibleText(c));
    if (filled.length > 1) return undefined;
    if (filled.length === 0) continue;
    cells.push(filled[0]!);
    if (holdsLayoutContent(filled[0]!)) holdsBlocks = true;
    else if (k === 0 && rowCells.length === 1) titleRow = true;
  }
  if (!holdsBlocks) return undefined;
  const short = (cell: Element): boolean => normalizeSpace(textUpTo(cell, 2 * MAX_BOX_TITLE)).length <= MAX_BOX_TITLE;
  const title = titleRow && cells.length > 1 && short(cells[0]!) ? cells[0] : undefined;
  return { title, cells: title === undefined ? cells : cells.slice(1) };
}

/**
 * Whether `el` holds text other than white space and no-break spaces. Read in document order and
 * stopped at the first such text: tables nested in cells are asked again at each level, and reading
 * all the text of each (textContent) made a page of nested layout tables quadratic.
 */
function holdsVisibleText(el: Element): boolean {
  const stack: AnyNode[] = [el];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isText(node)) {
      if (/[^\s\u00a0]/.test(node.data)) return true;
    } else if (isTag(node) || isCDATA(node)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return false;
}

/** The text of `el` in document order, read until it is longer than `limit` code units. */
function textUpTo(el: Element, limit: number): string {
  const parts: string[] = [];
  let length = 0;
  const stack: AnyNode[] = [el];
  while (stack.length > 0 && length <= limit) {
    const node = stack.pop()!;
    if (isText(node)) {
      parts.push(node.data);
      length += node.data.length;
    } else if (isTag(node) || isCDATA(node)) {
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return parts.join('');
}

/** The cells of a table in reading order, row by row (the rows of its head, bodies and foot in source order). */
export function tableCells(el: Element): Element[] {
  const cells: Element[] = [];
  for (const child of el.children) {
    if (!isTag(child)) continue;
    if (child.name === 'tr') cells.push(...cellsOf(child));
    else if (child.name === 'tbody' || child.name === 'thead' || child.name === 'tfoot') {
      for (const row of child.children) if (isTag(row) && row.name === 'tr') cells.push(...cellsOf(row));
    }
  }
  return cells;
}

function cellsOf(row: Element): Element[] {
  return row.children.filter((c): c is Element => isTag(c) && (c.name === 'td' || c.name === 'th'));
}

/** The rows of a table without caption, in source order; undefined when it has a caption or other content. */
function layoutRows(el: Element): Element[] | undefined {
  const rows: Element[] = [];
  for (const child of el.children) {
    if (!isTag(child)) continue;
    if (child.name === 'tr') rows.push(child);
    else if (child.name === 'tbody' || child.name === 'thead' || child.name === 'tfoot') {
      for (const row of child.children) if (isTag(row) && row.name === 'tr') rows.push(row);
    } else if (child.name !== 'colgroup') return undefined;
  }
  return rows;
}

/** A term/definition entry of a layout table: the cells that hold its terms and its definition. */
export interface LayoutEntry {
  terms: Element[];
  definitions: Element[];
}

/**
 * The entries of a layout table that sets out terms and their definitions, else undefined: a table
 * without caption whose rows are `<td>` cells, each row's filled cells holding blocks (`<p>`) and its
 * others (one at least) spacers, with nothing inside, not even a no-break space (GTK-Doc's parameter
 * tables fill an empty annotations cell with one). A row with two filled cells is a term and its
 * definition; with one, a further term (in the term's column: the next definition's) or more of the
 * definition above. groff's HTML device indents a tagged paragraph (`.TP`, a man page's options)
 * whose tag fits the indent so, `<tr><td width="11%"></td><td><p><b>-a</b></p></td><td></td><td><p>do
 * not ignore ...</p></td></tr>`: read as a table, its text was " | -a |  | do not ignore ...".
 */
export function layoutTermRows(el: Element): LayoutEntry[] | undefined {
  const rows = layoutRows(el);
  if (rows === undefined) return undefined;
  const entries: LayoutEntry[] = [];
  let termColumn = -1;
  let pendingTerms: Element[] = [];
  const filledByRow: { cell: Element; column: number }[][] = [];
  for (const row of rows) {
    const cells = row.children.filter((c): c is Element => isTag(c) && (c.name === 'td' || c.name === 'th'));
    if (cells.length < 3 || cells.some((c) => c.name === 'th')) return undefined;
    const filled: { cell: Element; column: number }[] = [];
    cells.forEach((cell, column) => {
      if (!isSpacer(cell)) filled.push({ cell, column });
    });
    if (filled.length === 0 || filled.length > 2) return undefined;
    if (!filled.every((f) => f.cell.children.some((b) => isTag(b) && LAYOUT_CONTENT.has(b.name)))) return undefined;
    filledByRow.push(filled);
    if (filled.length === 2 && termColumn === -1) termColumn = filled[0]!.column;
  }
  if (termColumn === -1) return undefined;
  for (const filled of filledByRow) {
    if (filled.length === 2) {
      if (filled[0]!.column !== termColumn) return undefined;
      entries.push({ definitions: [filled[1]!.cell], terms: [...pendingTerms, filled[0]!.cell] });
      pendingTerms = [];
    } else if (filled[0]!.column === termColumn) {
      pendingTerms.push(filled[0]!.cell);
    } else {
      const last = entries[entries.length - 1];
      if (last === undefined || pendingTerms.length > 0) return undefined;
      last.definitions.push(filled[0]!.cell);
    }
  }
  return pendingTerms.length === 0 ? entries : undefined;
}

/** A cell with nothing inside but white space (a no-break space is content: a cell a table left blank). */
function isSpacer(cell: Element): boolean {
  return cell.children.every((c) => isText(c) && /^[ \t\n\r\f]*$/.test(c.data));
}

/** A layout table of terms (layoutTermRows): one definition-list block, as a `<dl>` of its entries reads. */
export function extractLayoutTerms(walk: HtmlWalk, el: Element, layout: LayoutEntry[], ctx: WalkContext): void {
  const sink = new TextSink();
  const keywords: KeywordSpan[] = [];
  const links: Link[] = [];
  const entries: { terms: string[]; definitions: string[] }[] = [];
  for (const entry of layout) {
    for (const cell of [...entry.terms, ...entry.definitions]) {
      sink.lineBreak(1);
      for (const c of cell.children) walk.flow(c, sink, keywords, links, false);
    }
    // Members in code-unit order (definitions, terms), as a <dl>'s entries.
    entries.push({
      definitions: entry.definitions.map((cell) => walk.plainText(cell)),
      terms: entry.terms.map((cell) => normalizeSpace(walk.plainText(cell))),
    });
  }
  const text = sink.toString();
  if (text === '') return;
  walk.addBlock('definition-list', text, ctx, { entries, keywords, links, start: el.startIndex, end: el.endIndex }, el);
}

/**
 * `<table>`: one block with its caption, header rows and body rows as a grid of cell texts. The tree
 * is already shaped by the standard's table insertion modes (table-parsing.ts), so a table with
 * omitted end tags reaches here as its fully tagged form would.
 *
 * Grid: a cell with colspan/rowspan fills every slot it covers with its text (so each row has one
 * string per column), and its span is recorded once, at its first slot, in `spans`. As in the HTML
 * table model, a rowspan stays within its row group (thead, tbody, tfoot) and rowspan="0" reaches the
 * group's end; spans are clamped to the standard's limits (colspan 1-1000, rowspan 0-65534), and the
 * copies of one document are bounded (TABLE_SPAN_COPY_BOUNDS): past it, a cell takes one slot.
 * Header rows: the rows of `<thead>`, else the leading rows made only of `<th>` cells. `<tfoot>` rows
 * come last, where they render.
 */
export function extractTable(walk: HtmlWalk, el: Element, ctx: WalkContext): void {
  let caption = '';
  let captionEl: Element | undefined;
  const heads: Element[][] = [];
  const bodies: Element[][] = [];
  const feet: Element[][] = [];
  const looseRows: Element[] = [];
  const flushLoose = (): void => {
    if (looseRows.length > 0) bodies.push(looseRows.splice(0));
  };
  for (const child of el.children) {
    if (!isTag(child) || walk.rules.prune(child)) continue;
    if (child.name === 'tr') {
      looseRows.push(child);
      continue;
    }
    flushLoose();
    // Read as a cell is (plainText): without what the family prunes or a permalink glyph (Sphinx's "¶").
    if (child.name === 'caption') {
      caption ||= normalizeSpace(walk.plainText(child));
      captionEl ??= child;
    } else if (child.name === 'thead') heads.push(rowsOf(walk, child));
    else if (child.name === 'tbody') bodies.push(rowsOf(walk, child));
    else if (child.name === 'tfoot') feet.push(rowsOf(walk, child));
  }
  flushLoose();

  const header: string[][] = [];
  const rows: string[][] = [];
  const spans: TableSpan[] = [];
  for (const group of heads) layOutGroup(walk, group, () => 'header', header, rows, spans);
  const bodyTarget = (allTh: boolean): 'header' | 'rows' => (allTh && rows.length === 0 ? 'header' : 'rows');
  for (const group of [...bodies, ...feet]) layOutGroup(walk, group, bodyTarget, header, rows, spans);

  const sink = new TextSink(true);
  const keywords: KeywordSpan[] = [];
  const links: Link[] = [];
  walk.withLeadIds(rowGroupIds(walk, [...heads, ...bodies, ...feet].flat()), () => walk.flow(el, sink, keywords, links, false));
  const text = sink.toString();
  if (text === '') return;
  walk.addBlock(
    'table',
    text,
    ctx,
    { keywords, links, start: el.startIndex, end: el.endIndex, header, rows, caption, spans: spans.length > 0 ? spans : undefined },
    el,
  );
  // An id in the caption (`<caption>Table 1: <a name="TABLE01">IPP Operation Names</a>`, as CUPS's
  // help pages write) names the table, as the table's own id would; the caption's text is no block,
  // so the id named nothing.
  const captionId = el.attribs['id'] === undefined && captionEl !== undefined ? firstStableId(captionEl) : undefined;
  const block = walk.builder.blocks[walk.builder.blocks.length - 1];
  if (captionId !== undefined && block?.kind === 'table' && block.caption === caption) block.fragment = captionId;
}

/**
 * A table a style sheet lays out (javadoc 16 and later write every summary as `div.summary-table`, its
 * `div.table-header` cells, then each row's cells, all children of one element): one table block, as
 * `<table>` gives, its column count the header cells it opens with. Its text writes a row per line,
 * cells parted by " | ". False, and nothing added, when it opens with no header cell (not a grid the
 * family knows): the caller walks it as any element.
 */
export function extractGridTable(walk: HtmlWalk, el: Element, ctx: WalkContext): boolean {
  const cells: Element[] = [];
  for (const c of el.children) if (isTag(c) && !walk.rules.prune(c)) cells.push(c);
  let columns = 0;
  while (columns < cells.length && walk.rules.gridHeaderCell(cells[columns]!)) columns++;
  if (columns === 0) return false;
  const header: string[][] = [];
  const rows: string[][] = [];
  const keywords: KeywordSpan[] = [];
  const links: Link[] = [];
  // The block's text, written as it grows: a cell's keywords are placed at offsets in it.
  let text = '';
  for (let start = 0; start < cells.length; start += columns) {
    const texts: string[] = [];
    if (start > 0) text += '\n';
    for (let column = 0; column < columns; column++) {
      if (column > 0) text += ' | ';
      const cell = cells[start + column];
      const cellText = cell === undefined ? '' : readCell(walk, cell, text.length, keywords, links);
      texts.push(cellText);
      text += cellText;
    }
    (start === 0 ? header : rows).push(texts);
  }
  if (text.replace(/[ |\n]/g, '') === '') return true;
  walk.addBlock('table', text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, header, rows, caption: '' }, el);
  return true;
}

/**
 * A grid cell read in one flow: its text as a cell's (plainText's, on one line whatever blocks it
 * holds), its links, and its marked keywords placed at `at` plus their offset in that line.
 */
function readCell(walk: HtmlWalk, cell: Element, at: number, keywords: KeywordSpan[], links: Link[]): string {
  const sink = new TextSink();
  const own: KeywordSpan[] = [];
  for (const c of cell.children) walk.flow(c, sink, own, links, false);
  const raw = sink.toString();
  const line = normalizeSpace(raw);
  if (own.length > 0) {
    // The line collapses the flow's line breaks (and a <pre>'s white space) as normalizeSpace does:
    // each keyword is moved to where its first and last characters land in it.
    const place = lineOffsets(raw);
    for (const span of own) keywords.push({ ...span, start: at + place(span.start), end: at + place(span.end - 1) + 1 });
  }
  return line;
}

/**
 * Where each character of `raw` lands in normalizeSpace(raw): a run of collapsible white space is its
 * one space, and the white space trimmed at the start is gone. Read for characters that are kept.
 */
function lineOffsets(raw: string): (index: number) => number {
  const landing = new Uint32Array(raw.length);
  let written = 0;
  let inRun = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    // normalizeSpace's collapsible white space: space, tab, line feed, carriage return, form feed, no-break space.
    const collapsible = c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 160;
    if (!collapsible || !inRun) written++;
    landing[i] = written - 1;
    inRun = collapsible;
  }
  const trimmed = raw.length - raw.trimStart().length;
  const lead = trimmed === 0 ? 0 : landing[trimmed - 1]! + 1;
  return (index) => landing[index]! - lead;
}

/**
 * Rows that head the rows after them: a row of one cell that spans every column of the table (of two
 * columns or more) and holds no id, such as the Unicode annexes' "Do not break within emoji flag
 * sequences..." above the rules GB12 and GB13. Each is cited by the first stable id of the rows after
 * it, up to the next such row: a match in the description cites the rule it describes, where it cited
 * the rule before it. `rows` in document order.
 */
function rowGroupIds(walk: HtmlWalk, rows: readonly Element[]): Map<Element, string> {
  const groups = new Map<Element, string>();
  let columns = 0;
  const cellsOf = rows.map((row) =>
    row.children.filter((c): c is Element => isTag(c) && (c.name === 'td' || c.name === 'th') && !walk.rules.prune(c)),
  );
  for (const cells of cellsOf)
    columns = Math.max(
      columns,
      cells.reduce((n, cell) => n + spanAttribute(cell, 'colspan', 1, 1000, 1), 0),
    );
  // Most tables have no such row: their rows' ids are not looked for.
  if (columns < 2 || !cellsOf.some((cells) => cells.length === 1 && spanAttribute(cells[0]!, 'colspan', 1, 1000, 1) >= columns))
    return groups;
  // Backwards: the first id after a heading row, up to the next heading row.
  let firstAfter: string | undefined;
  for (let i = rows.length - 1; i >= 0; i--) {
    const cells = cellsOf[i]!;
    const own = firstStableId(rows[i]!);
    const heading = cells.length === 1 && spanAttribute(cells[0]!, 'colspan', 1, 1000, 1) >= columns && own === undefined;
    if (heading) {
      if (firstAfter !== undefined) groups.set(rows[i]!, firstAfter);
      firstAfter = undefined;
    } else if (own !== undefined) firstAfter = own;
  }
  return groups;
}

function rowsOf(walk: HtmlWalk, group: Element): Element[] {
  const rows: Element[] = [];
  for (const c of group.children) if (isTag(c) && c.name === 'tr' && !walk.rules.prune(c)) rows.push(c);
  return rows;
}

/** A cell still covering slots in later rows of its group. */
interface Carry {
  text: string;
  rowsLeft: number;
}

function spanAttribute(cell: Element, name: string, min: number, max: number, fallback: number): number {
  const raw = cell.attribs[name];
  if (raw === undefined) return fallback;
  // The standard's "rules for parsing non-negative integers": leading digits after whitespace.
  const m = /^[\t\n\f\r ]*\+?(\d+)/.exec(raw);
  if (m === null) return fallback;
  const n = Number.parseInt(m[1]!.slice(0, 8), 10);
  if (n < min) return min;
  return Math.min(n, max);
}

function layOutGroup(
  walk: HtmlWalk,
  group: Element[],
  target: (allTh: boolean) => 'header' | 'rows',
  header: string[][],
  rows: string[][],
  spans: TableSpan[],
): void {
  const carries: (Carry | undefined)[] = [];
  group.forEach((tr, rowInGroup) => {
    const slots: string[] = [];
    const origins: Omit<TableSpan, 'part' | 'row'>[] = [];
    let allTh = true;
    let ownCells = 0;
    let column = 0;
    const fillCarried = (): void => {
      for (let carry = carries[column]; carry !== undefined && carry.rowsLeft > 0; carry = carries[column]) {
        slots[column] = carry.text;
        column++;
      }
    };
    for (const cell of tr.children) {
      if (!isTag(cell) || (cell.name !== 'td' && cell.name !== 'th') || walk.rules.prune(cell)) continue;
      fillCarried();
      ownCells++;
      if (cell.name !== 'th') allTh = false;
      const text = normalizeSpace(walk.plainText(cell));
      let colSpan = spanAttribute(cell, 'colspan', 1, 1000, 1);
      const rowSpanRaw = spanAttribute(cell, 'rowspan', 0, 65534, 1);
      let rowSpan = Math.min(rowSpanRaw === 0 ? group.length - rowInGroup : rowSpanRaw, group.length - rowInGroup);
      if (colSpan > 1 || rowSpan > 1) {
        const cost = (colSpan * rowSpan - 1) * (text.length + 1);
        if (cost <= walk.spanCopyBudget) walk.spanCopyBudget -= cost;
        else {
          walk.builder.warnOnce(
            'table-spans-capped',
            'Table cells span more slots than the bound on copied cell text allows (docs/extraction.md, "Bounds"); ' +
              'past it, a cell takes one slot.',
          );
          colSpan = 1;
          rowSpan = 1;
        }
      }
      for (let c = column; c < column + colSpan; c++) {
        slots[c] = text;
        carries[c] = rowSpan > 1 ? { text, rowsLeft: rowSpan } : undefined;
      }
      if (colSpan > 1 || rowSpan > 1) origins.push({ column, colSpan, rowSpan });
      column += colSpan;
    }
    // Slots covered from above to the right of the last cell belong to this row too.
    for (let c = column; c < carries.length; c++) {
      const carry = carries[c];
      if (carry !== undefined && carry.rowsLeft > 0) slots[c] = carry.text;
    }
    for (let c = 0; c < carries.length; c++) {
      const carry = carries[c];
      if (carry !== undefined && --carry.rowsLeft <= 0) carries[c] = undefined;
    }
    if (slots.length === 0) return;
    for (let c = 0; c < slots.length; c++) slots[c] ??= '';
    const part = ownCells > 0 ? target(allTh) : target(false);
    const list = part === 'header' ? header : rows;
    // Members in code-unit order: canonicalJson then copies nothing.
    for (const { colSpan, column, rowSpan } of origins) spans.push({ colSpan, column, part, row: list.length, rowSpan });
    list.push(slots);
  });
}
