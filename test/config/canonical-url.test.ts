import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assignDocumentIds, canonicalSourceUrl, RESERVED_DOCUMENT_IDS } from '../../src/config/source-url.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Each rule of docs/workspace.md, "Source URLs", as a table: input -> canonical form. Rows that share a canonical
 * form are the same source (a duplicate in a manifest or map); rows that differ are distinct sources.
 */
const CANONICAL: [rule: string, input: string, canonical: string][] = [
  // WHATWG URL parsing (url.html: scheme state, host parsing, URL serializing)
  ['scheme lowercased', 'HTTPS://a.example/', 'https://a.example/'],
  ['host lowercased', 'https://A.Example/', 'https://a.example/'],
  ['IDNA: Unicode host to punycode', 'https://Bücher.example/', 'https://xn--bcher-kva.example/'],
  ['IDNA: UTS #46 mapping of full-width characters', 'https://ｅｘａｍｐｌｅ.com/', 'https://example.com/'],
  ['percent-encoded host decoded before IDNA', 'https://%61.example/', 'https://a.example/'],
  ['IPv4 in hex and short form', 'http://0x7f.1/', 'http://127.0.0.1/'],
  ['IPv4 as one number', 'http://2130706433/', 'http://127.0.0.1/'],
  ['IPv4 in octal', 'http://0177.0.0.01/', 'http://127.0.0.1/'],
  ['IPv6 compressed and lowercased', 'http://[0:0:0:0:0:0:0:1]/', 'http://[::1]/'],
  ['IPv6 hex case', 'http://[2001:DB8::A]/', 'http://[2001:db8::a]/'],
  ['default port dropped (http)', 'http://a.example:80/x', 'http://a.example/x'],
  ['default port dropped (https)', 'https://a.example:443/x', 'https://a.example/x'],
  ['leading zeros of a port', 'https://a.example:0443/x', 'https://a.example/x'],
  ['non-default port kept', 'https://a.example:8443/x', 'https://a.example:8443/x'],
  ['empty path is /', 'https://a.example', 'https://a.example/'],
  ['single-dot segments removed', 'https://a.example/a/./b/.', 'https://a.example/a/b/'],
  ['double-dot segments resolved', 'https://a.example/a/b/../c', 'https://a.example/a/c'],
  ['double-dot above the root stays at the root', 'https://a.example/../../x', 'https://a.example/x'],
  ['percent-encoded dot segments resolved', 'https://a.example/a/%2E%2e/b/%2e/c', 'https://a.example/b/c'],
  ['backslash is a path separator in http(s)', 'https://a.example\\a\\b', 'https://a.example/a/b'],
  ['tab and newline removed', 'https://a.ex\tample/a\nb', 'https://a.example/ab'],
  ['leading and trailing spaces removed', '  https://a.example/x  ', 'https://a.example/x'],
  ['space in path percent-encoded', 'https://a.example/a b', 'https://a.example/a%20b'],
  ['non-ASCII path UTF-8 percent-encoded', 'https://a.example/é', 'https://a.example/%C3%A9'],
  ['quote in query percent-encoded (special query set)', "https://a.example/?a='b'", 'https://a.example/?a=%27b%27'],
  // RFC 3986 6.2.2 (Episteme's addition: WHATWG keeps these apart)
  ['unreserved tilde decoded', 'https://a.example/%7Euser/', 'https://a.example/~user/'],
  ['unreserved letters and digits decoded', 'https://a.example/%41%62%31', 'https://a.example/Ab1'],
  ['unreserved in query decoded', 'https://a.example/?q=%2D%2E%5F%7e', 'https://a.example/?q=-._~'],
  ['unreserved in fragment decoded', 'https://a.example/#%73ec', 'https://a.example/#sec'],
  ['hex digits of other escapes uppercased', 'https://a.example/a%2fb?x=%3d', 'https://a.example/a%2Fb?x=%3D'],
  ['malformed escape left as it is', 'https://a.example/100%', 'https://a.example/100%'],
  ['UTF-8 escapes uppercased, not decoded', 'https://a.example/%c3%a9', 'https://a.example/%C3%A9'],
  // Fragments
  ['empty fragment is no fragment', 'https://a.example/#', 'https://a.example/'],
  ['empty fragment after a query', 'https://a.example/x?y#', 'https://a.example/x?y'],
  ['non-empty fragment kept', 'https://a.example/#sec', 'https://a.example/#sec'],
  // Kept distinct
  ['empty query kept', 'https://a.example/x?', 'https://a.example/x?'],
  ['trailing dot of the host kept', 'https://a.example./', 'https://a.example./'],
  ['path case kept', 'https://a.example/A', 'https://a.example/A'],
  ['trailing slash kept', 'https://a.example/a/', 'https://a.example/a/'],
];

test('each canonicalisation rule maps its input to the canonical form, and the form is a fixed point', () => {
  for (const [rule, input, canonical] of CANONICAL) {
    const result = canonicalSourceUrl(input);
    assert.ok('url' in result, `${rule}: ${JSON.stringify(result)}`);
    assert.equal(result.url, canonical, rule);
    const again = canonicalSourceUrl(result.url);
    assert.ok('url' in again && again.url === canonical, `${rule}: canonical form is not stable`);
  }
});

