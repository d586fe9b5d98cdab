import { type Element, isTag } from 'domhandler';
import { textContent } from 'domutils';
import { normalizeSpace } from '../text-sink.js';
import { appendAll } from '../../array-extremes.js';

/**
 * An RFC's front matter (stream, number, category, date, authors) as document metadata, worded as the
 * xml2rfc renderings print it, so the XML and the HTML of one RFC declare the same metadata. It is
 * never a block: the renderings print it as a header table or a definition list, not as content.
 */

// Maps, not objects: an attribute value such as `constructor` must not find Object's.
const STREAMS: ReadonlyMap<string, string> = new Map([
  ['IETF', 'Internet Engineering Task Force (IETF)'],
  ['IAB', 'Internet Architecture Board (IAB)'],
  ['IRTF', 'Internet Research Task Force (IRTF)'],
  ['independent', 'Independent Submission'],
  ['editorial', 'Editorial Stream'],
]);

const CATEGORIES: ReadonlyMap<string, string> = new Map([
  ['std', 'Standards Track'],
  ['bcp', 'Best Current Practice'],
  ['info', 'Informational'],
  ['exp', 'Experimental'],
  ['historic', 'Historic'],
]);

const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function localName(el: Element): string {
  const colon = el.name.indexOf(':');
  return colon === -1 ? el.name : el.name.slice(colon + 1);
}

function kids(el: Element, name: string): Element[] {
  return el.children.filter((c): c is Element => isTag(c) && localName(c) === name);
}

/** "May 2021" from `<date month="5" year="2021"/>` (month by number or name). */
function dateText(date: Element): string {
  const year = date.attribs['year'] ?? '';
  const rawMonth = date.attribs['month'] ?? '';
  const n = Number.parseInt(rawMonth, 10);
  const month = Number.isInteger(n) && n >= 1 && n <= 12 ? MONTHS[n - 1]! : rawMonth;
  return normalizeSpace(`${month} ${year}`);
}

/** "M. Thomson, Ed." as the renderings print an author. */
function authorText(author: Element): string {
  const name =
    author.attribs['initials'] !== undefined && author.attribs['surname'] !== undefined
      ? `${author.attribs['initials']} ${author.attribs['surname']}`
      : (author.attribs['fullname'] ?? '');
  const role = author.attribs['role'] === 'editor' ? ', Ed.' : '';
  return normalizeSpace(name) === '' ? '' : `${normalizeSpace(name)}${role}`;
}

/** Metadata entries of `<rfc>` and its `<front>`, keys as in the HTML renderings' identifier list. */
export function rfcFrontMetadata(rfc: Element): [string, string][] {
  const out: [string, string][] = [];
  const add = (key: string, value: string | undefined): void => {
    const v = normalizeSpace(value ?? '');
    if (v !== '') out.push([key, v]);
  };
  const stream = rfc.attribs['submissionType'] ?? rfc.attribs['submissiontype'];
  add('stream', stream === undefined ? undefined : (STREAMS.get(stream) ?? stream));
  add('rfc', rfc.attribs['number']);
  add('internet-draft', rfc.attribs['number'] === undefined ? rfc.attribs['docName'] : undefined);
  add('obsoletes', rfc.attribs['obsoletes']);
  add('updates', rfc.attribs['updates']);
  const category = rfc.attribs['category'];
  add('category', category === undefined ? undefined : (CATEGORIES.get(category) ?? category));
  const front = kids(rfc, 'front')[0];
  if (front) {
    const title = kids(front, 'title')[0];
    if (title) add('title', textContent(title));
    const date = kids(front, 'date')[0];
    if (date) add('published', dateText(date));
    add(
      'authors',
      kids(front, 'author')
        .map(authorText)
        .filter((a) => a !== '')
        .join('; '),
    );
  }
  return out;
}

function lines(el: Element | undefined, name: string): string[] {
  return el
    ? kids(el, name)
        .map((c) => normalizeSpace(textContent(c)))
        .filter((t) => t !== '')
    : [];
}

/**
 * The "Authors' Addresses" section every rendering prints from the front matter's authors, one entry
 * per author: "Name (editor)", organization, postal lines, "Email: ...", "URI: ...". Postal addresses
 * follow the US layout ("City, Region Code"); renderers that lay out other countries differently differ.
 */
export function authorAddresses(rfc: Element): { heading: string; entries: string[] } | null {
  const front = kids(rfc, 'front')[0];
  if (!front) return null;
  const entries: string[] = [];
  for (const author of kids(front, 'author')) {
    const out: string[] = [];
    const name = normalizeSpace(author.attribs['fullname'] ?? '');
    if (name !== '') out.push(author.attribs['role'] === 'editor' ? `${name} (editor)` : name);
    appendAll(out, lines(author, 'organization'));
    const address = kids(author, 'address')[0];
    const postal = address ? kids(address, 'postal')[0] : undefined;
    if (postal) {
      appendAll(out, lines(postal, 'postalLine'));
      appendAll(out, lines(postal, 'street'));
      const city = lines(postal, 'city').join(' ');
      const regionCode = normalizeSpace(`${lines(postal, 'region').join(' ')} ${lines(postal, 'code').join(' ')}`);
      const place = [city, regionCode].filter((x) => x !== '').join(', ');
      if (place !== '') out.push(place);
      appendAll(out, lines(postal, 'country'));
    }
    for (const phone of lines(address, 'phone')) out.push(`Phone: ${phone}`);
    for (const email of lines(address, 'email')) out.push(`Email: ${email}`);
    for (const uri of lines(address, 'uri')) out.push(`URI: ${uri}`);
    if (out.length > 0) entries.push(out.join('\n'));
  }
  if (entries.length === 0) return null;
  return { heading: entries.length === 1 ? "Author's Address" : "Authors' Addresses", entries };
}
