import { type OpenElements, type StartTagRule, startTagRule } from '../markup-parser.js';
import { MAX_TREE_DEPTH } from '../input-bounds.js';

/**
 * The HTML standard's "close a p element" before block start tags (in body), as a start-tag rule of
 * the tree builder (markup-parser.ts).
 *
 * htmlparser2's rules (which the builder keeps) close an open `<p>` at a block start tag only when the
 * `<p>` is the current node, so `<p>see <a href=…>this<ul>…` or a `<p>` left open around an inline
 * element kept the list, table or division inside the paragraph. The standard closes the `<p>`
 * whenever one is "in button scope": open, with no scope boundary (a table cell, caption, button,
 * object, or an SVG/MathML integration point) between it and the current node; the elements above it
 * close with it.
 *
 * The look-down stops after MAX_TREE_DEPTH elements, so hostile nesting stays linear (an open `<p>` is
 * a counted lookup first); real documents never nest that deep inside one paragraph.
 */

/** Start tags that close a `<p>` in button scope (the standard's "in body" rules). */
const CLOSES_P = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'center',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'header',
  'hgroup',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'search',
  'section',
  'summary',
  'ul',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'listing',
  'form',
  'table',
  'hr',
  'li',
  'dd',
  'dt',
  'plaintext',
  'xmp',
]);

/** Elements that end "button scope" (the standard's default scope, plus button). */
const SCOPE_BOUNDARIES = new Set([
  'applet',
  'caption',
  'html',
  'table',
  'td',
  'th',
  'marquee',
  'object',
  'template',
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignObject',
  'desc',
  'title',
  'button',
]);

/** How many elements above the nearest `<p>` in button scope, or -1 when none is. */
function paragraphInButtonScope(open: OpenElements): number {
  if (!open.has('p')) return -1;
  const limit = Math.min(open.length, MAX_TREE_DEPTH);
  for (let i = 0; i < limit; i++) {
    const name = open.nameAt(i);
    if (name === 'p') return i;
    if (SCOPE_BOUNDARIES.has(name)) return -1;
  }
  return -1;
}

export const paragraphClosingRule: StartTagRule = startTagRule(CLOSES_P, (name, open) => {
  if (!CLOSES_P.has(name)) return;
  const above = paragraphInButtonScope(open);
  for (let n = 0; n <= above; n++) open.pop();
});
