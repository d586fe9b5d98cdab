import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { writeFailure } from '../store/write-failure.js';
import { fastHash } from '../store/hash.js';
import { sealed, verifiedFile, withChecksum } from './checksum-file.js';
import { groupProofProblem, noopProofProblem, stampProblem } from './state-validation.js';
import type { CleanRecord, FileStamp } from './state.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * The no-op proof on disk: a root, `noop.json`, and one file per group of documents (graph.ts
 * ProofGroup) in `noop/`, each sealed with a checksum (checksum-file.ts). The root names each group's
 * file and its checksum, and the stamps of the state files it was derived from; so a group file
 * counts only through a root that names it, and a root only while the state is as it says.
 *
 * A build that starts changing anything deletes the root first, and a complete, clean build writes the
 * groups it re-derived and then the root, so a crash at any point leaves no root, never a false one.
 * Group files the new root does not name are deleted after it is written.
 */
export const NOOP_PROOF_FILE = 'noop.json';
export const NOOP_GROUPS_FOLDER = 'noop';
/** The proof's own format (not the state's: a new proof format costs one full check, not a rebuild). */
export const NOOP_PROOF_VERSION = 7;

/** A file's stamp in the proof: [workspace-relative path, size, mtimeMs, ino, ctimeMs]. */
export type ProofStamp = [file: string, size: number, mtimeMs: string, ino: number, ctimeMs: string];

/**
 * A target in the proof: its rule, its output's stamp, the stamps of the other files its record
 * stands on (a snapshot's body, a segmented search index's segment files), and its place in the
 * graph's order (a no-op reports its targets in the order a full build does).
 */
export type ProofTarget = [
  name: string,
  rule: string,
  output: string,
  size: number,
  mtimeMs: string,
  ino: number,
  ctimeMs: string,
  also: ProofStamp[],
  position: number,
];

/** The root: the clean record's facts, the stamps of the state it came from, the indexes, the groups. */
export interface NoopProof extends Omit<CleanRecord, 'order'> {
  version: number;
  /** Stamp of the state.json this proof was derived from: a state changed since voids the proof. */
  state: Omit<FileStamp, 'hash'>;
  /** Stamp of state.log as the build that wrote the proof left it (null: no log); any append voids it. */
  log: Omit<FileStamp, 'hash'> | null;
  /** The targets outside every group: the indexes. */
  targets: ProofTarget[];
  /** Each group: its first document id, its file in noop/ and that file's checksum. */
  groups: [id: string, file: string, checksum: string][];
}

/** One group's proof: its documents' source files, its targets, their extraction diagnostics. */
export interface GroupProof {
  version: number;
  group: string;
  sources: ProofStamp[];
  targets: ProofTarget[];
  /** Target -> the record facts of its extraction diagnostics, so a no-op still reports them. */
  diagnostics: Record<string, Record<string, string>>;
}

/**
 * A proof file is about 200 bytes per target (a million-target workspace's is 200 MB); a larger file is
 * not one a build wrote, and is not read at all.
 */
const MAX_PROOF_BYTES = 256 * 1024 * 1024;
const TOO_LARGE = Buffer.from('too large');

function readBounded(file: string): Buffer | null {
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) return null;
    if (stat.size > MAX_PROOF_BYTES) return TOO_LARGE;
    return readRegularFileSync(file);
  } catch {
    return null;
  }
}

/** The root's bytes, null when there is none (or it is not a regular file), a marker past the bound. */
export function readProofFile(dir: string): Buffer | null {
  return readBounded(path.join(dir, NOOP_PROOF_FILE));
}

/** What a proof file holds: no proof (none, or of another format), a proof, or why it is not one. */
export type Opened<T> = T | null | { damaged: string };

/**
 * The object in these bytes, its checksum and format version checked, nothing else: null when there
 * is none or it is of another format (an upgrade is no proof, not damage), else why not.
 */
function parsedProof(bytes: Buffer | null): { proof: Record<string, unknown>; checksum: string } | null | { damaged: string } {
  if (bytes === null) return null;
  if (bytes === TOO_LARGE) return { damaged: `is larger than ${MAX_PROOF_BYTES} bytes` };
  const verified = verifiedFile(bytes);
  if (verified === null) return { damaged: 'fails its checksum' };
  let proof: unknown;
  try {
    proof = JSON.parse(verified.body);
  } catch {
    return { damaged: 'is not JSON' };
  }
  if (typeof proof !== 'object' || proof === null || (proof as { version?: unknown }).version !== NOOP_PROOF_VERSION) return null;
  return { proof: proof as Record<string, unknown>, checksum: verified.checksum };
}

