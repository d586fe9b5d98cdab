import * as path from 'node:path';
import type { BuildGraph, ProofGroup } from './graph.js';
import type { TargetResult } from './scheduler.js';
import { diagnosticsOf } from './diagnostics.js';
import { sameStamp, statStamp, type CleanRecord, type FileStamp, type TargetRecord } from './state.js';
import {
  groupFileName,
  isProof,
  NOOP_PROOF_FILE,
  NOOP_PROOF_VERSION,
  openGroupProof,
  openProof,
  readProofFile,
  writeGroupProof,
  writeProof,
  type GroupProof,
  type NoopProof,
  type ProofStamp,
  type ProofTarget,
} from './noop-proof-files.js';

/**
 * The no-op proof: the memo that every target passed the one check of "up to date" (scheduler.ts
 * staleReasons) when the stamps it holds were taken, from the last complete, clean build. It is kept
 * per group of documents (graph.ts ProofGroup: a run of documents and its index segments) under a
 * root that holds the indexes and what every key's options rest on (noop-proof-files.ts). While the
 * root holds (same flags, config, map, versions; the state as that build left it), a group whose
 * every file still has its recorded stamp is up to date as a whole:
 *
 * - a build with nothing to do (clean-build.ts) proves it from the proof and stats alone;
 * - an edit checks only the groups whose stamps moved, target by target, and re-derives only their
 *   proofs: its cost is the stats, one group and the edited chain, not the records of every target.
 */

/** How a build's targets fall into groups, for the proof it writes. */
export interface ProofLayout {
  groups: ProofGroup[];
  /** The targets outside every group (the indexes), in graph order. */
  rootTargets: string[];
  /** Each target's place in the graph's order. */
  position: Map<string, number>;
}

/** Layouts of graphs already seen: watch keeps one graph across builds, and asks at the end of each. */
const layouts = new WeakMap<BuildGraph, ProofLayout>();

export function proofLayout(graph: BuildGraph): ProofLayout {
  const known = layouts.get(graph);
  if (known !== undefined) return known;
  const inGroup = new Set(graph.groups.flatMap((group) => group.targets));
  const layout = {
    groups: graph.groups,
    rootTargets: graph.order.filter((name) => !inGroup.has(name)),
    position: new Map(graph.order.map((name, i) => [name, i])),
  };
  layouts.set(graph, layout);
  return layout;
}

/** Groups whose proof held at the start of this build and whose targets it did not touch: [file, checksum] by id. */
export type KeptGroups = Map<string, [file: string, checksum: string]>;

type Stamp = Omit<FileStamp, 'hash'>;

function unchanged(file: string, stamp: Stamp): boolean {
  const now = statStamp(file);
  return now !== null && sameStamp(now, stamp);
}

/** Whether each listed target's output and other files still have their recorded stamps. */
function targetsHold(root: string, targets: readonly ProofTarget[]): boolean {
  for (const [, , output, size, mtimeMs, ino, ctimeMs, also] of targets) {
    if (!unchanged(path.join(root, output), { size, mtimeMs, ino, ctimeMs })) return false;
    // A snapshot's body, a segmented index's segment files: a damaged one must reach the full check.
    for (const [file, fileSize, fileMtimeMs, fileIno, fileCtimeMs] of also)
      if (!unchanged(path.join(root, file), { size: fileSize, mtimeMs: fileMtimeMs, ino: fileIno, ctimeMs: fileCtimeMs })) return false;
  }
  return true;
}

function sourcesHold(root: string, sources: readonly ProofStamp[]): boolean {
  for (const [file, size, mtimeMs, ino, ctimeMs] of sources)
    if (!unchanged(path.join(root, file), { size, mtimeMs, ino, ctimeMs })) return false;
  return true;
}

