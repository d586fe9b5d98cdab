import { type Element, isTag } from 'domhandler';

/** Elements that start a new line in flow text and end an inline run. */
export const BLOCK_TAGS = new Set([
  'address', 'article', 'aside', 'blockquote', 'body', 'caption', 'center', 'dd', 'details', 'dialog', 'dir', 'div', 'dl', 'dt',
  'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'html',
  'legend', 'li', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'tbody', 'td', 'tfoot', 'th', 'thead',
  'tr', 'ul', 'xmp', 'listing', 'plaintext', 'search',
]);

/** Never content: skipped wherever they occur. */
export const SKIP_TAGS = new Set(['script', 'style', 'template', 'noscript', 'head', 'link', 'meta', 'base', 'svg', 'math', 'iframe', 'object', 'embed', 'canvas', 'audio', 'video', 'source', 'track', 'input', 'select', 'textarea', 'button']);

export const HEADING_LEVEL: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };

export const KNOWN_INLINE = new Set([
  'a', 'abbr', 'acronym', 'b', 'bdi', 'bdo', 'big', 'br', 'cite', 'code', 'data', 'del', 'dfn', 'em', 'font', 'i', 'img', 'ins', 'kbd',
  'label', 'mark', 'nobr', 'q', 'rp', 'rt', 'ruby', 's', 'samp', 'small', 'span', 'strike', 'strong', 'sub', 'sup', 'time', 'tt', 'u',
  'var', 'wbr', 'output', 'meter', 'progress', 'slot', 'bcp14', 'c-',
]);

export function containsHeading(el: Element): boolean {
  for (const c of el.children) {
    if (!isTag(c)) continue;
    if (HEADING_LEVEL[c.name] !== undefined) return true;
    if (containsHeading(c)) return true;
  }
  return false;
}
