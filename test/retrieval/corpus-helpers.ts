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

/** Seeded PRNG (mulberry32) so property tests are reproducible; the seed is printed on failure. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
