import * as fs from 'node:fs';
import * as path from 'node:path';
import { PRODUCER_VERSION } from '../version.js';
import { CONFIG_FILE_NAME, STATE_DIR_NAME } from '../store/names.js';
import { findConfigUpward } from '../store/find-workspace.js';
import { rulesDir, rulesFilesOnDisk } from '../extract/package-paths.js';
import { acquireWorkspaceLock } from '../store/workspace-lock.js';
import { isDirectory } from '../store/bounded-read.js';
import { initFastHash } from '../store/hash.js';
import { sameStamp, stampOf, statStamp, type CleanRecord, type FileStamp } from './state.js';
import type { BuildSummary } from './build.js';
import type { Warning } from '../failure.js';
import { isProof, NOOP_PROOF_FILE, openProof, readProofFile, type NoopProof } from './noop-proof-files.js';
import { checkGroups, rootResults, rootStamp, rootTargetsHold, type ProofCheck } from './noop-proof.js';
import type { TargetResult, TargetStatus } from './scheduler.js';
import { RULE_VERSIONS } from '../rule-versions.js';
import type { Workspace } from '../config/workspace.js';
import type { BuildGraph } from './graph.js';

/**
 * The no-op fast path, Ninja-style but content-backed: when the last build of the whole graph
 * finished cleanly and no file that shapes the graph (config, map, manifest, family rules), no source
 * file and no output has a different stat stamp since, every key is what it was, so every target is
 * up to date. Proving that takes reading the proof (.episteme/noop.json and its group files; see
 * noop-proof.ts) and one stat per file, without loading the map, parsing the state or computing a
 * key. Any difference at all falls back to the full build, which hashes content; when only some
 * groups moved, it gets the others as found here.
 */
export interface InvocationFlags {
  config?: string | undefined;
  map?: string | undefined;
  manifest?: string | undefined;
  snapshots?: string | undefined;
}

/** Identifies what a build reads, from the CLI flags alone (the same string in both paths). */
export function invocationId(cwd: string, flags: InvocationFlags): string | null {
  if (flags.map === '-' || flags.manifest === '-') return null;
  const resolve = (file: string | undefined) => (file === undefined ? null : path.resolve(cwd, file));
  let config = resolve(flags.config);
  if (config === null) config = findConfigUpward(cwd);
  if (config !== null && isDirectory(config)) config = path.join(config, CONFIG_FILE_NAME);
  return JSON.stringify({
    config,
    map: resolve(flags.map),
    manifest: resolve(flags.manifest),
    snapshots: flags.snapshots ?? null,
    cwd: config === null ? cwd : null,
  });
}

/**
 * Returns the summary of a no-op build if the fast path proves it; else null (run the full build),
 * what it found when only some groups moved (an edit: the full build takes it), or why the proof on
 * disk was refused (damaged or forged: the full build runs and reports it).
 */
