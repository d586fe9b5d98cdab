import { codePointSlicer, firstName } from './anchor-names.js';
import { isApparatusReason } from '../document/apparatus.js';
import { isGeneratedId } from '../document/generated-ids.js';
import type { Block, Chunk, Citation, EvidenceDocument, Section } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import {
  codePointLength,
  codePointPrefix,
  hasSurrogates,
  cutsWord,
  isWhitespace,
  isWordChar,
  charAt,
  charBefore,
  sentenceStarts,
  splitsSurrogate,
} from './text-boundaries.js';
import type { ChunkRecord, MadeChunk, RunEntry, RunSection, SectionChunks } from './section-chunks.js';
import { PREAMBLE, summarySections } from './summary-sections.js';

/**
 * Chunking: blocks become bounded, attributable chunks.
 * - Consecutive blocks of one section with the same normativity are packed together (joined by a
 *   blank line) while the result stays within maxChars.
 * - A lead-in, a block ending with a colon, never ends a chunk when the next block of its section
 *   and normativity does not join the group: it goes with that block (or that block's first piece).
 * - A block longer than maxChars is cut into pieces: preferably where an entry begins (a source id at
 *   a line start), else at a line start (an algorithm's step line), then a sentence start, in the
 *   second half of the window (not right after a line ending with a colon, when another start will
 *   do), else at whitespace, else anywhere that is not inside a word (a hard cut only for a single
 *   word longer than maxChars). Each later piece starts with up to overlapChars of the previous piece,
 *   beginning at a line, sentence or word start; after a cut where an entry begins, with none.
 * - Lengths are counted in code points. Chunk text is always a substring of block text (or blocks
 *   joined by "\n\n"), so a snippet of it can be traced back verbatim.
 * Chunk ids: `<documentId>#<first block id>` and `~<n>` for the n-th later piece of a cut block.
 * Bump CHUNK_RULE_VERSION whenever chunk bytes for the same input and options change.
 */
// A type alias (not an interface) so it is assignable to Record<string, unknown> for config hashing.
export type ChunkOptions = {
  /** Maximum chunk length in code points (integer). */
  maxChars: number;
  /** Characters of the previous piece repeated at the start of the next piece of a cut block (integer). */
  overlapChars: number;
};

export const DEFAULT_CHUNK_OPTIONS: ChunkOptions = Object.freeze({ maxChars: 1200, overlapChars: 150 });
export { CHUNK_RULE_VERSION } from '../rule-versions.js';

export const MIN_MAX_CHARS = 40;

/**
 * Whether the chunker reads the same from two blocks, their spans aside (which only stamp a chunk's
 * citation): section-chunks.ts then reuses the chunks of a run of such blocks. It must compare every
 * member the chunker reads, down to the anchors' and the step tree's members, and needs no more (a
 * step's text, links and variables are the block's business): a test records what the chunker reads.
 */
export function sameChunkInput(a: Block, b: Block): boolean {
  return (
    a === b ||
    (a.id === b.id &&
      a.kind === b.kind &&
      a.text === b.text &&
      a.sectionId === b.sectionId &&
      a.normativity === b.normativity &&
      a.fragment === b.fragment &&
      a.page === b.page &&
      samePageStarts(a.pageStarts, b.pageStarts) &&
      sameAnchors(a.anchors, b.anchors) &&
      sameStepTrees(a['steps'], b['steps']) &&
      sameEntries(a['entries'], b['entries']))
  );
}

/** A definition list's entries, which tell a definition's line from an entry's start (entryStarts). */
function sameEntries(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const x = a as DefinitionEntry[] | undefined;
  const y = b as DefinitionEntry[] | undefined;
  if (x === undefined || y === undefined || x.length !== y.length) return false;
  const same = (p: string[], q: string[]): boolean => p.length === q.length && p.every((v, i) => v === q[i]);
  return x.every((entry, i) => same(entry.terms, y[i]!.terms) && same(entry.definitions, y[i]!.definitions));
}

function sameAnchors(a: Block['anchors'], b: Block['anchors']): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.id !== b[i]!.id || a[i]!.start !== b[i]!.start) return false;
  return true;
}

function samePageStarts(a: Block['pageStarts'], b: Block['pageStarts']): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i]!.page !== b[i]!.page || a[i]!.start !== b[i]!.start) return false;
  return true;
}

/** Equal step trees as stepLines and trimmedAnchors read them: each node's path, id and sub-steps. */
function sameStepTrees(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as StepNode | null;
    const y = b[i] as StepNode | null;
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
    if (x.path !== y.path || x.id !== y.id || !sameStepTrees(x.steps, y.steps)) return false;
  }
  return true;
}
const BLOCK_SEPARATOR = '\n\n';