/**
 * The root in these bytes, checked as the state's records are (state-validation.ts): the checksum
 * stops damage, not an edit, so a root that does not validate is refused like a damaged one.
 */
export function openProof(bytes: Buffer | null): Opened<NoopProof> {
  const parsed = parsedProof(bytes);
  if (parsed === null || 'damaged' in parsed) return parsed;
  const why = noopProofProblem(parsed.proof);
  return why === null ? (parsed.proof as unknown as NoopProof) : { damaged: why };
}

/**
 * A group's proof, as the root names it: its file must be there, carry the checksum the root recorded
 * (a group file from another build proves nothing) and validate.
 */
export function openGroupProof(dir: string, id: string, file: string, checksum: string): Opened<GroupProof> {
  const bytes = readBounded(path.join(dir, NOOP_GROUPS_FOLDER, file));
  if (bytes === null) return { damaged: `names group file noop/${file}, which is missing` };
  const parsed = parsedProof(bytes);
  if (parsed === null) return { damaged: `names group file noop/${file}, which is of another format` };
  if ('damaged' in parsed) return { damaged: `names group file noop/${file}, which ${parsed.damaged}` };
  if (parsed.checksum !== checksum) return { damaged: `names group file noop/${file}, which another build wrote` };
  const why = groupProofProblem(parsed.proof);
  if (why !== null) return { damaged: `names group file noop/${file}, which ${why}` };
  const proof = parsed.proof as unknown as GroupProof;
  return proof.group === id ? proof : { damaged: `names group file noop/${file}, which is of another group` };
}

/** The stamps of the state files a proof was derived from. */
export type ProofStamps = Pick<NoopProof, 'state' | 'log'>;

/**
 * Only the stamps of the state files the root was derived from (null when there is no root, or it is
 * damaged): all a build needs to know whether the state is as a clean commit left it. The rest is
 * checked where it is used (noop-proof.ts), once.
 */
export function openProofStamps(bytes: Buffer | null): ProofStamps | null {
  const parsed = parsedProof(bytes);
  if (parsed === null || 'damaged' in parsed) return null;
  const { proof } = parsed;
  if (stampProblem(proof['state']) !== null || (proof['log'] !== null && stampProblem(proof['log']) !== null)) return null;
  return { state: proof['state'] as Omit<FileStamp, 'hash'>, log: proof['log'] as Omit<FileStamp, 'hash'> | null };
}

/** Whether an open found a proof (not none, not a damaged one). */
export function isProof<T>(opened: Opened<T>): opened is T {
  return opened !== null && !('damaged' in (opened as object));
}

/** A group's file name: a hash of its id (ids are document ids: any length, any spelling a URL gives). */
export function groupFileName(id: string): string {
  return `${fastHash(id)}.json`;
}

/** Writes a group's proof; returns its checksum, which the root records. */
export function writeGroupProof(dir: string, file: string, proof: GroupProof): string {
  const { bytes, checksum } = sealed(JSON.stringify(proof));
  const folder = path.join(dir, NOOP_GROUPS_FOLDER);
  try {
    fs.mkdirSync(folder, { recursive: true });
  } catch (error) {
    throw writeFailure(error, folder);
  }
  writeFileAtomic(path.join(folder, file), bytes);
  return checksum;
}

/** Writes the root (the commit point of a proof), then deletes the group files it does not name. */
export function writeProof(dir: string, proof: NoopProof): void {
  writeFileAtomic(path.join(dir, NOOP_PROOF_FILE), withChecksum(JSON.stringify(proof)));
  const named = new Set(proof.groups.map(([, file]) => file));
  const folder = path.join(dir, NOOP_GROUPS_FOLDER);
  let files: string[] = [];
  try {
    files = fs.readdirSync(folder);
  } catch {
    return;
  }
  for (const file of files) {
    if (named.has(file)) continue;
    try {
      fs.rmSync(path.join(folder, file), { force: true });
    } catch (error) {
      throw writeFailure(error, path.join(folder, file));
    }
  }
}

/** Voids the proof on disk: without its root, no group file counts. */
export function removeProof(dir: string): void {
  const file = path.join(dir, NOOP_PROOF_FILE);
  try {
    fs.rmSync(file, { force: true });
  } catch (error) {
    throw writeFailure(error, file);
  }
}
