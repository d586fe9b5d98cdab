import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { isTempFileName } from '../store/atomic-file.js';
import { namedByStageIndex } from '../store/stage-index.js';
import type { BuildState, TargetRecord } from './state.js';
import { aggregateNames, targetNames } from './graph.js';
import { RULES } from './rules/index.js';
import { readRegularFileSync } from '../regular-file.js';

/**
 * Removes files no generation can reach: per-document data files, snapshot records and bodies that are
 * named neither by a committed stage index nor by a current build record. Files a committed index still
 * names are kept, so the previous commit stays readable until its index is replaced.
 *
 * Captured snapshots cannot be recomputed, so the build keeps the snapshot records of sources that left
 * the graph (build.ts), and with them their captured records and bodies; only `--prune-snapshots`
 * drops those records, and then also deletes the observation logs of documents no longer in the graph.
 *
 * Deletion happens only in the workspace's own folders (checked at load, see owned-folders.ts) and is
 * checked again here with lstat: a folder that became a symlink is not swept, and only regular files
 * and symlinks themselves (never what they point at) are removed.
 */
export function collectGarbage(
  ws: Workspace,
  state: BuildState,
  options: { pruneSnapshots: boolean; liveDocumentIds: ReadonlySet<string> },
): string[] {
  const keep = keptByRecords(ws, state.targets.values());
  for (const dir of [ws.outputs.snapshots, ws.outputs.specs, ws.outputs.chunks]) {
    for (const named of namedByStageIndex(ws.root, dir)) keep.add(named);
  }
  const removed: string[] = [];
  const sweep = (dir: string, isData: (name: string) => boolean): void => {
    for (const name of listRealFolder(ws.root, dir)) {
      const relative = `${dir}/${name}`;
      if ((isTempFileName(name) || (isData(name) && !keep.has(relative))) && removeOwnedFile(path.join(ws.root, relative)))
        removed.push(relative);
    }
  };
  for (const [dir, isData] of dataFolders(ws)) sweep(dir, isData);
  if (options.pruneSnapshots) {
    sweep(
      `${ws.outputs.snapshots}/observations`,
      (name) => name.endsWith('.json') && !options.liveDocumentIds.has(name.slice(0, -'.json'.length)),
    );
  }
  return removed.sort();
}

/** The folders the rules write their outputs to (workspace-relative; each rule's dataFiles), e.g. for watch to watch. */
export function outputFolders(ws: Workspace): string[] {
  return dataFolders(ws).map(([folder]) => folder);
}

/** The folders garbage is collected from, each with the names of the data files it holds (each rule's dataFiles). */
function dataFolders(ws: Workspace): [string, (name: string) => boolean][] {
  const byFolder = new Map<string, ((name: string) => boolean)[]>();
  for (const rule of Object.values(RULES))
    for (const [folder, isData] of rule.dataFiles(ws)) byFolder.set(folder, [...(byFolder.get(folder) ?? []), isData]);
  return [...byFolder].map(([folder, tests]) => [folder, (name: string) => tests.some((isData) => isData(name))]);
}

/** Files the current build records keep: their outputs, snapshot bodies, and the snapshots chunks cite. */
function keptByRecords(ws: Workspace, records: Iterable<TargetRecord>): Set<string> {
  const keep = new Set<string>();
  const cited = new Set<string>();
  /** Snapshot ids whose body a current snapshot record keeps (as its facts.body). */
  const bodyKept = new Set<string>();
  for (const record of records) {
    keep.add(record.output);
    if (record.facts?.body) keep.add(record.facts.body);
    if (record.facts?.citedSnapshotId) cited.add(record.facts.citedSnapshotId);
    if (record.facts?.snapshotId && record.facts.body) bodyKept.add(record.facts.snapshotId);
  }
  // Snapshots that current chunks cite stay, with their bodies, even when a newer equivalent one exists.
  for (const id of cited) {
    const recordPath = `${ws.outputs.snapshots}/records/${id}.json`;
    keep.add(recordPath);
    // Usually the cited snapshot is its source's current one: its body is kept already, without
    // reading its record (a read per source, which made this the cost of a one-source edit).
    if (bodyKept.has(id)) continue;
    try {
      const meta = JSON.parse(readRegularFileSync(path.join(ws.root, recordPath), 'utf8')) as { sha256?: string };
      if (meta.sha256) keep.add(`${ws.outputs.snapshots}/bodies/${meta.sha256}`);
    } catch {
      // already gone: nothing to keep
    }
  }
  return keep;
}