export function validateChunkOptions(options: ChunkOptions): void {
  const { maxChars, overlapChars } = options;
  if (!Number.isSafeInteger(maxChars) || maxChars < MIN_MAX_CHARS) {
    throw new EpistemeError('usage-error', `Chunk maxChars must be an integer of at least ${MIN_MAX_CHARS}; got ${String(maxChars)}.`);
  }
  if (!Number.isSafeInteger(overlapChars) || overlapChars < 0 || overlapChars * 2 > maxChars) {
    throw new EpistemeError(
      'usage-error',
      `Chunk overlapChars must be an integer from 0 to half of maxChars (${Math.floor(maxChars / 2)}); got ${String(overlapChars)}.`,
    );
  }
}

interface PendingGroup {
  normativity: Block['normativity'];
  blocks: { block: Block; text: string }[];
  length: number;
}

export function chunkDocument(doc: EvidenceDocument, options: ChunkOptions, memory?: SectionChunks): Chunk[] {
  validateChunkOptions(options);
  const headingPaths = headingPathResolver(doc.title, doc.sections);
  const apparatus = apparatusSections(doc.sections);
  for (const id of summarySections(doc)) apparatus.add(id);
  const round = memory?.startRound(doc, options);
  const snapshotId = doc.provenance.snapshotId;
  const chunks: Chunk[] = [];
  // A group never goes on past a change of section (blocks without text aside), so each run of one
  // section's blocks is chunked on its own: a run the last round chunked from the same blocks (their
  // spans aside) takes that round's chunks instead of cutting them again (section-chunks.ts).
  let run: RunEntry[] = [];
  const finishRun = (): void => {
    if (run.length === 0) return;
    const sectionId = run[0]!.block.sectionId;
    const section: RunSection = {
      headingPath: headingPaths(sectionId),
      apparatus: apparatus.has(sectionId ?? PREAMBLE),
    };
    const known = round?.find(run, section);
    if (known !== undefined) {
      for (const record of known.chunks) chunks.push(round!.reused(record, restamped(record, run, section.headingPath, snapshotId)));
    } else {
      const made = chunkRun(doc, run, section, options);
      round?.remember(run, section, made);
      for (const one of made) chunks.push(one.chunk);
    }
    run = [];
  };
  for (const block of doc.blocks) {
    const text = block.text.trim();
    if (text === '') continue;
    if (run.length > 0 && run[0]!.block.sectionId !== block.sectionId) finishRun();
    run.push({ block, text });
  }
  finishRun();
  return chunks;
}

/**
 * A chunk of an earlier round, for this round's run of the same blocks: the same values but its
 * snapshot id, its heading path (equal, this round's array: chunk-file.ts serialises it once per
 * array) and its source span, which an edit before the run moves.
 */
function restamped(record: ChunkRecord, run: RunEntry[], headingPath: string[], snapshotId: string): Chunk {
  const span = citationSpan(run[record.first]!.block, run[record.last]!.block, record.first === record.last);
  const citation: Citation = { ...record.chunk.citation, snapshotId, headingPath, span };
  if (span === undefined) delete citation.span;
  return { ...record.chunk, citation };
}

/** The source span of a chunk of blocks from `first` to `last` (the same block when `single`). */
function citationSpan(first: Block, last: Block, single: boolean): Record<string, unknown> | undefined {
  if (single) return first.span;
  return first.span !== undefined && last.span !== undefined ? spanOver(first.span, last.span) : undefined;
}

