import { type Document, type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';

/**
 * RFC XML written for Julian Reschke's rfc2629.xslt (the httpwg renderer, RFCBootstrap) rather than for
 * xml2rfc. Such a document says so: it binds the extension namespace http://purl.org/net/xml2rfc/ext
 * (the `x:` elements and attributes only that renderer reads) or carries `<?rfc-ext …?>` processing
 * instructions. Its renderings follow that renderer's conventions, so the XML reads the way they do:
 * - `x:length-of` prints the length of the element it targets, line ends counted as CRLF (HTTP
 *   message bodies in examples: "Content-Length: 51");
 * - reference dates print the day only when `<date x:include-day="true">`, as "1 April 1998";
 * - RFC references get a DOI and an info-page target only when `<?rfc-ext xml2rfc-backend?>` asks for
 *   an xml2rfc backend that adds them;
 * - `<xref x:sec>` inside artwork defaults to the "," format ("[RFC5646], Section 2.1");
 * - an `<xref>` with content pointing at a section prints "content (Section 14.1.2)";
 * - `<x:source href basename>` on a reference names another document the renderer reads: the
 *   reference's citation and the section numbers of `<xref x:rel="#anchor">` into it come from there.
 *   The XML alone does not hold them, so the extraction prints the reference label, keeps the link
 *   the renderer makes (`basename.html#anchor`) and declares the limit.
 * Elements of other vocabularies (`rdf:Description` registry metadata) are not rendered at all.
 */

export const RFC2629_EXTENSION_NAMESPACE = 'http://purl.org/net/xml2rfc/ext';

/** Namespaces whose elements the renderers print: none (RFC vocabulary) and rfc2629.xslt's extensions. */
const RENDERED_NAMESPACES = new Set(['', RFC2629_EXTENSION_NAMESPACE]);

/** Whether the document is written for rfc2629.xslt (see above). */
export function writtenForRfc2629Xslt(document: Document, rfc: Element): boolean {
  if (Object.values(rfc.attribs).includes(RFC2629_EXTENSION_NAMESPACE)) return true;
  return document.children.some((c) => c.type === 'directive' && /^\?rfc-ext\b/.test((c as { data: string }).data));
}

/**
 * The first xml2rfc backend (year and month) whose reference output rfc2629.xslt emulates with DOIs
 * and rfc-editor.org info-page targets for RFCs (xml2rfc 2.5, late 2015, after the RFC Editor began
 * assigning DOIs).
 */
export const DOI_BACKEND = 201510;

/** Whether `<?rfc-ext xml2rfc-backend="YYYYMM"?>` asks rfc2629.xslt to emulate `since` or later. */
export function emulatesXml2rfcBackend(document: Document, since: number): boolean {
  for (const c of document.children) {
    if (c.type !== 'directive') continue;
    const m = /^\?rfc-ext\s[^>]*\bxml2rfc-backend=["'](\d{6})["']/.exec((c as { data: string }).data);
    if (m && Number(m[1]) >= since) return true;
  }
  return false;
}

/**
 * Whether a renderer prints this element: its namespace (from its prefix, or the default namespace an
 * `xmlns` attribute sets) is the RFC vocabulary's or the rfc2629.xslt extensions'. Prefixes resolve
 * through the `xmlns:p` declarations in scope; an undeclared prefix counts as rendered (lenient, as the
 * input may be a fragment).
 */
export function isRenderedVocabulary(el: Element): boolean {
  const ns = namespaceOf(el);
  return ns === null || RENDERED_NAMESPACES.has(ns);
}

/** The namespace of an element's name: its prefix's declaration in scope, else the default one; null when undeclared. */
export function namespaceOf(el: Element): string | null {
  const colon = el.name.indexOf(':');
  return declaredNamespace(el, colon === -1 ? 'xmlns' : `xmlns:${el.name.slice(0, colon)}`);
}

/** Namespace declarations in scope, per element and attribute: each is resolved once, not per descendant. */
const inScope = new WeakMap<Element, Map<string, string | null>>();

function declaredNamespace(el: Element, attr: string): string | null {
  let known = inScope.get(el);
  if (known === undefined) {
    known = new Map();
    inScope.set(el, known);
  }
  const cached = known.get(attr);
  if (cached !== undefined) return cached;
  const own = el.attribs[attr];
  const ns = own !== undefined ? own : el.parent !== null && isTag(el.parent) ? declaredNamespace(el.parent, attr) : null;
  known.set(attr, ns);
  return ns;
}

/**
 * `<x:length-of target="a"/>`: the length of element a's text, each line end (LF or CRLF) counted as
 * the two octets CRLF it stands for in an HTTP message.
 */
export function lengthOf(target: Element): number {
  const text = textContent(target);
  // Characters, as the renderer's string-length counts them (code points, not UTF-16 units), counted
  // in one pass without copying: a document may ask for the length of a large element many times.
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x0d || c === 0x0a) {
      if (c === 0x0d && text.charCodeAt(i + 1) === 0x0a) i++;
      length += 2;
    } else {
      if (c >= 0xd800 && c <= 0xdbff) {
        const next = text.charCodeAt(i + 1);
        if (next >= 0xdc00 && next <= 0xdfff) i++;
      }
      length++;
    }
  }
  return length;
}
