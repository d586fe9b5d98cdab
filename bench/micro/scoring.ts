/**
 * BM25 scoring: rankChunks (decode the postings of each query term from the index, accumulate
 * integer-exact BM25 with document-level evidence, take the top 10), against a plain BM25 over the
 * same postings already decoded into arrays (Math.log, a Float64Array accumulator, a full sort).
 */
import { decodePostings, findTerm, loadSearchIndex } from '../../src/index/index-reader.js';
import { parseQueryTerms } from '../../src/query/query-terms.js';
import { rankChunks } from '../../src/query/query.js';
import { microCorpus } from './corpus.js';
import { keep, runSuite } from './suite.js';

const { indexText } = microCorpus();
const index = loadSearchIndex(new TextEncoder().encode(indexText), 'micro index');
// Three terms of different frequencies: a common, a middling and a rare one.
const byFrequency = Array.from({ length: index.terms.length }, (_, t) => t)
  .map((t) => ({ term: index.terms[t]!, df: decodePostings(index, t).ordinals.length }))
  .sort((a, b) => b.df - a.df || (a.term < b.term ? -1 : 1));
const picked = [byFrequency[0]!, byFrequency[Math.floor(byFrequency.length / 20)]!, byFrequency[Math.floor(byFrequency.length / 2)]!];
const query = parseQueryTerms([picked.map((p) => p.term).join(' ')]);
const decoded = query.scoringTerms.map((term) => decodePostings(index, findTerm(index, term)));
const averageLength = index.totalLength / index.chunkCount;

function plainBm25(): number[] {
  const scores = new Float64Array(index.chunkCount);
  for (const { ordinals, tfs } of decoded) {
    const idf = Math.log(1 + (index.chunkCount - ordinals.length + 0.5) / (ordinals.length + 0.5));
    for (let i = 0; i < ordinals.length; i++) {
      const tf = tfs[i]!;
      const norm = 1.2 * (0.25 + (0.75 * index.lengths[ordinals[i]!]!) / averageLength);
      scores[ordinals[i]!] = scores[ordinals[i]!]! + (idf * tf * 2.2) / (tf + norm);
    }
  }
  const touched: number[] = [];
  for (let i = 0; i < scores.length; i++) if (scores[i]! > 0) touched.push(i);
  return touched.sort((a, b) => scores[b]! - scores[a]! || a - b).slice(0, 10);
}

await runSuite(
  'BM25 scoring',
  `${index.chunkCount} chunks; terms ${picked.map((p) => `${p.term} (df ${p.df})`).join(', ')}; top 10`,
  { name: 'plain BM25 over decoded postings (baseline)', fn: () => keep(plainBm25()) },
  [{ name: 'rankChunks (decodes postings, integer-exact)', fn: () => keep(rankChunks(index, query, () => true, 10, true)) }],
);
