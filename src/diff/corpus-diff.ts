import type { Block, EvidenceDocument, Section } from '../document/types.js';
import { EpistemeError } from '../failure.js';
import { artifactBytes, makeArtifact } from '../store/artifact.js';
import { canonicalJson, compareCodeUnits } from '../store/canonical-json.js';
import { sha256Hex } from '../store/hash.js';

/**
 * Corpus diff: two complete extracted corpora in, a deterministic report out.
 * - Documents are matched by source URL (+ fragment), not by document id (ids are slugs assigned
 *   per workspace and may differ between corpora). Unmatched ones are added or removed.
 * - A matched document is changed when anything differs. The report lists its changed top-level
 *   fields (provenance one level deep), and its sections and blocks that were added, removed or
 *   changed.
 * - Sections are matched by id (ids come from source anchors). Blocks are aligned by content
 *   (longest common subsequence over kind, section, normativity, text...), because block ids are
 *   ordinal within a section and shift when a block is inserted; unmatched blocks between two
 *   aligned ones are paired in order as "changed", the rest are added or removed. Source spans are
 *   ignored in comparisons: they move whenever earlier source text changes.
 * Block text appears as a sha256, a length and a bounded excerpt (full text is in the documents).
 */
export const DIFF_FORMAT_VERSION = 1;
export const EXCERPT_CHARS = 160;

export interface DocumentRef {
  documentId: string;
  sourceUrl: string;
  fragment: string | null;
  title: string;
  snapshotId: string;
}

export interface SectionRef {
  id: string;
  heading: string;
  number: string | null;
}

export interface BlockRef {
  id: string;
  sectionId: string | null;
  kind: string;
  normativity: string;
  textSha256: string;
  /** Length of the block text in code points. */
  textLength: number;
  /** At most EXCERPT_CHARS code points from the start of the text. */
  excerpt: string;
  page?: number;
}

export interface SectionChange {
  id: string;
  /** Section fields that differ (heading, level, number, parentId, fragment...). */
  fields: string[];
  before: SectionRef;
  after: SectionRef;
}

export interface BlockChange {
  /** Block fields that differ (text, kind, normativity, sectionId...); the id is not compared. */
  fields: string[];
  before: BlockRef;
  after: BlockRef;
}

export interface DocumentChange {
  sourceUrl: string;
  fragment: string | null;
  before: DocumentRef;
  after: DocumentRef;
  /** Top-level fields that differ, besides sections and blocks; provenance as provenance.<field>. */
  fields: string[];
  sections: { added: SectionRef[]; removed: SectionRef[]; changed: SectionChange[] };
  blocks: { added: BlockRef[]; removed: BlockRef[]; changed: BlockChange[] };
}

export interface DiffPayload {
  summary: { before: number; after: number; added: number; removed: number; changed: number; unchanged: number };
  added: DocumentRef[];
  removed: DocumentRef[];
  changed: DocumentChange[];
}

function documentKey(doc: EvidenceDocument): string {
  return doc.fragment === null ? doc.sourceUrl : `${doc.sourceUrl}#${doc.fragment}`;
}

function byKey(docs: EvidenceDocument[], side: string): Map<string, EvidenceDocument> {
  const map = new Map<string, EvidenceDocument>();
  for (const doc of docs) {
    const key = documentKey(doc);
    if (map.has(key))
      throw new EpistemeError('usage-error', `The ${side} corpus has two documents for ${key}.`, {
        details: { corpus: side, sourceUrl: key },
      });
    map.set(key, doc);
  }
  return map;
}

export function diffCorpora(before: EvidenceDocument[], after: EvidenceDocument[]): DiffPayload {
  const beforeDocs = byKey(before, 'before');
  const afterDocs = byKey(after, 'after');
  const keys = [...new Set([...beforeDocs.keys(), ...afterDocs.keys()])].sort(compareCodeUnits);
  const payload: DiffPayload = {
    summary: { before: before.length, after: after.length, added: 0, removed: 0, changed: 0, unchanged: 0 },
    added: [],
    removed: [],
    changed: [],
  };
  for (const key of keys) {
    const old = beforeDocs.get(key);
    const current = afterDocs.get(key);
    if (old === undefined) payload.added.push(documentRef(current!));
    else if (current === undefined) payload.removed.push(documentRef(old));
    else {
      const change = diffDocument(old, current);
      if (change === undefined) payload.summary.unchanged++;
      else payload.changed.push(change);
    }
  }
  payload.summary.added = payload.added.length;
  payload.summary.removed = payload.removed.length;
  payload.summary.changed = payload.changed.length;
  return payload;
}

/** The diff as the exact bytes of diffs/diff.json (the shared artifact envelope). */
export function diffArtifactBytes(payload: DiffPayload): string {
  return artifactBytes(makeArtifact('diff', DIFF_FORMAT_VERSION, payload));
}

function documentRef(doc: EvidenceDocument): DocumentRef {
  return {
    documentId: doc.documentId,
    sourceUrl: doc.sourceUrl,
    fragment: doc.fragment,
    title: doc.title,
    snapshotId: doc.provenance.snapshotId,
  };
}

