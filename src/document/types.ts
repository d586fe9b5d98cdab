/**
 * The data contract between stages. Extraction produces EvidenceDocument, chunking produces Chunk,
 * indexing and querying consume Chunk. Fields may be added; the ones here keep their meaning.
 */

export type Authority = 'normative' | 'informative';
export type ExtractorId = 'html' | 'markdown' | 'pdf' | 'text' | 'xml';
export type Normativity = 'normative' | 'informative' | 'example';
export type CaptureMethod = 'http' | 'manual-ingest';

/** One resolved manifest or manual-ingest entry: what to capture and how to read it. */
export interface SourceSpec {
  /** Canonical http(s) source URL; a `#fragment` selects one section for extraction. */
  url: string;
  family?: string;
  authority?: Authority;
  extractor?: ExtractorId;
}

/** What a snapshot records about one captured representation (bytes live beside it). */
export interface SnapshotMeta {
  /** Derived from the representation (bytes + content type + charset), never from the clock. */
  snapshotId: string;
  sourceUrl: string;
  captureMethod: CaptureMethod;
  contentType: string;
  /** Charset declared by the capture (header or map); null when none was declared. */
  charset: string | null;
  sha256: string;
  byteLength: number;
  /**
   * HTTP captures: which declaration `charset` follows (byte order mark, Content-Type header, in-document
   * <meta> / XML declaration, or none: the default), and both declarations as found, so a disagreement
   * between header and document is recorded.
   */
  charsetSource?: 'bom' | 'header' | 'meta' | 'default';
  headerCharset?: string | null;
  documentCharset?: string | null;
}

export interface Section {
  /** Unique within the document; equals `fragment` when the source gives one. */
  id: string;
  /** Id attribute / anchor in the source, or null when the section has none. */
  fragment: string | null;
  heading: string;
  level: number;
  /** Section number as printed ("4.2.1"), or null. */
  number: string | null;
  parentId: string | null;
  /** Other ids in the source that name this section (e.g. the heading's id inside `<section id>`). */
  alternateIds?: string[];
  /**
   * Ids another rendering of the same document gives this section (the xml2rfc HTML id "appendix-A" for
   * the XML pn "section-appendix.a"): aliases for pairing renderings, never ids of this source.
   */
  derivedIds?: string[];
  /** Whether the section's content is informative (marked, or a known informative section). */
  normativity?: 'normative' | 'informative';
  /**
   * Why an informative section is so, as a block's normativityReason says it: section:<id> and
   * heading:<text> name a section of the document's apparatus (the family's informative ids and
   * headings: contents, status, acknowledgements, references, indexes, change logs); marker-class:<c>,
   * statement and heading-marker:<text> a section marked or saying it is informative. Absent when the
   * section has the document's authority.
   */
  normativityReason?: string;
  /** PDF page (1-based) where the section starts. */
  page?: number;
  span?: Record<string, unknown>;
  /** How sure the structure is, 0-100, when it differs from the document's confidence. */
  confidence?: number;
}

export interface Block {
  /** Unique within the document, stable for the same bytes and configuration. */
  id: string;
  kind: string;
  sectionId: string | null;
  /** The block's own id or the nearest enclosing fragment id, or null. */
  fragment: string | null;
  /** Complete plain text of the block (captured source text: untrusted). */
  text: string;
  normativity: Normativity;
  /** Why the block has its normativity: marker-class:<c>, marker-element:<name>, section:<id>, statement, default-authority. */
  normativityReason?: string;
  /** How sure the structure is, 0-100, when it differs from the document's confidence. */
  confidence?: number;
  /** PDF page (1-based) where the block starts; absent for non-paginated sources. */
  page?: number;
  /** Where the text came from in the source (PDF: page plus offsets; text: line/offsets). */
  span?: Record<string, unknown>;
  /** Ids of elements inside the block, in text order: the UTF-16 offset into `text` where each begins. */
  anchors?: { id: string; start: number }[];
  /**
   * PDF: where each later page begins in `text` (UTF-16 offset), in order, for a block the page's end
   * interrupts (a paragraph or a table continued on the next page); absent for a block on one page.
   */
  pageStarts?: PageStart[];
  [extra: string]: unknown;
}

export interface PageStart {
  page: number;
  start: number;
}

export interface Diagnostic {
  code: string;
  message: string;
  severity: 'error' | 'warning' | 'info';
}

export interface EvidenceDocument {
  documentId: string;
  sourceUrl: string;
  /** Fragment selected by the source URL, or null for the whole document. */
  fragment: string | null;
  title: string;
  family: string;
  authority: Authority;
  documentType: string;
  contentTrust: 'untrusted-source';
  provenance: {
    producer: { name: string; version: string };
    extractor: { id: string; version: number };
    sourceSha256: string;
    extractionConfigSha256: string;
    snapshotId: string;
    captureMethod: CaptureMethod;
    contentType: string;
  };
  sections: Section[];
  blocks: Block[];
  diagnostics: Diagnostic[];
  /** Declared extraction limits that apply (stable codes, e.g. "scripts-not-executed"). */
  limits: string[];
  /** How sure the extracted structure is, 0-100 (integer). */
  confidence?: number;
  [extra: string]: unknown;
}

export interface Citation {
  sourceUrl: string;
  fragment: string | null;
  snapshotId: string;
  documentId: string;
  sectionId: string | null;
  headingPath: string[];
  blockIds: string[];
  pages?: number[];
  span?: Record<string, unknown>;
  /**
   * For a chunk cut from one long block: the code-point range of its piece within that block's text.
   * The block is the chunk's last; a first piece may follow the whole lead-in block that introduces
   * it ("... the following:"), joined by a blank line.
   */
  textRange?: { start: number; end: number };
  /** For a chunk of one algorithm block: the paths of the first and last step its text covers ("3.2", "3.4.1"). */
  steps?: { first: string; last: string };
}

export interface Chunk {
  /** Stable and unique across the corpus. */
  chunkId: string;
  documentId: string;
  text: string;
  contentTrust: 'untrusted-source';
  citation: Citation;
  normativity: Normativity;
  family: string;
  authority: Authority;
  documentType: string;
  /**
   * Set when the chunk is of a section of the document's apparatus (its section's normativityReason
   * is section:<id> or heading:<text>: contents, status, acknowledgements, references, indexes,
   * change logs): text about the document rather than its subject, ranked with less weight.
   */
  apparatus?: true;
  /**
   * Source ids in the text, as [code-point offset into text, id], ascending: the nearest one at or
   * before a position is the most precise fragment for it. Absent when the only one is the
   * citation's fragment at the start.
   */
  anchors?: [number, string][];
}

/**
 * A chunk file's payload: one document's chunks and the options they were cut with, so that a reader
 * (a remote-cache restore) can tell chunks cut for another workspace from this one's without inferring
 * the options from the chunks.
 */
export interface ChunksPayload {
  /** Every option that shapes the chunks (chunker.ts ChunkOptions), as the chunker was given them. */
  chunkOptions: { maxChars: number; overlapChars: number };
  chunks: Chunk[];
  documentId: string;
}
