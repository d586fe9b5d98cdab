import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { assignDocumentIds, canonicalSourceUrl, normalisePercentEncoding, RESERVED_DOCUMENT_IDS } from '../../src/config/source-url.js';
import { localPathResolver } from '../../src/config/manual-ingest-map.js';
import { seededRandom } from '../helpers/random.js';
import * as path from 'node:path';

/**
 * Loading a map of 10,000 entries spent most of its time in URL canonicalisation and document ids, so
 * both were made cheaper (no setter that re-serialises every URL, no list copied per entry, no sort
 * callback). These tests hold the fast forms to the straightforward ones they replaced, over many
 * generated URLs, hostile ones included: IDNA, percent-encoding, dot segments, ports, userinfo,
 * queries, empty and non-empty fragments, IPv4/IPv6 notations, backslashes, control characters.
 */

/** The canonicalisation as first written: the fragment setter applied to every URL without one. */
function straightforwardCanonical(raw: string): { url: string } | { error: string } {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    return { error: 'invalid' };
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return { error: 'scheme' };
  if (parsed.username || parsed.password) return { error: 'credentials' };
  const pathname = normalisePercentEncoding(parsed.pathname);
  if (pathname !== parsed.pathname) parsed.pathname = pathname;
  const search = normalisePercentEncoding(parsed.search);
  if (search !== parsed.search) parsed.search = search;
  const hash = normalisePercentEncoding(parsed.hash);
  if (hash !== parsed.hash) parsed.hash = hash;
  if (parsed.hash === '') parsed.hash = '';
  return { url: parsed.href };
}

/** Document ids as first written: member lists per slug and per id, sorted with a comparator. */
function straightforwardIds(urls: string[]): Map<string, string> {
  const slugFor = (url: string): string => {
    const parsed = new URL(url);
    const raw = `${parsed.hostname}${parsed.pathname}${parsed.search}${parsed.hash ? '-' + parsed.hash.slice(1) : ''}`;
    const slug = raw
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '');
    return slug || 'document';
  };
  const shorten = (slug: string): string => {
    if (slug.length <= 71) return slug;
    const head = slug.slice(0, 28).replace(/-+$/, '');
    const tail = slug.slice(-(71 - head.length - 3)).replace(/^-+/, '');
    return `${head}---${tail}`;
  };
  const suffixed = (slug: string, url: string, n: number): string =>
    `${shorten(slug)}-${createHash('sha256').update(url).digest('hex').slice(0, n)}`;
  const slugOf = new Map<string, string>();
  const bySlug = new Map<string, string[]>();
  for (const url of urls) {
    const slug = slugFor(url);
    slugOf.set(url, slug);
    bySlug.set(slug, [...(bySlug.get(slug) ?? []), url]);
  }
  const ids = new Map<string, string>();
  const sorted = [...urls].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const url of sorted) {
    const slug = slugOf.get(url)!;
    const unique = bySlug.get(slug)!.length === 1 && slug.length <= 80 && !RESERVED_DOCUMENT_IDS.has(slug);
    ids.set(url, unique ? slug : suffixed(slug, url, 8));
  }
  for (let n = 16; n <= 64; n *= 2) {
    const byId = new Map<string, string[]>();
    for (const url of sorted) byId.set(ids.get(url)!, [...(byId.get(ids.get(url)!) ?? []), url]);
    const clashing = [...byId.values()].filter((members) => members.length > 1).flat();
    if (clashing.length === 0) break;
    for (const url of clashing) ids.set(url, suffixed(slugOf.get(url)!, url, n));
  }
  return ids;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

const SCHEMES = ['http', 'https', 'HTTPS', 'HtTp', 'ftp', 'file', 'javascript', ''];
const USERINFO = ['', '', '', 'user@', 'user:pass@', ':@', '%75ser@'];
const HOSTS = [
  'a.example',
  'A.Example',
  'bücher.example',
  'ｅｘａｍｐｌｅ.com',
  'xn--bcher-kva.example',
  'xn--zz',
  '%61.example',
  '0x7f.1',
  '2130706433',
  '0177.0.0.01',
  '[0:0:0:0:0:0:0:1]',
  '[2001:DB8::A]',
  'a.example.',
  'a-1a2b3c4d.example',
  'index',
  'search-index',
  'x',
  'a..b',
  'a%00b',
  'a b',
  '',
  'ex\tample',
];
const PORTS = ['', '', ':80', ':443', ':0443', ':8443', ':', ':99999', ':x'];
const SEGMENTS = [
  'a',
  'A',
  '.',
  '..',
  '%2e',
  '%2E%2e',
  'b c',
  'é',
  '%7Euser',
  '%41%62%31',
  '%2f',
  '%2F',
  '100%',
  '%%41',
  '%c3%a9',
  'index',
  '',
  '\\',
  'x\ny',
];
const QUERIES = ['', '', '?', '?q=%2D%2E%5F%7e', "?a='b'", '?x=%3d', '?%', '?a=1&b=2', '?é'];
const FRAGMENTS = ['', '', '#', '#sec', '#%73ec', '#%', '#a b', '#é'];

