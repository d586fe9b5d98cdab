import { type StartTagRule, startTagRule } from '../markup-parser.js';
import { MAX_TREE_DEPTH } from '../input-bounds.js';

/**
 * The HTML standard's start-tag rules for `<li>`, `<dd>` and `<dt>` (in body), as a start-tag rule of
 * the tree builder (markup-parser.ts).
 *
 * htmlparser2's rules (which the builder keeps) close an open `<li>` at the next `<li>` only when
 * the `<li>` is the current element, so the optional `</p>` and `</li>` of `<li><p>step one<li><p>step
 * two` (the WHATWG style) nested each step inside the previous one. The standard looks down the open
 * elements instead: an `<li>` start tag closes the nearest open `<li>` (and everything above it)
 * unless a "special" element other than address, div or p stands in between (a nested `<ul>`/`<ol>`:
 * then the new item belongs to that list); `<dd>`/`<dt>` likewise close the nearest `<dd>` or `<dt>`.
 *
 * The look-down stops after MAX_TREE_DEPTH elements, so hostile nesting (100,000 inline elements, then
 * as many `<li>`s) stays linear; real documents never nest that deep inside one item.
 */

/** The standard's "special" category, less address/div/p, which the look-down passes through. */
const SPECIAL = new Set([
  'applet',
  'area',
  'article',
  'aside',
  'base',
  'basefont',
  'bgsound',
  'blockquote',
  'body',
  'br',
  'button',
  'caption',
  'center',
  'col',
  'colgroup',
  'dd',
  'details',
  'dir',
  'dl',
  'dt',
  'embed',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'frame',
  'frameset',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'head',
  'header',
  'hgroup',
  'hr',
  'html',
  'iframe',
  'img',
  'input',
  'keygen',
  'li',
  'link',
  'listing',
  'main',
  'marquee',
  'menu',
  'meta',
  'nav',
  'noembed',
  'noframes',
  'object',
  'ol',
  'param',
  'plaintext',
  'pre',
  'script',
  'search',
  'section',
  'select',
  'source',
  'style',
  'summary',
  'table',
  'tbody',
  'td',
  'template',
  'textarea',
  'tfoot',
  'th',
  'thead',
  'title',
  'tr',
  'track',
  'ul',
  'wbr',
  'xmp',
  'svg',
  'math',
]);

/** What each item start tag closes (a Map: a start tag named `constructor` must not find Object's). */
const CLOSES: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['li', new Set(['li'])],
  ['dd', new Set(['dd', 'dt'])],
  ['dt', new Set(['dd', 'dt'])],
]);

export const listItemRule: StartTagRule = startTagRule(new Set(CLOSES.keys()), (name, open) => {
  const closes = CLOSES.get(name);
  if (closes === undefined) return;
  const limit = Math.min(open.length, MAX_TREE_DEPTH);
  for (let i = 0; i < limit; i++) {
    const element = open.nameAt(i);
    if (closes.has(element)) {
      for (let n = 0; n <= i; n++) open.pop();
      return;
    }
    if (SPECIAL.has(element)) return;
  }
});
