import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkQueryHasWords, parseQueryRequest } from '../../src/cli/query-request.js';
import { EpistemeError } from '../../src/failure.js';
import { seededRandom } from '../helpers/random.js';

/**
 * A query needs a term the index can hold: a word (letters or digits) or an operator of two to four
 * symbols (`->>`). Generated terms of single punctuation marks and symbols between spaces are refused
 * as usage-error naming the terms; the same terms with one word in them, anywhere, are accepted, and
 * so are operators alone. Through parseQueryRequest too (--batch lines, MCP search).
 */
const SYMBOLS = [...'->#@<>=!?|&*+/\\^~%$:;.,()[]{}"\'`'];
const SPACES = [' ', '\t', '\u00a0'];

test('generated terms without a letter or digit are refused; with one word they are a query', () => {
  const next = seededRandom(31);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  for (let i = 0; i < 500; i++) {
    const length = 1 + Math.floor(next() * 12);
    const noise = Array.from({ length }, () => pick(SYMBOLS) + pick(SPACES)).join('');
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

test('an operator alone is a query: two to four symbols, or a backslash escape', () => {
  for (const operator of ['->>', '<=>', '$@', '::', '&&', '?<=', '\\K']) {
    assert.doesNotThrow(() => checkQueryHasWords([operator]), operator);
    assert.equal(parseQueryRequest({ terms: [operator] }).terms[0], operator);
  }
  for (const lone of ['-', '?', '()', '"', '...', '+------+']) assert.throws(() => checkQueryHasWords([lone]), EpistemeError, lone);
});
