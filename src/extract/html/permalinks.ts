import type { Element } from 'domhandler';
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
 * A permalink glyph: an `<a>` to a fragment of this page whose whole text is one of GLYPHS. It is the
 * page's chrome (a reader clicks it to copy the link), not text: written into a heading, an API
 * entry's term or a caption it read "class http.cookies.SimpleCookie([input])¶". An anchor that names
 * a place itself (`id`, `name`) is kept: its id is citable.
 */
export function isPermalinkGlyph(el: Element): boolean {
  if (el.name !== 'a' || el.attribs['id'] !== undefined || el.attribs['name'] !== undefined) return false;
  const href = el.attribs['href'];
  if (href === undefined || !href.startsWith('#')) return false;
  const read = textOfAtMost(el, MAX_GLYPH_TEXT);
  if (read.cut) return false;
  const text = read.text.replace(/\s|\u200b|\ufe0e|\ufe0f/g, '');
  // An empty link writes nothing either way; only one that holds invisible characters is worth dropping.
  return GLYPHS.has(text) && (text !== '' || read.text !== '');
}
