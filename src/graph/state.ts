import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { writeFailure } from '../store/write-failure.js';
import type { KeyComponents } from './key.js';

/**
 * Build state: for each target, its key, the key's components and the output it produced; for each
 * source file, a stat stamp with its content hash (the stat fast path).
 *
 * Stored as `state.json` (compacted at the end of a build) plus `state.log`, one JSON line appended per
 * finished target, so work done before a crash is not lost. A torn last line is ignored. Nothing in
 * here is an artifact: it never leaves the machine and may be deleted (everything then rebuilds).
 */
export const STATE_FORMAT_VERSION = 1;

export interface FileStamp {
  size: number;
  mtimeMs: string;
  ino: number;
  hash: string;
}

export interface TargetRecord {
  key: string;
  components: KeyComponents;
  /** Workspace-relative output file and the SHA-256 of its bytes. */
  output: string;
  sha256: string;
  stamp: Omit<FileStamp, 'hash'>;
  /** Rule-specific facts the dependents need without reading the output (e.g. snapshot id). */
  facts?: Record<string, string>;
}

/**
 * Written at the end of a complete, successful build of the whole graph; cleared (in the log, so a
 * crash leaves it cleared) as soon as any later build starts changing things. While it holds, a no-op
 * build can be recognised from stats alone: see clean-build.ts.
 */
export interface CleanRecord {
  /** Which config, map and manifest the build read, and the output overrides (from the CLI flags). */
  invocation: string;
  producerVersion: string;
  ruleVersions: Record<string, number>;
  /** Absolute path -> stamp of each file that shapes the graph: config, map, manifest, family rules. */
  files: Record<string, Omit<FileStamp, 'hash'>>;
  /** Every target, in graph order. */
  order: string[];
}

export const NOOP_PROOF_FILE = 'noop.json';

/** The compact form of a clean record with the stamps it rests on: [path, size, mtimeMs, ino]. */
export interface NoopProof extends Omit<CleanRecord, 'order'> {
  version: number;
  sources: [string, number, string, number][];
  targets: [string, string, string, number, string, number][];
}

type LogLine = { t: string; r: TargetRecord | null } | { f: string; s: FileStamp | null } | { c: CleanRecord | null };

export class BuildState {
  targets = new Map<string, TargetRecord>();
  files = new Map<string, FileStamp>();
  clean: CleanRecord | null = null;
  /** The clean record on disk that setClean(null) cleared in memory only, until beginChanges(). */
  private uncleanPending: CleanRecord | null = null;
  private logFd: number | null = null;
  /** Whether anything changed since load (or state.log held lines to fold in). */
  private dirty = false;
  /** Whether a target or file record changed since load (what garbage collection cares about). */
  private recordsChanged = false;

  recordsHaveChanged(): boolean {
    return this.recordsChanged;
  }

  private constructor(
    private readonly dir: string,
    /** Dry runs keep every change in memory and write nothing. */
    private readonly readOnly: boolean,
  ) {}

  static load(dir: string, readOnly = false): BuildState {
    const state = new BuildState(dir, readOnly);
    try {
      const parsed = readStateFile(dir);
      if (parsed) {
        state.targets = new Map(Object.entries(parsed.targets));
        state.files = new Map(Object.entries(parsed.files));
        state.clean = parsed.clean ?? null;
      }
    } catch {
      // no state (or unreadable): everything is dirty, which is always safe
    }
    let log = '';
    try {
      log = fs.readFileSync(path.join(dir, 'state.log'), 'utf8');
    } catch {
      log = '';
    }
    for (const line of log.split('\n')) {
      if (!line) continue;
      state.dirty = true;
      let entry: LogLine;
      try {
        entry = JSON.parse(line) as LogLine;
      } catch {
        continue; // a torn line from a crash
      }
      if ('c' in entry) state.clean = entry.c;
      else if ('t' in entry) {
        state.recordsChanged = true;
        if (entry.r) state.targets.set(entry.t, entry.r);
        else state.targets.delete(entry.t);
      } else {
        state.recordsChanged = true;
        if (entry.s) state.files.set(entry.f, entry.s);
        else state.files.delete(entry.f);
      }
    }
    return state;
  }

  recordTarget(target: string, record: TargetRecord | null): void {
    // The log line first: a record that could not be logged (disk full) is not taken as done.
    this.append({ t: target, r: record });
    this.recordsChanged = true;
    if (record) this.targets.set(target, record);
    else this.targets.delete(target);
  }

  setClean(clean: CleanRecord | null): void {
    if (clean === null && this.clean === null) return;
    if (clean === null) {
      // Cleared on disk only when something is about to change (beginChanges, or any log line), so a
      // build that finds nothing to do writes nothing: it runs on a read-only workspace.
      this.uncleanPending ??= this.clean;
      this.clean = null;
      return;
    }
    if (this.uncleanPending !== null && JSON.stringify(this.uncleanPending) === JSON.stringify(clean)) {
      // Nothing changed after all: the record (and noop.json) on disk still hold.
      this.uncleanPending = null;
      this.clean = clean;
      return;
    }
    this.clean = clean;
    this.append({ c: clean });
  }

