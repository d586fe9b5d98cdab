import { test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../helpers/random.js';
import { canonicalJson, canonicalJsonBytes } from '../../src/store/canonical-json.js';

/**
 * canonicalJson takes JSON.stringify's native path when key order allows it and copies with sorted keys
 * otherwise; both must give exactly what the definition says. The reference below is the definition,
 * written the slow, obvious way.
 */
function reference(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new TypeError('non-finite');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map((item) => reference(item === undefined ? null : item)).join(',')}]`;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record)
    .filter((key) => record[key] !== undefined)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(record[key])}`).join(',')}}`;
}

const KEYS = ['a', 'b', 'B', 'ab', 'é', '\u{1F600}', '0', '1', '9', '10', '01', '-1', 'toString', '__proto__x', ''];
const STRINGS = ['', 'x', 'quote"back\\slash', 'line\nbreak', '\u2028', '\ud800', 'é\u{1F600}', '<\u0000>'];

function randomValue(random: () => number, depth: number): unknown {
  const pick = Math.floor(random() * (depth > 4 ? 5 : 8));
  switch (pick) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return [0, -0, 1.5, -7, 1e21, 2 ** 53, 5e-324][Math.floor(random() * 7)];
    case 3:
    case 4:
      return STRINGS[Math.floor(random() * STRINGS.length)];
    case 5: {
      const n = Math.floor(random() * 4);
      return Array.from({ length: n }, () => (random() < 0.1 ? undefined : randomValue(random, depth + 1)));
    }
    default: {
      const out: Record<string, unknown> = {};
      const shuffled = [...KEYS].sort(() => random() - 0.5).slice(0, Math.floor(random() * 6));
      if (random() < 0.5) shuffled.sort();
      for (const key of shuffled) out[key] = random() < 0.1 ? undefined : randomValue(random, depth + 1);
      return out;
    }
  }
}

test('canonical JSON equals the definition on random values (sorted, unsorted, integer-like keys, undefined)', () => {
  const random = seededRandom(27);
  for (let trial = 0; trial < 3000; trial++) {
    const value = randomValue(random, 0);
    assert.equal(canonicalJson(value), reference(value), JSON.stringify(value));
  }
});

test('canonical JSON ignores toJSON and refuses what JSON cannot hold', () => {
  class Dated {
    z = 2;
    toJSON(): string {
      return 'replaced';
    }
  }
  assert.equal(canonicalJson({ b: 1, a: new Dated() }), '{"a":{"z":2},"b":1}');
  assert.throws(() => canonicalJson({ a: [1, Number.NaN] }), /non-finite number at \$\.a\[1\]/);
  assert.throws(() => canonicalJson({ b: Infinity, a: 1 }), /non-finite/);
  assert.throws(() => canonicalJson({ f: () => 1 }), /unsupported function at \$\.f/);
  assert.throws(() => canonicalJson({ n: 1n }), /unsupported bigint/);
});

test('canonical JSON leaves its input unchanged and handles deep nesting', () => {
  const value = { z: [{ y: 1, x: 2 }], a: 'first' };
  const before = JSON.stringify(value);
  assert.equal(canonicalJson(value), '{"a":"first","z":[{"x":2,"y":1}]}');
  assert.equal(JSON.stringify(value), before);
  let deep: unknown = 'leaf';
  for (let i = 0; i < 1500; i++) deep = { b: deep, a: i };
  assert.equal(canonicalJson(deep), reference(deep));
});

test('canonical JSON in pieces is the same bytes as canonical JSON whole, errors included', () => {
  const random = seededRandom(28);
  for (let trial = 0; trial < 3000; trial++) {
    const value = randomValue(random, 0);
    // Long arrays as members too, split item by item (the threshold low, so most arrays split).
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && random() < 0.5)
      (value as Record<string, unknown>)['list'] = Array.from({ length: 6 }, () => (random() < 0.1 ? undefined : randomValue(random, 1)));
    assert.deepEqual(canonicalJsonBytes(value, 2), Buffer.from(canonicalJson(value), 'utf8'), JSON.stringify(value));
  }
  // A hole, a root with toJSON, integer-like keys, an empty object, non-Latin-1 text in one piece only.
  // biome-ignore lint/suspicious/noSparseArray: the hole is what is tested
  const holes = { a: [1, , 3, 4] };
  assert.equal(canonicalJsonBytes(holes, 1).toString('utf8'), '{"a":[1,null,3,4]}');
  class Dated {
    z = 2;
    toJSON(): string {
      return 'replaced';
    }
  }
  for (const value of [new Dated(), { 1: 'one', b: 'two' }, {}, { t: 'é\u{1F600}', u: ['plain', 'ünïcode', 'x'] }])
    assert.deepEqual(canonicalJsonBytes(value, 1), Buffer.from(canonicalJson(value), 'utf8'));
  // What canonical JSON refuses is refused with the same place named.
  assert.throws(() => canonicalJsonBytes({ a: [1, 2, Number.NaN] }, 1), /non-finite number at \$\.a\[2\]/);
  assert.throws(() => canonicalJsonBytes({ b: { f: () => 1 } }, 1), /unsupported function at \$\.b\.f/);
});
