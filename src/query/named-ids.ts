import { tokenize } from '../index/tokenizer.js';
import { isGeneratedId } from './citation-choice.js';
import { STOP_TERMS } from './stop-words.js';

/**
 * Ids that name what a question asks for. A chunk records the ids of the elements inside it
 * (Chunk.anchors: a definition, a section, a step, a paragraph); an id is a name its author gave to
 * a concept (`ascii-whitespace`, `protected-resource`, `status.302`). When every word of an id is a
 * word of the query, the chunk holds the thing the query names, as a section whose heading is the
 * query's words does: each of those terms counts once more in the chunk's heading field (BM25F, the
 * heading weight; ranking.ts), for the first PROXIMITY_DEPTH chunks of the BM25F order (ids are in
 * the rows, which only those are read for). Function words in an id are passed over as the query
 * passes over them; a generator's back-reference ids (`ref-for-*`, citation-choice.ts) name links,
 * not concepts, and are not read. Text without ids (plain-text collections) is scored as before.
 */
export function namedTerms(anchors: readonly [number, string][] | null | undefined, queryTerms: ReadonlySet<string>): string[] {
  const named = new Set<string>();
  for (const [, id] of anchors ?? []) {
    if (isGeneratedId(id)) continue;
    const terms = tokenize(id).filter((term) => !STOP_TERMS.has(term));
    if (terms.length === 0 || !terms.every((term) => queryTerms.has(term))) continue;
    for (const term of terms) named.add(term);
  }
  return [...named].sort();
}
