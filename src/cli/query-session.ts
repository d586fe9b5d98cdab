import * as path from 'node:path';
import type { Stats } from 'node:fs';
import { EpistemeError, type Warning } from '../failure.js';
import { fs } from '../node-builtins.js';
import { DEFAULT_MAX_INDEX_INPUT_BYTES, readBoundedInput } from '../store/bounded-input.js';
import { openBoundedFile } from '../store/bounded-read.js';
import {
  descriptorSource,
  fileSource,
  indexFingerprint,
  indexProvenance,
  loadSearchIndex,
  memorySource,
  sourceFingerprint,
  type LoadedSearchIndex,
} from '../index/index-reader.js';
import { checkGeneration, waitForWriter, type Freshness } from '../query/generation.js';
import { notBuiltYet, otherArtifact, rebuildCommand, rebuildFromHere } from './query-workspace.js';

export { rebuildCommand } from './query-workspace.js';

/**
 * One search index as `query`, `query --batch`, `show` and `serve` open it: the file (or stdin), the
 * chunk index it is checked against, and the generation rules of docs/query.md ("Queries during a
 * build"). A one-shot command opens it once. A long-lived one (`--batch`, `serve`) calls open() per
 * request: the index stays loaded while its file is the one it read (same inode, size and mtime), and
 * is loaded again, whole, when a build has committed another, so every answer comes from one complete
 * generation, the newest one committed when the request began. The freshness check is repeated only
 * when the chunk index changed since it last passed.
 */
export interface IndexLocation {
  /** The search index as the user named it (a path from the current folder), or '-' for stdin. */
  index: string;
  chunkIndex?: string | undefined;
  waitBuild?: number | undefined;
  maxInputBytes?: number | undefined;
}

interface Generation {
  index: LoadedSearchIndex;
  /** Descriptors this generation opened (the index and its segments), closed when it is replaced. */
  fds: number[];
  /** The stat stamp of the chunk index when it last passed the freshness check. */
  freshChunkIndex: string | null;
}

export class IndexSession {
  private generation: Generation | null = null;
  /** Generations loaded (1 for a one-shot command); for status and tests. */
  loads = 0;

  constructor(
    readonly location: IndexLocation,
    /** Keep the index between open() calls (long-lived commands); a one-shot command does not stat twice. */
    private readonly keep = false,
  ) {}

  /** The loaded index, if any (for status). */
  get current(): LoadedSearchIndex | null {
    return this.generation?.index ?? null;
  }

  /** The index to answer one request from, after the generation checks; warnings go to `warn`. */
  async open(warn: (warning: Warning) => void): Promise<LoadedSearchIndex> {
    const { location } = this;
    const deadline = Date.now() + (location.waitBuild ?? 0) * 1000;
    let generation = this.reuse() ?? (await this.load());
    let freshness = await this.checkFresh(generation, warn);
    // --wait-build: a build is in flight; once no writer holds the lock, open the index it committed.
    while (freshness.state === 'during-build' && location.waitBuild !== undefined && location.index !== '-' && Date.now() < deadline) {
      await waitForWriter(freshness.workspaceRoot, deadline);
      generation = await this.load();
      freshness = await this.checkFresh(generation, warn);
    }
    if (freshness.state === 'during-build') {
      warn({
        code: 'build-in-progress',
        message:
          'A build is committing a newer chunk index than the search index records; ' +
          'answered from the last complete generation, the search index as it was when the query opened it.',
      });
    }
    const provenance = generation.index.provenance;
    if (provenance.missingSources.length > 0) {
      warn({
        code: 'partial-index',
        message: `Index was built with --allow-partial; missing sources: ${provenance.missingSources.join(', ')}`,
      });
    }
    return generation.index;
  }

  /** Closes the descriptors of the loaded generation. */
  close(): void {
    if (this.generation) closeAll(this.generation.fds);
    this.generation = null;
  }

  /** The kept generation, while its file is still the one at the index path. */
  private reuse(): Generation | null {
    const generation = this.generation;
    if (generation === null || !this.keep) return null;
    if (this.location.index === '-') return generation;
    try {
      const atPath = fs.statSync(this.location.index);
      const opened = fs.fstatSync(generation.fds[0]!);
      if (atPath.ino === opened.ino && atPath.dev === opened.dev && atPath.size === opened.size && atPath.mtimeMs === opened.mtimeMs)
        return generation;
    } catch {
      // Gone or unreadable: load() says why.
    }
    return null;
  }