function generatedUrl(random: () => number): string {
  const scheme = pick(random, SCHEMES);
  const path = Array.from({ length: Math.floor(random() * 4) }, () => pick(random, SEGMENTS)).join(pick(random, ['/', '/', '\\']));
  const authority = `${pick(random, USERINFO)}${pick(random, HOSTS)}${pick(random, PORTS)}`;
  const rest = `${path ? '/' + path : pick(random, ['', '/'])}${pick(random, QUERIES)}${pick(random, FRAGMENTS)}`;
  const url = `${scheme}${scheme ? '://' : ''}${authority}${rest}`;
  return random() < 0.1 ? `  ${url} ` : url;
}

test('canonical URLs equal the straightforward canonicalisation over 20,000 generated URLs, hostile ones included', () => {
  const random = seededRandom(20261201);
  let accepted = 0;
  for (let i = 0; i < 20_000; i += 1) {
    const raw = generatedUrl(random);
    const fast = canonicalSourceUrl(raw);
    const reference = straightforwardCanonical(raw);
    assert.equal('url' in fast, 'url' in reference, `accepted or refused alike: ${JSON.stringify(raw)}`);
    if ('url' in fast && 'url' in reference) {
      accepted += 1;
      assert.equal(fast.url, reference.url, JSON.stringify(raw));
      const again = canonicalSourceUrl(fast.url);
      assert.ok('url' in again && again.url === fast.url, `a fixed point: ${fast.url}`);
    }
  }
  assert.ok(accepted > 3_000, `enough accepted URLs to mean something (${accepted})`);
});

test('document ids equal the straightforward assignment, colliding slugs and reserved names included', () => {
  const random = seededRandom(7);
  for (let round = 0; round < 40; round += 1) {
    const urls = new Set<string>();
    const size = 1 + Math.floor(random() * 400);
    while (urls.size < size) {
      const canonical = canonicalSourceUrl(generatedUrl(random));
      if ('url' in canonical) urls.add(canonical.url);
    }
    // Slug collisions on purpose: the same slug from different punctuation, and a plain slug that
    // equals another URL's suffixed id.
    for (const url of [...urls].slice(0, 5)) {
      urls.add(url.replace(/\/?$/, '/-'));
      const ids = assignDocumentIds([url, `${url}?`]);
      for (const id of ids.values()) urls.add(`https://${id}/`);
    }
    const list = [...urls];
    assert.deepEqual([...assignDocumentIds(list)].sort(), [...straightforwardIds(list)].sort(), `round ${round}`);
  }
});

test('local paths joined as strings equal path.resolve and path.relative, odd segments and folders included', () => {
  const random = seededRandom(42);
  const SEGMENTS = ['a', 'src', 'é', 'a b', '.', '..', '...', '.hidden', '..x', 'x..', '', '\\', 'a\\b', '~', '-', 'index.html'];
  const FOLDERS: [base: string, root: string][] = [
    ['/ws', '/ws'],
    ['/ws/maps', '/ws'],
    ['/ws/maps/deep/', '/ws'],
    ['/ws/../ws/maps', '/ws'],
    ['/elsewhere', '/ws'],
    ['/', '/'],
    ['/ws/..foo', '/ws'],
    ['/ws', '/ws/'],
  ];
  for (const [base, root] of FOLDERS) {
    const resolve = localPathResolver(base, root);
    for (let i = 0; i < 3_000; i += 1) {
      const segments = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(random, SEGMENTS));
      const localPath = `${random() < 0.1 ? '/' : ''}${segments.join(random() < 0.1 ? '//' : '/')}${random() < 0.1 ? '/' : ''}`;
      const absolutePath = path.resolve(base, localPath);
      const expected = { absolutePath, relativePath: path.relative(root, absolutePath).split(path.sep).join('/') };
      assert.deepEqual(resolve(localPath), expected, `${JSON.stringify(localPath)} from ${base} in ${root}`);
    }
  }
});
