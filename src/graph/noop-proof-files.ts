import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { writeFailure } from '../store/write-failure.js';
import { verifiedBody, withChecksum } from './checksum-file.js';
import { noopProofProblem, stampProblem } from './state-validation.js';
import type { FileStamp, NoopProof } from './state.js';

/**
 * The no-op proof on disk: one file, `noop.json`, sealed with a checksum (checksum-file.ts). A build
 * that starts changing anything deletes it first, and a complete, clean build writes it last, so a
 * crash at any point leaves no proof, never a false one.
 */
export const NOOP_PROOF_FILE = 'noop.json';

/**
 * A proof is about 200 bytes per target (a million-target workspace's is 200 MB); a larger file is not
 * one a build wrote, and is not read at all.
 */
const MAX_PROOF_BYTES = 256 * 1024 * 1024;
const TOO_LARGE = Buffer.from('too large');

/** The proof file's bytes, null when there is none (or it is not a regular file), TOO_LARGE past the bound. */
export function readProofFile(dir: string): Buffer | null {
  const file = path.join(dir, NOOP_PROOF_FILE);
  try {
    const stat = fs.lstatSync(file);
    if (!stat.isFile()) return null;
    if (stat.size > MAX_PROOF_BYTES) return TOO_LARGE;
    return fs.readFileSync(file);
  } catch {
    return null;
  }
}

/** What a proof file holds: no proof (none, or of another format), a proof, or why it is not one. */
export type OpenedProof = NoopProof | null | { damaged: string };

/**
 * The proof object in these bytes, its checksum and format version checked, nothing else: null when
 * there is none or it is of another format (an upgrade is no proof, not damage), else why not.
 */
function parsedProof(bytes: Buffer | null, version: number): { proof: Record<string, unknown> } | null | { damaged: string } {
  if (bytes === null) return null;
  if (bytes === TOO_LARGE) return { damaged: `is larger than ${MAX_PROOF_BYTES} bytes` };
  const body = verifiedBody(bytes);
  if (body === null) return { damaged: 'fails its checksum' };
  let proof: unknown;
  try {
    proof = JSON.parse(body);
  } catch {
    return { damaged: 'is not JSON' };
  }
  if (typeof proof !== 'object' || proof === null || (proof as { version?: unknown }).version !== version) return null;
  return { proof: proof as Record<string, unknown> };
}

/**
 * The proof in these bytes, checked as the state's records are (state-validation.ts): the checksum
 * stops damage, not an edit, so a proof that does not validate is refused like a damaged one.
 */
export function openProof(bytes: Buffer | null, version: number): OpenedProof {
  const parsed = parsedProof(bytes, version);
  if (parsed === null || 'damaged' in parsed) return parsed;
  const why = noopProofProblem(parsed.proof);
  return why === null ? (parsed.proof as unknown as NoopProof) : { damaged: why };
}

/** The stamps of the state files a proof was derived from. */
export type ProofStamps = Pick<NoopProof, 'state' | 'log'>;

/**
 * Only the stamps of the state files the proof was derived from (null when there is no proof, or it is
 * damaged): all a build that does not use the proof's targets needs to know (whether the state is as
 * a clean commit left it). The targets are checked where they are used (clean-build.ts), once.
 */
export function openProofStamps(bytes: Buffer | null, version: number): ProofStamps | null {
  const parsed = parsedProof(bytes, version);
  if (parsed === null || 'damaged' in parsed) return null;
  const { proof } = parsed;
  if (stampProblem(proof['state']) !== null || (proof['log'] !== null && stampProblem(proof['log']) !== null)) return null;
  return { state: proof['state'] as Omit<FileStamp, 'hash'>, log: proof['log'] as Omit<FileStamp, 'hash'> | null };
}

/** Whether openProof found a proof (not none, not a damaged one). */
export function isProof(opened: OpenedProof): opened is NoopProof {
  return opened !== null && !('damaged' in opened);
}

export function writeProof(dir: string, proof: NoopProof): void {
  writeFileAtomic(path.join(dir, NOOP_PROOF_FILE), withChecksum(JSON.stringify(proof)));
}

/** Voids the proof on disk. */
export function removeProof(dir: string): void {
  const file = path.join(dir, NOOP_PROOF_FILE);
  try {
    fs.rmSync(file, { force: true });
  } catch (error) {
    throw writeFailure(error, file);
  }
}
