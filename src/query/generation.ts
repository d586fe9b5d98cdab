import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { fs } from '../node-builtins.js';
import { crc32Hex, type IndexProvenance } from '../index/index-layout.js';
import { CONFIG_FILE_NAME, STATE_DIR_NAME } from '../store/names.js';
import { STAGE_INDEX_FORMAT_VERSION } from '../rule-versions.js';
import { writerHoldsLock } from '../store/workspace-lock-address.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * Which generation a query answers from, and whether it is stale.
 *
 * A search index is self-sufficient: it holds every row, citation and snapshot id it answers with, and
 * the query reads it through one open file descriptor, so whatever a build renames meanwhile, the
 * answer comes from one complete generation. What it cannot know alone is whether a newer chunk index
 * has been committed, which is what "stale" means. A build commits `chunks/index.json` first and the
 * search index after it, so a reader in between sees a newer chunk index than its search index: that is
 * a build in flight, not a stale index. The query tells the two apart by the workspace writer lock:
 *
 *   fingerprints equal                          -> fresh
 *   differ, and a writer holds the lock         -> answer from the search index read (warning build-in-progress)
 *   differ, no writer, both files as first read -> stale-index (at that instant the pair was stale and
 *                                                  nothing was running to fix it)
 *   differ, no writer, a file changed meanwhile -> a build committed during the query: answer from the
 *                                                  search index read (warning build-in-progress)
 *
 * Every step is one read; nothing is retried (`query --wait-build SECONDS` instead waits for the
 * writer to let go and then opens the index it committed). The lock is a socket the kernel owns (see
 * store/workspace-lock-address.ts), observed here without taking it (/proc/net/unix on Linux, a
 * connect probe elsewhere), so a query can never make a build fail with workspace-locked.
 *
 * The chunk index is verified before its fingerprint is believed: the search index records the CRC-32
 * of the chunk index bytes it was built from (which the build verified by SHA-256), so a file with
 * exactly those bytes is checked with zlib, which the query has loaded anyway; any other file is
 * checked against its own SHA-256 fingerprint (node:crypto is loaded only then).
 */
export type Freshness = { state: 'fresh' } | { state: 'during-build'; workspaceRoot: string | null };

export interface ChunkIndexCheck {
  /** The search index's recorded provenance. */
  provenance: IndexProvenance;
  /** The chunk index the query compares with, and its label in messages. */
  chunkIndexPath: string;
  /** Re-reads the search index's own fingerprint from its path (null: not a file, e.g. stdin). */
  currentIndexFingerprint: () => string | null;
  /** The fingerprint of the search index the query opened. */
  openedIndexFingerprint: string;
  /** The error to throw when the index is stale. */
  staleError: () => EpistemeError;
}

const ARTIFACT_PREFIX = '{"artifact":"chunk-index","fingerprint":"sha256:';

export async function checkGeneration(check: ChunkIndexCheck, chunkIndexBytes: Buffer): Promise<Freshness> {
  const fingerprint = verifiedChunkIndexFingerprint(chunkIndexBytes, check.chunkIndexPath, check.provenance.chunkIndexCrc32);
  if (fingerprint === check.provenance.chunkIndexFingerprint) return { state: 'fresh' };
  const root = workspaceRootOf(path.dirname(path.resolve(check.chunkIndexPath)));
  if (root !== null && (await writerHoldsLock(root))) return { state: 'during-build', workspaceRoot: root };
  let unchanged: boolean;
  try {
    unchanged = readRegularFileSync(check.chunkIndexPath).equals(chunkIndexBytes);
  } catch {
    unchanged = false;
  }
  const index = check.currentIndexFingerprint();
  if (unchanged && (index === null || index === check.openedIndexFingerprint)) throw check.staleError();
  return { state: 'during-build', workspaceRoot: root };
}

/** For `query --wait-build`: resolves once no writer holds the workspace lock, or at the deadline. */
export async function waitForWriter(root: string | null, deadlineMs: number): Promise<void> {
  while (root !== null && (await writerHoldsLock(root)) && Date.now() < deadlineMs) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, Math.max(0, deadlineMs - Date.now()))));
  }
}

/** The chunk index's fingerprint, after checking that its bytes match it. */
function verifiedChunkIndexFingerprint(bytes: Buffer, label: string, recordedCrc32: string | undefined): string {
  const invalid = (why: string): EpistemeError =>
    new EpistemeError('artifact-invalid', `${label} ${why}`, { hint: 'Rebuild it with `episteme build`.', details: { file: label } });
  const head = bytes.toString('latin1', 0, ARTIFACT_PREFIX.length + 66);
  if (!head.startsWith(ARTIFACT_PREFIX) || head.slice(-2) !== '",' || bytes.length < head.length + 2 || bytes[bytes.length - 1] !== 0x0a) {
    if (/^\s*\{\s*"artifact"\s*:\s*"(?!chunk-index")/.test(head)) throw invalid('is not a chunk-index artifact.');
    throw invalid('is not a chunk index in canonical form (truncated, modified or not a chunk index).');
  }
  const fingerprint = head.slice(ARTIFACT_PREFIX.length - 'sha256:'.length, -2);
  const version = /^"formatVersion":(\d+),/.exec(bytes.toString('latin1', head.length, head.length + 32));
  if (version === null) throw invalid('is not a chunk index in canonical form (truncated, modified or not a chunk index).');
  if (Number(version[1]) !== STAGE_INDEX_FORMAT_VERSION) {
    throw invalid(`has chunk-index format version ${version[1]}; this Episteme reads version ${STAGE_INDEX_FORMAT_VERSION}.`);
  }
  // The same bytes the build verified and recorded: CRC-32 suffices to know they were not damaged.
  if (recordedCrc32 !== undefined && crc32Hex(bytes) === recordedCrc32) return fingerprint;
  // The fingerprint covers the canonical JSON of everything else: the file without that member.
  const body = Buffer.concat([Buffer.from('{"artifact":"chunk-index",'), bytes.subarray(head.length, bytes.length - 1)]);
  const crypto = process.getBuiltinModule('node:crypto');
  const actual = 'sha256:' + crypto.createHash('sha256').update(body).digest('hex');
  if (actual !== fingerprint) {
    const error = invalid('fails its fingerprint check (tampered or truncated).');
    (error.details as Record<string, unknown>).expected = fingerprint;
    (error.details as Record<string, unknown>).actual = actual;
    throw error;
  }
  return fingerprint;
}

/** The workspace folder above `dir`: the first with a config file or a build state folder. */
export function workspaceRootOf(dir: string): string | null {
  for (let current = dir; ; ) {
    if (fs.existsSync(path.join(current, CONFIG_FILE_NAME)) || fs.existsSync(path.join(current, STATE_DIR_NAME))) return current;
    const parent = path.dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}
