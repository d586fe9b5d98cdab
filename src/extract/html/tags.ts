import { type Element, isTag } from 'domhandler';

/** Elements that start a new line in flow text and end an inline run. */
export const BLOCK_TAGS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'td',
  'tfoot',
  'th',
  'thead',
  'tr',
  'ul',
  'xmp',
  'listing',
  'plaintext',
  'search',
]);

/**
 * Never content: skipped wherever they occur. `title` is the document's title (its `title` field), never
 * rendered text, also where no `<head>` holds it: the tree builder (markup-parser.ts) implies no
 * `<head>`, and the HTML standard's own parser leaves a `<title>` written in the body in the body.
 */
export const SKIP_TAGS = new Set([
  'script',
  'style',
  'template',
  'noscript',
  'head',
  'title',
  'link',
  'meta',
  'base',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'audio',
  'video',
  'source',
  'track',
  'input',
  'select',
  'textarea',
  'button',
]);

/** Heading levels by element name (a Map: an element named `constructor` must not find Object's). */
export const HEADING_LEVEL: ReadonlyMap<string, number> = new Map([
  ['h1', 1],
  ['h2', 2],
  ['h3', 3],
  ['h4', 4],
  ['h5', 5],
  ['h6', 6],
]);

export const KNOWN_INLINE = new Set([
  'a',
  'abbr',
  'acronym',
  'b',
  'bdi',
  'bdo',
  'big',
  'br',
  'cite',
  'code',
  'data',
  'del',
  'dfn',
  'em',
  'font',
  'i',
  'img',
  'ins',
  'kbd',
  'label',
  'mark',
  'nobr',
  'q',
  'rp',
  'rt',
  'ruby',
  's',
  'samp',
  'small',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'time',
  'tt',
  'u',
  'var',
  'wbr',
  'output',
  'meter',
  'progress',
  'slot',
  'bcp14',
  'c-',
]);

/**
 * The HTML standard's sectioning roots other than body: their headings do not enter the outline of the
 * document around them (a figure showing a rendered demo page with its own <h1>s, a quotation of
 * another document), so they are read as paragraphs of that content. Not `<details>`: a disclosure
 * widget folds the document's own text, and its headings are the document's (rustdoc folds every
 * method, its signature heading and its "Examples" heading in one; GitHub READMEs fold sections).
 */
export const SECTIONING_ROOTS: ReadonlySet<string> = new Set(['blockquote', 'dialog', 'fieldset', 'figure', 'td', 'th']);

/**
 * Whether a heading that opens a section of the document sits inside `el` (none inside a sectioning
 * root, nor inside an element `titled` says its one heading titles: an admonition's "Note", which
 * html-extractor reads as one block). Answers are kept in `memo`, which the caller owns for one walk
 * with one `titled`, so nested lists walked as containers ask about each element once.
 */
export function containsSectionHeading(el: Element, titled: (el: Element) => boolean, memo: WeakMap<Element, boolean>): boolean {
  const known = memo.get(el);
  if (known !== undefined) return known;
  let found = false;
  for (const c of el.children) {
    if (!isTag(c) || SECTIONING_ROOTS.has(c.name) || titled(c)) continue;
    if (HEADING_LEVEL.has(c.name) || containsSectionHeading(c, titled, memo)) {
      found = true;
      break;
    }
  }
  memo.set(el, found);
  return found;
}

export function containsHeading(el: Element): boolean {
  for (const c of el.children) {
    if (!isTag(c)) continue;
    if (HEADING_LEVEL.has(c.name)) return true;
    if (containsHeading(c)) return true;
  }
  return false;
}
