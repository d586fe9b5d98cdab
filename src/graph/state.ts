import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
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
  /** What dependents key on, when the rule declares it differs from sha256 (see Rule.contentHash). */
  contentHash?: string;
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
    this.recordsChanged = true;
    if (record) this.targets.set(target, record);
    else this.targets.delete(target);
    this.append({ t: target, r: record });
  }

  setClean(clean: CleanRecord | null): void {
    if (clean === null && this.clean === null) return;
    // The proof file goes first: from here on only the log knows, and a non-empty log disables it.
    if (clean === null && !this.readOnly) fs.rmSync(path.join(this.dir, NOOP_PROOF_FILE), { force: true });
    this.clean = clean;
    this.append({ c: clean });
  }

  recordFile(file: string, stamp: FileStamp): void {
    const previous = this.files.get(file);
    this.files.set(file, stamp);
    this.recordsChanged = true;
    if (!previous || previous.hash !== stamp.hash || previous.mtimeMs !== stamp.mtimeMs || previous.size !== stamp.size || previous.ino !== stamp.ino) {
      this.append({ f: file, s: stamp });
    }
  }

  forgetFile(file: string): void {
    if (this.files.delete(file)) {
      this.recordsChanged = true;
      this.append({ f: file, s: null });
    }
  }

  private append(line: LogLine): void {
    this.dirty = true;
    if (this.readOnly) return;
    if (this.logFd === null) {
      fs.mkdirSync(this.dir, { recursive: true });
      // O_NOFOLLOW: a symlink planted as state.log is an error, never a way to append elsewhere.
      this.logFd = fs.openSync(path.join(this.dir, 'state.log'), fs.constants.O_WRONLY | fs.constants.O_APPEND | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW, 0o644);
    }
    fs.writeSync(this.logFd, JSON.stringify(line) + '\n');
  }

  /** Writes the compacted state atomically, then empties the log. */
  compact(): void {
    if (this.readOnly || !this.dirty) return;
    const targets = Object.fromEntries([...this.targets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    const files = Object.fromEntries([...this.files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    writeFileAtomic(path.join(this.dir, 'state.json'), JSON.stringify({ version: STATE_FORMAT_VERSION, targets, files, clean: this.clean }));
    if (this.logFd !== null) {
      fs.closeSync(this.logFd);
      this.logFd = null;
    }
    fs.rmSync(path.join(this.dir, 'state.log'), { force: true });
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