/** The chunks of one run of a section's blocks, each with the run's first and last block it holds. */
function chunkRun(doc: EvidenceDocument, run: RunEntry[], section: RunSection, options: ChunkOptions): MadeChunk[] {
  const made: MadeChunk[] = [];
  const indexOf = new Map(run.map((entry, i) => [entry.block, i]));
  const push = (blocks: Block[], chunk: Chunk): void => {
    if (section.apparatus) chunk.apparatus = true;
    made.push({ chunk, first: indexOf.get(blocks[0]!)!, last: indexOf.get(blocks[blocks.length - 1]!)! });
  };
  let group: PendingGroup | undefined;

  const flush = (): void => {
    if (group === undefined || group.blocks.length === 0) {
      group = undefined;
      return;
    }
    const text = group.blocks.map((entry) => entry.text).join(BLOCK_SEPARATOR);
    const anchors: [number, string][] = [];
    let base = 0;
    let lines: StepLines | undefined;
    let page = group.blocks[0]!.block.page;
    for (const entry of group.blocks) {
      lines = entry.block.kind === 'algorithm' ? stepLines(entry.block, entry.text) : undefined;
      // A PDF passage has no source ids: where a block starts a later page, the page is its anchor
      // (RFC 8118's `page=N`), so a match there cites the page it is on, not the chunk's first page.
      if (typeof entry.block.page === 'number' && typeof page === 'number' && entry.block.page > page) {
        page = entry.block.page;
        anchors.push([base, pageFragment(page)]);
      }
      for (const [at, id] of trimmedAnchors(entry.block, entry.text, lines)) anchors.push([base + at, id]);
      // A block the page's end interrupts leaves the group on its last page (trimmedAnchors marks each).
      const turns = entry.block.pageStarts;
      if (turns !== undefined && turns.length > 0 && typeof page === 'number') page = Math.max(page, turns[turns.length - 1]!.page);
      base += entry.text.length + BLOCK_SEPARATOR.length;
    }
    const blocks = group.blocks.map((entry) => entry.block);
    push(
      blocks,
      makeChunk(
        doc,
        blocks,
        text,
        section.headingPath,
        0,
        undefined,
        toCodePoints(text, anchors),
        group.blocks.length === 1 ? lines : undefined,
      ),
    );
    group = undefined;
  };

  for (const { block, text } of run) {
    const length = codePointLength(text);
    const continues = group !== undefined && group.normativity === block.normativity;
    if (
      continues &&
      group !== undefined &&
      length <= options.maxChars &&
      group.length + BLOCK_SEPARATOR.length + length <= options.maxChars
    ) {
      group.blocks.push({ block, text });
      group.length += BLOCK_SEPARATOR.length + length;
      continue;
    }
    // The block does not join the pending group. A lead-in that ends the group ("... include the
    // following:", "run these steps:") goes with the block it introduces instead of ending a chunk of
    // its own or the group's: in front of the block when both fit, else in front of its first piece.
    const leadIn = continues && group !== undefined ? takeLeadIn(group, length, options.maxChars) : undefined;
    flush();
    if (length > options.maxChars) {
      // An algorithm's step lines are found once per block, not once per piece (quadratic in its steps).
      const lines = block.kind === 'algorithm' ? stepLines(block, text) : undefined;
      const reserved = leadIn === undefined ? 0 : leadIn.length + BLOCK_SEPARATOR.length;
      const sourceAnchors = trimmedAnchors(block, text, lines);
      const pieces = splitLongText(text, options, lines?.lineStarts, options.maxChars - reserved, entryStarts(block, text, sourceAnchors));
      const blockAnchors = toCodePoints(text, sourceAnchors);
      const pageOf = piecePages(block, blockAnchors);
      const slice = codePointSlicer(text);
      pieces.forEach((piece, index) => {
        const anchors = anchorsWithin(blockAnchors, piece.start, piece.end, slice);
        const range = { start: piece.start, end: piece.end };
        if (index === 0 && leadIn !== undefined) {
          const leadAnchors = toCodePoints(leadIn.text, trimmedAnchors(leadIn.block, leadIn.text, undefined));
          const shifted = anchors.map(([at, id]): [number, string] => [at + reserved, id]);
          push(
            [leadIn.block, block],
            makeChunk(
              doc,
              [leadIn.block, block],
              `${leadIn.text}${BLOCK_SEPARATOR}${piece.text}`,
              section.headingPath,
              0,
              range,
              withoutRepeats([...leadAnchors, ...shifted]),
              lines,
            ),
          );
        } else push([block], makeChunk(doc, [block], piece.text, section.headingPath, index, range, anchors, lines, pageOf(piece.start)));
      });
      continue;
    }
    group = { normativity: block.normativity, blocks: [{ block, text }], length };
    if (leadIn !== undefined) {
      group.blocks.unshift({ block: leadIn.block, text: leadIn.text });
      group.length += leadIn.length + BLOCK_SEPARATOR.length;
    }
  }
  flush();
  return made;
}

/**
 * The sections of the document's apparatus: those the family's rules name as informative by id or
 * heading (contents, status, acknowledgements, references, indexes, change logs), and the sections
 * inside them (which inherit the reason). They are about the document, not its subject: a query
 * weighs their chunks' matches less (query/ranking.ts APPARATUS_WEIGHT).
 */
function apparatusSections(sections: Section[]): Set<string> {
  const ids = new Set<string>();
  for (const section of sections) if (isApparatusReason(section.normativityReason)) ids.add(section.id);
  return ids;
}

/** A block whose text ends with a colon: it introduces what follows (a list, table, algorithm or example). */
const LEAD_IN = /:$/;

/**
 * Takes the group's last block out of it when it is a lead-in that can travel with the next block (of
 * `nextLength` code points, in the same section and normativity, which does not join the group): the
 * two fit in one chunk, or the next block is cut anyway and the lead-in takes at most half of its
 * first piece. The group may be left empty.
 */
function takeLeadIn(group: PendingGroup, nextLength: number, maxChars: number): LeadIn | undefined {
  const last = group.blocks[group.blocks.length - 1];
  if (last === undefined || !LEAD_IN.test(last.text)) return undefined;
  const length = codePointLength(last.text);
  const together = length + BLOCK_SEPARATOR.length + nextLength;
  if (together > maxChars && (nextLength <= maxChars || (length + BLOCK_SEPARATOR.length) * 2 > maxChars)) return undefined;
  group.blocks.pop();
  group.length -= group.blocks.length === 0 ? length : length + BLOCK_SEPARATOR.length;
  return { ...last, length };
}