function diffDocument(before: EvidenceDocument, after: EvidenceDocument): DocumentChange | undefined {
  const fields = changedFields(before, after, ['sections', 'blocks', 'provenance']);
  for (const field of changedFields(before.provenance, after.provenance, [])) fields.push(`provenance.${field}`);
  fields.sort(compareCodeUnits);
  const sections = diffSections(before.sections, after.sections);
  const blocks = diffBlocks(before.blocks, after.blocks);
  const nothing =
    fields.length === 0 && [sections, blocks].every((d) => d.added.length === 0 && d.removed.length === 0 && d.changed.length === 0);
  if (nothing) return undefined;
  return {
    sourceUrl: after.sourceUrl,
    fragment: after.fragment,
    before: documentRef(before),
    after: documentRef(after),
    fields,
    sections,
    blocks,
  };
}

/** Keys (own, enumerable) whose canonical JSON differs, except the ignored ones; sorted. */
function changedFields(before: object, after: object, ignored: string[]): string[] {
  const a = before as Record<string, unknown>;
  const b = after as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((key) => !ignored.includes(key));
  return keys.filter((key) => canonicalJson(a[key] ?? null) !== canonicalJson(b[key] ?? null)).sort(compareCodeUnits);
}

function sectionRef(section: Section): SectionRef {
  return { id: section.id, heading: section.heading, number: section.number };
}

function diffSections(before: Section[], after: Section[]): DocumentChange['sections'] {
  const old = new Map(before.map((section) => [section.id, section]));
  const current = new Map(after.map((section) => [section.id, section]));
  const result: DocumentChange['sections'] = { added: [], removed: [], changed: [] };
  for (const section of after) {
    const previous = old.get(section.id);
    if (previous === undefined) {
      result.added.push(sectionRef(section));
      continue;
    }
    const fields = changedFields(previous, section, ['id', 'span']);
    if (fields.length > 0) result.changed.push({ id: section.id, fields, before: sectionRef(previous), after: sectionRef(section) });
  }
  for (const section of before) if (!current.has(section.id)) result.removed.push(sectionRef(section));
  return result;
}

function blockRef(block: Block): BlockRef {
  const chars = [...block.text];
  const ref: BlockRef = {
    id: block.id,
    sectionId: block.sectionId,
    kind: block.kind,
    normativity: block.normativity,
    textSha256: sha256Hex(block.text),
    textLength: chars.length,
    excerpt: chars.slice(0, EXCERPT_CHARS).join(''),
  };
  if (block.page !== undefined) ref.page = block.page;
  return ref;
}

/** What a block is, for alignment: everything but its id and source span. */
function blockContent(block: Block): string {
  const { id: _id, span: _span, ...rest } = block;
  return canonicalJson(rest);
}

/** Alignment grids larger than this fall back to pairing by block id. */
const MAX_ALIGNMENT_CELLS = 4_000_000;

function diffBlocks(before: Block[], after: Block[]): DocumentChange['blocks'] {
  const a = before.map(blockContent);
  const b = after.map(blockContent);
  // Common prefix and suffix first: edits are usually local, and this keeps the grid small.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const result: DocumentChange['blocks'] = { added: [], removed: [], changed: [] };
  const n = endA - start;
  const m = endB - start;
  if (n === 0 && m === 0) return result;
  const pairs = n * m <= MAX_ALIGNMENT_CELLS ? alignByContent(a, b, start, endA, endB) : alignById(before, after, start, endA, endB);
  // Walk the matched pairs; the unmatched runs between them become changed/added/removed.
  let i = start;
  let j = start;
  const gap = (untilA: number, untilB: number): void => {
    while (i < untilA && j < untilB) {
      const fields = changedFields(before[i]!, after[j]!, ['id', 'span']);
      if (fields.length > 0) result.changed.push({ fields, before: blockRef(before[i]!), after: blockRef(after[j]!) });
      i++;
      j++;
    }
    for (; i < untilA; i++) result.removed.push(blockRef(before[i]!));
    for (; j < untilB; j++) result.added.push(blockRef(after[j]!));
  };
  for (const [pi, pj] of pairs) {
    gap(pi, pj);
    i = pi + 1;
    j = pj + 1;
  }
  gap(endA, endB);
  return result;
}

/** Longest common subsequence of equal block contents within [start, endA) x [start, endB). */
function alignByContent(a: string[], b: string[], start: number, endA: number, endB: number): [number, number][] {
  const n = endA - start;
  const m = endB - start;
  const width = m + 1;
  const table = new Uint32Array((n + 1) * width);
  for (let x = n - 1; x >= 0; x--) {
    for (let y = m - 1; y >= 0; y--) {
      table[x * width + y] =
        a[start + x] === b[start + y]
          ? table[(x + 1) * width + y + 1]! + 1
          : Math.max(table[(x + 1) * width + y]!, table[x * width + y + 1]!);
    }
  }
  const pairs: [number, number][] = [];
  let x = 0;
  let y = 0;
  while (x < n && y < m) {
    if (a[start + x] === b[start + y]) {
      pairs.push([start + x, start + y]);
      x++;
      y++;
    } else if (table[(x + 1) * width + y]! >= table[x * width + y + 1]!) x++;
    else y++;
  }
  return pairs;
}

/** Fallback for huge edits: blocks with the same id (in increasing order on both sides) are paired. */
function alignById(before: Block[], after: Block[], start: number, endA: number, endB: number): [number, number][] {
  const positions = new Map<string, number>();
  for (let y = start; y < endB; y++) positions.set(after[y]!.id, y);
  const pairs: [number, number][] = [];
  let last = start - 1;
  for (let x = start; x < endA; x++) {
    const y = positions.get(before[x]!.id);
    if (y !== undefined && y > last && blockContent(before[x]!) === blockContent(after[y]!)) {
      pairs.push([x, y]);
      last = y;
    }
  }
  return pairs;
}
