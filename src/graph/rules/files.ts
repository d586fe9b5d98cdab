import type * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../../config/workspace.js';
import { EpistemeError } from '../../failure.js';
import { fastHash, sha256Hex } from '../../store/hash.js';
import { readBoundedFileWithStat } from '../../store/bounded-read.js';
import { sameStamp, stampOf, statStamp } from '../state.js';
import type { RuleEnv } from './types.js';
import { readRegularFileSync } from '../../regular-file.js';

/** How rules read the files they stand on: verified against the hashes records hold. */

export function abs(ws: Workspace, relative: string): string {
  return path.join(ws.root, relative);
}

/** Reads a file named by a record or index and checks its SHA-256; a mismatch names the file. */
export function readVerified(ws: Workspace, relative: string, sha256: string): Buffer {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(abs(ws, relative));
  } catch {
    throw new EpistemeError('artifact-invalid', `${relative} is missing.`, {
      hint: 'Rebuild with `episteme build`.',
      details: { file: relative },
    });
  }
  if (sha256Hex(bytes) !== sha256) {
    throw new EpistemeError('artifact-invalid', `${relative} does not match its recorded SHA-256 (tampered or truncated).`, {
      hint: 'Rebuild with `episteme build`.',
      details: { file: relative },
    });
  }
  return bytes;
}

/**
 * Reads a dependency's recorded output, verified. A file that fails its hash although its stat stamp
 * did not change (bit rot, an edit that forged the stamp) is never used: the producing target's record
 * is dropped, so the next build rebuilds it instead of failing on it forever, and this target fails.
 */
export function readDependencyOutput(env: RuleEnv, producer: string, relative: string, sha256: string): Buffer {
  try {
    return readVerified(env.ws, relative, sha256);
  } catch (error) {
    env.state.recordTarget(producer, null);
    if (error instanceof EpistemeError) {
      throw new EpistemeError(error.code, `${error.message} It was dropped from the build state.`, {
        hint: 'Run `episteme build` again: it rebuilds the damaged file.',
        details: { file: relative, target: producer },
      });
    }
    throw error;
  }
}

export function isIntact(absolutePath: string, sha256: string): boolean {
  try {
    return sha256Hex(readRegularFileSync(absolutePath)) === sha256;
  } catch {
    return false;
  }
}

/** Content hash of a source file, trusting the recorded hash while size, mtime and inode are unchanged. */
export function sourceFileHash(env: RuleEnv, relative: string, absolutePath: string, knownStat?: fs.Stats): string {
  const stamp = knownStat ? stampOf(knownStat) : statStamp(absolutePath);
  if (stamp === null) return 'missing';
  // Never hash what the snapshot rule will refuse: a file past limits.maxFileBytes (a 2 GB sparse
  // file costs one stat, not a 2 GB read) or one that is not a regular file. The key still changes
  // with the file's size, and the rule's run() fails the target with the reason. Checked before the
  // recorded hash is trusted: a bound lowered under an unchanged file fails it, as a clean build does.
  if (stamp.size > env.ws.limits.maxFileBytes) return `over-bound:${stamp.size}`;
  const known = env.state.files.get(relative);
  if (known && sameStamp(known, stamp)) return known.hash;
  // Read once: the snapshot rule takes these bytes (build-reads.ts) while the file keeps this stamp.
  let bytes = env.memory.reads.source(absolutePath, stamp);
  if (bytes === undefined) {
    try {
      const read = readBoundedFileWithStat(absolutePath, { label: 'Source file', maxBytes: env.ws.limits.maxFileBytes });
      bytes = read.bytes;
      env.memory.reads.rememberSource(absolutePath, stampOf(read.stat), bytes);
    } catch (error) {
      if (error instanceof EpistemeError) return `unreadable:${error.code}`;
      throw error;
    }
  }
  const hash = fastHash(bytes);
  env.state.recordFile(relative, { ...stamp, hash });
  return hash;
}

/** A per-document output's path: its document id and the first 16 hex digits of its SHA-256. */
export function perDocumentPath(dir: string, documentId: string): (sha256: string) => string {
  return (sha256) => `${dir}/${documentId}.${sha256.slice(0, 16)}.json`;
}

/** The file names perDocumentPath gives. */
export function isPerDocumentFile(name: string): boolean {
  return /^[a-z0-9-]+\.[0-9a-f]{16}\.json$/.test(name);
}
