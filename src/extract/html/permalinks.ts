import { type Element, isTag } from 'domhandler';
import { textOfAtMost } from '../dom-nodes.js';

/**
 * The glyphs documentation generators print as a link to the place they stand: Sphinx's and MkDocs'
 * `a.headerlink` "¶" after every heading, API entry (`dt`), table and code caption; "§", "#", "🔗" and
 * "⚓" in other themes (Hugo, Furo, Jekyll plugins); a zero-width space in Docusaurus.
 */
const GLYPHS: ReadonlySet<string> = new Set(['¶', '§', '#', '🔗', '⚓', '']);
/** Longer than any glyph with its variation selector and spaces: the text read to decide. */
const MAX_GLYPH_TEXT = 16;

/**
 * A permalink glyph: an `<a>` whose whole text is one of GLYPHS, linking to the element it stands in
 * (the heading, API entry, caption or section it sits inside). It is the page's chrome (a reader
 * clicks it to copy the link), not text: written into a heading, an API entry's term or a caption it
 * read "class http.cookies.SimpleCookie([input])¶". A glyph that links elsewhere (rfc2629.xslt's
 * index writes "RFC4289 §", the § linking to the reference) and an anchor that names a place itself
 * (`id`, `name`: its id is citable) are kept.
 */
export function isPermalinkGlyph(el: Element): boolean {
  if (el.name !== 'a' || el.attribs['id'] !== undefined || el.attribs['name'] !== undefined) return false;
  const href = el.attribs['href'];
  if (href === undefined || !href.startsWith('#')) return false;
  const read = textOfAtMost(el, MAX_GLYPH_TEXT);
  if (read.cut) return false;
  const text = read.text.replace(/\s|\u200b|\ufe0e|\ufe0f/g, '');
  // An empty link writes nothing either way; only one that holds invisible characters is worth dropping.
  if (!GLYPHS.has(text) || (text === '' && read.text === '')) return false;
  const target = fragmentOf(href);
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