  private async load(): Promise<Generation> {
    const { location } = this;
    const label = location.index === '-' ? 'search index (stdin)' : location.index;
    const maxBytes = location.maxInputBytes ?? DEFAULT_MAX_INDEX_INPUT_BYTES;
    const fds: number[] = [];
    // The manifest read last (its descriptor's stat), to tell a generation a build replaced from a damaged one.
    let opened: Stats | null = null;
    // A file is read block by block (the head, then only the blocks the query needs); stdin whole.
    const open = async () => {
      if (location.index === '-') return memorySource(await readBoundedInput('-', maxBytes, 'Search index'));
      let file: { fd: number; size: number };
      try {
        file = openBoundedFile(location.index, { label: 'Search index', maxBytes });
      } catch (error) {
        throw notBuiltYet(error, location.index);
      }
      fds.push(file.fd);
      opened = fs.fstatSync(file.fd);
      return descriptorSource(file.fd, file.size);
    };
    // A segmented index's segment files are beside it (from stdin: beside --chunk-index, or here).
    const segmentFolder =
      location.index !== '-' ? path.dirname(location.index) : location.chunkIndex !== undefined ? path.dirname(location.chunkIndex) : '.';
    const openSegment = (name: string) => {
      const { fd, size } = openBoundedFile(path.join(segmentFolder, name), { label: 'Search index segment', maxBytes });
      fds.push(fd);
      return descriptorSource(fd, size);
    };
    let index: LoadedSearchIndex;
    for (let attempt = 1; ; attempt++) {
      try {
        index = loadSearchIndex(await open(), label, openSegment);
        break;
      } catch (error) {
        closeAll(fds.splice(0));
        // A build committed a newer manifest and removed the segments of the one read (between the two
        // reads): that is no damage, read the new generation. A segment missing or changed under the
        // manifest still at the path is (artifact-invalid, below).
        const segment = error instanceof EpistemeError && error.details?.['segment'] !== undefined;
        if (segment && location.index !== '-' && attempt < MAX_GENERATION_TRIES && replacedSince(location.index, opened)) continue;
        if (error instanceof EpistemeError && error.code === 'artifact-invalid' && location.index !== '-')
          throw otherArtifact(error, location.index);
        if (segment && location.index === '-' && (error as EpistemeError).code === 'artifact-invalid')
          throw new EpistemeError('artifact-invalid', (error as EpistemeError).message, {
            hint:
              `A segmented index read from stdin finds its segments beside --chunk-index, else in the current folder (${segmentFolder}): ` +
              'pass --chunk-index CHUNKS/index.json, or name the index file with --index.',
            details: (error as EpistemeError).details,
          });
        throw error;
      }
    }
    const generation: Generation = { index, fds, freshChunkIndex: null };
    this.loads++;
    if (this.keep) {
      if (this.generation !== null) closeAll(this.generation.fds);
      this.generation = generation;
    }
    return generation;
  }

  private async checkFresh(generation: Generation, warn: (warning: Warning) => void): Promise<Freshness> {
    const { location } = this;
    const implicit = location.index === '-' ? undefined : path.join(path.dirname(location.index), 'index.json');
    const chunkIndexPath = location.chunkIndex ?? implicit;
    if (chunkIndexPath === undefined || (location.chunkIndex === undefined && !fs.existsSync(chunkIndexPath))) {
      warn({ code: 'stale-check-skipped', message: 'No chunk index to compare with (pass --chunk-index): the index may be stale.' });
      return { state: 'fresh' };
    }
    let stamp: string | null = null;
    if (this.keep) {
      stamp = statStamp(chunkIndexPath);
      if (stamp !== null && stamp === generation.freshChunkIndex) return { state: 'fresh' };
    }
    // A named chunk index must exist and be a verified chunk-index artifact; only then is a mismatch
    // "stale" (and only when no build is writing the workspace: see query/generation.ts).
    const bytes = await readBoundedInput(chunkIndexPath, DEFAULT_MAX_INDEX_INPUT_BYTES, 'Chunk index');
    const indexPath = location.index;
    const freshness = await checkGeneration(
      {
        provenance: indexProvenance(generation.index),
        chunkIndexPath,
        openedIndexFingerprint: indexFingerprint(generation.index),
        currentIndexFingerprint: () => {
          if (indexPath === '-') return null;
          try {
            return sourceFingerprint(fileSource(indexPath));
          } catch {
            return '';
          }
        },
        staleError: () =>
          new EpistemeError('stale-index', `${indexPath} was built from a different chunk index than ${chunkIndexPath}.`, {
            hint: `Rebuild it: ${rebuildCommand(indexPath === '-' ? chunkIndexPath : indexPath)}`,
            details: { index: indexPath, chunkIndex: chunkIndexPath },
          }),
      },
      bytes,
    ).catch((error: unknown) => {
      throw error instanceof EpistemeError ? rebuildFromHere(error, indexPath === '-' ? chunkIndexPath : indexPath) : error;
    });
    // Fresh for the bytes read; the stamp taken before reading them stands for those bytes.
    if (freshness.state === 'fresh' && stamp !== null && statStamp(chunkIndexPath) === stamp) generation.freshChunkIndex = stamp;
    return freshness;
  }
}

function statStamp(file: string): string | null {
  try {
    const s = fs.statSync(file);
    return `${s.dev} ${s.ino} ${s.size} ${s.mtimeMs} ${s.ctimeMs}`;
  } catch {
    return null;
  }
}

/** Generations a load reads before it gives up when builds keep replacing the index under it. */
const MAX_GENERATION_TRIES = 8;

/** True when the file at `file` is no longer the one `opened` describes (a build committed another). */
function replacedSince(file: string, opened: Stats | null): boolean {
  if (opened === null) return false;
  try {
    const now = fs.statSync(file);
    return now.ino !== opened.ino || now.dev !== opened.dev || now.size !== opened.size || now.mtimeMs !== opened.mtimeMs;
  } catch {
    return true;
  }
}

function closeAll(fds: number[]): void {
  for (const fd of fds) {
    try {
      fs.closeSync(fd);
    } catch {
      // already closed
    }
  }
}
