import { sha256Hex } from '../store/hash.js';

/**
 * Canonical form of a source URL; two entries are the same source when their canonical forms match.
 * docs/workspace.md, "Source URLs", lists the rules; in short:
 *
 * 1. WHATWG URL parsing and serialisation (URL equivalence is serialised equality): scheme and host
 *    lowercased, IDNA (UTS #46) to punycode, IPv4 in any notation to dotted decimal, IPv6 compressed,
 *    default port dropped, empty path -> "/", "." and ".." segments (also "%2e" forms) resolved,
 *    backslashes as "/", tabs and newlines removed, characters outside the percent-encode sets encoded.
 * 2. RFC 3986 section 6.2.2: percent-encodings of unreserved characters (ALPHA DIGIT - . _ ~) decoded
 *    and other percent-encodings' hex digits uppercased, in path, query and fragment. WHATWG leaves
 *    these alone; for http(s) they name the same resource.
 * 3. An empty fragment ("#") is no fragment: the fragment never reaches the server.
 *
 * Kept distinct, as HTTP can tell them apart: an empty query ("?") and none, a trailing dot in the host,
 * path case, a trailing slash, a percent-encoded reserved character (%2F) and its literal.
 * Returns an error sentence instead of throwing, so callers can name the entry.
 */
export function canonicalSourceUrl(raw: string): { url: string } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { error: `not a valid URL: ${JSON.stringify(truncate(raw))}` };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    return { error: `only http(s) URLs are accepted, got ${JSON.stringify(parsed.protocol)}` };
  }
  if (parsed.username || parsed.password) return { error: 'URLs with credentials are not accepted' };
  const pathname = normalisePercentEncoding(parsed.pathname);
  if (pathname !== parsed.pathname) parsed.pathname = pathname;
  const search = normalisePercentEncoding(parsed.search);
  if (search !== parsed.search) parsed.search = search;
  const hash = normalisePercentEncoding(parsed.hash);
  if (hash !== parsed.hash) parsed.hash = hash;
  // The getter shows an empty fragment and no fragment both as "", but href keeps a trailing "#";
  // setting "" makes the fragment null. Only then: each setter re-serialises the URL (a map of 10,000
  // entries paid that for every one).
  const href = parsed.href;
  if (parsed.hash === '' && href.endsWith('#')) {
    parsed.hash = '';
    return { url: parsed.href };
  }
  return { url: href };
}

/**
 * RFC 3986 6.2.2.1 and 6.2.2.2: "%7e" -> "~", "%2f" -> "%2F"; anything else is left as it is. A hex
 * digit is not decoded right after a stray "%" (one not starting an escape), where it would form a new
 * escape ("%%41" stays, not "%A"), so the result is a fixed point.
 */
export function normalisePercentEncoding(component: string): string {
  if (!component.includes('%')) return component;
  let out = '';
  let lastStray = -3;
  for (let i = 0; i < component.length; ) {
    const char = component[i]!;
    if (char === '%' && isHexDigit(component[i + 1]) && isHexDigit(component[i + 2])) {
      const hex = component.slice(i + 1, i + 3).toUpperCase();
      const decoded = String.fromCharCode(Number.parseInt(hex, 16));
      const wouldFormEscape = isHexDigit(decoded) && out.length - lastStray <= 2;
      out += UNRESERVED.test(decoded) && !wouldFormEscape ? decoded : `%${hex}`;
      i += 3;
      continue;
    }
    if (char === '%') lastStray = out.length;
    out += char;
    i += 1;
  }
  return out;
}

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

function isHexDigit(char: string | undefined): boolean {
  return char !== undefined && /^[0-9A-Fa-f]$/.test(char);
}

function truncate(value: string): string {
  return value.length > 120 ? value.slice(0, 117) + '...' : value;
}

