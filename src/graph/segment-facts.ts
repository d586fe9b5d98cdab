import type { SegmentEntry } from '../index/index-layout.js';
import type { FileStamp, TargetRecord } from './state.js';

/**
 * What a segmented index's build record (the search index's, or a stage index's) keeps about its
 * segment files (facts.segments, and facts.segmentFiles for their workspace-relative paths): read by the
 * rule to reuse segments, by the scheduler and the no-op proof to notice a segment file removed or
 * edited, and by garbage collection.
 */

/**
 * [segment key, its manifest entry (its file name first), SHA-256 of the file, the file's stat stamp
 * when written or checked]. The entry is the search index's SegmentEntry, or a stage index's
 * StageSegmentTuple.
 */
export type SegmentFact<E extends readonly unknown[] = SegmentEntry> = [
  key: string,
  entry: E,
  sha256: string,
  stamp: Omit<FileStamp, 'hash'>,
];

/** A stage-index segment as its record keeps it: [file name, entries, first document id, last document id]. */
export type StageSegmentTuple = [file: string, entries: number, firstDocumentId: string, lastDocumentId: string];

export function segmentFactsOf<E extends readonly unknown[] = SegmentEntry>(record: TargetRecord | undefined): SegmentFact<E>[] {
  if (record?.facts?.segments === undefined) return [];
  try {
    const facts = JSON.parse(record.facts.segments) as SegmentFact<E>[];
    return Array.isArray(facts) ? facts.filter((fact) => Array.isArray(fact) && fact.length === 4) : [];
  } catch {
    return [];
  }
}

/** Each recorded segment file of a search-index record, workspace-relative, with its recorded stamp. */
export function segmentStamps(record: TargetRecord): [file: string, stamp: Omit<FileStamp, 'hash'>][] {
  const files = record.facts?.segmentFiles?.split(' ') ?? [];
  return segmentFactsOf(record).map((fact, i) => [files[i] ?? '', fact[3]]);
}
