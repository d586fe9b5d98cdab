import type { SegmentEntry } from '../index/index-layout.js';
import type { FileStamp, TargetRecord } from './state.js';

/**
 * What a segmented search index's build record keeps about its segment files (facts.segments, and
 * facts.segmentFiles for their paths): read by the search-index rule to reuse segments, by the
 * scheduler and the no-op proof to notice a segment file removed or edited, and by garbage collection.
 */

/** [segment key, its manifest entry, SHA-256 of the file, the file's stat stamp when written or checked]. */
export type SegmentFact = [key: string, entry: SegmentEntry, sha256: string, stamp: Omit<FileStamp, 'hash'>];

export function segmentFactsOf(record: TargetRecord | undefined): SegmentFact[] {
  if (record?.facts?.segments === undefined) return [];
  try {
    const facts = JSON.parse(record.facts.segments) as SegmentFact[];
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
