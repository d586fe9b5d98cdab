import type { Chunk, EvidenceDocument } from '../document/types.js';
import { type ChunkRecord, SectionChunks } from '../chunk/section-chunks.js';
import type { PartMemory } from '../index/search-index.js';
import { indexTerms, type IndexTerms } from '../index/tokenizer.js';
import { canonicalJson } from '../store/canonical-json.js';
import { RoundMemo } from '../store/round-memo.js';

/**
 * What a stage worker keeps between its tasks, owned by the worker (stage-worker.ts makes one; the
 * pool that owns the worker belongs to one build or watch session). In a watch session the same
 * worker extracts and chunks the same edited document again and again, and all of it but the edited
 * paragraph is as it was the last time: each entry lets a task take the unchanged share from the last
 * round instead of computing it again. Every entry is a pure function of content it is looked up by,
 * so a task gives the same bytes with or without this memory; it only saves time. Bounded: the last
 * few documents.
 */
export class WorkerMemory {
  /**
   * Documents this worker extracted and whose chunk task has not come yet, by the SHA-256 of their
   * artifact file: that task takes the document from here instead of decoding and parsing the file.
   */
  readonly documents = new RecentEntries<string, EvidenceDocument>(EXTRACTED_DOCUMENTS);
  private readonly chunking = new RecentEntries<string, ChunkingMemory>(CHUNKED_DOCUMENTS);

  /** What the last chunk task of `documentId` computed, starting a new round of it. */
  chunkingOf(documentId: string): ChunkingMemory {
    let memory = this.chunking.get(documentId);
    if (memory === undefined) {
      const sections = new SectionChunks();
      memory = {
        textJson: new RoundMemo((text: string) => canonicalJson(text)),
        terms: new RoundMemo(indexTerms),
        sections,
        recordOf: (chunk) => sections.recordOf(chunk),
        part: undefined,
      };
    } else {
      memory.textJson.nextRound();
      memory.terms.nextRound();
    }
    this.chunking.set(documentId, memory);
    return memory;
  }
}

/** The last chunk task's work on one document, reused by the next task of that document. */
export interface ChunkingMemory {
  /** Canonical JSON of each chunk text (chunk-file.ts encodeChunks). */
  textJson: RoundMemo<string, string>;
  /** The chunks of each run of a section's blocks (section-chunks.ts). */
  sections: SectionChunks;
  /** The record of a chunk the last round of `sections` gave out, where later stages keep their work on it. */
  recordOf(chunk: Chunk): ChunkRecord | undefined;
  /** The terms of each chunk text and heading path (tokenizer.ts indexTerms). */
  terms: RoundMemo<string, IndexTerms>;
  /** The document's last index part, as search-index.ts buildDocumentPart can patch it. */
  part: PartMemory | undefined;
}

/** A chunk task usually follows its extraction on the same worker (the pool prefers it): a couple is enough. */
const EXTRACTED_DOCUMENTS = 2;
/** The documents being edited in one watch session are few; each keeps about its chunk texts twice. */
const CHUNKED_DOCUMENTS = 4;

/** A map that keeps its `limit` most recently set keys. */
export class RecentEntries<K, V> {
  private readonly entries = new Map<K, V>();
  constructor(private readonly limit: number) {}

  get(key: K): V | undefined {
    return this.entries.get(key);
  }

  /** The value of `key`, forgotten here. */
  take(key: K): V | undefined {
    const value = this.entries.get(key);
    this.entries.delete(key);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.limit) this.entries.delete(this.entries.keys().next().value as K);
  }
}
