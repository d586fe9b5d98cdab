import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { writeFailure } from '../store/write-failure.js';
import { verifiedFile, withChecksum } from './checksum-file.js';
import type { NoopProof, ProofStamp, ProofTarget } from './state.js';

/**
 * The no-op proof on disk: a base (`noop.json`, the whole proof, ~7 MB at 10,000 sources) and a patch
 * (`noop.patch.json`: the rows that differ from the base, the clean record's fields and the stamps of
 * the state files, naming the base by its checksum). A one-source edit rewrites the patch, a few
 * kilobytes, instead of the base; the base is rewritten (folded) when the patch outgrows an eighth of
 * it or the targets or source files are no longer the base's, in the base's order.
 *
 * The patch is the freshness marker: a proof counts only when both files are there, intact, and the
 * patch names the base it sits on. A build that starts changing things deletes the patch first (as the
 * whole proof was deleted before), and a fold writes the base and then its (empty) patch, so a crash at
 * any point leaves no proof, never a false one.
 */
export const NOOP_PROOF_PATCH_FILE = 'noop.patch.json';
export const NOOP_PROOF_BASE_FILE = 'noop.json';

interface NoopProofPatch extends Omit<NoopProof, 'targets' | 'sources' | 'diagnostics'> {
  /** Checksum of the base body this patch applies to. */
  base: string;
  /** Rows replacing the base's rows of the same target (same position). */
  targets: ProofTarget[];
  /** Rows replacing the base's rows of the same source file (same position). */
  sources: ProofStamp[];
  /** The diagnostics of the patched targets (a patched target missing here has none). */
  diagnostics: Record<string, Record<string, string>>;
}

/** The base as it is on disk, kept by whoever writes the next proof (rows compared by identity). */
export interface ProofBase {
  checksum: string;
  bytes: number;
  targets: readonly ProofTarget[];
  sources: readonly ProofStamp[];
}

/** Both files as read, before any check (the state reads them at a point of its own choosing). */
export interface ProofFiles {
  base: Buffer | null;
  patch: Buffer | null;
}

export function readProofFiles(dir: string): ProofFiles {
  const read = (name: string): Buffer | null => {
    try {
      return fs.readFileSync(path.join(dir, name));
    } catch {
      return null;
    }
  };
  // The patch first: a fold that lands between the two reads leaves a patch naming another base.
  const patch = read(NOOP_PROOF_PATCH_FILE);
  return { patch, base: patch === null ? null : read(NOOP_PROOF_BASE_FILE) };
}

/**
 * The proof the two files make: null when there is none (either file missing, a patch of another
 * base, of another format, or not parseable), 'damaged' when a file fails its checksum.
 */
export function openProof(files: ProofFiles, version: number): { proof: NoopProof; base: ProofBase } | null | 'damaged' {
  if (files.base === null || files.patch === null) return null;
  const base = verifiedFile(files.base);
  const patchFile = verifiedFile(files.patch);
  if (base === null || patchFile === null) return 'damaged';
  let proof: NoopProof;
  let patch: NoopProofPatch;
  try {
    proof = JSON.parse(base.body) as NoopProof;
    patch = JSON.parse(patchFile.body) as NoopProofPatch;
  } catch {
    return null;
  }
  if (proof.version !== version || patch.version !== version || patch.base !== base.checksum) return null;
  if (!Array.isArray(proof.targets) || !Array.isArray(proof.sources) || !Array.isArray(patch.targets) || !Array.isArray(patch.sources))
    return null;
  const baseInfo: ProofBase = { checksum: base.checksum, bytes: files.base.byteLength, targets: proof.targets, sources: proof.sources };
  const targets = replaceRows(proof.targets, patch.targets);
  const sources = replaceRows(proof.sources, patch.sources);
  if (targets === null || sources === null) return null;
  const diagnostics = { ...proof.diagnostics };
  for (const row of patch.targets) {
    const facts = patch.diagnostics[row[0]];
    if (facts === undefined) delete diagnostics[row[0]];
    else diagnostics[row[0]] = facts;
  }
  const { base: _base, targets: _targets, sources: _sources, diagnostics: _diagnostics, ...rest } = patch;
  return { proof: { ...rest, targets, sources, diagnostics }, base: baseInfo };
}