export async function tryCleanNoop(
  cwd: string,
  flags: InvocationFlags,
  lock: { waitMs: number; command: string },
): Promise<BuildSummary | { refusedProof: Warning } | { proofCheck: ProofCheck } | null> {
  const invocation = invocationId(cwd, flags);
  if (invocation === null) return null;
  const { config } = JSON.parse(invocation) as { config: string | null };
  const root = config === null ? cwd : path.dirname(config);
  const stateDir = path.join(root, STATE_DIR_NAME);
  if (!fs.existsSync(path.join(stateDir, NOOP_PROOF_FILE))) return null;
  // The full build checks the workspace boundary when it loads (owned-folders.ts); this path skips the
  // load, so it proves nothing unless .episteme and every output's folders are real folders.
  if (!realFoldersBelow(root, STATE_DIR_NAME)) return null;
  await initFastHash();
  const held = await acquireWorkspaceLock(root, stateDir, lock);
  try {
    // A proof that fails its checksum proves nothing: the full build decides (and checks the state).
    // Nor one that does not validate (an edit with a recomputed checksum): the full build warns of it.
    const refused = (why: string): { refusedProof: Warning } => ({
      refusedProof: {
        code: 'state-discarded',
        message:
          `The no-op proof (.episteme/${NOOP_PROOF_FILE}) ${why} (damaged or edited); ` +
          'it was not used, and this build checks every target.',
      },
    });
    const stamp = rootStamp(stateDir);
    const opened = openProof(readProofFile(stateDir));
    if (opened !== null && 'damaged' in opened) return refused(opened.damaged);
    if (!isProof(opened)) return null;
    const proof: NoopProof = opened;
    if (proof.invocation !== invocation || proof.producerVersion !== PRODUCER_VERSION) return null;
    // The proof stands on the state it was derived from: a state.json replaced or edited since voids it.
    if (!unchanged(path.join(stateDir, 'state.json'), proof.state)) return null;
    // So does any line appended to the log since (a build that began changing things, or a crash).
    const log = statStamp(path.join(stateDir, 'state.log'));
    if (proof.log === undefined || (log === null ? proof.log !== null : proof.log === null || !sameStamp(log, proof.log))) return null;
    if (!sameStringNumbers(proof.ruleVersions, RULE_VERSIONS) || !sameRulesFiles(proof.files)) return null;
    for (const [file, stamp] of Object.entries(proof.files)) if (!unchanged(file, stamp)) return null;
    const checkedFolders = new Set<string>();
    const foldersReal = (results: readonly TargetResult[]): boolean => {
      for (const { output } of results) {
        const folder = path.posix.dirname(output!);
        if (checkedFolders.has(folder)) continue;
        if (!realFoldersBelow(root, folder)) return false;
        checkedFolders.add(folder);
      }
      return true;
    };
    const checked = checkGroups(root, stateDir, proof);
    if ('damaged' in checked) return refused(checked.damaged);
    // An edit: the full build checks the groups that moved and takes the others as found here.
    if (checked.moved) return stamp === null ? null : { proofCheck: { root: stamp, held: checked.held } };
    const placed: { result: TargetResult; position: number }[] = [];
    const place = (found: { results: TargetResult[]; positions: number[] }): void => {
      for (const [i, result] of found.results.entries()) placed.push({ result, position: found.positions[i]! });
    };
    for (const group of checked.held.values()) {
      if (!foldersReal(group.results)) return null;
      place(group);
    }
    const indexes = rootResults(proof);
    if (!foldersReal(indexes.results) || !rootTargetsHold(root, proof)) return null;
    place(indexes);
    // The order a full build reports them in.
    const targets = placed.sort((a, b) => a.position - b.position).map((entry) => entry.result);
    const counts: Record<TargetStatus, number> = {
      'up-to-date': targets.length,
      built: 0,
      unchanged: 0,
      failed: 0,
      skipped: 0,
      dirty: 0,
      'maybe-dirty': 0,
    };
    return { targets, counts, actions: 0, removed: [], ok: true };
  } finally {
    await held.release();
  }
}

/**
 * Whether a clean record still holds for this invocation: the same config, map and manifest files
 * (by stat stamp, change time included), the same family rules files, producer and rule versions.
 * Then every option a target's key takes is what that clean build recorded (see recordedOptionsHold).
 */
export function cleanRecordHolds(clean: CleanRecord, invocation: string | null | undefined): boolean {
  if (!invocation || clean.invocation !== invocation || clean.producerVersion !== PRODUCER_VERSION) return false;
  if (!sameStringNumbers(clean.ruleVersions, RULE_VERSIONS) || !sameRulesFiles(clean.files)) return false;
  return Object.entries(clean.files).every(([file, stamp]) => unchanged(file, stamp));
}

/**
 * The clean record for a build of the whole graph that just succeeded. The files that shaped it are
 * stamped as the workspace load found them just before reading them (config/shaping-files.ts), not
 * as they are now: a config edited while the build ran makes the next build derive its options again,
 * instead of vouching for options this build never read.
 */
export function cleanRecordFor(ws: Workspace, graph: BuildGraph, invocation: string): CleanRecord {
  const files: CleanRecord['files'] = {};
  for (const [file, stat] of ws.shaping.files) files[file] = stampOf(stat);
  // The installed product's own rules files change only with the product (and its version).
  for (const file of rulesFilesOnDisk()) {
    const stamp = statStamp(file);
    if (stamp) files[file] = stamp;
  }
  return { invocation, producerVersion: PRODUCER_VERSION, ruleVersions: { ...RULE_VERSIONS }, files, order: graph.order };
}

/** Rules files added or removed since (edits show up as stamp changes). */
function sameRulesFiles(files: CleanRecord['files']): boolean {
  const recorded = Object.keys(files).filter((file) => path.dirname(file) === rulesDir());
  const current = rulesFilesOnDisk();
  return recorded.length === current.length && current.every((file) => file in files);
}

/** Whether each component of a workspace-relative folder is a real folder (lstat: no symlink). */
function realFoldersBelow(root: string, relative: string): boolean {
  let current = root;
  for (const component of relative.split('/')) {
    if (component === '' || component === '.') continue;
    if (component === '..') return false;
    current = path.join(current, component);
    if (!fs.lstatSync(current, { throwIfNoEntry: false })?.isDirectory()) return false;
  }
  return true;
}

function unchanged(file: string, stamp: Omit<FileStamp, 'hash'> | undefined): boolean {
  const now = statStamp(file);
  return now !== null && stamp !== undefined && sameStamp(now, stamp);
}

function sameStringNumbers(a: Record<string, number>, b: Record<string, number>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