/**
 * Readable, stable document ids derived from URLs ("https://url.spec.whatwg.org/" -> "url-spec-whatwg-org").
 * Ids that collide (or would be too long) get a short hash of the URL appended, for every member of the
 * collision, so an id never depends on the order of entries. A slug that names an aggregate target
 * (`index`, `search-index`: `specs/index.json` is the document index) is treated as a collision too,
 * so such a source keeps working under a suffixed id instead of becoming its own stage's index.
 */
export function assignDocumentIds(urls: string[]): Map<string, string> {
  // Counts, not member lists: copying a list per entry made this the largest part of loading a map.
  const slugOf = new Map<string, string>();
  const slugCount = new Map<string, number>();
  for (const url of urls) {
    const slug = slugFor(url);
    slugOf.set(url, slug);
    slugCount.set(slug, (slugCount.get(slug) ?? 0) + 1);
  }
  const ids = new Map<string, string>();
  // The default sort compares strings by UTF-16 code unit, as compareCodeUnits does, without a callback.
  const sorted = [...urls].sort();
  for (const url of sorted) {
    const slug = slugOf.get(url)!;
    const unique = slugCount.get(slug) === 1 && slug.length <= MAX_SLUG && !RESERVED_DOCUMENT_IDS.has(slug);
    ids.set(url, unique ? slug : suffixed(slug, url, 8));
  }
  // A plain slug can equal another URL's suffixed id ("https://x-1a2b3c4d/" beside two "https://x/...");
  // every member of such a clash takes a longer suffix, still independent of the order of entries.
  for (let hashLength = 16; hashLength <= 64; hashLength *= 2) {
    const idCount = new Map<string, number>();
    for (const url of sorted) idCount.set(ids.get(url)!, (idCount.get(ids.get(url)!) ?? 0) + 1);
    const clashing = sorted.filter((url) => idCount.get(ids.get(url)!)! > 1);
    if (clashing.length === 0) break;
    for (const url of clashing) ids.set(url, suffixed(slugOf.get(url)!, url, hashLength));
  }
  return ids;
}

const MAX_SLUG = 80;

/**
 * Names of aggregate targets in an output folder (`<folder>/<name>.json`; see graph.ts aggregateNames):
 * a document id must never be one of them.
 */
export const RESERVED_DOCUMENT_IDS: ReadonlySet<string> = new Set(['index', 'search-index']);

function suffixed(slug: string, url: string, hashLength: number): string {
  return `${shorten(slug)}-${sha256Hex(url).slice(0, hashLength)}`;
}

/** Keeps the start (the host) and the end (usually the file name) of a long slug. */
function shorten(slug: string): string {
  if (slug.length <= MAX_SLUG - 9) return slug;
  const head = slug.slice(0, 28).replace(/-+$/, '');
  const tail = slug.slice(-(MAX_SLUG - 9 - head.length - 3)).replace(/^-+/, '');
  return `${head}---${tail}`;
}

/**
 * The slug of a canonical URL: its hostname, path, query and fragment, lowercased, with each run of
 * other characters as one "-". Read off the serialised URL (ids are assigned to canonical URLs): the
 * scheme and the port go, and the "?" and "#" that the URL getters would drop or turn into "-" are such
 * runs anyway, so no second parse per entry.
 */
function slugFor(url: string): string {
  const start = url.indexOf('://');
  if (start < 0) return slugOfParsed(url);
  const pathStart = url.indexOf('/', start + 3);
  let authority = pathStart < 0 ? url.slice(start + 3) : url.slice(start + 3, pathStart);
  const colon = authority.lastIndexOf(':');
  if (colon > authority.lastIndexOf(']')) authority = authority.slice(0, colon);
  return slugOf(authority + (pathStart < 0 ? '' : url.slice(pathStart)));
}

/** The slug by way of the URL getters, for a string that is not a serialised URL. */
function slugOfParsed(url: string): string {
  const parsed = new URL(url);
  return slugOf(`${parsed.hostname}${parsed.pathname}${parsed.search}${parsed.hash ? '-' + parsed.hash.slice(1) : ''}`);
}

function slugOf(raw: string): string {
  const slug = raw
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'document';
}
