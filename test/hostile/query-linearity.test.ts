import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ORDERED_WEIGHT, PROXIMITY_WINDOW, proximityEvidence, type QueryPair } from '../../src/query/proximity.js';
import { seededRandom } from '../helpers/random.js';

/**
 * Query-side work grows with the query and the chunk, not with their product's square: each case
 * compares an adversarial query with an ordinary one of the same size, read against chunks of the
 * same length. Generous by design (it tells linear from quadratic, not fast from slow).
 */
const RATIO = 8;
/** Times below this are mostly timer noise: the ratio is taken against at least this. */
const FLOOR_MS = 20;

function timed(run: () => void): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

test('proximity: one word in hundreds of query pairs costs what words in one pair each cost', () => {
  // `zz q0 zz q1 zz q2 ...` (a typed query of 3 KB) pairs zz with every q; a chunk repeating zz then
  // scanned each occurrence's pairs against each neighbour's: 400 x 400 per neighbour, seconds a chunk.
  const k = 400;
  const shared: QueryPair[] = Array.from({ length: k }, (_, i) => ['zz', `q${i}`] as const);
  const apart: QueryPair[] = Array.from({ length: k }, (_, i) => [`p${i}`, `q${i}`] as const);
  const idf = (): number => 1;
  const chunk = (word: string): string[] => Array<string>(1000).fill(word);
  proximityEvidence(chunk('p0'), apart, idf, 1.2);
  const ordinary = timed(() => proximityEvidence(chunk('p0'), apart, idf, 1.2));
  const heavy = timed(() => proximityEvidence(chunk('zz'), shared, idf, 1.2));
  console.log(`# proximity: shared word ${heavy.toFixed(1)} ms, words apart ${ordinary.toFixed(1)} ms`);
  assert.ok(heavy <= RATIO * Math.max(ordinary, FLOOR_MS), `shared word ${heavy.toFixed(0)} ms vs ${ordinary.toFixed(0)} ms`);
});

/** proximity.ts's definition, pair by pair: each close occurrence of its two words, in position order. */
function reference(terms: readonly string[], pairs: readonly QueryPair[]): Map<number, number> {
  const acc = new Map<number, number>();
  for (let i = 0; i < terms.length; i++) {
    for (let j = i + 1; j < terms.length && j - i <= PROXIMITY_WINDOW; j++) {
      const d = j - i;
      pairs.forEach(([a, b], p) => {
        const inOrder = terms[i] === a && terms[j] === b;
        if (!inOrder && !(terms[i] === b && terms[j] === a)) return;
        acc.set(p, (acc.get(p) ?? 0) + (inOrder && d === 1 ? ORDERED_WEIGHT : 1) / (d * d));
      });
    }
  }
  return acc;
}

test('proximity: accumulations are those of the definition, words in many pairs or one', () => {
  const next = seededRandom(29);
  const words = ['a', 'b', 'c', 'd', 'e'];
  for (let round = 0; round < 200; round++) {
    const pairs: QueryPair[] = [];
    const seen = new Set<string>();
    for (let n = 1 + Math.floor(next() * 6); pairs.length < n; ) {
      const a = words[Math.floor(next() * words.length)]!;
      const b = words[Math.floor(next() * words.length)]!;
      if (a === b || seen.has(`${a} ${b}`) || seen.has(`${b} ${a}`)) continue;
      seen.add(`${a} ${b}`);
      pairs.push([a, b]);
    }
    const terms = Array.from({ length: Math.floor(next() * 40) }, () => words[Math.floor(next() * words.length)]!);
    const got = new Map(proximityEvidence(terms, pairs, () => 1, 1.2).map((e) => [pairs.indexOf(e.pair), e.accumulation]));
    assert.deepEqual(got, reference(terms, pairs), `${terms.join(' ')} | ${pairs.map((p) => p.join('+')).join(' ')}`);
  }
});