interface LeadIn {
  block: Block;
  text: string;
  length: number;
}

const PAGE_PREFIX = 'page=';

/** A PDF page as the fragment a viewer opens at (RFC 8118). */
export function pageFragment(page: number): string {
  return `${PAGE_PREFIX}${page}`;
}

/** Whether an anchor id is a PDF page (pageFragment), not an id the source gives. */
export function isPageFragment(id: string): boolean {
  return pageOfFragment(id) !== undefined;
}

/** The page a page fragment (pageFragment) opens at; undefined for any other id. */
function pageOfFragment(id: string): number | undefined {
  return /^page=[1-9][0-9]*$/.test(id) ? Number(id.slice(PAGE_PREFIX.length)) : undefined;
}

/**
 * The page each piece of `block` starts on, asked in text order (code-point offsets, ascending): the
 * last page anchor of the block at or before the piece's start, else the block's own page. One pass
 * over the page anchors for all the pieces (an algorithm's many step anchors are not scanned per piece).
 */
function piecePages(block: Block, blockAnchors: readonly [number, string][]): (at: number) => number | undefined {
  const turns: [number, number][] = [];
  if (block.pageStarts !== undefined)
    for (const [offset, id] of blockAnchors) {
      const turn = pageOfFragment(id);
      if (turn !== undefined) turns.push([offset, turn]);
    }
  let page = typeof block.page === 'number' ? block.page : undefined;
  let next = 0;
  return (at) => {
    while (next < turns.length && turns[next]![0] <= at) page = turns[next++]![1];
    return page;
  };
}

/** Anchors in text order without an id equal to the one before it (a lead-in and its block often share their section's id). */
function withoutRepeats(anchors: [number, string][]): [number, string][] {
  return anchors.filter((anchor, i) => i === 0 || anchors[i - 1]![1] !== anchor[1]);
}

function makeChunk(
  doc: EvidenceDocument,
  blocks: Block[],
  text: string,
  headingPath: string[],
  pieceIndex: number,
  textRange: { start: number; end: number } | undefined,
  anchors: [number, string][],
  /** stepLines of the only block, or of the cut block a piece is from, when it is an algorithm. */
  lines: StepLines | undefined,
  /** A later piece of a block: the page it starts on (the block's page, or a later one it runs onto). */
  firstPage?: number,
): Chunk {
  const first = blocks[0]!;
  const last = blocks[blocks.length - 1]!;
  // The pages the text is on: where it starts, where each of its blocks starts, and each later page
  // it runs onto (a page anchor: a block starts there, or a block the page's end interrupts goes on).
  const onPages = [firstPage ?? first.page, ...blocks.slice(1).map((block) => block.page)];
  for (const [, id] of anchors) onPages.push(pageOfFragment(id));
  const pages = [...new Set(onPages.filter((page): page is number => typeof page === 'number'))].sort((a, b) => a - b);
  const citation: Citation = {
    sourceUrl: doc.sourceUrl,
    fragment: first.fragment ?? doc.fragment,
    snapshotId: doc.provenance.snapshotId,
    documentId: doc.documentId,
    sectionId: first.sectionId,
    headingPath,
    blockIds: blocks.map((block) => block.id),
  };
  if (pages.length > 0) citation.pages = pages;
  const span = citationSpan(first, last, blocks.length === 1);
  if (span !== undefined) citation.span = span;
  if (textRange !== undefined) citation.textRange = textRange;
  // The steps of the algorithm the chunk holds alone, or whose piece it holds (after a lead-in).
  if (last.kind === 'algorithm' && lines !== undefined && (blocks.length === 1 || textRange !== undefined)) {
    const steps = stepsCovered(lines, textRange ?? { start: 0, end: codePointLength(last.text) });
    if (steps !== undefined) citation.steps = steps;
  }
  const chunk: Chunk = {
    chunkId: `${doc.documentId}#${first.id}${pieceIndex > 0 ? `~${pieceIndex}` : ''}`,
    documentId: doc.documentId,
    text,
    contentTrust: 'untrusted-source',
    citation,
    normativity: first.normativity,
    family: doc.family,
    authority: doc.authority,
    documentType: doc.documentType,
  };
  // Only when the text holds an id beyond the one the citation already names at its start.
  if (anchors.length > 1 || (anchors.length === 1 && (anchors[0]![0] !== 0 || anchors[0]![1] !== citation.fragment)))
    chunk.anchors = anchors;
  return chunk;
}

/**
 * The ids a block's text starts with or contains, as [UTF-16 offset into `trimmed` (the block's
 * text with surrounding whitespace removed), id]: the block's fragment (its own id or the nearest
 * enclosing one) at 0, then the ids of elements inside it that the extractor recorded.
 */
