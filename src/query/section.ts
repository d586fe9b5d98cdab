import { EpistemeError } from '../failure.js';
import type { ChunkRow } from '../index/index-layout.js';
import { chunkRow, readRows, type LoadedSearchIndex } from '../index/index-reader.js';
import { appendAll } from '../array-extremes.js';

/**
 * The cited section, read from the search index itself (`episteme show`, the MCP `read` tool).
 *
 * The index holds every chunk's text, section, blocks and source ids, so the section a hit cites is
 * rebuilt from the same generation the hit came from, with no other file to read and nothing to
 * mix. A section's chunks are its own blocks in order (subsections are sections of their own, except
 * those without an id that cite the section's fragment: sectionsCiting):
 * blocks packed into one chunk stay one passage (listing their block ids), and the pieces of a block
 * cut into overlapping chunks are joined back, dropping each overlap by the pieces' code-point
 * ranges. The text is bounded by `maxChars` code points from `offset`, and the answer says which
 * blocks were returned whole, which were cut, and where the next page starts.
 *
 * A citation is one of: a source URL with a fragment (the fragment may be a section id or any id
 * inside it: a definition, a step), a chunk id (`<documentId>#<block id>`, as every hit has), or
 * `<documentId>#<section id>`; a URL or document id alone cites the document's first section.
 */
export interface SectionRequest {
  citation: string;
  maxChars: number;
  offset: number;
}

export const DEFAULT_READ_MAX_CHARS = 8000;
export const READ_MAX_CHARS_RANGE = { min: 1, max: 1_000_000 };
export const READ_OFFSET_RANGE = { min: 0, max: 2 ** 31 - 1 };
export const MAX_CITATION_CHARS = 8192;

interface Passage {
  blockIds: string[];
  chunkIds: string[];
  normativity: string;
  fragment: string | null;
  pages: number[] | null;
  text: string;
  /** For a block cut into pieces: the code-point end of the last piece joined, in the block's text. */
  end: number | null;
  sectionId: string | null;
  headingPath: string[];
}

export interface SectionBlock {
  blockIds: string[];
  chunkIds: string[];
  normativity: string;
  fragment: string | null;
  pages?: number[];
  /**
   * Set on a block of a subsection printed with the cited section (one without an id of its own, which
   * cites the section's fragment): that subsection's id and heading path, so a reader sees where it starts.
   */
  subsection?: { sectionId: string | null; headingPath: string[] };
  /** Where this block's text starts in the section text (code points), and its length. */
  offset: number;
  chars: number;
  /** The returned part of the text (the whole of it unless the window cut it: see cutBefore/cutAfter). */
  text: string;
  cutBefore: boolean;
  cutAfter: boolean;
}

export interface SectionAnswer {
  citation: {
    sourceUrl: string;
    fragment: string | null;
    snapshotId: string;
    documentId: string;
    sectionId: string | null;
    headingPath: string[];
  };
  /** What the request named, and the chunk it resolved to (null when it named a section). */
  requested: { citation: string; chunkId: string | null };
  family: string;
  authority: string;
  documentType: string;
  /** The section text is the blocks' texts joined by a blank line; counts are in code points. */
  totalChars: number;
  offset: number;
  maxChars: number;
  returnedChars: number;
  truncated: boolean;
  /** Where the next page starts (offset to ask for), or null when this page reaches the end. */
  nextOffset: number | null;
  blocks: SectionBlock[];
  /**
   * Blocks of the section not returned, or returned only in part: how many (`blocks`), the ids of the
   * first MAX_CUT_BLOCK_IDS of them in document order, and their characters not returned.
   */
  cut: { blockIds: string[]; blocks: number; chars: number };
  contentTrust: 'untrusted-source';
}

const SEPARATOR = '\n\n';

/**
 * Ids a page lists of the blocks it cut: every one was listed, so a page of 8,000 characters from a
 * section of 100,000 short paragraphs (a 1.3 MB page) answered 1.4 MB of ids, again at every offset.
 */
export const MAX_CUT_BLOCK_IDS = 256;

/**
 * The fragment a reader opens the section at: its id when the source gave it; for a section whose id
 * was made up (`~s3`, `intro~2`: no such id is in the page), its first passage's fragment (the nearest
 * enclosing id the source gives), else, in a PDF, its first page (RFC 8118's `page=N`).
 */
