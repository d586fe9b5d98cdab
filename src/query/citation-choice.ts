import { codePointSlicer, firstName } from '../chunk/anchor-names.js';
import { isGeneratedId } from '../document/generated-ids.js';
import { chunkRow, readRows, type LoadedSearchIndex } from '../index/index-reader.js';

/**
 * Which citation a hit shows: the one a reader can open at the passage.
 *
 * - Fragments. A chunk records the source ids inside its text (a `<dfn id>`, a step, a paragraph);
 *   the hit cites the nearest one at or before the match. Some ids are made by a spec generator for
 *   back-references (Bikeshed's `ref-for-*` on every link to a definition, `term-for-*` in its index,
 *   and numbered duplicates such as `ref-for-concept-header①⑧`): they move whenever a link is added
 *   before them, so a citation to one breaks at the next revision. Such an id is cited only when no
 *   stable id covers the match (not even the section's own).
 * - Renderings. Chunks with the same passage (one RFC as HTML and XML, a TR and its draft) are one
 *   hit. Its position is the best-ranked member's; the member shown is a normative source's before
 *   an informative one's (any page can copy a specification's paragraph verbatim, with an id and as
 *   HTML: it must not take the specification's citation and list the specification under it), then
 *   the one that opens at the passage: with a fragment before without one, an HTML page before XML or plain text, the source's
 *   own URL before a raw-file URL (raw.githubusercontent.com, a `/raw/` path); then rank order.
 * - Near duplicates. The same passage chunked at other boundaries in another rendering (a paragraph
 *   more or less) is not the same text, so the index does not group it; among the first
 *   NEAR_DUPLICATE_DEPTH hits, a hit from another rendering of the same resource (sameResource)
 *   whose word trigrams are at least two thirds those of the shorter of the two folds into the
 *   better-ranked one, when both are under the same section heading (two sections of one rendering
 *   can share a sentence, and so can their copies in the other). A hit stands for its whole group:
 *   the renderings and texts compared are those of every member and of every hit folded into it
 *   before (a group's best-ranked member can be in the same rendering as the near duplicate while
 *   another member is the other rendering's copy). A fixed depth, not the page size, so every page is cut from one
 *   ranking.
 */
export const NEAR_DUPLICATE_DEPTH = 30;

/** Trigrams the shorter text must have at least this many of, so that short boilerplate never folds. */
const MIN_TRIGRAMS = 8;

export { isGeneratedId } from '../document/generated-ids.js';

/**
 * Whether two URLs name renderings of one resource: the same last path segment once its extension is
 * dropped (rfc9110.html and rfc9110.xml; an Internet-Draft's .txt in the archive and its HTML page on
 * the datatracker; a TR and its editor's draft of one shortname). Versions of a spec under other
 * names (CSP2 and CSP3) are not renderings: their near duplicates stay separate hits.
 */
export function sameResource(a: string, b: string): boolean {
  const x = resourceName(a);
  return x !== '' && x === resourceName(b);
}

