import { type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';
import type { KeywordSpan } from '../bcp14.js';
import type { Link } from '../document-builder.js';
import { TextSink, normalizeSpace } from '../text-sink.js';
import type { HtmlWalk, WalkContext } from './walk.js';

/** `<table>`: one block with its caption, header rows and body rows as cell texts. */
export function extractTable(walk: HtmlWalk, el: Element, ctx: WalkContext): void {
  const header: string[][] = [];
  const rows: string[][] = [];
  let caption = '';
  const visitRows = (parent: Element, inHead: boolean): void => {
    for (const child of parent.children) {
      if (!isTag(child) || walk.rules.prune(child)) continue;
      if (child.name === 'caption') caption = normalizeSpace(textContent(child));
      else if (child.name === 'thead') visitRows(child, true);
      else if (child.name === 'tbody' || child.name === 'tfoot') visitRows(child, false);
      else if (child.name === 'tr') {
        const cells: string[] = [];
        let allTh = true;
        for (const cell of child.children) {
          if (!isTag(cell) || (cell.name !== 'td' && cell.name !== 'th')) continue;
          if (cell.name !== 'th') allTh = false;
          cells.push(normalizeSpace(walk.plainText(cell)));
        }
        if (cells.length === 0) continue;
        if (inHead || (allTh && rows.length === 0)) header.push(cells);
        else rows.push(cells);
      }
    }
  };
  visitRows(el, false);
  const sink = new TextSink();
  const keywords: KeywordSpan[] = [];
  const links: Link[] = [];
  walk.flow(el, sink, keywords, links, false);
  const text = sink.toString();
  if (text === '') return;
  walk.addBlock('table', text, ctx, { keywords, links, start: el.startIndex, end: el.endIndex, header, rows, caption }, el);
}
