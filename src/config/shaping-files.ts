import * as fs from 'node:fs';

/**
 * The files that shape a workspace's graph (config, manual-ingest map, manifest, rules folder and
 * files), each as found just before the load read it. A clean record (graph/clean-build.ts) stamps
 * these, not the files as they are when the build commits: a file edited while a build runs must not
 * vouch, at the next build, for options the build never read.
 */
export class ShapingFiles {
  private readonly found = new Map<string, fs.Stats>();

  /** Records `file` as it is now (nothing when it is missing: the read that follows reports it). */
  stat(file: string): void {
    try {
      const stat = fs.statSync(file, { throwIfNoEntry: false });
      if (stat !== undefined) this.found.set(file, stat);
    } catch {
      // unreadable: the read that follows reports it
    }
  }

  /** Records `file` from a stat just taken, before it is read. */
  foundAs(file: string, stat: fs.Stats): void {
    this.found.set(file, stat);
  }

  /** Each file as it was before it was read. */
  get files(): ReadonlyMap<string, fs.Stats> {
    return this.found;
  }
}