/** The up-to-date results of a proof's targets. */
function results(targets: readonly ProofTarget[], diagnostics: GroupProof['diagnostics']): TargetResult[] {
  return targets.map(([name, rule, output]) => {
    const result: TargetResult = { target: name, rule, status: 'up-to-date', reasons: [], output };
    const found = diagnosticsOf(diagnostics[name]);
    if (found) result.diagnostics = found;
    return result;
  });
}

/** Whether the root's indexes hold (their outputs and segment files have their recorded stamps). */
export function rootTargetsHold(root: string, proof: NoopProof): boolean {
  return targetsHold(root, proof.targets);
}

/** The root targets' results (the indexes carry no diagnostics) and their places in the graph's order. */
export function rootResults(proof: NoopProof): { results: TargetResult[]; positions: number[] } {
  return { results: results(proof.targets, {}), positions: proof.targets.map((target) => target[8]) };
}

/** A group whose proof held: its targets' results and what its file is. */
export interface HeldGroup {
  file: string;
  checksum: string;
  /** Its targets and source files as the proof lists them (a graph that groups otherwise does not use it). */
  targets: string[];
  sources: string[];
  results: TargetResult[];
  /** Each result's place in the graph's order. */
  positions: number[];
}

/**
 * Every group the root names, checked: the groups whose file opens and whose every stamp is unchanged,
 * and whether any moved (an edit: the full check decides); or why a group file was refused.
 */
export function checkGroups(
  root: string,
  stateDir: string,
  proof: NoopProof,
): { held: Map<string, HeldGroup>; moved: boolean } | { damaged: string } {
  const held = new Map<string, HeldGroup>();
  let moved = false;
  for (const [id, file, checksum] of proof.groups) {
    const opened = openGroupProof(stateDir, id, file, checksum);
    if (!isProof(opened)) return opened ?? { damaged: 'names a group it cannot open' };
    if (!sourcesHold(root, opened.sources) || !targetsHold(root, opened.targets)) {
      moved = true;
      continue;
    }
    held.set(id, {
      file,
      checksum,
      targets: opened.targets.map((target) => target[0]),
      sources: opened.sources.map((source) => source[0]),
      results: results(opened.targets, opened.diagnostics),
      positions: opened.targets.map((target) => target[8]),
    });
  }
  return { held, moved };
}

/**
 * What the no-op check found when some group moved, handed to the full build that follows so it does
 * not read and stat it all again: valid while the root file keeps the stamp it had (any build in
 * between removes or rewrites it).
 */
export interface ProofCheck {
  root: Stamp;
  held: Map<string, HeldGroup>;
}

/** The stamp of the proof's root file, or null when there is none. */
export function rootStamp(stateDir: string): Stamp | null {
  return statStamp(path.join(stateDir, NOOP_PROOF_FILE));
}

/**
 * For a full build whose state is as the last clean build left it and whose options that build
 * recorded still hold: the targets of every group whose proof still holds, up to date, and those
 * groups, so the proof this build writes reuses their files. Groups that moved, and any group whose
 * targets are not this graph's, are left to the full check; so is everything when the root or a group
 * file was refused (`refused`: the build writes a whole proof again). `check`: the no-op check's
 * findings, used while the root is the one it read.
 */