/** The base's rows with the patch's in their places; null when a patch row names no base row. */
function replaceRows<Row extends [string, ...unknown[]]>(rows: Row[], patched: Row[]): Row[] | null {
  if (patched.length === 0) return rows;
  const byName = new Map(patched.map((row) => [row[0], row]));
  let replaced = 0;
  const merged = rows.map((row) => {
    const replacement = byName.get(row[0]);
    if (replacement === undefined) return row;
    replaced += 1;
    return replacement;
  });
  return replaced === byName.size ? merged : null;
}

/** A patch is folded into a new base once it reaches this share of the base's size (1/8). */
const FOLD_PATCH_DIVISOR = 8;

/**
 * Writes `proof` as a patch of `base` when it can be one (same targets and source files, in the same
 * order, and the patch small), else as a new base with an empty patch. Returns the base now on disk.
 */
export function writeProof(dir: string, proof: NoopProof, base: ProofBase | null): ProofBase {
  const patch = base === null ? null : patchOf(proof, base);
  if (base !== null && patch !== null) {
    const bytes = withChecksum(JSON.stringify(patch));
    if (bytes.byteLength * FOLD_PATCH_DIVISOR < base.bytes) {
      writeFileAtomic(path.join(dir, NOOP_PROOF_PATCH_FILE), bytes);
      return base;
    }
  }
  // The old patch goes first: it must never be read against the new base (it names the old one anyway).
  removeProofPatch(dir);
  const baseBytes = withChecksum(JSON.stringify(proof));
  writeFileAtomic(path.join(dir, NOOP_PROOF_BASE_FILE), baseBytes);
  const written: ProofBase = {
    checksum: baseBytes.toString('latin1', baseBytes.length - 17, baseBytes.length - 1),
    bytes: baseBytes.byteLength,
    targets: proof.targets,
    sources: proof.sources,
  };
  const empty: NoopProofPatch = { ...emptyPatchFields(proof), base: written.checksum, targets: [], sources: [], diagnostics: {} };
  writeFileAtomic(path.join(dir, NOOP_PROOF_PATCH_FILE), withChecksum(JSON.stringify(empty)));
  return written;
}

/** Voids the proof on disk (the base stays for the next patch to build on). */
export function removeProofPatch(dir: string): void {
  const file = path.join(dir, NOOP_PROOF_PATCH_FILE);
  try {
    fs.rmSync(file, { force: true });
  } catch (error) {
    throw writeFailure(error, file);
  }
}

function emptyPatchFields(proof: NoopProof): Omit<NoopProof, 'targets' | 'sources' | 'diagnostics'> {
  const { targets: _targets, sources: _sources, diagnostics: _diagnostics, ...rest } = proof;
  return rest;
}

/**
 * The rows of `proof` that are not the base's: a target row by identity (an unchanged target keeps
 * the very row it was read or written with), a source row by value. Null when the targets or source
 * files differ from the base's, or are in another order.
 */
function patchOf(proof: NoopProof, base: ProofBase): NoopProofPatch | null {
  if (proof.targets.length !== base.targets.length || proof.sources.length !== base.sources.length) return null;
  const targets: ProofTarget[] = [];
  const diagnostics: Record<string, Record<string, string>> = {};
  for (let i = 0; i < proof.targets.length; i += 1) {
    const row = proof.targets[i]!;
    const was = base.targets[i]!;
    if (row === was) continue;
    if (row[0] !== was[0]) return null;
    targets.push(row);
    const facts = proof.diagnostics?.[row[0]];
    if (facts !== undefined) diagnostics[row[0]] = facts;
  }
  const sources: ProofStamp[] = [];
  for (let i = 0; i < proof.sources.length; i += 1) {
    const row = proof.sources[i]!;
    const was = base.sources[i]!;
    if (row[0] !== was[0]) return null;
    if (row[1] !== was[1] || row[2] !== was[2] || row[3] !== was[3] || row[4] !== was[4]) sources.push(row);
  }
  return { ...emptyPatchFields(proof), base: base.checksum, targets, sources, diagnostics };
}
