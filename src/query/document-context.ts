import type { LoadedSearchIndex, Postings } from '../index/index-reader.js';

/**
 * A chunk is read in its document: a term the rest of the document also uses says more about the
 * chunk than an isolated mention in a document about something else (passage retrieval that mixes
 * passage and document evidence, after Callan 1994). The ranking scores each term a second time over
 * the whole document (its chunks' text tf summed, its heading tf counted once, the document's length
 * in tokens, document frequency counted in documents) and adds DOCUMENT_WEIGHT of those points to
 * every matching chunk of the document. A one-chunk document gets the same share as its chunk, so
 * only evidence spread over several chunks changes the order, and the two scopes against proximity.
 *
 * 1: passage and document evidence count alike, a weight that needs no choosing (0.5 before, a
 * choice). Measured on all eight relevance sets (bench/relevance.ts, issue 30), 1 gains on seven of
 * them (most on TIME's multi-chunk news articles, +0.014 nDCG@10, and the paragraph questions of
 * CACM, MED and CF) and loses 0.002 on Cranfield.
 */
export const DOCUMENT_WEIGHT = 1;

/** A term's postings summed per document (documents ascending). */
export interface DocumentPostings {
  documents: number[];
  tfs: number[];
  headingTfs: number[];
}

export function documentPostings(index: LoadedSearchIndex, postings: Postings): DocumentPostings {
  const documents: number[] = [];
  const tfs: number[] = [];
  const headingTfs: number[] = [];
  for (let i = 0; i < postings.ordinals.length; i++) {
    const document = index.chunkDocument[postings.ordinals[i]!]!;
    const last = documents.length - 1;
    if (last < 0 || documents[last] !== document) {
      documents.push(document);
      tfs.push(postings.tfs[i]!);
      headingTfs.push(postings.headingTfs[i]!);
    } else {
      tfs[last] = tfs[last]! + postings.tfs[i]!;
      // Chunks of one section share its heading path: count the heading once, not once per chunk.
      headingTfs[last] = Math.max(headingTfs[last]!, postings.headingTfs[i]!);
    }
  }
  return { documents, tfs, headingTfs };
}

/** Each document's length in tokens (sum of its chunks' lengths; the index records it). */
export function documentLengths(index: LoadedSearchIndex): readonly number[] {
  return index.documentLengths;
}