export function heldGroups(
  root: string,
  stateDir: string,
  graph: BuildGraph,
  check?: ProofCheck,
): { proven: Map<string, TargetResult>; kept: KeptGroups; refused: boolean } {
  const proven = new Map<string, TargetResult>();
  const kept: KeptGroups = new Map();
  let held: Map<string, HeldGroup>;
  const stamp = check === undefined ? null : rootStamp(stateDir);
  if (check !== undefined && stamp !== null && sameStamp(stamp, check.root)) held = check.held;
  else {
    const proof = openProof(readProofFile(stateDir));
    if (!isProof(proof)) return { proven, kept, refused: proof !== null };
    const checked = checkGroups(root, stateDir, proof);
    if ('damaged' in checked) return { proven, kept, refused: true };
    held = checked.held;
  }
  for (const group of graph.groups) {
    const found = held.get(group.id);
    if (found === undefined || !sameList(found.targets, group.targets) || !sameList(found.sources, group.sources)) continue;
    for (const result of found.results) proven.set(result.target, result);
    kept.set(group.id, [found.file, found.checksum]);
  }
  return { proven, kept, refused: false };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** A target as the proof holds it: its rule, its output's stamp, its snapshot body's stamp, its place. */
function proofTarget(name: string, record: TargetRecord, position: number): ProofTarget {
  const also: ProofStamp[] = [];
  // A snapshot's body is part of what the proof stands on: a damaged body must reach the full check.
  const body = record.facts?.body;
  if (body && record.bodyStamp)
    also.push([body, record.bodyStamp.size, record.bodyStamp.mtimeMs, record.bodyStamp.ino, record.bodyStamp.ctimeMs]);
  const { size, mtimeMs, ino, ctimeMs } = record.stamp;
  return [name, record.components.rule, record.output, size, mtimeMs, ino, ctimeMs, also, position];
}

/** What the proof writer reads of the state. */
export interface ProofSource {
  targets: { get(name: string): TargetRecord | undefined };
  files: ReadonlyMap<string, FileStamp>;
  /** Targets recorded since the build began: a kept group holding one is derived again. */
  recordedThisBuild: ReadonlySet<string>;
}

/**
 * Writes the proof of a complete, clean build: each group's file (reused when kept and untouched,
 * else derived from its records), then the root, which commits it. False when a record is missing or
 * predates diagnostics in records (then there is no proof, and the next build checks everything).
 */
export function writeNoopProof(
  stateDir: string,
  source: ProofSource,
  clean: CleanRecord,
  layout: ProofLayout,
  kept: KeptGroups,
  stamps: { state: Stamp; log: Stamp | null },
): boolean {
  const groups: NoopProof['groups'] = [];
  for (const group of layout.groups) {
    const keep = kept.get(group.id);
    if (keep !== undefined && !group.targets.some((name) => source.recordedThisBuild.has(name))) {
      groups.push([group.id, ...keep]);
      continue;
    }
    const targets: ProofTarget[] = [];
    const diagnostics: GroupProof['diagnostics'] = {};
    for (const name of group.targets) {
      const record = source.targets.get(name);
      if (record === undefined) return false;
      const facts = record.facts;
      if (record.components.rule === 'extract') {
        if (facts?.diagnosticErrors === undefined) return false;
        if (facts.diagnosticErrors !== '0' || facts.diagnosticWarnings !== '0')
          diagnostics[name] = {
            diagnosticErrors: facts.diagnosticErrors,
            diagnosticWarnings: facts.diagnosticWarnings ?? '0',
            diagnosticCodes: facts.diagnosticCodes ?? '',
          };
      }
      targets.push(proofTarget(name, record, layout.position.get(name) ?? 0));
    }
    const sources: ProofStamp[] = [];
    for (const file of group.sources) {
      const stamp = source.files.get(file);
      if (stamp === undefined) return false;
      sources.push([file, stamp.size, stamp.mtimeMs, stamp.ino, stamp.ctimeMs]);
    }
    const file = groupFileName(group.id);
    const checksum = writeGroupProof(stateDir, file, { version: NOOP_PROOF_VERSION, group: group.id, sources, targets, diagnostics });
    groups.push([group.id, file, checksum]);
  }
  const targets: ProofTarget[] = [];
  for (const name of layout.rootTargets) {
    const record = source.targets.get(name);
    if (record === undefined) return false;
    targets.push(proofTarget(name, record, layout.position.get(name) ?? 0));
  }
  const { order: _order, ...facts } = clean;
  writeProof(stateDir, { version: NOOP_PROOF_VERSION, ...facts, state: stamps.state, log: stamps.log, targets, groups });
  return true;
}
