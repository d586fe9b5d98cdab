import type { Block, Chunk, EvidenceDocument } from '../document/types.js';
import { type ChunkOptions, sameChunkInput } from './chunker.js';
import { sameStrings } from '../store/string-lists.js';

/**
 * What the chunker keeps of a document's last round, so that the next round of the same document
 * (a watch session's next save, on the same stage worker: graph/worker-memory.ts) cuts only the
 * sections an edit touched. The chunker cuts each run of one section's blocks on its own (a group
 * never goes on past a change of section), and a run's chunks are a pure function of:
 * - what the chunker reads of its blocks, the source spans aside (chunker.ts sameChunkInput);
 * - its section's heading path and whether the section is apparatus;
 * - the document's identity and classification (documentId, sourceUrl, fragment, family, authority,
 *   documentType) and the chunk options;
 * - the snapshot id and the blocks' spans, which only stamp the chunks (chunker.ts restamped).
 * A run whose blocks, heading path and apparatus flag equal a run of the last round (found by its
 * first block's id) takes that round's chunks, restamped, instead of being cut again; anything else is
 * cut afresh. So a round gives the chunks a fresh chunking gives, value for value; only time is saved.
 * Each chunk keeps a record across rounds where chunk-file.ts keeps its serialised pieces.
 */
export class SectionChunks {
  private last = new Map<string, RunRecord>();
  private context: string | undefined;
  private round: ChunkingRound | undefined;

  /** A new round of chunking `doc`: what the last round left is usable only for the same document and options. */
  startRound(doc: EvidenceDocument, options: ChunkOptions): ChunkingRound {
    const context = JSON.stringify([
      doc.documentId,
      doc.sourceUrl,
      doc.fragment,
      doc.family,
      doc.authority,
      doc.documentType,
      options.maxChars,
      options.overlapChars,
    ]);
    const last = context === this.context ? this.last : new Map<string, RunRecord>();
    const round = new ChunkingRound(last);
    this.context = context;
    this.last = round.runs;
    this.round = round;
    return round;
  }

  /** The record of a chunk the last round gave out (for chunk-file.ts). */
  recordOf(chunk: Chunk): ChunkRecord | undefined {
    return this.round?.recordOf(chunk);
  }
}

/** One run of a section's blocks as the chunker reads them: each block with its trimmed text. */
export interface RunEntry {
  block: Block;
  text: string;
}

/** What a run's chunks take from its section. */
export interface RunSection {
  headingPath: string[];
  apparatus: boolean;
}

/** A chunk cut from a run: the index in the run of the first and last block it holds (its span spans them). */
export interface MadeChunk {
  chunk: Chunk;
  first: number;
  last: number;
}

/** A chunk as the round that cut it made it, kept while later rounds reuse it. */
export interface ChunkRecord extends MadeChunk {
  /** chunk-file.ts's serialised pieces of the chunk, once it has made them (undefined until then). */
  encoded?: unknown;
  /** index/search-index.ts's row of the chunk, once it has made it. */
  row?: unknown;
}

interface RunRecord {
  blocks: Block[];
  section: RunSection;
  chunks: ChunkRecord[];
}

/** One round of chunking a document: the last round's runs to reuse, and this round's. */
export class ChunkingRound {
  /** This round's runs, by their first block's id: the next round's `last`. */
  readonly runs = new Map<string, RunRecord>();
  /** The record of each chunk this round gave out (for chunk-file.ts). */
  private readonly records = new Map<Chunk, ChunkRecord>();

  constructor(private readonly last: ReadonlyMap<string, RunRecord>) {}

  /** The last round's run of the same blocks (spans aside) and section, now this round's too; undefined when there is none. */
  find(run: readonly RunEntry[], section: RunSection): RunRecord | undefined {
    const first = run[0]!.block.id;
    const known = this.last.get(first);
    if (known === undefined || known.blocks.length !== run.length || known.section.apparatus !== section.apparatus) return undefined;
    if (!sameStrings(known.section.headingPath, section.headingPath)) return undefined;
    for (let i = 0; i < run.length; i++) if (!sameChunkInput(known.blocks[i]!, run[i]!.block)) return undefined;
    this.runs.set(first, { blocks: run.map((entry) => entry.block), section, chunks: known.chunks });
    return known;
  }

  /** Keeps a run cut this round for the next. */
  remember(run: readonly RunEntry[], section: RunSection, made: MadeChunk[]): void {
    const chunks: ChunkRecord[] = made.map((one) => ({ ...one }));
    for (const record of chunks) this.records.set(record.chunk, record);
    this.runs.set(run[0]!.block.id, { blocks: run.map((entry) => entry.block), section, chunks });
  }

  /** `chunk`, a restamping of `record`'s chunk for this round, known by its record from now on. */
  reused(record: ChunkRecord, chunk: Chunk): Chunk {
    this.records.set(chunk, record);
    return chunk;
  }

  /** The record of a chunk this round gave out. */
  recordOf(chunk: Chunk): ChunkRecord | undefined {
    return this.records.get(chunk);
  }
}
