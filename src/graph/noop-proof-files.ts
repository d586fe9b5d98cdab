import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { writeFailure } from '../store/write-failure.js';
import { verifiedBody, withChecksum } from './checksum-file.js';
import type { NoopProof } from './state.js';

/**
 * The no-op proof on disk: one file, `noop.json`, sealed with a checksum (checksum-file.ts). A build
 * that starts changing anything deletes it first, and a complete, clean build writes it last, so a
 * crash at any point leaves no proof, never a false one.
 */
export const NOOP_PROOF_FILE = 'noop.json';

export function readProofFile(dir: string): Buffer | null {
  try {
    return fs.readFileSync(path.join(dir, NOOP_PROOF_FILE));
  } catch {
    return null;
  }
}

/** The proof in these bytes: null when there is none (or of another format), 'damaged' when it fails its checksum. */
export function openProof(bytes: Buffer | null, version: number): NoopProof | null | 'damaged' {
  if (bytes === null) return null;
  const body = verifiedBody(bytes);
  if (body === null) return 'damaged';
  let proof: NoopProof;
  try {
    proof = JSON.parse(body) as NoopProof;
  } catch {
    return null;
  }
  if (proof.version !== version || !Array.isArray(proof.targets) || !Array.isArray(proof.sources)) return null;
  return proof;
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