function trimmedAnchors(block: Block, trimmed: string, lines: StepLines | undefined): [number, string][] {
  const anchors: [number, string][] = [];
  if (block.fragment !== null) anchors.push([0, block.fragment]);
  const lead = block.text.length - block.text.trimStart().length;
  for (const anchor of block.anchors ?? []) anchors.push([Math.min(trimmed.length, Math.max(0, anchor.start - lead)), anchor.id]);
  // A block the page's end interrupts (a PDF paragraph or table continued on the next page): each later
  // page where it begins, as the group's page anchors mark a block that starts a later page.
  for (const { page, start } of block.pageStarts ?? [])
    anchors.push([Math.min(trimmed.length, Math.max(0, start - lead)), pageFragment(page)]);
  // An algorithm's steps keep their source ids in the step tree: each is an anchor where its line starts.
  if (block.kind === 'algorithm') {
    if (lines !== undefined) {
      const ids = new Map<string, string>();
      const visit = (nodes: StepNode[]): void => {
        for (const node of nodes) {
          if (node.id !== undefined && node.id !== '') ids.set(node.path, node.id);
          if (node.steps) visit(node.steps);
        }
      };
      visit(block['steps'] as StepNode[]);
      lines.paths.forEach((stepPath, k) => {
        const id = ids.get(stepPath);
        if (id !== undefined) anchors.push([lines.lineStarts[k]!, id]);
      });
    }
  }
  return anchors;
}

/**
 * Where an entry of the block begins (UTF-16 offsets, ascending): a stable source id at the start of a
 * line (a `<dt id>`, an option's index anchors, a row's id), not one inside a sentence (a term's
 * `<dfn id>`), a generated back-reference id or a PDF page; in a definition list, not the id of a
 * definition after its term (xml2rfc's `<dt id="section-3.1-6.1">Source Port:</dt><dd id="section-3.1-6.2">`):
 * the entry begins at its term.
 */
function entryStarts(block: Block, text: string, anchors: readonly [number, string][]): number[] {
  const definitions = definitionLines(block);
  const starts = new Set<number>();
  for (const [at, id] of anchors) {
    if (at === 0 || at >= text.length || text.charCodeAt(at - 1) !== 10 || isGeneratedId(id) || isPageFragment(id)) continue;
    if (definitions !== undefined) {
      const end = text.indexOf('\n', at);
      const line = text.slice(at, end < 0 ? text.length : end);
      if (definitions.has(line)) continue;
    }
    starts.add(at);
  }
  return [...starts].sort((a, b) => a - b);
}

/** The first lines of a definition list's definitions that no term has as its text (undefined for other blocks). */
function definitionLines(block: Block): Set<string> | undefined {
  const entries = block['entries'] as DefinitionEntry[] | undefined;
  if (entries === undefined || entries.length === 0) return undefined;
  const lines = new Set<string>();
  for (const entry of entries) {
    for (const definition of entry.definitions) {
      const end = definition.indexOf('\n');
      lines.add(end < 0 ? definition : definition.slice(0, end));
    }
  }
  for (const entry of entries) for (const term of entry.terms) lines.delete(term);
  return lines;
}

type DefinitionEntry = { terms: string[]; definitions: string[] };

/**
 * UTF-16 offsets to code-point offsets, in text order; at one offset one id is kept: the innermost
 * (extractors record outer elements first), except that a generated id never hides a stable one
 * there (a Sphinx `index-N` target written at the start of a block with an id of its own: a citation
 * may only name what the chunk records). An id equal to the one before it is dropped.
 */
function toCodePoints(text: string, anchors: [number, string][]): [number, string][] {
  if (anchors.length === 0) return [];
  const prefix = hasSurrogates(text) ? codePointPrefix(text) : null;
  const sorted = anchors
    .map(([at, id], order) => ({ at: prefix === null ? Math.min(at, text.length) : prefix[Math.min(at, text.length)]!, id, order }))
    .sort((a, b) => a.at - b.at || a.order - b.order);
  const result: [number, string][] = [];
  for (const { at, id } of sorted) {
    const last = result[result.length - 1];
    if (last !== undefined && last[0] === at) {
      if (isGeneratedId(id) && !isGeneratedId(last[1])) continue;
      result.pop();
    }
    const previous = result[result.length - 1];
    if (previous === undefined || previous[1] !== id) result.push([at, id]);
  }
  return result;
}

/**
 * The anchors of a piece [start, end) of a block's text (code points; `slice` cuts it), relative to the
 * piece: the one in force at its start comes first, at 0, by the first of its place's names
 * (anchor-names.ts: the piece does not hold the list of names that would tell a citation so).
 */
