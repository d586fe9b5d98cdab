import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nearDuplicate, SharedTrigrams } from '../../src/query/citation-choice.js';
import { bestOf } from '../../src/query/query.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Generated checks of two query-time shortcuts against their plain definitions: the near-duplicate
 * counts (one pass over numeric trigrams) against string trigram sets, and the best hits (one sort of
 * packed keys) against a comparator sort.
 */

const trigramSet = (text: string): Set<string> => {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return new Set(words.slice(2).map((word, i) => `${words[i]} ${words[i + 1]} ${word}`));
};

function randomTexts(random: () => number, count: number, vocabulary: string[]): string[] {
  const base = Array.from({ length: 40 }, () => vocabulary[Math.floor(random() * vocabulary.length)]!);
  return Array.from({ length: count }, () => {
    // Variants of one passage (words dropped, changed, re-cased, punctuated) beside unrelated texts.
    const words = random() < 0.6 ? base.filter(() => random() > 0.05) : Array.from({ length: 30 }, () => vocabulary[0]!);
    for (let i = 0; i < words.length; i++) {
      if (random() < 0.06) words[i] = vocabulary[Math.floor(random() * vocabulary.length)]!;
      if (random() < 0.1) words[i] = words[i]!.toUpperCase();
    }
    return words.join(random() < 0.5 ? ' ' : ', ');
  });
}

test('shared trigram counts decide near duplicates exactly as string trigram sets do', () => {
  const random = seededRandom(30);
  const vocabulary = ['cache', 'request', 'état', 'größe', 'max-age', '304', 'the', 'of', 'a', 'response', 'stale', 'x'];
  let near = 0;
  for (let round = 0; round < 200; round++) {
    const texts: (string | null)[] = randomTexts(random, 2 + Math.floor(random() * 8), vocabulary);
    if (random() < 0.3) texts[0] = null; // a text not compared
    const shared = new SharedTrigrams(texts);
    for (let a = 0; a < texts.length; a++) {
      if (texts[a] === null) continue;
      assert.equal(shared.sizes[a], trigramSet(texts[a]!).size);
      for (let b = 0; b < texts.length; b++) {
        if (a === b || texts[b] === null) continue;
        const expected = nearDuplicate(trigramSet(texts[a]!), trigramSet(texts[b]!));
        assert.equal(shared.near(a, b), expected, `${texts[a]} | ${texts[b]}`);
        if (expected) near++;
      }
    }
  }
  assert.ok(near > 50, `the generated texts include near duplicates (${near})`);
});

test('shared trigram counts stay exact past 2^17 distinct words (word pairs get ids of their own)', () => {
  const many = Array.from({ length: 70_000 }, (_, i) => `w${i}`);
  const first = many.join(' ');
  const second = many.slice(0, 60_000).join(' ') + ' ' + Array.from({ length: 70_000 }, (_, i) => `v${i}`).join(' ');
  const shared = new SharedTrigrams([first, second]);
  assert.equal(shared.near(0, 1), nearDuplicate(trigramSet(first), trigramSet(second)));
  assert.equal(shared.near(0, 1), true);
  assert.equal(shared.sizes[1], trigramSet(second).size);
});

test('the best hits are the comparator sort of points descending, then ordinal ascending', () => {
  const random = seededRandom(31);
  for (let round = 0; round < 300; round++) {
    const count = Math.floor(random() * 200);
    const scores = Array.from({ length: count + 50 }, () => Math.floor(random() * 20)); // many ties
    if (random() < 0.2) scores[0] = 2 ** 52; // too wide to pack: the comparator path
    if (random() < 0.2) scores[1] = -5;
    const matched = Array.from({ length: count }, (_, i) => i + Math.floor(random() * 50)).filter((o, i, all) => all.indexOf(o) === i);
    const keep = Math.floor(random() * 70);
    const ranksBefore = (a: number, b: number): boolean => scores[a]! > scores[b]! || (scores[a] === scores[b] && a < b);
    const expected = [...matched].sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, keep);
    assert.deepEqual(bestOf([...matched], keep, scores, ranksBefore), expected);
  }
});