/**
 * Garbage collection in O(changed): after a complete, clean build that followed another (so the
 * committed indexes name exactly what the current records name, and nothing unreachable was left
 * behind before this run), the only files that can have become unreachable are those of the records
 * this run replaced or removed. Checks just those, instead of listing every output folder and reading
 * every committed index; any other case takes collectGarbage.
 */
export function collectReleasedGarbage(ws: Workspace, state: BuildState): string[] {
  const released = state.releasedRecords();
  if (released.length === 0) return [];
  const candidates = new Set<string>();
  for (const record of released) {
    candidates.add(record.output);
    if (record.facts?.body) candidates.add(record.facts.body);
    if (record.facts?.citedSnapshotId) candidates.add(`${ws.outputs.snapshots}/records/${record.facts.citedSnapshotId}.json`);
  }
  const consulted = recordsNaming(ws, state, candidates);
  const keep = keptByRecords(ws, consulted === null ? state.targets.values() : consulted.values());
  const folders = dataFolders(ws);
  const removed: string[] = [];
  const remove = (relative: string): void => {
    if (keep.has(relative)) return;
    const slash = relative.lastIndexOf('/');
    const dir = relative.slice(0, slash);
    const name = relative.slice(slash + 1);
    // Only data files of the swept folders, through real folders: what collectGarbage would remove.
    if (!folders.some(([folder, isData]) => folder === dir && isData(name)) || !isRealFolder(ws.root, dir)) return;
    if (removeOwnedFile(path.join(ws.root, relative))) removed.push(relative);
  };
  for (const candidate of [...candidates].sort()) {
    if (keep.has(candidate)) continue;
    // An unreachable snapshot record takes its body with it, unless something else keeps the body.
    if (candidate.startsWith(`${ws.outputs.snapshots}/records/`)) {
      const sha256 = recordedBodySha256(ws, candidate);
      if (sha256 !== null) remove(`${ws.outputs.snapshots}/bodies/${sha256}`);
    }
    remove(candidate);
  }
  return [...new Set(removed)].sort();
}

/**
 * The records that can keep one of the candidates, or null (consult them all) for a released target
 * this does not know. Per-document files (evidence, chunks, snapshot records) are named only by their
 * own document's records (a chunk cites its own document's snapshot), segment files only by segments
 * and indexes, but snapshot bodies are content-addressed: any snapshot record of the same bytes names one.
 * So: the released documents' records, the indexes' and segments', and the snapshot records whose text
 * names a candidate body; an edit parses a handful of records instead of all of them.
 */
function recordsNaming(ws: Workspace, state: BuildState, candidates: ReadonlySet<string>): Map<string, TargetRecord> | null {
  const consulted = new Map<string, TargetRecord>();
  const add = (name: string): void => {
    const record = state.targets.get(name);
    if (record !== undefined) consulted.set(name, record);
  };
  const aggregates = Object.values(aggregateNames(ws));
  // Asked of every target name (30,000 at 10,000 sources) each cycle: no string built per call.
  const segmentPrefixes = aggregates.map((index) => `${index}#`);
  const isAggregate = (name: string): boolean => {
    for (let i = 0; i < aggregates.length; i++) if (name === aggregates[i] || name.startsWith(segmentPrefixes[i]!)) return true;
    return false;
  };
  for (const name of state.targets.names()) if (isAggregate(name)) add(name);
  for (const name of state.releasedTargets()) {
    if (isAggregate(name)) continue;
    const documentId = documentIdOf(ws, name);
    if (documentId === null) return null;
    for (const own of Object.values(targetNames(ws, documentId))) add(own);
  }
  const bodyDir = `${ws.outputs.snapshots}/bodies/`;
  const bodies = new Set([...candidates].filter((candidate) => candidate.startsWith(bodyDir)));
  for (const candidate of candidates) {
    const sha256 = candidate.startsWith(`${ws.outputs.snapshots}/records/`) ? recordedBodySha256(ws, candidate) : null;
    if (sha256 !== null) bodies.add(`${bodyDir}${sha256}`);
  }
  const snapshotPrefix = `${ws.outputs.snapshots}/`;
  const isSnapshot = (name: string): boolean => name.startsWith(snapshotPrefix);
  for (const [name, record] of state.targets.mentioning(isSnapshot, [...bodies], (r) => bodies.has(r.facts?.body ?? '')))
    consulted.set(name, record);
  return consulted;
}