function openedAt(sectionId: string | null, first: ChunkRow): string | null {
  if (sectionId !== null && !sectionId.includes('~')) return sectionId;
  const pages = first[6];
  return first[4] ?? (pages !== null && pages.length > 0 ? `page=${pages[0]}` : null);
}

/**
 * The other ids of a document's sections (an alternate id -> the section's fragment or id), for a
 * citation the chunk rows do not hold; null when they cannot be known (cli/section-alternates.ts reads
 * them from the workspace's evidence document).
 */
export type SectionAlternates = (documentId: string, snapshotId: string) => ReadonlyMap<string, string> | null;

export function readSection(index: LoadedSearchIndex, request: SectionRequest, alternates?: SectionAlternates): SectionAnswer {
  const { citation } = request;
  const starts: number[] = [];
  let total = 0;
  for (const count of index.chunkCounts) {
    starts.push(total);
    total += count;
  }
  const rowsOf = (document: number): ChunkRow[] => {
    const ordinals: number[] = [];
    for (let o = starts[document]!; o < starts[document]! + index.chunkCounts[document]!; o++) ordinals.push(o);
    readRows(index, ordinals);
    return ordinals.map((o) => chunkRow(index, o));
  };
  const notFound = (why: string): EpistemeError =>
    new EpistemeError('citation-not-found', `${why} (citation ${JSON.stringify(citation.slice(0, 200))}).`, {
      hint:
        'Cite what a search hit gives: its chunkId, or citation.sourceUrl#fragment (or documentId#sectionId), ' +
        'from this index; a citation from another workspace or an older build may not be held.',
      details: { citation: citation.slice(0, 200) },
    });

  // An id of a section the rows do not carry (its other ids): the section that has it, if known.
  const alternateSection = (document: number, id: string): string | undefined => {
    const row = index.documents[document]!;
    return alternates?.(row[0], row[2])?.get(id);
  };

  let document = -1;
  let rows: ChunkRow[] = [];
  let match: ChunkRow | undefined;
  let chunkId: string | null = null;
  // The fragment the citation named (not a chunk id, nor a document alone).
  let named: string | null = null;
  const hash = citation.indexOf('#');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(citation)) {
    // A source URL: the document whose source is the URL as given (a source may itself be a fragment
    // of a page), else the page before '#', then the fragment in it.
    let fragment: string | null = null;
    let rawFragment = '';
    document = index.documents.findIndex((row) => row[1] === citation);
    if (document < 0 && hash >= 0) {
      const page = citation.slice(0, hash);
      rawFragment = citation.slice(hash + 1);
      fragment = decodeFragment(rawFragment);
      document = index.documents.findIndex((row) => row[1] === page);
    }
    if (document < 0) throw notFound('No document of this index has that source URL');
    rows = rowsOf(document);
    if (fragment !== null && fragment !== '') {
      match = findFragment(rows, rawFragment);
      named = rawFragment;
      if (match === undefined) {
        match = findFragment(rows, fragment);
        named = fragment;
      }
      if (match === undefined) {
        const section = alternateSection(document, fragment);
        if (section !== undefined) {
          match = findFragment(rows, section);
          named = section;
        }
      }
      // A PDF's page (RFC 8118's `#page=N`, as query hits cite a PDF passage): the section on that page.
      const page = match === undefined ? /^page=([1-9][0-9]{0,8})$/.exec(fragment) : null;
      if (page) {
        const number = Number(page[1]);
        match = rows.find((row) => row[6]?.includes(number));
        named = null;
      }
    } else match = firstInDocument(rows);
    if (match === undefined) throw notFound(`The document ${index.documents[document]![0]} has no section or id "${fragment}"`);
  } else {
    // A chunk id (<documentId>#<block id>[~n]) or <documentId>#<section id>, or a document id alone.
    const documentId = hash >= 0 ? citation.slice(0, hash) : citation;
    document = index.documents.findIndex((row) => row[0] === documentId);
    if (document < 0) throw notFound('No document of this index has that id');
    rows = rowsOf(document);
    if (hash < 0) match = firstInDocument(rows);
    else {
      match = rows.find((row) => row[0] === citation);
      if (match !== undefined) chunkId = match[0];
      else {
        named = citation.slice(hash + 1);
        match = findFragment(rows, named);
        const section = match === undefined ? alternateSection(document, named) : undefined;
        if (section !== undefined) {
          match = findFragment(rows, section);
          named = section;
        }
      }
    }
    if (match === undefined) throw notFound(`The document ${documentId} has no chunk, section or id "${citation.slice(hash + 1)}"`);
  }
  // A fragment also names the subsections that cite it, having no id of their own (a block takes its
  // nearest enclosing fragment): the passage a reader opening that citation reads. A section with no
  // blocks of its own is named by its subsections alone.
  const cited = named === null ? null : sectionsCiting(rows, named);
  const sectionId = cited === null ? match[1] : rows.some((row) => row[1] === named) ? named : match[1];
  const own = inDocumentOrder(
    rows.filter((row) => (cited === null ? row[1] === sectionId : cited.has(row[1]))),
    // The named section first, then its subsections by their ordinals.
    cited === null ? sectionId : named,
  );
  const first = own[0]!;
  const documentRow = index.documents[document]!;

  const passages: Passage[] = [];
  for (const row of own) {
    const [id, rowSection, headingPath, blockIds, fragment, normativity, pages, , textRange, text] = row;
    const last = passages[passages.length - 1];
    if (
      textRange !== null &&
      last !== undefined &&
      last.end !== null &&
      blockIds.length === 1 &&
      last.blockIds[last.blockIds.length - 1] === blockIds[0] &&
      textRange.start <= last.end
    ) {
      // The next piece of a cut block (the previous one may start with the block's lead-in): its first
      // (last.end - start) code points repeat the previous piece.
      last.text += codePointsFrom(text, last.end - textRange.start);
      last.end = textRange.end;
      last.chunkIds.push(id);
      if (pages) last.pages = [...new Set([...(last.pages ?? []), ...pages])].sort((a, b) => a - b);
      continue;
    }
    passages.push({
      blockIds: [...blockIds],
      chunkIds: [id],
      normativity,
      fragment,
      pages: pages ? [...pages] : null,
      text,
      end: textRange === null ? null : textRange.end,
      sectionId: rowSection,
      headingPath,
    });
  }

  // The window [offset, offset + maxChars) over the passages joined by SEPARATOR (code points).
  const windowStart = request.offset;
  const windowEnd = request.offset + request.maxChars;
  const blocks: SectionBlock[] = [];
  const cutIds: string[] = [];
  let cutChars = 0;
  let at = 0;
  let returned = 0;
  for (let i = 0; i < passages.length; i++) {
    const passage = passages[i]!;
    const chars = [...passage.text];
    const start = at;
    const end = start + chars.length;
    at = end + (i + 1 < passages.length ? SEPARATOR.length : 0);
    const from = Math.max(start, windowStart);
    const to = Math.min(end, windowEnd);
    if (from >= to && !(chars.length === 0 && start >= windowStart && start < windowEnd)) {
      appendAll(cutIds, passage.blockIds);
      cutChars += chars.length;
      continue;
    }
    const text = chars.slice(from - start, to - start).join('');
    const cutBefore = from > start;
    const cutAfter = to < end;
    if (cutBefore || cutAfter) {
      appendAll(cutIds, passage.blockIds);
      cutChars += chars.length - (to - from);
    }
    returned += to - from;
    blocks.push({
      blockIds: passage.blockIds,
      chunkIds: passage.chunkIds,
      normativity: passage.normativity,
      fragment: passage.fragment,
      ...(passage.pages ? { pages: passage.pages } : {}),
      ...(passage.sectionId !== first[1] ? { subsection: { sectionId: passage.sectionId, headingPath: passage.headingPath } } : {}),
      offset: start,
      chars: chars.length,
      text,
      cutBefore,
      cutAfter,
    });
  }
  const totalChars = at;
  const truncated = windowStart > 0 || windowEnd < totalChars;
  return {
    citation: {
      sourceUrl: documentRow[1],
      fragment: cited !== null && !rows.some((row) => row[1] === named) ? named : openedAt(sectionId, first),
      snapshotId: documentRow[2],
      documentId: documentRow[0],
      // The section whose heading path this is: the cited one, or (when it has no blocks of its own)
      // its first subsection.
      sectionId: first[1],
      headingPath: first[2],
    },
    requested: { citation, chunkId },
    family: documentRow[3],
    authority: documentRow[4],
    documentType: documentRow[5],
    totalChars,
    offset: request.offset,
    maxChars: request.maxChars,
    returnedChars: returned,
    truncated,
    nextOffset: windowEnd < totalChars ? windowEnd : null,
    blocks,
    cut: cutSummary(cutIds, cutChars),
    contentTrust: 'untrusted-source',
  };
}

