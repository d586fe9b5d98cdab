import { test } from 'node:test';
import assert from 'node:assert/strict';
import { joinedPairs } from '../../src/query/joined-words.js';

test('joined pairs: neighbouring content words outside quotes, with the terms of each word', () => {
  assert.deepEqual([...joinedPairs(['error bars'])], [['errorbar', ['error', 'bar']]]);
  assert.deepEqual(
    [...joinedPairs(['host name', 'time stamp'])].map(([term]) => term),
    ['hostnam', 'timestamp'],
  );
  // A function word joins nothing ("in line" is no question about inline), nor do words a quote holds.
  assert.deepEqual([...joinedPairs(['keep it in line'])], []);
  assert.deepEqual([...joinedPairs(['"error bars"'])], []);
  // Only words a space separates: a hyphenated word is one word of two terms, and joins nothing.
  assert.deepEqual([...joinedPairs(['same-origin policy'])], []);
  // Each pair once, whatever the query repeats.
  assert.equal(joinedPairs(['error bars, error bars']).size, 1);
});
