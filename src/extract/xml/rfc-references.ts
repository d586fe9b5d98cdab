import { type AnyNode, type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';
import { normalizeSpace } from '../text-sink.js';
import { namespaceOf } from './rfc2629-extensions.js';
import { appendAll } from '../../array-extremes.js';

/**
 * One `<reference>` as xml2rfc v3 prints it in a references list: authors ("Surname, I." first, then
 * "I. Surname"; ", Ed." for editors), the quoted title, refcontent, series other than DOI, the DOI,
 * the date and the target in angle brackets. The XML and HTML renderings then give the same entry.
 */

function localName(el: Element): string {
  const colon = el.name.indexOf(':');
  return colon === -1 ? el.name : el.name.slice(colon + 1);
}

function kids(el: Element, name?: string): Element[] {
  return el.children.filter((c): c is Element => isTag(c) && (name === undefined || localName(c) === name));
}

/** "V." for initials "V.G.": the lists print the first initial only. */
function firstInitial(initials: string | undefined): string {
  const first = (initials ?? '')
    .split('.')
    .map((p) => p.trim())
    .find((p) => p !== '');
  return first === undefined ? '' : `${first}.`;
}

/** All authors but the last of several read "Surname, I."; the last of several reads "I. Surname". */
function authorName(author: Element, first: boolean): string {
  const surname = author.attribs['surname'];
  const initials = firstInitial(author.attribs['initials']);
  let name: string;
  if (surname !== undefined && surname !== '') {
    if (initials === undefined || initials === '') name = surname;
    else name = first ? `${surname}, ${initials}` : `${initials} ${surname}`;
  } else {
    const org = kids(author, 'organization')[0];
    name = normalizeSpace(author.attribs['fullname'] ?? (org ? textContent(org) : ''));
  }
  if (name === '') return '';
  return author.attribs['role'] === 'editor' ? `${name}, Ed.` : name;
}

function joinAuthors(names: string[]): string {
  if (names.length <= 1) return names[0] ?? '';
  if (names.length === 2) return `${names[0]!} and ${names[1]!}`;
  return `${names.slice(0, -1).join(', ')}, and ${names[names.length - 1]!}`;
}

/**
 * Whose conventions the citation follows: xml2rfc prints a date's day as "August 28, 2017";
 * rfc2629.xslt drops the day unless `x:include-day="true"`, then prints "1 April 1998".
 */
export type CitationConvention = 'xml2rfc' | 'rfc2629';

export interface CitationOptions {
  convention: CitationConvention;
  /**
   * The renderer gives an RFC without a DOI its DOI ("DOI 10.17487/RFC1950") and, without a target,
   * its info page as target: xml2rfc does (prepared XML states both), rfc2629.xslt when told to
   * emulate an xml2rfc backend that does (`<?rfc-ext xml2rfc-backend="202007"?>`).
   */
  rfcLinks: boolean;
}

function dateOf(date: Element | undefined, convention: CitationConvention): string {
  if (!date) return '';
  const month = date.attribs['month'] ?? '';
  const day = (date.attribs['day'] ?? '').replace(/^0+(?=\d)/, '');
  const year = date.attribs['year'] ?? '';
  if (month !== '' && day !== '') {
    if (convention === 'xml2rfc') return `${month} ${day}, ${year}`;
    if (date.attribs['x:include-day'] === 'true') return normalizeSpace(`${day} ${month} ${year}`);
  }
  return normalizeSpace(`${month} ${year}`);
}

/** The citation as the renderer prints it; "" when the XML holds none (rfc2629.xslt's `<x:source>` supplies it). */
export function referenceCitation(reference: Element, options: CitationOptions = { convention: 'xml2rfc', rfcLinks: false }): string {
  const { convention } = options;
  const front = kids(reference, 'front')[0];
  const parts: string[] = [];
  if (front) {
    const people = kids(front, 'author');
    const authors = people.map((a, i) => authorName(a, people.length === 1 || i < people.length - 1)).filter((a) => a !== '');
    if (authors.length > 0) parts.push(joinAuthors(authors));
    const title = kids(front, 'title')[0];
    if (title) {
      const t = normalizeSpace(textContent(title));
      parts.push(reference.attribs['quoteTitle'] === 'false' ? t : `"${t}"`);
    }
  }
  const series = kids(reference, 'seriesInfo').concat(front ? kids(front, 'seriesInfo') : []);
  // xml2rfc prints refcontent before the series, rfc2629.xslt after them and the DOI.
  const refcontent = kids(reference, 'refcontent').map((c) => normalizeSpace(textContent(c)));
  if (convention === 'xml2rfc') appendAll(parts, refcontent);
  for (const s of series) {
    const name = s.attribs['name'] ?? '';
    const value = s.attribs['value'] ?? '';
    if (name === 'Internet-Draft') parts.push('Internet-Draft', value);
    else if (name !== 'DOI') parts.push(normalizeSpace(`${name} ${value}`));
  }
  for (const s of series) if (s.attribs['name'] === 'DOI') parts.push(`DOI ${s.attribs['value'] ?? ''}`);
  const rfc = series.find((s) => s.attribs['name'] === 'RFC')?.attribs['value'];
  const rfcNumber = rfc !== undefined && /^\d+$/.test(rfc) ? Number(rfc) : null;
  if (options.rfcLinks && rfcNumber !== null && !series.some((s) => s.attribs['name'] === 'DOI'))
    parts.push(`DOI 10.17487/RFC${String(rfcNumber).padStart(4, '0')}`);
  if (convention === 'rfc2629') appendAll(parts, refcontent);
  const date = dateOf(front ? kids(front, 'date')[0] : undefined, convention);
  if (date !== '') parts.push(date);
  let target = reference.attribs['target'];
  // In a <referencegroup> the group's target stands for its members (referenceGroupCitation).
  const grouped = reference.parent !== null && isTag(reference.parent) && localName(reference.parent) === 'referencegroup';
  if (options.rfcLinks && rfcNumber !== null && !grouped && (target === undefined || target === ''))
    target = `https://www.rfc-editor.org/info/rfc${rfcNumber}`;
  if (target !== undefined && target !== '') parts.push(`<${target}>`);
  const text = parts.filter((p) => p !== '').join(', ');
  return text === '' ? '' : `${text}.`;
}

/**
 * A bibxml reference file (`…/bibxml/reference.RFC.3550.xml`, as xml2rfc includes them) names the
 * anchor its `<reference>` carries: "RFC3550", "BCP14", "W3C.REC-xml-20081126", "I-D.ietf-foo".
 */
export function bibxmlAnchor(url: string): string | null {
  const m = /(?:^|[/\\])reference\.([A-Za-z][\w.-]*)\.xml$/.exec(url);
  if (!m) return null;
  return m[1]!.replace(/^(RFC|BCP|STD|FYI)\.(\d+)$/, '$1$2');
}

/**
 * The anchor of the bibxml reference a node of a references list includes, or null: the v2
 * instruction `<?rfc include="reference.RFC.2119.xml"?>`, or the XInclude element v3 drafts use
 * (`<xi:include href="https://bib.ietf.org/…/reference.RFC.2119.xml"/>`). Neither file is read here.
 */
export function includedReference(node: AnyNode): string | null {
  if (node.type === 'directive') {
    const m = /^\?rfc\s+include=["']([^"']+)["']/.exec((node as { data: string }).data);
    return m ? bibxmlAnchor(m[1]!.endsWith('.xml') ? m[1]! : `${m[1]!}.xml`) : null;
  }
  return isTag(node) && isXInclude(node) ? bibxmlAnchor(node.attribs['href'] ?? '') : null;
}

export const XINCLUDE_NAMESPACE = 'http://www.w3.org/2001/XInclude';

/** An `include` element in the XInclude namespace (its prefix's declaration, or the default one). */
export function isXInclude(el: Element): boolean {
  return localName(el) === 'include' && namespaceOf(el) === XINCLUDE_NAMESPACE;
}

/**
 * The reference lists directly in `<back>` that the renderings print as the subsections N.1, N.2 ...
 * of one "References" section N: a v2 document's lists (`<references title="Normative References">`
 * beside `<references title="Informative References">`), as xml2rfc and rfc2629.xslt group them. Empty
 * when there is one list (a v3 document nests its lists in one `<references>` itself): it is section N.
 */
export function groupedReferenceLists(back: Element): Element[] {
  const lists = kids(back, 'references');
  return lists.length > 1 ? lists : [];
}
