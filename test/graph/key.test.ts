import { test } from 'node:test';
import assert from 'node:assert/strict';
import { initFastHash, fastHash } from '../../src/store/hash.js';
import { canonicalJson } from '../../src/store/canonical-json.js';
import { diffComponents, KEY_SCHEMA_VERSION, namedOptions, targetKey, type KeyComponents } from '../../src/graph/key.js';

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
