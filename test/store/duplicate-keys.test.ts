import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstDuplicateKey, lineOf } from '../../src/store/duplicate-keys.js';
import { seededRandom } from '../helpers/random.js';

/**
 * The duplicate-key scan (src/store/duplicate-keys.ts) relies on JSON.parse having accepted the text and
 * skips strings by searching for quotes, so the cases that matter are strings that look like structure,
 * escapes (of quotes, of backslashes, of the key itself) and where in the nesting a key repeats.
 */

test('finds the key given twice and the path to its object; equal keys in different objects are fine', () => {
  const cases: [string, { path: (string | number)[]; key: string } | null][] = [
    ['{"a": 1, "a": 2}', { path: [], key: 'a' }],
    ['{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}', null],
    ['[{"x": 1}, {"y": 1, "x": 2, "y": 3}]', { path: [1], key: 'y' }],
    ['{"outputs": {"specs": "a", "specs": "b"}}', { path: ['outputs'], key: 'specs' }],
    ['[[], [{}, {"k": [1, {"deep": {"z": 0, "z": 1}}]}]]', { path: [1, 1, 'k', 1, 'deep'], key: 'z' }],
    // Escapes are decoded before comparing, as JSON.parse does.
    ['{"a": 1, "\\u0061": 2}', { path: [], key: 'a' }],
    ['{"\\"": 1, "\\u0022": 2}', { path: [], key: '"' }],
    ['{"a\\\\": 1, "a\\\\\\\\": 2, "a\\u005c": 3}', { path: [], key: 'a\\' }],
    // Strings holding quotes, braces, commas and colons are values, not structure.
    ['{"a": "\\",\\"a\\": {", "b": "}, \\"a\\": ["}', null],
    ['{"a": "x\\\\", "b": "\\\\\\"", "a": 1}', { path: [], key: 'a' }],
    ['{"k": "{\\"k\\": 1, \\"k\\": 2}"}', null],
    // A key equal to a value is not a duplicate; the empty key is a key like any other.
    ['{"a": "b", "b": "a"}', null],
    ['{"": 1, "": 2}', { path: [], key: '' }],
    ['{"__proto__": 1, "__proto__": 2}', { path: [], key: '__proto__' }],
    ['[1, "a", true, null, -2.5e3, {}]', null],
    ['"just a string"', null],
  ];
  for (const [text, expected] of cases) {
    JSON.parse(text); // every case is valid JSON
    const found = firstDuplicateKey(text);
    assert.deepEqual(found === null ? null : { path: found.path, key: found.key }, expected, text);
    if (found !== null) assert.equal(text[found.offset], '"', `${text}: the offset is a key's quote`);
  }
});

test('the line of the second occurrence', () => {
  const text = '{\n  "manualIngest": "a.json",\n  "outputs": {},\n  "manualIngest": "b.json"\n}';
  const found = firstDuplicateKey(text)!;
  assert.equal(lineOf(text, found.offset), 4);
  assert.equal(lineOf('{"a":1,"a":2}', 7), 1);
});

type Value = null | number | string | Value[] | { entries: [string, Value][] };

/**
 * Generated documents: random nesting, keys from a small alphabet (so repeats happen by chance), each
 * written in a random spelling (plain, \u-escaped, with escaped quotes and backslashes) and random
 * whitespace. The expected answer walks the tree in text order, which is what the scan must find first.
 */
test('generated documents: the scan agrees with a walk of the tree they were written from', () => {
  const random = seededRandom(20261207);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const KEYS = ['a', 'b', 'c', 'x"y', 'p\\q', '{', ',', ':', ']', 'é'];
  const value = (depth: number): Value => {
    const roll = random();
    if (depth > 3 || roll < 0.3) return pick([null, 7, -0.5, 'plain', 'q"uote', 'back\\slash', '{"a": 1, "a": 2}', '[', '}']);
    if (roll < 0.55) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
    return { entries: Array.from({ length: Math.floor(random() * 5) }, () => [pick(KEYS), value(depth + 1)] as [string, Value]) };
  };
  const space = (): string => pick(['', ' ', '\n', '\t ', '\r\n  ']);
  const spellKey = (key: string): string => {
    const style = random();
    if (style < 0.5) return JSON.stringify(key);
    if (style < 0.8) return `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"`;
    return `"${key.replace(/[\\"]/g, (c) => (c === '"' ? '\\u0022' : '\\\\'))}"`;
  };
  const write = (v: Value): string => {
    if (v === null || typeof v !== 'object') return JSON.stringify(v);
    if (Array.isArray(v)) return `[${space()}${v.map(write).join(`${space()},${space()}`)}${space()}]`;
    return `{${space()}${v.entries.map(([k, item]) => `${spellKey(k)}${space()}:${space()}${write(item)}`).join(`,${space()}`)}${space()}}`;
  };
  const expected = (v: Value, path: (string | number)[]): { path: (string | number)[]; key: string } | null => {
    if (v === null || typeof v !== 'object') return null;
    if (Array.isArray(v)) {
      for (const [index, item] of v.entries()) {
        const found = expected(item, [...path, index]);
        if (found !== null) return found;
      }
      return null;
    }
    const seen = new Set<string>();
    for (const [key, item] of v.entries) {
      if (seen.has(key)) return { path, key };
      seen.add(key);
      const found = expected(item, [...path, key]);
      if (found !== null) return found;
    }
    return null;
  };
  let duplicates = 0;
  for (let n = 0; n < 3000; n += 1) {
    const tree = value(0);
    const text = write(tree);
    JSON.parse(text);
    const want = expected(tree, []);
    const found = firstDuplicateKey(text);
    assert.deepEqual(found === null ? null : { path: found.path, key: found.key }, want, text);
    if (want !== null) duplicates += 1;
  }
  assert.ok(duplicates > 300 && duplicates < 2700, `${duplicates} of 3000 documents have a duplicate: both kinds are exercised`);
});