/** The name sameResource compares: the last path segment without its extension, lower-cased ('' for none). */
function resourceName(url: string): string {
  return (
    url
      .replace(/[?#].*$/, '')
      .replace(/\/+$/, '')
      .split('/')
      .pop() ?? ''
  )
    .replace(/\.[a-z0-9]+$/i, '')
    .toLowerCase();
}

/** Where the chunk's stable ids begin (code-point offsets, ascending): the passages matchOffset compares. */
export function stableAnchorOffsets(anchors: readonly [number, string][] | null): number[] {
  const offsets: number[] = [];
  for (const [offset, id] of anchors ?? []) if (!isGeneratedId(id) && offsets[offsets.length - 1] !== offset) offsets.push(offset);
  return offsets;
}

/**
 * The fragment of a citation whose match is at code-point offset `at`: the last stable anchor at or
 * before it (the first of its names: anchor-names.ts), else the chunk's own fragment (its section's or
 * block's), else the last generated one; else, for a PDF passage (which has no source ids), its first
 * page as the PDF fragment a viewer opens at (RFC 8118's `page=N`). A PDF chunk that runs onto later
 * pages records where each starts as an anchor of that form (chunker.ts pageFragment), so a match
 * there cites its own page. `text` is the chunk's text, which the anchors' offsets index.
 */
export function citedFragment(
  anchors: readonly [number, string][] | null,
  fragment: string | null,
  at: number,
  pages: readonly number[] | null = null,
  text = '',
): string | null {
  const id = sourceFragment(anchors, fragment, at, text);
  return id ?? (pages !== null && pages.length > 0 ? `page=${pages[0]}` : null);
}

function sourceFragment(anchors: readonly [number, string][] | null, fragment: string | null, at: number, text: string): string | null {
  const stable: [number, string][] = [];
  let generated: string | null = null;
  for (const anchor of anchors ?? []) {
    if (anchor[0] > at) break;
    if (isGeneratedId(anchor[1])) generated = anchor[1];
    else stable.push(anchor);
  }
  if (stable.length > 0) return stable[firstName(stable, stable.length - 1, codePointSlicer(text))]![1];
  return (fragment !== null && !isGeneratedId(fragment) ? fragment : null) ?? generated ?? fragment;
}

/**
 * The URL a reader opens a citation at: the source URL and its fragment, with the characters the URL
 * standard percent-encodes in a fragment (space, `"`, `<`, `>`, backquote) encoded, so that an id
 * such as an `<a name>` with a space stays one link where the URL is printed, and so are control,
 * format and separator code points (which a terminal would show escaped, not as a link `show` takes
 * back). Other characters are kept as the source writes them.
 */
export function citationUrl(sourceUrl: string, fragment: string | null): string {
  if (fragment === null || fragment === '') return sourceUrl;
  return `${sourceUrl}#${shownId(fragment)}`;
}

/**
 * A source id as one token of a printed line, encoded as citationUrl encodes a fragment: an id with
 * spaces (`<a name="x y">`, or one written to read as a sentence) never reads as words of the line.
 */
export function shownId(id: string): string {
  let shown = id.replace(/[ "<>`]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  if (/[^\x20-\x7e]/.test(shown)) {
    invisible ??= /[\p{Cc}\p{Cf}\p{Zs}\p{Zl}\p{Zp}]/gu;
    shown = shown.replace(invisible, (c) => encodeURIComponent(c));
  }
  return shown;
}

/** Built on first use (a Unicode class costs a cold process; most fragments are ASCII). */
let invisible: RegExp | undefined;

/** 0 for an HTML page (or a URL that names no other format), 1 for PDF, 2 for XML or plain text. */
function renderingClass(url: string): number {
  const pathname = url.replace(/[?#].*$/, '').toLowerCase();
  if (/\.(?:xml|txt|text|md)$/.test(pathname)) return 2;
  if (pathname.endsWith('.pdf')) return 1;
  return 0;
}

function isRawFileUrl(url: string): boolean {
  return /^https?:\/\/raw\.githubusercontent\.com\//i.test(url) || /^https?:\/\/[^/]+\/(?:[^?#]*\/)?(?:-\/)?raw\//i.test(url);
}

/** Per index, each document's [not normative, rendering, raw URL] part of openability, worked out once per document. */
const documentOpenability = new WeakMap<LoadedSearchIndex, Map<number, [number, number, number]>>();

/** Smaller is shown first: [not normative, no fragment, rendering, raw URL]. */
function openability(index: LoadedSearchIndex, ordinal: number): [number, number, number, number] {
  const row = chunkRow(index, ordinal);
  const document = index.chunkDocument[ordinal]!;
  let known = documentOpenability.get(index);
  if (known === undefined) {
    known = new Map();
    documentOpenability.set(index, known);
  }
  let ofDocument = known.get(document);
  if (ofDocument === undefined) {
    const url = index.documents[document]![1];
    ofDocument = [index.documents[document]![4] === 'normative' ? 0 : 1, renderingClass(url), isRawFileUrl(url) ? 1 : 0];
    known.set(document, ofDocument);
  }
  const hasFragment = row[4] !== null || (row[10] ?? []).length > 0;
  return [ofDocument[0], hasFragment ? 0 : 1, ofDocument[1], ofDocument[2]];
}

/** Of a group's members (the first is the best-ranked; the rest follow in rank order or ascending), the one to show. Rows must be read. */
export function mostOpenable(index: LoadedSearchIndex, members: readonly number[]): number {
  let best = members[0]!;
  let bestKey = openability(index, best);
  for (let i = 1; i < members.length; i++) {
    const key = openability(index, members[i]!);
    const order = key[0] - bestKey[0] || key[1] - bestKey[1] || key[2] - bestKey[2] || key[3] - bestKey[3];
    if (order < 0) {
      best = members[i]!;
      bestKey = key;
    }
  }
  return best;
}

/**
 * Whether two texts with `sizeA` and `sizeB` distinct word trigrams, `shared` of them in both, are near
 * duplicates: at least two thirds of the smaller set (integers only).
 */
function sharesMostTrigrams(shared: number, sizeA: number, sizeB: number): boolean {
  const small = Math.min(sizeA, sizeB);
  return small >= MIN_TRIGRAMS && 3 * shared >= 2 * small;
}

/** Whether two texts' trigram sets (distinct lower-cased word trigrams) overlap in at least two thirds of the smaller one. */
export function nearDuplicate(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  let shared = 0;
  for (const gram of a) if (b.has(gram)) shared++;
  return sharesMostTrigrams(shared, a.size, b.size);
}

/**
 * The distinct word trigrams (lower-cased letter and digit runs, so punctuation and spacing do not
 * matter) of each of `texts` that is compared, and how many each pair shares, counted in one pass over
 * the trigrams: each trigram lists the texts holding it. Comparing every pair's sets instead cost most
 * of a cold query over two renderings of one RFC (30 hits, ~430 pairs of ~100 trigrams each). A
 * trigram is a number: its words' ids in a dictionary of this call, (first · words + second) · words
 * + third, exact while the texts hold fewer than 2^17 distinct words (chunk texts are bounded; past
 * that, the words' ids pair through a second dictionary).
 */
export class SharedTrigrams {
  readonly sizes: number[];
  private readonly shared: Int32Array;
  private readonly count: number;

  constructor(texts: readonly (string | null)[]) {
    this.count = texts.length;
    this.sizes = new Array<number>(texts.length).fill(0);
    this.shared = new Int32Array(texts.length * texts.length);
    const wordIds = new Map<string, number>();
    const pairIds = new Map<number, number>();
    const wordsOf = texts.map((text) => (text === null ? [] : (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])));
    const ids = wordsOf.map((words) => {
      const out = new Array<number>(words.length);
      for (let i = 0; i < words.length; i++) {
        let id = wordIds.get(words[i]!);
        if (id === undefined) {
          id = wordIds.size;
          wordIds.set(words[i]!, id);
        }
        out[i] = id;
      }
      return out;
    });
    const span = wordIds.size;
    const exact = span < 2 ** 17;
    // The texts holding each trigram, in text order (a text is added once: its last entry).
    const holders = new Map<number, number[]>();
    for (let t = 0; t < ids.length; t++) {
      const words = ids[t]!;
      for (let i = 0; i + 2 < words.length; i++) {
        let first = words[i]! * span + words[i + 1]!;
        if (!exact) {
          let pair = pairIds.get(first);
          if (pair === undefined) {
            pair = pairIds.size;
            pairIds.set(first, pair);
          }
          first = pair;
        }
        const gram = first * span + words[i + 2]!;
        const list = holders.get(gram);
        if (list === undefined) holders.set(gram, [t]);
        else if (list[list.length - 1] !== t) list.push(t);
        else continue;
        this.sizes[t]!++;
      }
    }
    for (const list of holders.values()) {
      if (list.length < 2) continue;
      for (let i = 0; i < list.length; i++) for (let j = i + 1; j < list.length; j++) this.shared[list[i]! * this.count + list[j]!]!++;
    }
  }

  /** Whether texts `a` and `b` (positions in the texts given) are near duplicates (nearDuplicate). */
  near(a: number, b: number): boolean {
    const [low, high] = a < b ? [a, b] : [b, a];
    return sharesMostTrigrams(this.shared[low * this.count + high]!, this.sizes[a]!, this.sizes[b]!);
  }
}

/**
 * One passage a hit stands for: its position among the ranked hits (whose text is the passage's), and
 * its chunk and those of its same-passage group (one text), each with its document and that
 * document's resource name (sameResource).
 */
interface Passage {
  position: number;
  chunks: { ordinal: number; document: number; resource: string }[];
}

/** The own heading of a chunk's section, as words ('' when the chunk is under the document title only). Its row must be read. */
function sectionHeading(index: LoadedSearchIndex, ordinal: number): string {
  const headingPath = chunkRow(index, ordinal)[2];
  if (headingPath.length < 2) return '';
  return (
    headingPath
      .at(-1)!
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  ).join(' ');
}

/**
 * Whether `b` is `a` in another rendering: near-duplicate text, and a chunk of one in a document that
 * is another rendering of a chunk's document of the other, under the same section heading (two
 * sections of one rendering often share a sentence, as 301 and 302's notes do, and so do their copies
 * in the other rendering). A chunk outside any section has no heading to compare: its text decides.
 * Rows of group members are read only for a near duplicate.
 */
function samePassageElsewhere(
  index: LoadedSearchIndex,
  a: Passage,
  b: Passage,
  renderings: RenderingPairs,
  trigrams: () => SharedTrigrams,
): boolean {
  // The cheap tests first: most pairs of hits are not from two renderings of one resource.
  if (!renderings.related(a.position, b.position) || !trigrams().near(a.position, b.position)) return false;
  // Whether a chunk x of `a` and a chunk y of `b` are in two documents that are renderings of one
  // resource, under the same heading (or one of them under none). A hit can stand for thousands of
  // copies of its passage: b's chunks are grouped by resource and heading, not paired with a's.
  const resourcesOfA = new Set(a.chunks.map((x) => x.resource));
  const candidatesB = b.chunks.filter((y) => y.resource !== '' && resourcesOfA.has(y.resource));
  const resourcesOfB = new Set(candidatesB.map((y) => y.resource));
  const candidatesA = a.chunks.filter((x) => resourcesOfB.has(x.resource));
  if (candidatesA.length === 0) return false;
  readRows(
    index,
    [...candidatesA, ...candidatesB].map((chunk) => chunk.ordinal),
  );
  // Per resource: the documents of b's chunks, all and per heading.
  const inB = new Map<string, { all: Set<number>; byHeading: Map<string, Set<number>> }>();
  for (const y of candidatesB) {
    let entry = inB.get(y.resource);
    if (entry === undefined) {
      entry = { all: new Set(), byHeading: new Map() };
      inB.set(y.resource, entry);
    }
    entry.all.add(y.document);
    const heading = sectionHeading(index, y.ordinal);
    let documents = entry.byHeading.get(heading);
    if (documents === undefined) {
      documents = new Set();
      entry.byHeading.set(heading, documents);
    }
    documents.add(y.document);
  }
  const anotherDocument = (documents: Set<number> | undefined, document: number): boolean =>
    documents !== undefined && (documents.size > 1 || !documents.has(document));
  return candidatesA.some((x) => {
    const entry = inB.get(x.resource)!;
    const heading = sectionHeading(index, x.ordinal);
    if (heading === '') return anotherDocument(entry.all, x.document);
    return anotherDocument(entry.byHeading.get(heading), x.document) || anotherDocument(entry.byHeading.get(''), x.document);
  });
}

/** Which passages (by position) have chunks in two renderings of one resource, worked out once by resource name. */
class RenderingPairs {
  private readonly pairs: Uint8Array;
  /** Per position, whether it is related to any other. */
  readonly compared: boolean[];

  constructor(
    private readonly count: number,
    passages: readonly Passage[],
  ) {
    this.pairs = new Uint8Array(count * count);
    this.compared = new Array<boolean>(count).fill(false);
    // Per resource, per position, the documents its chunks are in. Pairs are of positions, not of
    // chunks: a hit can stand for thousands of copies of one passage, and a loop over pairs of
    // chunks was quadratic in them (seconds for one query).
    const byResource = new Map<string, Map<number, Set<number>>>();
    for (const passage of passages)
      for (const chunk of passage.chunks) {
        if (chunk.resource === '') continue;
        let positions = byResource.get(chunk.resource);
        if (positions === undefined) {
          positions = new Map();
          byResource.set(chunk.resource, positions);
        }
        let documents = positions.get(passage.position);
        if (documents === undefined) {
          documents = new Set();
          positions.set(passage.position, documents);
        }
        documents.add(chunk.document);
      }
    for (const positions of byResource.values()) {
      const list = [...positions];
      for (let i = 0; i < list.length; i++)
        for (let j = i + 1; j < list.length; j++) {
          const [[p, documentsP], [q, documentsQ]] = [list[i]!, list[j]!];
          // Two positions are related when a chunk of one and a chunk of the other are in different documents.
          if (documentsP.size === 1 && documentsQ.size === 1 && [...documentsP][0] === [...documentsQ][0]) continue;
          this.pairs[Math.min(p, q) * count + Math.max(p, q)] = 1;
          this.compared[p] = this.compared[q] = true;
        }
    }
  }

  related(a: number, b: number): boolean {
    return this.pairs[Math.min(a, b) * this.count + Math.max(a, b)] === 1;
  }
}

/**
 * Near duplicates among `ranked` (best first): each hit that is, in another rendering, the passage of
 * a better-ranked kept hit or of a hit folded into it (samePassageElsewhere) is folded into it.
 * `membersOf` gives the other chunks a hit stands for (its same-passage group, whose text is the
 * hit's). Returns, per kept hit, the hits folded into it (rank order), and all folded hits.
 */
export function foldNearDuplicates(
  index: LoadedSearchIndex,
  ranked: readonly number[],
  membersOf: (ordinal: number) => readonly number[] = () => [],
): { into: Map<number, number[]>; removed: number[] } {
  const into = new Map<number, number[]>();
  const removed: number[] = [];
  if (ranked.length < 2) return { into, removed };
  // Each kept hit with the passages it stands for (its own first, then those folded into it).
  const kept: [ordinal: number, passages: Passage[]][] = [];
  const resources = new Map<number, string>();
  const resourceOf = (document: number): string => {
    const known = resources.get(document);
    if (known !== undefined) return known;
    const name = resourceName(index.documents[document]![1]);
    resources.set(document, name);
    return name;
  };
  const passages: Passage[] = ranked.map((ordinal, position) => ({
    position,
    chunks: [ordinal, ...membersOf(ordinal)].map((member) => {
      const document = index.chunkDocument[member]!;
      return { ordinal: member, document, resource: resourceOf(document) };
    }),
  }));
  const renderings = new RenderingPairs(ranked.length, passages);
  // Trigrams of the hits that have another rendering's chunk among the others (most have none), once.
  let trigrams: SharedTrigrams | undefined;
  const sharedTrigrams = (): SharedTrigrams => {
    if (trigrams !== undefined) return trigrams;
    const compared = renderings.compared;
    readRows(
      index,
      ranked.filter((_, position) => compared[position]),
    );
    trigrams = new SharedTrigrams(ranked.map((ordinal, position) => (compared[position] ? chunkRow(index, ordinal)[9] : null)));
    return trigrams;
  };
  for (const passage of passages) {
    const ordinal = ranked[passage.position]!;
    const same = kept.find(([, held]) => held.some((other) => samePassageElsewhere(index, other, passage, renderings, sharedTrigrams)));
    if (same === undefined) {
      kept.push([ordinal, [passage]]);
      continue;
    }
    const list = into.get(same[0]) ?? [];
    list.push(ordinal);
    into.set(same[0], list);
    removed.push(ordinal);
    same[1].push(passage);
  }
  return { into, removed };
}
