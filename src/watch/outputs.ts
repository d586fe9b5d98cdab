import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Workspace } from '../config/workspace.js';

/**
 * Watches the folders a build writes its outputs into, so the build memory can vouch for every target
 * the last build left current without statting its output again (graph/build-memory.ts): any event in
 * these folders, the watch's own writes included, names a file whose targets the next build checks in
 * full. These events never start a build (only inputs do, see inputs.ts).
 *
 * One `fs.watch` per folder, not recursive: Node 20's recursive watch on Linux polls every file it
 * finds. A folder that cannot be watched (not there yet, removed, replaced, a watch error) makes the
 * memory forget what it vouched for, so the next build checks everything, as a one-shot build would.
 */
export class OutputWatches {
  private readonly watches = new Map<string, fs.FSWatcher>();
  private closed = false;

  constructor(
    /** Workspace-relative (`/`-separated) files that changed in an output folder. */
    private readonly onChange: (files: string[]) => void,
    /** A folder could not be watched, or stopped being watched: vouch for nothing. */
    private readonly onLost: () => void,
  ) {}

  /**
   * Watches the output folders of this workspace (after each build: the first one creates them). A
   * folder watched only from now on may have changed unseen before: that too counts as lost.
   */
  update(ws: Workspace): void {
    if (this.closed) return;
    const wanted = new Map<string, string>();
    for (const relative of outputFolders(ws)) wanted.set(path.join(ws.root, relative), relative);
    for (const [folder, watch] of this.watches) {
      if (!wanted.has(folder)) {
        watch.close();
        this.watches.delete(folder);
      }
    }
    let armedNow = false;
    for (const [folder, relative] of wanted) {
      if (this.watches.has(folder)) continue;
      armedNow = true;
      this.watch(folder, relative);
    }
    if (armedNow) this.onLost();
  }

  close(): void {
    this.closed = true;
    for (const watch of this.watches.values()) watch.close();
    this.watches.clear();
  }

  private watch(folder: string, relative: string): void {
    let watch: fs.FSWatcher;
    // A folder removed and made again is another inode, which this watch no longer sees into.
    const ino = fs.statSync(folder, { throwIfNoEntry: false })?.ino;
    try {
      // Not persistent: the input watches keep the process alive; these only inform the memory.
      watch = fs.watch(folder, { persistent: false });
    } catch {
      return; // not there (yet): lost until a later update arms it
    }
    const lost = (): void => {
      watch.close();
      if (this.watches.get(folder) === watch) this.watches.delete(folder);
      this.onLost();
    };
    watch.on('change', (_type, name) => {
      if (name !== null) this.onChange([`${relative}/${name.toString().split(path.sep).join('/')}`]);
      const now = fs.statSync(folder, { throwIfNoEntry: false });
      if (now?.isDirectory() !== true || now.ino !== ino) lost();
    });
    watch.on('error', lost);
    this.watches.set(folder, watch);
  }
}

/** The folders that hold target outputs: stage folders (their files and indexes), snapshot records and bodies. */
function outputFolders(ws: Workspace): string[] {
  const { snapshots, specs, chunks } = ws.outputs;
  return [...new Set([snapshots, `${snapshots}/records`, `${snapshots}/bodies`, specs, chunks])].map((dir) =>
    dir.split(path.sep).join('/'),
  );
}
