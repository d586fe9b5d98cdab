import { type Element, isTag } from 'domhandler';
import { textOfAtMost } from '../dom-nodes.js';

/**
 * The glyphs documentation generators print as a link to the place they stand: Sphinx's and MkDocs'
 * `a.headerlink` "¶" after every heading, API entry (`dt`), table and code caption; "§", "#", "🔗" and
 * "⚓" in other themes (Hugo, Furo, Jekyll plugins); a zero-width space in Docusaurus.
 */
const GLYPHS: ReadonlySet<string> = new Set(['¶', '§', '#', '🔗', '⚓', '']);
/**
 * The arrows generators print as a link back to the top of the page (RDoc's "↑" after every heading,
 * linking to `<body id="top">`): chrome as a permalink glyph is, when they link to an element they stand
 * in, or to the page's top as HTML defines it without such an element (`#top`, `#`).
 */
const TOP_ARROWS: ReadonlySet<string> = new Set(['↑', '⇑', '⇧', '⬆', '▲', '▴', '⤒', '↥']);
/** Longer than any glyph with its variation selector and spaces: the text read to decide. */
const MAX_GLYPH_TEXT = 16;

/**
 * A permalink glyph: an `<a>` whose whole text is one of GLYPHS (or TOP_ARROWS), linking to the element it stands in
 * (the heading, API entry, caption or section it sits inside). It is the page's chrome (a reader
 * clicks it to copy the link), not text: written into a heading, an API entry's term or a caption it
 * read "class http.cookies.SimpleCookie([input])¶". A glyph that links elsewhere (rfc2629.xslt's
 * index writes "RFC4289 §", the § linking to the reference) and an anchor that names a place itself
 * (`id`, `name`: its id is citable) are kept, but in a heading (`inHeading`) a glyph naming the place it
 * links to is the heading's permalink (Node.js's `<a class="mark" href="#path" id="path">#</a>`).
 */
export function isPermalinkGlyph(el: Element, inHeading = false): boolean {
  if (el.name !== 'a') return false;
  const href = el.attribs['href'];
  if (href === undefined || !href.startsWith('#')) return false;
  const own = el.attribs['id'] ?? el.attribs['name'];
  // In a heading, a glyph may carry the id it links to (Node.js's `<a class="mark" href="#x" id="x">#</a>`):
  // the heading is still named by it (anchors.ts headingAnchorIds), and the glyph is not its text.
  if (own !== undefined && !(inHeading && own === fragmentOf(href))) return false;
  const read = textOfAtMost(el, MAX_GLYPH_TEXT);
  if (read.cut) return false;
  const text = read.text.replace(/\s|\u200b|\ufe0e|\ufe0f/g, '');
  // An empty link writes nothing either way; only one that holds invisible characters is worth dropping.
  const arrow = TOP_ARROWS.has(text);
  if ((!GLYPHS.has(text) && !arrow) || (text === '' && read.text === '')) return false;
  const target = fragmentOf(href);
  if (own !== undefined) return true;
  if (arrow && (target === '' || target.toLowerCase() === 'top')) return true;
  for (let p = el.parent; p !== null && isTag(p); p = p.parent) if (p.attribs['id'] === target) return true;
  return false;
}

/** The id a same-page link (`#x`) names, percent-decoded as a browser looks it up (as written when malformed). */
export function fragmentOf(href: string): string {
  try {
    return decodeURIComponent(href.slice(1));
  } catch {
    return href.slice(1);
  }
}