test('same source or not: pairs that differ only by an equivalence are duplicates, the rest are not', () => {
  const same: [string, string][] = [
    ['https://a.example/#', 'https://a.example'],
    ['https://a.example/%7e', 'https://a.example/~'],
    ['HTTP://A.EXAMPLE:80/./x', 'http://a.example/x'],
    ['https://xn--bcher-kva.example/', 'https://bücher.example/'],
    ['https://a.example/a%2fb', 'https://a.example/a%2Fb'],
  ];
  const different: [string, string][] = [
    ['https://a.example/x?', 'https://a.example/x'],
    ['https://a.example./', 'https://a.example/'],
    ['https://a.example/a%2Fb', 'https://a.example/a/b'],
    ['https://a.example/#a', 'https://a.example/'],
    ['http://a.example/', 'https://a.example/'],
    ['https://a.example/A', 'https://a.example/a'],
    ['https://a.example:8443/', 'https://a.example/'],
  ];
  const form = (url: string): string => {
    const result = canonicalSourceUrl(url);
    assert.ok('url' in result, url);
    return result.url;
  };
  for (const [a, b] of same) assert.equal(form(a), form(b), `${a} and ${b} are one source`);
  for (const [a, b] of different) assert.notEqual(form(a), form(b), `${a} and ${b} are two sources`);
});

test('refused URLs: not http(s), credentials, unparsable', () => {
  for (const bad of [
    'ftp://a.example/',
    'file:///etc/passwd',
    'https://user:pw@a.example/',
    'https://user@a.example/',
    'https://a b.example/',
    'not a url',
    'https://[::1/',
  ]) {
    assert.ok('error' in canonicalSourceUrl(bad), bad);
  }
});

test('generated URLs: canonicalisation is idempotent and percent-encoding variants of unreserved characters agree', () => {
  const random = seededRandom(9);
  const pick = <T>(items: T[]): T => items[Math.floor(random() * items.length)]!;
  const pieces = [
    'a',
    'Z',
    '0',
    '-',
    '.',
    '_',
    '~',
    '%7e',
    '%7E',
    '%41',
    '%2f',
    '%2F',
    '%20',
    ' ',
    'é',
    '..',
    '.',
    '/',
    '%2e',
    '?',
    '#',
    '',
    '%',
    '%zz',
  ];
  for (let i = 0; i < 2000; i += 1) {
    let tail = '';
    for (let j = 0; j < 1 + Math.floor(random() * 10); j += 1) tail += pick(pieces);
    const url = `${pick(['http', 'HTTPS', 'https'])}://${pick(['a.example', 'A.EXAMPLE', 'a.example:443', '127.0.0.1', '0x7f.1'])}/${tail}`;
    const first = canonicalSourceUrl(url);
    if (!('url' in first)) continue;
    const second = canonicalSourceUrl(first.url);
    assert.ok('url' in second && second.url === first.url, `not idempotent: ${url} -> ${first.url} -> ${JSON.stringify(second)}`);
    assert.ok(!first.url.endsWith('#') || new URL(first.url).hash !== '', `empty fragment kept: ${url} -> ${first.url}`);
    // (Right after a stray "%", a hex digit stays encoded so as not to form a new escape.)
    if (!/%(?![0-9A-F]{2})/i.test(first.url)) {
      assert.doesNotMatch(
        first.url,
        /%(?:[46][1-9A-F]|[57][0-9A]|3[0-9]|2[DE]|5F|7E)/i,
        `an unreserved character stayed encoded: ${first.url}`,
      );
    }
  }
});

test('document ids: never a reserved name, always unique, independent of the order of entries', () => {
  const random = seededRandom(5);
  const hostile: string[] = [];
  for (const reserved of RESERVED_DOCUMENT_IDS) {
    const words = reserved.split('-');
    for (const scheme of ['http', 'https']) {
      hostile.push(
        `${scheme}://${reserved}/`,
        `${scheme}://${words.join('.')}/`,
        `${scheme}://${reserved.toUpperCase()}/`,
        `${scheme}://${reserved}./`,
      );
      hostile.push(
        `${scheme}://${words[0]}/${words.slice(1).join('/')}`,
        `${scheme}://${reserved}/?`,
        `${scheme}://${reserved}/#`,
        `${scheme}://${reserved}/--`,
      );
    }
  }
  const canonical = [...new Set(hostile.map((url) => (canonicalSourceUrl(url) as { url: string }).url))];
  for (let round = 0; round < 50; round += 1) {
    // Mix in ordinary URLs and URLs whose plain slug looks like another's suffixed id.
    const urls = [...canonical];
    for (let i = 0; i < 20; i += 1) urls.push(`https://x.example/${Math.floor(random() * 5)}/${i % 3}`);
    const shuffled = [...new Set(urls)].sort(() => random() - 0.5);
    const ids = assignDocumentIds(shuffled);
    const values = [...ids.values()];
    assert.equal(new Set(values).size, values.length, 'ids are unique');
    for (const id of values) assert.ok(!RESERVED_DOCUMENT_IDS.has(id), `reserved id ${id}`);
    assert.deepEqual([...assignDocumentIds([...shuffled].reverse()).entries()].sort(), [...ids.entries()].sort());
  }
  // A plain slug equal to another URL's suffixed id.
  const twins = ['https://x/a', 'https://x/a/'];
  const suffixedId = assignDocumentIds(twins).get('https://x/a')!;
  const clash = `https://${suffixedId}/`;
  const ids = assignDocumentIds([...twins, clash]);
  assert.equal(new Set(ids.values()).size, 3, `ids: ${JSON.stringify([...ids])}`);
});
