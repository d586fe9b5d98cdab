import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../config/workspace.js';
import { isTempFileName } from '../store/atomic-file.js';
import type { BuildState } from './state.js';

/**
 * Removes files no generation can reach: per-document data files, snapshot records and bodies that are
 * named neither by a committed stage index nor by a current build record. Files a committed index still
 * names are kept, so the previous commit stays readable until its index is replaced.
 */
export function collectGarbage(ws: Workspace, state: BuildState): string[] {
  const keep = new Set<string>();
  const cited = new Set<string>();
  for (const record of state.targets.values()) {
    keep.add(record.output);
    if (record.facts?.body) keep.add(record.facts.body);
    if (record.facts?.citedSnapshotId) cited.add(record.facts.citedSnapshotId);
  }
  // Snapshots that current chunks cite stay, with their bodies, even when a newer equivalent one exists.
  for (const id of cited) {
    const recordPath = `${ws.outputs.snapshots}/records/${id}.json`;
    keep.add(recordPath);
    try {
      const meta = JSON.parse(fs.readFileSync(path.join(ws.root, recordPath), 'utf8')) as { sha256?: string };
      if (meta.sha256) keep.add(`${ws.outputs.snapshots}/bodies/${meta.sha256}`);
    } catch {
      // already gone: nothing to keep
    }
  }
  for (const dir of [ws.outputs.snapshots, ws.outputs.specs, ws.outputs.chunks]) {
    for (const named of namedByCommittedIndex(ws, dir)) keep.add(named);
  }
  const removed: string[] = [];
  const sweep = (dir: string, isData: (name: string) => boolean): void => {
    let names: string[];
    try {
      names = fs.readdirSync(path.join(ws.root, dir));
    } catch {
      return;
    }
    for (const name of names) {
      const relative = `${dir}/${name}`;
      if (isTempFileName(name) || (isData(name) && !keep.has(relative))) {
        fs.rmSync(path.join(ws.root, relative), { force: true });
        removed.push(relative);
      }
    }
  };
  const perDocument = (name: string): boolean => /^[a-z0-9-]+\.[0-9a-f]{16}\.json$/.test(name);
  sweep(ws.outputs.specs, perDocument);
  sweep(ws.outputs.chunks, perDocument);
  sweep(`${ws.outputs.snapshots}/records`, (name) => /^snap-[0-9a-f]{32}\.json$/.test(name));
  sweep(`${ws.outputs.snapshots}/bodies`, (name) => /^[0-9a-f]{64}$/.test(name));
  return removed.sort();
}

function namedByCommittedIndex(ws: Workspace, dir: string): string[] {
  let parsed: { payload?: { entries?: { file?: unknown; body?: unknown }[] } };
  try {
    parsed = JSON.parse(fs.readFileSync(path.join(ws.root, dir, 'index.json'), 'utf8')) as typeof parsed;
  } catch {
    return [];
  }
  const named: string[] = [];
  for (const entry of parsed.payload?.entries ?? []) {
    if (typeof entry.file === 'string') named.push(`${dir}/${entry.file}`);
    if (typeof entry.body === 'string') named.push(`${dir}/${entry.body}`);
  }
  return named;
}
