import { sha256Hex } from '../store/hash.js';
import { compareCodeUnits } from '../store/canonical-json.js';

/**
 * Canonical form of a source URL: WHATWG URL parsing lowercases scheme and host, drops a default
 * port and turns an empty path into "/". Two entries are duplicates when their canonical forms match.
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
  if (parsed.hash === '#') parsed.hash = '';
  return { url: parsed.href };
}

function truncate(value: string): string {
  return value.length > 120 ? value.slice(0, 117) + '...' : value;
}

/**
 * Readable, stable document ids derived from URLs ("https://url.spec.whatwg.org/" -> "url-spec-whatwg-org").
 * Ids that collide (or would be too long) get a short hash of the URL appended, for every member of the
 * collision, so an id never depends on the order of entries.
 */
export function assignDocumentIds(urls: string[]): Map<string, string> {
  const slugOf = new Map<string, string>();
  const bySlug = new Map<string, string[]>();
  for (const url of urls) {
    const slug = slugFor(url);
    slugOf.set(url, slug);
    bySlug.set(slug, [...(bySlug.get(slug) ?? []), url]);
  }
  const ids = new Map<string, string>();
  for (const url of [...urls].sort(compareCodeUnits)) {
    const slug = slugOf.get(url)!;
    const unique = bySlug.get(slug)!.length === 1 && slug.length <= MAX_SLUG;
    ids.set(url, unique ? slug : `${shorten(slug)}-${sha256Hex(url).slice(0, 8)}`);
  }
  return ids;
}

const MAX_SLUG = 80;

/** Keeps the start (the host) and the end (usually the file name) of a long slug. */
function shorten(slug: string): string {
  if (slug.length <= MAX_SLUG - 9) return slug;
  const head = slug.slice(0, 28).replace(/-+$/, '');
  const tail = slug.slice(-(MAX_SLUG - 9 - head.length - 3)).replace(/^-+/, '');
  return `${head}---${tail}`;
}

function slugFor(url: string): string {
  const parsed = new URL(url);
  const raw = `${parsed.hostname}${parsed.pathname}${parsed.search}${parsed.hash ? '-' + parsed.hash.slice(1) : ''}`;
  const slug = raw.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return slug || 'document';
}
