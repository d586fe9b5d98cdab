import { type AnyNode, type Element, isTag } from 'domhandler';
import { collectPres, type PreText, preText } from './pre-text.js';

/**
 * "Htmlized" RFCs and Internet-Drafts: the plain-text RFC in `<pre>` elements (one per page), its
 * headings marked `<span class="h2"><a class="selflink" id="section-1" href="#section-1">1</a>.
 * Introduction</span>`, as rfc2html writes it for tools.ietf.org/html, datatracker's /doc/html/ pages
 * of RFCs before the v3 format, and rfc-editor.org's .html of those RFCs. Read by the HTML rules, the
 * whole RFC is one code block per page with no section; it is the RFC's text, so the RFC text
 * extractor reads it, each offset mapped back to the HTML source and each section id that the page
 * anchors (`section-1`, `appendix-A`) kept as the section's fragment.
 */
export type HtmlizedRfc = PreText;

const HEADING_SPAN = /(?:^|\s)h[1-6](?:\s|$)/;

/** Whether the page is an htmlized RFC: a `<pre>` holding a heading span (what htmlizedRfc reads). */
export function isHtmlizedRfc(document: AnyNode): boolean {
  const pres: Element[] = [];
  collectPres(document, pres);
  return pres.some((pre) => holdsHeadingSpan(pre));
}

/** The htmlized RFC in `document`, or null when no `<pre>` holds a heading span. */
export function htmlizedRfc(document: AnyNode, source: string): HtmlizedRfc | null {
  const pres: Element[] = [];
  collectPres(document, pres);
  if (!pres.some((pre) => holdsHeadingSpan(pre))) return null;
  return preText(pres, source);
}

function holdsHeadingSpan(el: Element): boolean {
  for (const child of el.children) {
    if (!isTag(child)) continue;
    if (child.name === 'span' && HEADING_SPAN.test(child.attribs['class'] ?? '')) return true;
    if (holdsHeadingSpan(child)) return true;
  }
  return false;
}