function anchorsWithin(
  anchors: [number, string][],
  start: number,
  end: number,
  slice: (from: number, to: number) => string,
): [number, string][] {
  // Anchors are in text order: bisect to the last one at or before the start (a scan of all of them
  // per piece was quadratic in a long algorithm's steps), then take those before the end.
  let lo = 0;
  let hi = anchors.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (anchors[mid]![0] <= start) lo = mid + 1;
    else hi = mid;
  }
  const result: [number, string][] = lo > 0 ? [[0, anchors[firstName(anchors, lo - 1, slice)]![1]]] : [];
  for (let i = lo; i < anchors.length && anchors[i]![0] < end; i++) result.push([anchors[i]![0] - start, anchors[i]![1]]);
  return result;
}

interface StepNode {
  path: string;
  id?: string;
  steps?: StepNode[];
}

interface StepLines {
  paths: string[];
  /** UTF-16 index where each step's line starts (its indentation included). */
  lineStarts: number[];
  /** UTF-16 index of each step's "<path>. " marker. */
  markerStarts: number[];
  /** Code-point offset of each marker. */
  markerPoints: number[];
}

/**
 * Where each step of an algorithm block starts in its (trimmed) text. The extractor writes each step
 * on its own line as "<path>. <text>" (indented by depth), in document order; the lines are found by
 * walking the block's step tree in the same order, so intro prose that happens to start with a number
 * is never taken for a step. Undefined when the text does not show every step that way.
 */
function stepLines(block: Block, text: string): StepLines | undefined {
  const tree = block['steps'];
  if (!Array.isArray(tree) || tree.length === 0) return undefined;
  const paths: string[] = [];
  const visit = (nodes: StepNode[]): void => {
    for (const node of nodes) {
      paths.push(node.path);
      if (node.steps) visit(node.steps);
    }
  };
  visit(tree as StepNode[]);
  const lineStarts: number[] = [];
  const markerStarts: number[] = [];
  const markerPoints: number[] = [];
  let from = 0;
  let codePoints = 0;
  let counted = 0;
  for (const path of paths) {
    const marker = `${path}. `;
    let found = false;
    for (let i = text.indexOf(marker, from); i !== -1; i = text.indexOf(marker, i + 1)) {
      let lineStart = i;
      while (lineStart > 0 && text.charCodeAt(lineStart - 1) === 32) lineStart--;
      if (lineStart === 0 || text.charCodeAt(lineStart - 1) === 10) {
        lineStarts.push(lineStart);
        markerStarts.push(i);
        codePoints += codePointLength(text.slice(counted, i));
        counted = i;
        markerPoints.push(codePoints);
        from = i + marker.length;
        found = true;
        break;
      }
    }
    if (!found) return undefined;
  }
  return { paths, lineStarts, markerStarts, markerPoints };
}

/** The first and last step a code-point range of an algorithm block's text covers; a range starting inside a step starts with it. */
function stepsCovered(lines: StepLines, range: { start: number; end: number }): { first: string; last: string } | undefined {
  // Markers are ascending: the last one at or before the start, the last one before the end.
  const last = firstIndexAfter(lines.markerPoints, range.end - 1) - 1;
  if (last < 0) return undefined;
  const first = Math.max(0, firstIndexAfter(lines.markerPoints, range.start) - 1);
  return { first: lines.paths[first]!, last: lines.paths[last]! };
}

/**
 * The source span of several blocks: from the start of the first to the end of the last when both
 * spans have the same shape and differ only in their numeric start/end (e.g. {unit, start, end});
 * otherwise both spans as {first, last}.
 */
function spanOver(first: Record<string, unknown>, last: Record<string, unknown>): Record<string, unknown> {
  const keys = Object.keys(first);
  const sameShape =
    typeof first['start'] === 'number' &&
    typeof last['end'] === 'number' &&
    keys.length === Object.keys(last).length &&
    keys.every((key) => key === 'start' || key === 'end' || (key in last && JSON.stringify(first[key]) === JSON.stringify(last[key])));
  return sameShape ? { ...first, end: last['end'] } : { first, last };
}

/**
 * A chunk's heading path, the same shape whatever the extractor: the document's title, then the
 * headings of the sections that contain the chunk, outermost first. Extractors differ in whether the
 * title is a section: HTML specifications open with an `<h1>` that is the title (sometimes shortened:
 * "Widget" for "Widget Standard"; an RFC's HTML has "RFC 9999" and "Example Protocol" for
 * "RFC 9999: Example Protocol"), RFC text and XML have no title section, plain text and PDF vary.
 * So the path is assembled here, once: the title first, and a top-level section whose heading is the
 * title (or, for a level-1 heading, a word-bounded part of it) is that title's own heading, not a
 * section, and is left out. A document without a title starts with its sections.
 */