/** The document a per-document target belongs to (its name is `<stage folder>/<document id>.json`), or null. */
function documentIdOf(ws: Workspace, name: string): string | null {
  for (const dir of [ws.outputs.snapshots, ws.outputs.specs, ws.outputs.chunks]) {
    if (!name.startsWith(`${dir}/`) || !name.endsWith('.json')) continue;
    const documentId = name.slice(dir.length + 1, -'.json'.length);
    if (documentId !== '' && !documentId.includes('/') && targetNames(ws, documentId)[stageOf(ws, dir)] === name) return documentId;
  }
  return null;
}

function stageOf(ws: Workspace, dir: string): 'snapshot' | 'extract' | 'chunk' {
  return dir === ws.outputs.snapshots ? 'snapshot' : dir === ws.outputs.specs ? 'extract' : 'chunk';
}

/**
 * The body SHA-256 a snapshot record file names, or null when it is gone or unreadable (its body, if
 * any, was released by its own record).
 */
function recordedBodySha256(ws: Workspace, recordPath: string): string | null {
  try {
    const meta = JSON.parse(readRegularFileSync(path.join(ws.root, recordPath), 'utf8')) as { sha256?: unknown };
    return typeof meta.sha256 === 'string' ? meta.sha256 : null;
  } catch {
    return null;
  }
}

function isRealFolder(root: string, relative: string): boolean {
  let current = root;
  for (const component of relative.split('/')) {
    current = path.join(current, component);
    if (!fs.lstatSync(current, { throwIfNoEntry: false })?.isDirectory()) return false;
  }
  return true;
}

/** Removes temp files a crashed writer left in a workspace folder (lstat-checked like the rest). */
export function sweepOwnedTempFiles(root: string, relative: string): void {
  for (const name of listRealFolder(root, relative)) if (isTempFileName(name)) removeOwnedFile(path.join(root, relative, name));
}

/**
 * Removes every file in a workspace folder whose files are transient: each is made and removed by one
 * build (remote-cache blobs between their download and their check), so any found by a build, which
 * holds the lock, is what a killed one left.
 */
export function sweepTransientFolder(root: string, relative: string): void {
  for (const name of listRealFolder(root, relative)) removeOwnedFile(path.join(root, relative, name));
}

/**
 * Names in a workspace folder, or none when it is missing or is not a real folder: each component
 * below the root is checked with lstat, so a folder replaced by a symlink since load is not swept.
 */
function listRealFolder(root: string, relative: string): string[] {
  let current = root;
  for (const component of relative.split('/')) {
    current = path.join(current, component);
    if (!fs.lstatSync(current, { throwIfNoEntry: false })?.isDirectory()) return [];
  }
  try {
    return fs.readdirSync(current);
  } catch {
    return [];
  }
}

/**
 * Removes a regular file or a symlink itself (unlink never follows it); leaves anything else (a folder,
 * a FIFO, a device) alone. Returns whether something was removed.
 */
export function removeOwnedFile(file: string): boolean {
  const stat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (stat === undefined || !(stat.isFile() || stat.isSymbolicLink())) return false;
  try {
    fs.unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