/** The cut blocks, counted once each, and the first MAX_CUT_BLOCK_IDS of their ids. */
function cutSummary(cutIds: readonly string[], chars: number): SectionAnswer['cut'] {
  const unique = new Set(cutIds);
  const blockIds: string[] = [];
  for (const id of unique) {
    if (blockIds.length === MAX_CUT_BLOCK_IDS) break;
    blockIds.push(id);
  }
  return { blockIds, blocks: unique.size, chars };
}

/**
 * The sections a fragment names: the section with that id and the sections any of whose blocks carry it
 * as their fragment (a block with that id, or a block of a subsection without an id of its own, which
 * takes its nearest enclosing fragment); null when none does (an id inside a block's text: the caller
 * prints the section that holds it).
 */
function sectionsCiting(rows: readonly ChunkRow[], fragment: string): Set<string | null> | null {
  const sections = new Set<string | null>();
  for (const row of rows) if (row[1] === fragment || row[4] === fragment) sections.add(row[1]);
  return sections.size > 0 ? sections : null;
}

/**
 * Rows of one section (or of a section and subsections of it without ids) in the order of the document.
 * The index holds a document's rows in chunk-id order (search-index.ts), in which `s~b10` comes before
 * `s~b2`; a block's id ends with its ordinal in its section (`<section id>~b<k>`, document-builder.ts),
 * an id-less section's id with its ordinal among those (`~s<n>`), and the pieces of a block cut into
 * several chunks are ordered by where each starts in the block's text. A section comes before its
 * subsections.
 */