function headingPathResolver(title: string, sections: Section[]): (sectionId: string | null) => string[] {
  const byId = new Map(sections.map((section) => [section.id, section]));
  const memo = new Map<string, string[]>();
  const documentTitle = title.trim();
  const titlePath = documentTitle === '' ? [] : [headingPathEntry(documentTitle)];
  const resolve = (sectionId: string | null): string[] => {
    if (sectionId === null) return titlePath;
    const known = memo.get(sectionId);
    if (known !== undefined) return known;
    const chain: Section[] = [];
    const seen = new Set<string>();
    for (
      let current = byId.get(sectionId);
      current !== undefined && !seen.has(current.id);
      current = current.parentId === null ? undefined : byId.get(current.parentId)
    ) {
      seen.add(current.id);
      chain.unshift(current);
    }
    const root = chain[0];
    if (
      root !== undefined &&
      root.parentId === null &&
      (root.heading.trim().toLowerCase() === documentTitle.toLowerCase() || (root.level === 1 && namesTitle(root.heading, documentTitle)))
    )
      chain.shift();
    let path = [...titlePath, ...chain.map((section) => headingPathEntry(section.heading))];
    if (path.reduce((sum, entry) => sum + entry.length, 0) > MAX_HEADING_PATH_CHARS) {
      // Each entry gets an equal share: every chunk copies its path, and 32 nested headings of 256
      // code units made a 215 KB RFC XML of 5,000 small sections a 42 MB chunk file.
      const share = Math.max(MIN_HEADING_PATH_SHARE, Math.floor(MAX_HEADING_PATH_CHARS / path.length));
      path = [...(documentTitle === '' ? [] : [documentTitle]), ...chain.map((section) => section.heading)].map((entry) =>
        headingPathEntry(entry, share),
      );
    }
    memo.set(sectionId, path);
    return path;
  };
  return resolve;
}

/**
 * Longest title or heading a heading path repeats, in UTF-16 code units. Every chunk of a section
 * carries its whole path, so an unbounded heading makes the chunk file and the search index grow with
 * (chunks x heading length): a 5 MB one-line text file is its own title, and repeating it in each of
 * its thousands of chunks passed V8's longest string (the chunk rule failed with "Invalid string
 * length"). Real headings are far shorter; the full text stays in the evidence document.
 */
export const MAX_HEADING_PATH_ENTRY = 256;
/**
 * Longest heading path, all its entries together (the dev corpus's longest is 181): past it, each entry
 * is cut to an equal share of it, at least MIN_HEADING_PATH_SHARE code units.
 */
export const MAX_HEADING_PATH_CHARS = 1024;
const MIN_HEADING_PATH_SHARE = 32;

