/** Tokenizer: the index's terms of chunk texts, against a bare lowercase-and-split (no NFKC, stemming or bigrams). */
import { tokenize, tokenizeWithOffsets } from '../../src/index/tokenizer.js';
import { microCorpus } from './corpus.js';
import { keep, runSuite } from './suite.js';

const texts = microCorpus()
  .chunks.slice(0, 200)
  .map((chunk) => chunk.text);
const chars = texts.reduce((n, text) => n + text.length, 0);
await runSuite(
  'tokenizer',
  `${texts.length} chunk texts, ${chars} chars per call`,
  {
    name: 'lowercase + split on \\p{L}\\p{N} (baseline)',
    fn: () => texts.map((text) => keep(text.toLowerCase().match(/[\p{L}\p{N}]+/gu))),
  },
  [
    { name: 'tokenize', fn: () => texts.map((text) => keep(tokenize(text))) },
    { name: 'tokenizeWithOffsets', fn: () => texts.map((text) => keep(tokenizeWithOffsets(text))) },
  ],
);