  /**
   * Called before anything in the workspace changes (a target is about to run). The no-op proof goes
   * first: from here on only the log knows, and a non-empty log disables it.
   */
  beginChanges(): void {
    if (this.uncleanPending === null || this.readOnly) return;
    this.uncleanPending = null;
    const proof = path.join(this.dir, NOOP_PROOF_FILE);
    try {
      fs.rmSync(proof, { force: true });
    } catch (error) {
      throw writeFailure(error, proof);
    }
    this.append({ c: null });
  }

  recordFile(file: string, stamp: FileStamp): void {
    const previous = this.files.get(file);
    if (!previous || previous.hash !== stamp.hash || previous.mtimeMs !== stamp.mtimeMs || previous.size !== stamp.size || previous.ino !== stamp.ino) {
      this.append({ f: file, s: stamp });
    }
    this.files.set(file, stamp);
    this.recordsChanged = true;
  }

  forgetFile(file: string): void {
    if (this.files.delete(file)) {
      this.recordsChanged = true;
      this.append({ f: file, s: null });
    }
  }

  private append(line: LogLine): void {
    if (this.uncleanPending !== null && !('c' in line && line.c === null)) this.beginChanges();
    this.dirty = true;
    if (this.readOnly) return;
    const logFile = path.join(this.dir, 'state.log');
    try {
      if (this.logFd === null) {
        fs.mkdirSync(this.dir, { recursive: true });
        // O_NOFOLLOW: a symlink planted as state.log is an error, never a way to append elsewhere.
        this.logFd = fs.openSync(logFile, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o644);
        // A line torn by a full disk or a crash stays alone on its line (load() skips it), instead of
        // swallowing the next one.
        const size = fs.fstatSync(this.logFd).size;
        const last = Buffer.alloc(1);
        if (size > 0 && fs.readSync(this.logFd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a) fs.writeSync(this.logFd, '\n');
      }
      // One write of the whole line: a short write (disk full) leaves a torn line, which load() skips.
      const bytes = Buffer.from(JSON.stringify(line) + '\n', 'utf8');
      if (fs.writeSync(this.logFd, bytes) < bytes.byteLength) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
    } catch (error) {
      throw writeFailure(error, logFile);
    }
  }

  /** Writes the compacted state atomically, then empties the log. */
  compact(): void {
    if (this.readOnly || !this.dirty) return;
    this.beginChanges(); // a pending clear reaches the disk before the state that omits the record
    const targets = Object.fromEntries([...this.targets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const files = Object.fromEntries([...this.files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeFileAtomic(path.join(this.dir, 'state.json'), JSON.stringify({ version: STATE_FORMAT_VERSION, targets, files, clean: this.clean }));
    if (this.logFd !== null) {
      fs.closeSync(this.logFd);
      this.logFd = null;
    }
    const logFile = path.join(this.dir, 'state.log');
    try {
      fs.rmSync(logFile, { force: true });
    } catch (error) {
      throw writeFailure(error, logFile);
    }
    if (this.clean) writeFileAtomic(path.join(this.dir, NOOP_PROOF_FILE), JSON.stringify(this.noopProof(this.clean)));
  }

  /** Just what the no-op check reads (see clean-build.ts), a tenth of the state's size. */
  private noopProof(clean: CleanRecord): NoopProof {
    const sources: NoopProof['sources'] = [...this.files.entries()].map(([file, s]) => [file, s.size, s.mtimeMs, s.ino]);
    const targets: NoopProof['targets'] = [];
    for (const name of clean.order) {
      const record = this.targets.get(name);
      if (record) targets.push([name, record.components.rule, record.output, record.stamp.size, record.stamp.mtimeMs, record.stamp.ino]);
    }
    const { order: _order, ...rest } = clean;
    return { version: STATE_FORMAT_VERSION, ...rest, sources, targets };
  }

  close(): void {
    if (this.logFd !== null) fs.closeSync(this.logFd);
    this.logFd = null;
  }
}

export interface StateFile {
  version: number;
  targets: Record<string, TargetRecord>;
  files: Record<string, FileStamp>;
  clean?: CleanRecord | null;
}

/** The compacted state file, or null when missing, unreadable or of another format. */
export function readStateFile(dir: string): StateFile | null {
  try {
    const parsed = JSON.parse(fs.readFileSync(path.join(dir, 'state.json'), 'utf8')) as Partial<StateFile>;
    if (parsed.version !== STATE_FORMAT_VERSION || !parsed.targets || !parsed.files) return null;
    return parsed as StateFile;
  } catch {
    return null;
  }
}

/** Stat stamp of a file, or null when it does not exist. */
export function statStamp(absolutePath: string): Omit<FileStamp, 'hash'> | null {
  try {
    const stat = fs.statSync(absolutePath, { throwIfNoEntry: false });
    if (stat === undefined) return null;
    return stampOf(stat);
  } catch {
    return null;
  }
}

/**
 * mtimeMs is a double with sub-microsecond resolution at today's dates: precise enough to notice an
 * edit, and far cheaper to read than bigint stats. A false "changed" only costs a re-hash.
 */
export function stampOf(stat: fs.Stats): Omit<FileStamp, 'hash'> {
  return { size: stat.size, mtimeMs: String(stat.mtimeMs), ino: stat.ino };
}

export function sameStamp(a: Omit<FileStamp, 'hash'>, b: Omit<FileStamp, 'hash'>): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ino === b.ino;
}
