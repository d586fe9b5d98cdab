import type { Parser } from 'htmlparser2';

/**
 * The HTML standard's table insertion modes, for the table parts only, added to htmlparser2.
 *
 * htmlparser2 closes elements implicitly from a short list (a `<tr>` closes an open `<td>`), not by
 * the tree-construction algorithm, so tables written with the optional end tags the standard allows
 * (§13.1.2.4: `</td>`, `</th>`, `</tr>`, `</thead>`, `</tbody>`, `</tfoot>`, `</caption>`,
 * `</colgroup>` omitted; `<tbody>` and `<colgroup>` start tags implied) came out nested wrongly: a
 * `<tbody>` inside the last header cell, `<tr>`s inside a `<colgroup>` or `<caption>`. Here, before
 * each table-part start tag, the open elements are closed, and missing parents opened, as the
 * standard's "in table", "in caption", "in column group", "in table body", "in row" and "in cell"
 * modes do; everything else stays htmlparser2's. Every pop happens once per element, so the work
 * stays linear however deep the input nests.
 */

const TABLE_PARTS = new Set(['caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);
/** Elements that set the insertion mode for a table part: the innermost one open decides. */
const TABLE_CONTEXTS = new Set(['table', 'caption', 'colgroup', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th']);
const SECTIONS = new Set(['thead', 'tbody', 'tfoot']);

/** htmlparser2's Parser internals this module drives (present since htmlparser2 8; checked at install). */
interface ParserInternals {
  stack: string[];
  emitOpenTag(name: string): void;
  endOpenTag(isImplied: boolean): void;
  popElement(implied: boolean): void;
}

export function applyTableInsertionRules(parser: Parser): void {
  const internals = parser as unknown as ParserInternals;
  if (
    typeof internals.emitOpenTag !== 'function' ||
    typeof internals.endOpenTag !== 'function' ||
    typeof internals.popElement !== 'function'
  ) {
    throw new Error('htmlparser2 internals changed: emitOpenTag/endOpenTag/popElement not found (table insertion rules need them)');
  }
  const emitOpenTag = internals.emitOpenTag.bind(parser);
  const endOpenTag = internals.endOpenTag.bind(parser);
  const popElement = internals.popElement.bind(parser);

  /** The innermost open element that sets a table mode, or null outside tables. */
  const innermostContext = (): string | null => {
    const stack = internals.stack;
    // Outside any table nothing changes (and no scan happens: `includes` is O(1) on deep stacks).
    if (!stack.includes('table')) return null;
    for (let i = 0; i < stack.length; i++) {
      const name = stack[i]!;
      if (TABLE_CONTEXTS.has(name)) return name;
    }
    return null;
  };
  /** Pops the elements above `name` (the standard's "clear the stack back to a ... context"). */
  const clearBackTo = (name: string): void => {
    while (internals.stack.length > 0 && internals.stack[0] !== name) popElement(true);
  };
  /** Pops up to and including `name`. */
  const closeThrough = (name: string): void => {
    clearBackTo(name);
    if (internals.stack.length > 0) popElement(true);
  };
  const openImplied = (name: string): void => {
    emitOpenTag(name);
    endOpenTag(true);
  };

  internals.emitOpenTag = (name: string): void => {
    if (TABLE_PARTS.has(name)) {
      // Each pass either inserts `name` or closes/opens one element and looks again; at most a few passes.
      for (;;) {
        const context = innermostContext();
        if (context === null) break;
        if (context === 'td' || context === 'th' || context === 'caption') {
          // "in cell" / "in caption": any table part closes the cell or caption first.
          closeThrough(context);
          continue;
        }
        if (context === 'colgroup') {
          if (name === 'col') {
            clearBackTo('colgroup');
            break;
          }
          closeThrough('colgroup');
          continue;
        }
        if (context === 'tr') {
          if (name === 'td' || name === 'th') {
            clearBackTo('tr');
            break;
          }
          closeThrough('tr');
          continue;
        }
        if (SECTIONS.has(context)) {
          if (name === 'tr') {
            clearBackTo(context);
            break;
          }
          if (name === 'td' || name === 'th') {
            clearBackTo(context);
            openImplied('tr');
            break;
          }
          closeThrough(context);
          continue;
        }
        // "in table"
        clearBackTo('table');
        if (name === 'col') openImplied('colgroup');
        else if (name === 'tr') openImplied('tbody');
        else if (name === 'td' || name === 'th') {
          openImplied('tbody');
          openImplied('tr');
        }
        break;
      }
    }
    emitOpenTag(name);
  };
}
