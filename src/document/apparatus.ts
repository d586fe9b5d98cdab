/**
 * A document's apparatus: its sections about the document rather than its subject (contents, status,
 * acknowledgements, references, indexes, change logs), as its family's rules name them by id or
 * heading. Such a section is informative for that reason, and the reason says so: `section:<id>` or
 * `heading:<text>` (document-builder.ts). The chunker marks their chunks (Chunk.apparatus) and a
 * query weighs their matches less (query/ranking.ts APPARATUS_WEIGHT).
 */
export function apparatusReason(listedBy: 'section' | 'heading', name: string): string {
  return `${listedBy}:${name}`;
}

/** Whether a normativityReason names a section of the document's apparatus. */
export function isApparatusReason(reason: string | null | undefined): boolean {
  return reason != null && (reason.startsWith('section:') || reason.startsWith('heading:'));
}
