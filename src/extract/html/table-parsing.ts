import { type OpenElements, type StartTagRule, startTagRule } from '../markup-parser.js';

/**
 * The HTML standard's table insertion modes, for the table parts only, as a start-tag rule of the
 * tree builder (markup-parser.ts).
 *
 * htmlparser2 closes elements implicitly from a short list (a `<tr>` closes an open `<td>`), not by
 * the tree-construction algorithm, so tables written with the optional end tags the standard allows
 * (§13.1.2.4: `</td>`, `</th>`, `</tr>`, `</thead>`, `</tbody>`, `</tfoot>`, `</caption>`,
 * `</colgroup>` omitted; `<tbody>` and `<colgroup>` start tags implied) came out nested wrongly: a
 * `<tbody>` inside the last header cell, `<tr>`s inside a `<colgroup>` or `<caption>`. Here, before
 * each table-part start tag, the open elements are closed, and missing parents opened, as the
 * standard's "in table", "in caption", "in column group", "in table body", "in row" and "in cell"
 * modes do; everything else stays the builder's (htmlparser2's rules). Every pop happens once per
 * element, so the work stays linear however deep the input nests.
 */

const TABLE_PARTS = new Set(['caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);
/** Elements that set the insertion mode for a table part: the innermost one open decides. */
const TABLE_CONTEXTS = new Set(['table', 'caption', 'colgroup', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);
const SECTIONS = new Set(['thead', 'tbody', 'tfoot']);

/** The innermost open element that sets a table mode, or null outside tables. */
function innermostContext(open: OpenElements): string | null {
  // Outside any table nothing changes (and no scan happens: `has` is O(1)).
  if (!open.has('table')) return null;
  for (let i = 0; i < open.length; i++) {
    const name = open.nameAt(i);
    if (TABLE_CONTEXTS.has(name)) return name;
  }
  return null;
}

/** Pops the elements above `name` (the standard's "clear the stack back to a ... context"). */
function clearBackTo(open: OpenElements, name: string): void {
  while (open.length > 0 && open.nameAt(0) !== name) open.pop();
}

/** Pops up to and including `name`. */
function closeThrough(open: OpenElements, name: string): void {
  clearBackTo(open, name);
  if (open.length > 0) open.pop();
}

export const tableInsertionRule: StartTagRule = startTagRule(TABLE_PARTS, (name, open) => {
  if (!TABLE_PARTS.has(name)) return;
  // Each pass either settles where `name` goes or closes/opens one element and looks again; at most a few passes.
  for (;;) {
    const context = innermostContext(open);
    if (context === null) return;
    if (context === 'td' || context === 'th' || context === 'caption') {
      // "in cell" / "in caption": any table part closes the cell or caption first.
      closeThrough(open, context);
      continue;
    }
    if (context === 'colgroup') {
      if (name === 'col') {
        clearBackTo(open, 'colgroup');
        return;
      }
      closeThrough(open, 'colgroup');
      continue;
    }
    if (context === 'tr') {
      if (name === 'td' || name === 'th') {
        clearBackTo(open, 'tr');
        return;
      }
      closeThrough(open, 'tr');
      continue;
    }
    if (SECTIONS.has(context)) {
      if (name === 'tr') {
        clearBackTo(open, context);
        return;
      }
      if (name === 'td' || name === 'th') {
        clearBackTo(open, context);
        open.openImplied('tr');
        return;
      }
      closeThrough(open, context);
      continue;
    }
    // "in table"
    clearBackTo(open, 'table');
    if (name === 'col') open.openImplied('colgroup');
    else if (name === 'tr') open.openImplied('tbody');
    else if (name === 'td' || name === 'th') {
      open.openImplied('tbody');
      open.openImplied('tr');
    }
    return;
  }
});
