/**
 * Snippet selection: makeSnippet (the window with the most distinct query terms, cut at token and
 * sentence boundaries, with highlights) against slicing a window around the first occurrence of a
 * query word, for chunks longer than the snippet bound.
 */
import { tokenize } from '../../src/index/tokenizer.js';
import { makeSnippet } from '../../src/query/snippet.js';
import { microCorpus } from './corpus.js';
import { keep, runSuite } from './suite.js';

const MAX_CHARS = 160;
const cases = microCorpus()
  .chunks.filter((chunk) => chunk.text.length > 2 * MAX_CHARS)
  .slice(0, 100)
  .map((chunk) => {
    const words = chunk.text.toLowerCase().match(/[\p{L}\p{N}]+/gu)!;
    const chosen = [words[Math.floor(words.length / 2)]!, words[words.length - 3]!];
    return { text: chunk.text, lower: chunk.text.toLowerCase(), words: chosen, terms: new Set(chosen.flatMap((word) => tokenize(word))) };
  });

function firstOccurrenceWindow(text: string, lower: string, words: string[]): string {
  const at = Math.max(0, Math.min(...words.map((word) => lower.indexOf(word)).filter((i) => i >= 0)));
  const start = Math.max(0, at - MAX_CHARS / 2);
  return text.slice(start, start + MAX_CHARS);
}

await runSuite(
  'snippet selection',
  `${cases.length} chunks longer than ${2 * MAX_CHARS} chars, two query words each, ${MAX_CHARS}-char snippets`,
  {
    name: 'window around the first occurrence (baseline)',
    fn: () => cases.map((c) => keep(firstOccurrenceWindow(c.text, c.lower, c.words))),
  },
  [{ name: 'makeSnippet', fn: () => cases.map((c) => keep(makeSnippet(c.text, c.terms, MAX_CHARS))) }],
);
