import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EvidenceDocument } from '../../src/document/types.js';
import { devCorpusDirectory, extractDevCorpus } from '../../bench/retrieval/dev-corpus.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

let devCorpus: Promise<EvidenceDocument[] | undefined> | undefined;

/** The extracted dev corpus (cached per process), or undefined when ../shared is absent. */
export function loadDevCorpus(): Promise<EvidenceDocument[] | undefined> {
  devCorpus ??= extractDevCorpus(devCorpusDirectory(repoRoot));
  return devCorpus;
}

export const DEV_CORPUS_MISSING = `dev corpus not found at ${devCorpusDirectory(repoRoot)} (../shared is absent)`;

export { seededRandom as random } from '../helpers/random.js';

/**
 * Checks the snippet contract against the chunk text it came from: its text is "…" (when cut
 * before) + a verbatim substring starting at chunkOffset (code points) + "…" (when cut after), the
 * substring starts and ends at word boundaries, and the flags say where text was cut. Returns the
 * verbatim part.
 */
export function checkSnippet(
  snippet: { text: string; chunkOffset: number; cutBefore: boolean; cutAfter: boolean },
  chunkText: string,
  context: string,
): string {
  const chars = [...snippet.text];
  if (snippet.text === '') return '';
  assert.equal(chars[0] === '…' && snippet.cutBefore, snippet.cutBefore, `${context}: leading ellipsis iff cut before`);
  assert.equal(chars.at(-1) === '…' && snippet.cutAfter, snippet.cutAfter, `${context}: trailing ellipsis iff cut after`);
  const body = chars.slice(snippet.cutBefore ? 1 : 0, snippet.cutAfter ? chars.length - 1 : chars.length).join('');
  const source = [...chunkText];
  assert.equal(
    source.slice(snippet.chunkOffset, snippet.chunkOffset + [...body].length).join(''),
    body,
    `${context}: verbatim at chunkOffset`,
  );
  assert.equal(snippet.cutBefore, snippet.chunkOffset > 0, `${context}: cutBefore`);
  assert.equal(snippet.cutAfter, snippet.chunkOffset + [...body].length < source.length, `${context}: cutAfter`);
  // Scripts written without spaces (indexed as character bigrams) have a boundary at every character, and where they meet another script.
  const word = /[\p{L}\p{N}\p{M}]/u;
  const unspaced = /[\p{sc=Han}\p{sc=Hiragana}\p{sc=Katakana}\p{sc=Thai}\p{sc=Lao}\p{sc=Khmer}\p{sc=Myanmar}\u30FC]/u;
  const boundary = (left: string | undefined, right: string | undefined): boolean =>
    left === undefined ||
    right === undefined ||
    !word.test(left) ||
    !word.test(right) ||
    ((unspaced.test(left) || unspaced.test(right)) && !/\p{M}/u.test(right));
  // A few characters of the source on each side of the snippet, for the failure messages.
  const end = snippet.chunkOffset + [...body].length;
  const sourceBefore = JSON.stringify(source.slice(Math.max(0, snippet.chunkOffset - 5), snippet.chunkOffset).join(''));
  const sourceAfter = JSON.stringify(source.slice(end, end + 5).join(''));
  assert.ok(
    boundary(source[snippet.chunkOffset - 1], [...body][0]),
    `${context}: starts at a word boundary: ${sourceBefore} + ${JSON.stringify(body.slice(0, 20))}`,
  );
  assert.ok(
    boundary([...body].at(-1), source[end]),
    `${context}: ends at a word boundary: ${JSON.stringify(body.slice(-20))} + ${sourceAfter}`,
  );
  return body;
}
