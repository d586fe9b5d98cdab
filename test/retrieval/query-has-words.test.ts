import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkQueryHasWords, parseQueryRequest } from '../../src/cli/query-request.js';
import { EpistemeError } from '../../src/failure.js';
import { seededRandom } from '../helpers/random.js';

/**
 * A query needs a word the index can hold (letters or digits): generated terms of punctuation, symbols
 * and spaces alone are refused as usage-error naming the terms; the same terms with one word in them,
 * anywhere, are accepted. Through parseQueryRequest too (--batch lines, MCP search).
 */
const SYMBOLS = [...'->#@<>=!?|&*+/\\^~%$:;.,()[]{}"\'`'];
const SPACES = [' ', '\t', '\u00a0'];

test('generated terms without a letter or digit are refused; with one word they are a query', () => {
  const next = seededRandom(31);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  for (let i = 0; i < 500; i++) {
    const length = 1 + Math.floor(next() * 12);
    const noise = Array.from({ length }, () => (next() < 0.8 ? pick(SYMBOLS) : pick(SPACES))).join('');
    assert.throws(
      () => checkQueryHasWords([noise]),
      (error: unknown) => error instanceof EpistemeError && error.code === 'usage-error' && /no word to search for/.test(error.message),
      JSON.stringify(noise),
    );
    assert.throws(() => parseQueryRequest({ terms: [noise] }), EpistemeError, JSON.stringify(noise));
    const at = Math.floor(next() * (noise.length + 1));
    const word = pick(['json', 'x', '42', 'étage', 'GET', 'キャッシュ']);
    const withWord = `${noise.slice(0, at)} ${word} ${noise.slice(at)}`;
    assert.doesNotThrow(() => checkQueryHasWords([noise, withWord]), JSON.stringify(withWord));
    assert.equal(parseQueryRequest({ terms: [withWord] }).terms[0], withWord);
  }
});
