import { stemPrefix, tokenize, tokenizeLookingFor } from '../index/tokenizer.js';
import { isPageFragment } from '../chunk/chunker.js';
import { isGeneratedId } from './citation-choice.js';
import { STOP_TERMS, STOP_WORDS } from './stop-words.js';

const ASCII_ID = /^[\x21-\x7e]*$/;
const ASCII_WORDS = /[A-Za-z0-9]+/g;
let stopWords: ReadonlySet<string> | undefined;

/**
 * Ids that name what a question asks for. A chunk records the ids of the elements inside it
 * (Chunk.anchors: a definition, a step, a paragraph); an id is a name its author gave to a concept
 * (`ascii-whitespace`, `mime-type-essence`, `main-size`). When every word of an id is a word of the
 * query, the chunk holds the thing the query names, as a section whose heading is the query's words
 * does, and each of those terms scores as a match in a name field (ranking.ts namePoints, as
 * headingNames' terms do), for the first PROXIMITY_DEPTH chunks of the BM25F order (ids are in the
 * rows, which only those are read for). A name match is added after the text saturates: the section
 * that defines "main size" must rank above the layout steps that say "main size" ten times, which a
 * heading occurrence more cannot do. Not read: the id of the chunk's own section (`sectionId`), which
 * abbreviates its heading, judged whole by headingNames ("script-src Inline Check", id
 * `script-src-inline`, is not named by a question that says script-src and 'unsafe-inline'); and a
 * generator's back-reference ids (`ref-for-*`, citation-choice.ts), which name links, not concepts,
 * and a PDF chunk's page anchors (`page=12`).
 * Function words in an id are passed over as the query passes over them. Text without ids
 * (plain-text collections) is scored as before.
 */
export function namedTerms(
  anchors: readonly [number, string][] | null | undefined,
  queryTerms: ReadonlySet<string>,
  sectionId: string | null = null,
): string[] {
  const named = new Set<string>();
  let prefixes: string[] | undefined;
  for (const [, id] of anchors ?? []) {
    if (id === sectionId || isGeneratedId(id) || isPageFragment(id)) continue;
    prefixes ??= [...queryTerms].map(stemPrefix);
    const terms = idTerms(id, prefixes);
    if (terms === undefined) continue;
    const content = terms.filter((term) => !STOP_TERMS.has(term));
    if (content.length === 0 || !content.every((term) => queryTerms.has(term))) continue;
    for (const term of content) named.add(term);
  }
  return [...named].sort();
}

/**
 * The terms of an id, or undefined when one of its words can be neither a query term nor a function
 * word. Most ids fail on a word that starts with no query term's stemPrefix, found without stemming
 * (a chunk of a WHATWG spec holds dozens of ids, and a cold query would stem every word of them).
 */
function idTerms(id: string, prefixes: readonly string[]): string[] | undefined {
  if (!ASCII_ID.test(id)) return tokenize(id);
  const words = id.match(ASCII_WORDS) ?? [];
  const looked = tokenizeLookingFor(id, prefixes);
  const terms: string[] = [];
  for (let i = 0; i < looked.length; i++) {
    if (looked[i] !== '') terms.push(looked[i]!);
    else {
      stopWords ??= new Set(STOP_WORDS.split(' '));
      if (!stopWords.has(words[i]!.toLowerCase())) return undefined;
    }
  }
  return terms;
}

/**
 * The query terms a chunk's own section heading consists of, when every word of it (function words
 * aside) is a query word: "Domain Matching" for "what does domain-match mean for cookies", "RFC
 * Production Center" for "RFC Production Center responsibilities". Such a heading is the name of
 * what the question asks about, and the section under it is where that thing is defined or
 * described; the ranking scores each of its words once more, as a match in a name field
 * (ranking.ts, namePoints), which the text's matches cannot saturate. Only a section's own heading,
 * the last of a heading path below the document title: a title names a whole document, whose
 * evidence the document scope already counts (and titles fully named by the query, tried on the
 * plain-text collections, lost on CACM). Stemmed like the index: "Children" is not "child".
 */
export function headingNames(headingPath: readonly string[], queryTerms: ReadonlySet<string>): string[] {
  if (headingPath.length < 2) return [];
  const content = tokenize(declaredName(headingPath[headingPath.length - 1]!)).filter((term) => !STOP_TERMS.has(term));
  if (content.length === 0 || !content.every((term) => queryTerms.has(term))) return [];
  return [...new Set(content)].sort();
}

/**
 * What a heading names: a signature's name, the word its parameter list is attached to, when the
 * heading opens with it (at most one word before it: a return type, `def`, "The"), as an API entry's
 * heading is written (Erlang's `cast(ServerRef :: server_ref(), Request :: term()) -> ok`, Doxygen's
 * `append() [2/2]`, `int frob(int flags)`); else the whole heading. The parameters and the overload
 * count are no words of the name: "what is gen_server:cast" names `cast(...)`. A parenthesis set
 * apart ("Parsing (informative)") is a remark, not a parameter list.
 */
function declaredName(heading: string): string {
  const signature = /^\s*(?:[^\s()]+\s+)?([^\s()]+)\(/.exec(heading);
  return signature === null ? heading : signature[1]!;
}
