import { type AnyNode, type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';
import { normalizeSpace } from '../text-sink.js';
import type { DocumentBuilder } from '../document-builder.js';

/**
 * Front matter in HTML (RFCs, Unicode reports), read as document metadata instead of content. RFCs
 * have two layouts:
 * xml2rfc v3 prints `<dl id="identifiers">` (dt "Stream:", dd "Internet Engineering Task Force (IETF)");
 * the rfc2629.xslt / RFCBootstrap renderers print a two-column header table whose left column holds the
 * stream and "Key: value" lines and whose right column holds authors, organizations and the date.
 * Keys are lower-cased labels without their colon ("request for comments" is "rfc"), as the XML's
 * front matter gives them (xml/rfc-front.ts).
 */

const KEY_ALIASES: ReadonlyMap<string, string> = new Map([
  ['request for comments', 'rfc'],
  ['author', 'authors'],
]);

function keyOf(label: string): string {
  const key = normalizeSpace(label).replace(/:$/, '').toLowerCase();
  return KEY_ALIASES.get(key) ?? key;
}

function elementChildren(el: Element): Element[] {
  return el.children.filter((c): c is Element => isTag(c));
}

function textOf(node: AnyNode): string {
  return normalizeSpace(textContent(node));
}

/** xml2rfc v3: `<dl id="identifiers">`; each author is a `div.author` (name, org) inside the dd. */
function readIdentifierList(dl: Element, builder: DocumentBuilder): void {
  let key = '';
  for (const child of elementChildren(dl)) {
    if (child.name === 'dt') key = keyOf(textOf(child));
    else if (child.name === 'dd' && key !== '') {
      const authors = elementChildren(child).filter((c) => (c.attribs['class'] ?? '').split(/\s+/).includes('author'));
      if (authors.length > 0) {
        const names = authors.map((a) => {
          const nameEl = elementChildren(a).find((c) => (c.attribs['class'] ?? '').split(/\s+/).includes('author-name'));
          return textOf(nameEl ?? a);
        });
        builder.setMetadata(key, names.filter((n) => n !== '').join('; '));
      } else builder.setMetadata(key, textOf(child));
    }
  }
}

/**
 * A front-matter table: label/value rows ("Version" | "Unicode 14.0.0", as Unicode reports print
 * them), or the rfc2629.xslt header whose left column holds the stream and "Key: value" lines.
 */
function readHeaderTable(table: Element, builder: DocumentBuilder): void {
  const left: string[] = [];
  const right: string[] = [];
  const rows: Element[] = [];
  const collect = (el: Element): void => {
    for (const c of elementChildren(el)) {
      if (c.name === 'tr') rows.push(c);
      else if (c.name === 'thead' || c.name === 'tbody' || c.name === 'tfoot') collect(c);
    }
  };
  collect(table);
  for (const row of rows) {
    const cells = elementChildren(row).filter((c) => c.name === 'td' || c.name === 'th');
    const l = cells[0] ? textOf(cells[0]) : '';
    const r = cells[1] ? textOf(cells[1]) : '';
    if (l !== '') left.push(l);
    if (r !== '') right.push(r);
  }
  // Label/value rows: every left cell a short label without a colon-separated value.
  const labelled = rows.length > 0 && left.length === rows.length && left.every((l) => l.length <= 40 && !/:\s+\S/.test(l));
  if (labelled) {
    rows.forEach((row, i) => {
      const value = right[i];
      if (value !== undefined && elementChildren(row).filter((c) => c.name === 'td' || c.name === 'th').length === 2)
        builder.setMetadata(keyOf(left[i]!), value);
    });
    return;
  }
  left.forEach((line, i) => {
    const colon = /^([A-Za-z][A-Za-z -]*):\s*(.+)$/.exec(line);
    if (colon) builder.setMetadata(keyOf(colon[1]!), colon[2]!);
    else if (i === 0) builder.setMetadata('stream', line);
  });
  // The right column ends with the date; before it, people and their organizations alternate.
  if (right.length > 0) {
    builder.setMetadata('published', right[right.length - 1]!);
    builder.setMetadata('front-matter-people', right.slice(0, -1).join('; '));
  }
}

/** Reads the front matter element `el` (matched by the family's metadataSelectors) into the builder. */
export function readFrontMatter(el: Element, builder: DocumentBuilder): void {
  if (el.name === 'dl') readIdentifierList(el, builder);
  else if (el.name === 'table') readHeaderTable(el, builder);
  else for (const c of elementChildren(el)) readFrontMatter(c, builder);
}