/** A heading as a path holds it: at most `max` code units, cut ones ending in "…". */
export function headingPathEntry(heading: string, max = MAX_HEADING_PATH_ENTRY): string {
  if (heading.length <= max) return heading;
  let end = max - 1;
  // Never split a surrogate pair.
  const last = heading.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${heading.slice(0, end).trimEnd()}…`;
}

/** True when `heading` is the title or a part of it that starts and ends at word boundaries (case-insensitive). */
function namesTitle(heading: string, title: string): boolean {
  const h = heading.trim().toLowerCase();
  const t = title.toLowerCase();
  if (h === '' || t === '') return false;
  for (let at = t.indexOf(h); at >= 0; at = t.indexOf(h, at + 1)) {
    const before = at === 0 ? '' : t[at - 1]!;
    const after = at + h.length >= t.length ? '' : t[at + h.length]!;
    if (!isWordChar(before) && !isWordChar(after)) return true;
  }
  return false;
}

export interface TextPiece {
  text: string;
  /** Code-point range of `text` within the cut text. */
  start: number;
  end: number;
}

/**
 * Cuts one long text into overlapping pieces of at most maxChars code points (the first of at most
 * `firstMaxChars`, when a lead-in goes in front of it). Cuts are preferred, in this order, at
 * `preferredStarts` (UTF-16 indices, ascending: an algorithm's step lines) or else at line starts
 * (code, grammar, lists and tables are laid out in lines), then at sentence starts, in the second
 * half of the window; else at whitespace.
 */
export function splitLongText(
  text: string,
  options: ChunkOptions,
  preferredStarts?: number[],
  firstMaxChars?: number,
  entries: readonly number[] = [],
): TextPiece[] {
  const prefix = codePointPrefix(text);
  // Algorithms are cut where a step's line starts, so a step number never ends one piece while its text starts the next.
  const tiers =
    preferredStarts !== undefined && preferredStarts.length > 0
      ? [preferredStarts]
      : [...(entries.length > 0 ? [[...entries]] : []), lineStarts(text), sentenceStarts(text)];
  const entrySet = new Set(entries);
  const pieces: TextPiece[] = [];
  let start = 0;
  let primaryStart = 0;
  for (;;) {
    const limit = prefix[start]! + (pieces.length === 0 ? (firstMaxChars ?? options.maxChars) : options.maxChars);
    if (prefix[text.length]! <= limit) {
      pieces.push(piece(text, prefix, start, text.length));
      return pieces;
    }
    const hi = lastIndexWithin(text, prefix, start, limit);
    const cut = chooseCut(text, primaryStart, hi, tiers);
    pieces.push(piece(text, prefix, start, cut));
    let next = cut;
    while (next < text.length && isWhitespace(charAt(text, next))) next++;
    if (next >= text.length) return pieces;
    // A cut where an entry begins needs no overlap: the piece before ends its own entry.
    start = entrySet.has(cut) ? next : overlapStart(text, prefix, next, options.overlapChars, tiers, primaryStart);
    primaryStart = next;
  }
}

function piece(text: string, prefix: Uint32Array, start: number, end: number): TextPiece {
  let from = start;
  let to = end;
  while (from < to && isWhitespace(charAt(text, from))) from++;
  while (to > from && isWhitespace(charBefore(text, to))) to--;
  return { text: text.slice(from, to), start: prefix[from]!, end: prefix[to]! };
}

/** Largest UTF-16 index i >= start with prefix[i] <= limit, not inside a surrogate pair. */
function lastIndexWithin(text: string, prefix: Uint32Array, start: number, limit: number): number {
  let lo = start;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (prefix[mid]! <= limit) lo = mid;
    else hi = mid - 1;
  }
  if (splitsSurrogate(text, lo)) lo--;
  return lo;
}

/** Where to end a piece: a cut in (primaryStart, hi], never inside a word unless unavoidable. */
function chooseCut(text: string, primaryStart: number, hi: number, tiers: number[][]): number {
  const half = primaryStart + Math.ceil((hi - primaryStart) / 2);
  // The last preferred start at or before hi, found by bisection: scanning the list for it made cutting
  // a block quadratic in its sentences.
  for (const starts of tiers) {
    const last = firstIndexAfter(starts, hi) - 1;
    if (last < 0 || starts[last]! < half) continue;
    // Not right after a lead-in ("11. If target is non-null, then:"), when another start will do.
    for (let i = last; i >= 0 && starts[i]! >= half; i--) if (!followsLeadIn(text, starts[i]!)) return starts[i]!;
    return starts[last]!;
  }
  for (let p = hi; p > primaryStart; p--) {
    if (isWhitespace(charAt(text, p)) && !splitsSurrogate(text, p)) return p;
  }
  for (let p = hi; p > primaryStart; p--) {
    if (!cutsWord(text, p) && !splitsSurrogate(text, p)) return p;
  }
  return Math.max(hi, primaryStart + 1);
}

/** Whether the text before `index`, without its trailing whitespace, ends with a colon. */
function followsLeadIn(text: string, index: number): boolean {
  let p = index;
  while (p > 0 && isWhitespace(text[p - 1])) p--;
  return p > 0 && text.charCodeAt(p - 1) === 58;
}

/** The index of the first value greater than `bound` in an ascending list (its length when none is). */
function firstIndexAfter(sorted: readonly number[], bound: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= bound) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Start of the next piece: up to `overlap` code points before `next`, at the earliest preferred start
 * (line or sentence start, tier by tier), else at the earliest word that follows whitespace (never
 * inside "Channel-Identifier" or "a.b"), else at the earliest word start.
 */
function overlapStart(
  text: string,
  prefix: Uint32Array,
  next: number,
  overlap: number,
  tiers: number[][],
  previousPrimary: number,
): number {
  if (overlap <= 0) return next;
  const earliest = prefix[next]! - overlap;
  // Starts are ascending: bisect to the first one past previousPrimary (scanning from the list's start
  // made cutting a block quadratic in its sentences), then step over those of the previous piece that
  // are too early: each piece's own, so every start is stepped over at most once per tier.
  for (const starts of tiers) {
    for (let i = firstIndexAfter(starts, previousPrimary); i < starts.length; i++) {
      const s = starts[i]!;
      if (s >= next) break;
      if (prefix[s]! >= earliest) return s;
    }
  }
  let wordStart = next;
  for (let p = previousPrimary + 1; p < next; p++) {
    if (prefix[p]! < earliest) continue;
    if (isWordChar(charAt(text, p)) && !isWordChar(charBefore(text, p)) && !splitsSurrogate(text, p)) {
      if (isWhitespace(charBefore(text, p))) return p;
      if (wordStart === next) wordStart = p;
    }
  }
  return wordStart;
}

/** Indices where a line starts after a line feed (not a blank line), ascending. */
function lineStarts(text: string): number[] {
  const starts: number[] = [];
  for (let i = text.indexOf('\n'); i !== -1 && i + 1 < text.length; i = text.indexOf('\n', i + 1)) {
    if (text.charCodeAt(i + 1) !== 10) starts.push(i + 1);
  }
  return starts;
}
