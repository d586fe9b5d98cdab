import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initFastHash, fastHash } from '../../src/store/hash.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import {
  derivePatchedKeyText,
  diffComponents,
  KEY_SCHEMA_VERSION,
  keyText,
  namedOptions,
  targetKey,
  type KeyComponents,
} from '../../src/graph/key.js';

const base: KeyComponents = {
  rule: 'chunk',
  ruleVersion: 2,
  producerVersion: '0.1.0',
  options: { 'chunk.maxChars': '1200', 'chunk.overlapChars': '150' },
  inputs: { 'specs/b.json': 'bb', 'specs/a.json': 'aa' },
};

test('the key is the hash of the canonical JSON of its components', async () => {
  await initFastHash();
  assert.equal(targetKey(base), fastHash(canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...base })));
});

test('the key ignores the order of inputs and options but not their values', async () => {
  await initFastHash();
  const shuffled: KeyComponents = {
    ...base,
    options: { 'chunk.overlapChars': '150', 'chunk.maxChars': '1200' },
    inputs: { 'specs/a.json': 'aa', 'specs/b.json': 'bb' },
  };
  assert.equal(targetKey(shuffled), targetKey(base));
  for (const changed of [
    { ...base, ruleVersion: 3 },
    { ...base, producerVersion: '0.2.0' },
    { ...base, options: { ...base.options, 'chunk.maxChars': '800' } },
    { ...base, inputs: { ...base.inputs, 'specs/a.json': 'ab' } },
    { ...base, inputs: { 'specs/a.json': 'aa' } },
  ]) {
    assert.notEqual(targetKey(changed), targetKey(base));
  }
});

test('diffComponents names what changed', () => {
  const after: KeyComponents = {
    ...base,
    ruleVersion: 3,
    options: { 'chunk.maxChars': '800', 'chunk.overlapChars': '150' },
    inputs: { 'specs/a.json': 'ax', 'src/new.html': 'nn' },
  };
  const reasons = diffComponents(base, after, (input) => input.startsWith('specs/'));
  assert.deepEqual(reasons, [
    { reason: 'rule-version-changed', before: 2, after: 3 },
    { reason: 'option-changed', name: 'chunk.maxChars', before: '1200', after: '800' },
    { reason: 'upstream-changed', input: 'specs/a.json', before: 'aa', after: 'ax' },
    { reason: 'upstream-changed', input: 'specs/b.json', before: 'bb', after: null },
    { reason: 'input-changed', input: 'src/new.html', before: null, after: 'nn' },
  ]);
});

test('named options keep short values readable and hash long ones', async () => {
  await initFastHash();
  const rules = { selectors: Array.from({ length: 50 }, (_, i) => `.class-${i}`) };
  const named = namedOptions('extract', { family: { id: 'w3c', rules }, fragment: null, links: true });
  assert.equal(named['extract.fragment'], 'null');
  assert.equal(named['extract.links'], 'true');
  assert.match(named['extract.family']!, /"id":"w3c".*hash:[0-9a-f]{16}/);
  assert.ok(named['extract.family']!.length < 120);
  const edited = namedOptions('extract', {
    family: { id: 'w3c', rules: { selectors: [...rules.selectors, '.one-more'] } },
    fragment: null,
    links: true,
  });
  assert.notEqual(edited['extract.family'], named['extract.family']);
});

test('inputs already in code-unit order give the key the sorting path gives (escapes and integer-like names included)', async () => {
  await initFastHash();
  const names = [
    'chunks/a"quote.json',
    'chunks/b\\slash.json',
    'chunks/c\u0001ctl.json',
    'chunks/d\u2028sep.json',
    'chunks/\u{1F600}.json',
  ];
  const sorted: Record<string, string> = {};
  for (const name of [...names].sort()) sorted[name] = `h-${name}`;
  const reversed: Record<string, string> = {};
  for (const name of [...names].sort().reverse()) reversed[name] = `h-${name}`;
  const a = { ...base, inputs: sorted };
  assert.equal(targetKey(a), fastHash(canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...a })));
  assert.equal(targetKey(a), targetKey({ ...base, inputs: reversed }));
  // Integer-like names are listed first by JavaScript whatever the insertion order: still canonical.
  const numeric = { ...base, inputs: { '9': 'x', '10': 'y', a: 'z' } };
  assert.equal(targetKey(numeric), fastHash(canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...numeric })));
});

test('a patched key text (an aggregate edited in a few inputs) equals the text built from scratch, whatever the names', async () => {
  await initFastHash();
  // Names chosen to trip a text search: quotes, commas, braces, colons, backslashes, prefixes of others,
  // a name equal to another's value, and an option with an input's name.
  let seed = 12345;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const alphabet = ['a', 'b', '/', '"', ',', '{', '}', ':', '\\', 'é', '\u2028', '0'];
  const hex = (): string => Array.from({ length: 64 }, () => '0123456789abcdef'[random(16)]).join('');
  for (let round = 0; round < 40; round += 1) {
    const names = new Set<string>();
    while (names.size < 64 + random(200)) {
      let name = `chunks/${Array.from({ length: 1 + random(6) }, () => alphabet[random(alphabet.length)]).join('')}`;
      if (random(4) === 0 && names.size > 0) name = [...names][random(names.size)]! + alphabet[random(alphabet.length)];
      names.add(name);
    }
    // A decoy: a name ending in a quote and another name, with the same value, comes first in the text.
    names.add('chunks/x');
    names.add('chunks/q"chunks/x');
    const sorted = [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const inputs: Record<string, string> = {};
    for (const name of round % 2 === 0 ? sorted : [...names]) inputs[name] = hex();
    // A value that is also the text of a key and value pair elsewhere must not be mistaken for it.
    inputs[sorted[0]!] = `${JSON.stringify(sorted[1]!)}:${JSON.stringify(inputs[sorted[1]!]!)}`;
    inputs['chunks/q"chunks/x'] = inputs['chunks/x']!;
    const before: KeyComponents = { ...base, options: { [sorted[2]!]: JSON.stringify(inputs[sorted[2]!]) }, inputs };
    assert.equal(keyText(before), canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...before }));
    const changed = new Map<string, string>();
    changed.set('chunks/x', hex());
    for (let i = 0; i < random(5); i += 1) changed.set(sorted[random(sorted.length)]!, random(3) === 0 ? 'x"y' : hex());
    const after: KeyComponents = { ...before, inputs: { ...inputs, ...Object.fromEntries(changed) } };
    derivePatchedKeyText(before, after, changed);
    assert.equal(keyText(after), canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...after }), `round ${round}`);
    assert.equal(targetKey(after), fastHash(canonicalJson({ keySchemaVersion: KEY_SCHEMA_VERSION, ...after })));
  }
});
