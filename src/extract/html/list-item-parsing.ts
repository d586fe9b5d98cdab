import type { Parser } from 'htmlparser2';
import { MAX_TREE_DEPTH } from '../input-bounds.js';

/**
 * The HTML standard's start-tag rules for `<li>`, `<dd>` and `<dt>` (in body), added to htmlparser2.
 *
 * htmlparser2 closes an open `<li>` at the next `<li>` only when the `<li>` is the current element,
 * so the optional `</p>` and `</li>` of `<li><p>step one<li><p>step two` (the WHATWG style) nested
 * each step inside the previous one. The standard looks down the open elements instead: an `<li>`
 * start tag closes the nearest open `<li>` (and everything above it) unless a "special" element other
 * than address, div or p stands in between (a nested `<ul>`/`<ol>`: then the new item belongs to that
 * list); `<dd>`/`<dt>` likewise close the nearest `<dd>` or `<dt>`.
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

const CLOSES: Record<string, ReadonlySet<string>> = {
  li: new Set(['li']),
  dd: new Set(['dd', 'dt']),
  dt: new Set(['dd', 'dt']),
};

interface ParserInternals {
  stack: string[];
  emitOpenTag(name: string): void;
  popElement(implied: boolean): void;
}

export function applyListItemRules(parser: Parser): void {
  const internals = parser as unknown as ParserInternals;
  if (typeof internals.emitOpenTag !== 'function' || typeof internals.popElement !== 'function') {
    throw new Error('htmlparser2 internals changed: emitOpenTag/popElement not found (list item rules need them)');
  }
  const emitOpenTag = internals.emitOpenTag.bind(parser);
  const popElement = internals.popElement.bind(parser);
  internals.emitOpenTag = (name: string): void => {
    const closes = CLOSES[name];
    if (closes !== undefined) {
      const stack = internals.stack;
      const limit = Math.min(stack.length, MAX_TREE_DEPTH);
      for (let i = 0; i < limit; i++) {
        const open = stack[i]!;
        if (closes.has(open)) {
          for (let n = 0; n <= i; n++) popElement(true);
          break;
        }
        if (SPECIAL.has(open)) break;
      }
    }
    emitOpenTag(name);
  };
}
