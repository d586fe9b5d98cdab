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