function inDocumentOrder(rows: ChunkRow[], sectionId: string | null): ChunkRow[] {
  const sectionRank = (row: ChunkRow): number => (row[1] === sectionId ? 0 : ordinalAfter(row[1] ?? '', '~s'));
  const key = (row: ChunkRow): number[] => [sectionRank(row), ordinalAfter(row[3][0] ?? '', '~b'), row[8]?.start ?? 0];
  const keyed = rows.map((row) => ({ row, key: key(row) }));
  keyed.sort((a, b) => a.key[0]! - b.key[0]! || a.key[1]! - b.key[1]! || a.key[2]! - b.key[2]!);
  return keyed.map((entry) => entry.row);
}

/** The number that ends `id` after the last `marker` (`sec~b12` -> 12), or the largest safe integer when there is none. */
function ordinalAfter(id: string, marker: string): number {
  const at = id.lastIndexOf(marker);
  const digits = at < 0 ? '' : id.slice(at + marker.length);
  return /^[0-9]{1,15}$/.test(digits) ? Number(digits) : Number.MAX_SAFE_INTEGER;
}

/**
 * The document's first passage in reading order: the earliest by page, then by where its span starts
 * in the source. Chunks are held in chunk-id order, which is not the document's: a section named
 * `cookie-objects` sorts before `module-http.cookies`, which comes first on the page. Rows without
 * spans keep that order.
 */
function firstInDocument(rows: readonly ChunkRow[]): ChunkRow | undefined {
  let first: ChunkRow | undefined;
  let firstKey: [number, number] | undefined;
  for (const row of rows) {
    const start = row[7]?.['start'];
    if (typeof start !== 'number') continue;
    const key: [number, number] = [row[6]?.[0] ?? 0, start];
    if (firstKey === undefined || key[0] < firstKey[0] || (key[0] === firstKey[0] && key[1] < firstKey[1])) {
      first = row;
      firstKey = key;
    }
  }
  return first ?? rows[0];
}

/** The chunk a fragment names: its section's id, the chunk's own fragment, or an id inside its text. */
function findFragment(rows: readonly ChunkRow[], fragment: string): ChunkRow | undefined {
  return (
    rows.find((row) => row[1] === fragment) ??
    rows.find((row) => row[4] === fragment) ??
    rows.find((row) => row[10]?.some(([, id]) => id === fragment) === true) ??
    rows.find((row) => row[3].includes(fragment))
  );
}

function decodeFragment(fragment: string): string {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return fragment;
  }
}

function codePointsFrom(text: string, count: number): string {
  if (count <= 0) return text;
  let i = 0;
  for (let n = 0; n < count && i < text.length; n++) i += (text.codePointAt(i) ?? 0) > 0xffff ? 2 : 1;
  return text.slice(i);
}
