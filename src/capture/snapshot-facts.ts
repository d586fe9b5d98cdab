import type { SnapshotMeta } from '../document/types.js';

/**
 * A snapshot's record facts: what the build state keeps of its SnapshotMeta (plus where its body is),
 * so dependents can rebuild the meta without reading the record. Both directions live here so a field
 * added to one cannot be forgotten by the other.
 */
export function snapshotFacts(meta: SnapshotMeta, bodyPath: string): Record<string, string> {
  return {
    snapshotId: meta.snapshotId,
    body: bodyPath,
    sha256: meta.sha256,
    byteLength: String(meta.byteLength),
    contentType: meta.contentType,
    charset: meta.charset ?? '',
    captureMethod: meta.captureMethod,
    sourceUrl: meta.sourceUrl,
  };
}

export function snapshotMetaFromFacts(facts: Record<string, string>): SnapshotMeta {
  return {
    snapshotId: facts.snapshotId!,
    sourceUrl: facts.sourceUrl!,
    captureMethod: facts.captureMethod as SnapshotMeta['captureMethod'],
    contentType: facts.contentType!,
    charset: facts.charset ? facts.charset : null,
    sha256: facts.sha256!,
    byteLength: Number(facts.byteLength),
  };
}
