import * as fs from 'node:fs';
import * as path from 'node:path';
import { writeFileAtomic } from '../store/atomic-file.js';
import { writeFailure } from '../store/write-failure.js';
import { sha256Hex } from '../store/hash.js';
import { verifiedBody, withChecksum } from './checksum-file.js';
import type { Warning } from '../failure.js';
import type { KeyComponents } from './key.js';
import { TargetRecords } from './target-records.js';
import { cleanRecordProblem, fileStampsProblem, logEntryProblem } from './state-validation.js';
import { openProofStamps, readProofFile, removeProof, NOOP_PROOF_FILE, type ProofStamps } from './noop-proof-files.js';
import { writeNoopProof, type KeptGroups, type ProofLayout } from './noop-proof.js';
import { readRegularFileSync } from '../regular-file.js';

export { verifiedBody, withChecksum };

/**
 * Build state: for each target, its key, the key's components and the output it produced; for each
 * source file, a stat stamp with its content hash (the stat fast path).
 *
 * Stored as `state.json` plus `state.log`, one JSON line appended per finished target, so work done
 * before a crash is not lost. A torn last line is ignored. A build ends by appending a commit line;
 * lines after the last commit line are a crashed build's. The log is
 * folded into state.json only once it has grown to half of state.json's size, so a one-source edit
 * appends a few lines instead of rewriting the whole state: rewrites cost O(changes), amortised.
 * Nothing in here is an artifact: it never leaves the machine and may be deleted (everything then
 * rebuilds).
 *
 * state.json is a header line (format version, source file stamps, clean record), then one line per
 * target, `"name"<TAB>record JSON`, in name order, then the checksum line. Records stay text until
 * used (target-records.ts), so an edit parses the records of what changed, not the whole corpus.
 *
 * Nothing here is trusted unverified either: state.json and noop.json end with an xxh64 line over
 * their body's bytes (a local integrity check, not a hash the spec names: xxhash checks the 32 MB
 * state of 10,000 sources in ~15 ms where SHA-256 took ~130 ms, on every edit; the caller runs
 * initFastHash first), and every log line carries its own SHA-256 prefix; a file or line that fails its check (a bit flip, a
 * truncation, a hand edit) makes the whole state count as absent, so everything rebuilds, with a
 * warning. (A checksum is no signature: someone who can write the workspace can recompute it, as they
 * could rewrite the outputs themselves; it stops damage and careless edits from being believed.)
 */
export const STATE_FORMAT_VERSION = 6;

export interface FileStamp {
  size: number;
  mtimeMs: string;
  /** Change time: set by the kernel on every write, so an edit that restores the mtime still shows. */
  ctimeMs: string;
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
  /** For a snapshot: the stamp of its body (facts.body), checked like the output's. */
  bodyStamp?: Omit<FileStamp, 'hash'>;
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

export { NOOP_PROOF_FILE };

/**
 * `k`: the commit line a build appends as it ends; what follows the last one is a crashed build's.
 * `cr`: the clean record is again the one the last `{c: null}` line cleared.
 */
type LogLine =
  | { t: string; r: TargetRecord | null }
  | { cr: 1 }
  | { f: string; s: FileStamp | null }
  | { c: CleanRecord | null }
  | { k: 1 };

/**
 * Whether two clean records say the same (what their JSON texts would say): the target order, which
 * names every target, compared name by name rather than serialised twice on every build.
 */
function sameCleanRecord(a: CleanRecord, b: CleanRecord): boolean {
  if (a === b) return true;
  const { order: orderA, ...restA } = a;
  const { order: orderB, ...restB } = b;
  if (orderA.length !== orderB.length) return false;
  for (let i = 0; i < orderA.length; i++) if (orderA[i] !== orderB[i]) return false;
  return JSON.stringify(restA) === JSON.stringify(restB);
}

/** The log is folded into state.json once it reaches this share of state.json's size (1/2). */
const FOLD_LOG_DIVISOR = 2;

export class BuildState {
  targets = new TargetRecords();
  files = new Map<string, FileStamp>();
  clean: CleanRecord | null = null;
  /** The clean record on disk that setClean(null) cleared in memory only, until beginChanges(). */
  private uncleanPending: CleanRecord | null = null;
  /**
   * The clean record the log's last `{c: null}` line cleared (null once a fold empties the log), as a
   * replay of the log sees it: a build that ends with that same record appends `{cr: 1}` ("restored")
   * instead of the record again, which names every target (~1 MB at 10,000 sources).
   */
  private clearedClean: CleanRecord | null = null;
  private logFd: number | null = null;
  /** A damaged log is truncated on first append rather than appended to. */
  private discardLog = false;
  /** The log ends in a torn line: the first append starts a new line, so it is not glued to it. */
  private logTorn = false;
  /** compact() left the no-op proof to writeDeferredProof. */
  private proofDeferred = false;
  /** How the targets of the clean record fall into proof groups (given with it by setClean). */
  private proofLayout: ProofLayout | null = null;
  /** Groups whose proof held at the start of this build (keepProofGroups): their files are reused. */
  private keptGroups: KeptGroups = new Map();
  /** Targets recorded by this build: a kept group holding one is derived again. */
  private readonly recordedThisBuild = new Set<string>();
  /** Whether anything changed since load (or state.log held lines to fold in). */
  private dirty = false;
  /** Whether a target or file record changed since load (what garbage collection cares about). */
  private recordsChanged = false;
  /** Records this run replaced or removed: their files are the only ones it can have made garbage. */
  private readonly released: TargetRecord[] = [];
  /** The targets whose records those were. */
  private readonly releasedNames: string[] = [];
  /** Whether load found a crashed build's lines, a damaged state or none: its garbage is unknown. */
  private unknownGarbage = false;
  /** Size of state.log (as loaded, plus what this run appended) and of state.json, to decide a fold. */
  private logBytes = 0;
  private stateBytes = 0;
  /**
   * Stamps of state.json and state.log as this state last saw them on disk (taken before reading them
   * at load, after writing them at commit): while both still match, memory equals the disk.
   */
  private onDisk: { state: Omit<FileStamp, 'hash'> | null; log: Omit<FileStamp, 'hash'> | null } | null = null;
  /** Whether a no-op proof on disk describes exactly the state files as they are (nothing appended since). */
  private proofVouchesForDisk = false;

  /**
   * Whether the state on disk is exactly what a complete, clean build's commit left (the no-op proof
   * it wrote still vouches for it): no build has begun changing anything since, so none crashed.
   */
  untouchedSinceCleanCommit(): boolean {
    return this.proofVouchesForDisk;
  }

  recordsHaveChanged(): boolean {
    return this.recordsChanged;
  }

  /** Whether anything is to be written at the next compact(): false when this run changed nothing. */
  hasChanges(): boolean {
    return this.dirty;
  }

  /** The records replaced or removed since load (see garbage.ts collectReleasedGarbage). */
  releasedRecords(): readonly TargetRecord[] {
    return this.released;
  }

  /** The targets whose records this run replaced or removed. */
  releasedTargets(): readonly string[] {
    return this.releasedNames;
  }

  /** Whether garbage this run did not make may exist (a crashed build's, or a damaged or missing state). */
  mayHoldUnknownGarbage(): boolean {
    return this.unknownGarbage;
  }

  private constructor(
    private readonly dir: string,
    /** Dry runs keep every change in memory and write nothing. */
    private readonly readOnly: boolean,
  ) {}

  /** Why the recorded state was not used (damaged or tampered files), for the build's warnings. */
  readonly diagnostics: Warning[] = [];

  static load(dir: string, readOnly = false): BuildState {
    const state = new BuildState(dir, readOnly);
    const damaged = (file: string, why: string): BuildState => {
      const fresh = new BuildState(dir, readOnly);
      // Everything rebuilds; the next compaction replaces both files.
      fresh.dirty = true;
      fresh.recordsChanged = true;
      fresh.discardLog = true;
      fresh.unknownGarbage = true;
      fresh.diagnostics.push({
        code: 'state-discarded',
        message: `The build state (.episteme/${file}) ${why}; it was discarded and every target is checked from scratch.`,
      });
      return fresh;
    };
    const onDisk = stateFileStamps(dir);
    const proofFile = readProofFile(dir);
    const read = readVerifiedStateFile(dir);
    if (read === 'damaged') return damaged('state.json', 'fails its checksum (damaged or edited)');
    if (read) {
      state.targets = read.targets;
      state.files = new Map(Object.entries(read.files));
      state.clean = read.clean ?? null;
      state.stateBytes = read.bytes;
    }
    let log = '';
    try {
      log = readRegularFileSync(path.join(dir, 'state.log'), 'utf8');
    } catch {
      log = '';
    }
    const lines = log.split('\n');
    state.logTorn = log.length > 0 && !log.endsWith('\n');
    state.logBytes = log.length;
    // Whether a line after the last commit line changed a record: a crashed build's work.
    let uncommitted = false;
    for (const [i, line] of lines.entries()) {
      if (!line) continue;
      const entry = parseLogLine(line);
      if (entry === null) {
        // A torn line (a crash or a full disk mid-append) never got its checksum: skipped, as if never
        // written. A line whose checksum is there but does not match is damage.
        if (!LOG_CHECKSUM_SUFFIX.test(line) || i === lines.length - 1) continue;
        return damaged('state.log', `has a line that fails its checksum (line ${i + 1})`);
      }
      const problem = logEntryProblem(entry as unknown as Record<string, unknown>);
      if (problem !== null) return damaged('state.log', `has a line that does not validate (line ${i + 1}: ${problem})`);
      if ('k' in entry) {
        uncommitted = false;
        continue;
      }
      uncommitted = true;
      if ('c' in entry) {
        if (entry.c === null && state.clean !== null) state.clearedClean = state.clean;
        state.clean = entry.c;
      } else if ('cr' in entry) {
        if (state.clearedClean === null) return damaged('state.log', `restores a clean record it never cleared (line ${i + 1})`);
        state.clean = state.clearedClean;
      } else if ('t' in entry) {
        if (entry.r) state.targets.set(entry.t, entry.r);
        else state.targets.delete(entry.t);
      } else {
        if (entry.s) state.files.set(entry.f, entry.s);
        else state.files.delete(entry.f);
      }
    }
    // A crashed build's changes are committed by this run (and its garbage collected).
    state.recordsChanged = uncommitted;
    state.dirty = uncommitted;
    state.unknownGarbage = uncommitted || read === null;
    // A crashed build's lines are committed by this run: until then memory is ahead of the disk.
    state.onDisk = uncommitted ? null : onDisk;
    // Only the proof's stamps of the state files matter here; a damaged or forged proof vouches for
    // nothing, and the build that would use its targets (clean-build.ts) reports it.
    const proof = openProofStamps(proofFile);
    state.proofVouchesForDisk = proof !== null && read !== null && !uncommitted && state.clean !== null && proofDescribes(proof, onDisk);
    return state;
  }

  /**
   * For a long-running caller (watch): the state to begin the next build with. The state the last
   * build committed is kept in memory, and reused when state.json and state.log are as that build
   * left them (stat stamps, change time included), so an edit does not read and parse the whole state
   * again. Anything else (another process built in between, a crash, a hand edit) loads from disk.
   */
  static resume(previous: BuildState | null, dir: string): BuildState {
    if (previous === null || previous.readOnly || previous.dir !== dir || previous.onDisk === null || previous.logFd !== null)
      return BuildState.load(dir);
    const now = stateFileStamps(dir);
    const same = (a: Omit<FileStamp, 'hash'> | null, b: Omit<FileStamp, 'hash'> | null): boolean =>
      a === null || b === null ? a === b : sameStamp(a, b);
    if (!same(now.state, previous.onDisk.state) || !same(now.log, previous.onDisk.log)) return BuildState.load(dir);
    // What load would find: a clean record cleared in memory only (a build that did not end cleanly
    // and wrote nothing) is still the one on disk.
    if (previous.uncleanPending !== null) previous.clean = previous.uncleanPending;
    previous.uncleanPending = null;
    previous.released.length = 0;
    previous.releasedNames.length = 0;
    previous.keptGroups = new Map();
    previous.recordedThisBuild.clear();
    previous.diagnostics.length = 0;
    previous.recordsChanged = false;
    previous.unknownGarbage = false;
    previous.dirty = false;
    return previous;
  }

  recordTarget(target: string, record: TargetRecord | null): void {
    // The log line first: a record that could not be logged (disk full) is not taken as done.
    const previous = this.targets.get(target);
    this.append({ t: target, r: record });
    this.recordsChanged = true;
    this.recordedThisBuild.add(target);
    if (previous !== undefined && previous !== record) {
      this.released.push(previous);
      this.releasedNames.push(target);
    }
    if (record) this.targets.set(target, record);
    else this.targets.delete(target);
  }

  /**
   * Groups whose proof the build found holding (noop-proof.ts heldGroups): the proof it writes at the
   * end reuses their files, unless it recorded one of their targets after all.
   */
  keepProofGroups(kept: KeptGroups): void {
    this.keptGroups = kept;
  }

  /** The clean record of a build that ended complete and clean, and how its proof is grouped; or null. */
  setClean(clean: null): void;
  setClean(clean: CleanRecord, layout: ProofLayout): void;
  setClean(clean: CleanRecord | null, layout?: ProofLayout): void {
    if (clean !== null) this.proofLayout = layout!;
    if (clean === null && this.clean === null) return;
    if (clean === null) {
      // Cleared on disk only when something is about to change (beginChanges, or any log line), so a
      // build that finds nothing to do writes nothing: it runs on a read-only workspace.
      this.uncleanPending ??= this.clean;
      this.clean = null;
      return;
    }
    if (this.uncleanPending !== null && sameCleanRecord(this.uncleanPending, clean)) {
      // Nothing changed after all: the record (and noop.json) on disk still hold.
      this.uncleanPending = null;
      this.clean = clean;
      return;
    }
    if (this.uncleanPending === null && this.clearedClean !== null && sameCleanRecord(this.clearedClean, clean)) {
      // The usual end of an edit: the record this build cleared holds again; say so in a few bytes.
      this.clean = clean;
      this.append({ cr: 1 });
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
    const cleared = this.uncleanPending;
    this.uncleanPending = null;
    // The proof goes first: from here on only the log knows.
    removeProof(this.dir);
    this.append({ c: null });
    this.clearedClean = cleared;
  }

  recordFile(file: string, stamp: FileStamp): void {
    const previous = this.files.get(file);
    if (!previous || previous.hash !== stamp.hash || !sameStamp(previous, stamp)) {
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
    this.proofVouchesForDisk = false;
    if (this.readOnly) return;
    const logFile = path.join(this.dir, 'state.log');
    try {
      if (this.logFd === null) {
        fs.mkdirSync(this.dir, { recursive: true });
        // O_NOFOLLOW: a symlink planted as state.log is an error, never a way to append elsewhere. A
        // damaged log is truncated rather than appended to.
        const mode = this.discardLog ? fs.constants.O_TRUNC : fs.constants.O_APPEND;
        this.logFd = fs.openSync(logFile, fs.constants.O_RDWR | fs.constants.O_CREAT | fs.constants.O_NOFOLLOW | mode, 0o644);
        // A line torn by a full disk or a crash stays alone on its line (load() skips it), instead of
        // swallowing the next one.
        const size = fs.fstatSync(this.logFd).size;
        const last = Buffer.alloc(1);
        const torn = this.logTorn || (size > 0 && fs.readSync(this.logFd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a);
        if (torn && !this.discardLog) fs.writeSync(this.logFd, '\n');
        this.discardLog = false;
        this.logTorn = false;
      }
      // One write of the whole line: a short write (disk full) leaves a torn line, which load() skips.
      const bytes = Buffer.from(logLine(line), 'utf8');
      if (fs.writeSync(this.logFd, bytes) < bytes.byteLength) throw Object.assign(new Error('short write'), { code: 'ENOSPC' });
      this.logBytes += bytes.byteLength;
    } catch (error) {
      throw writeFailure(error, logFile);
    }
  }

  /**
   * Commits this run: appends the commit line, or, once the log has grown past half of state.json
   * (or state.json is missing), writes the folded state atomically and empties the log. Then writes
   * the no-op proof when the build was complete and clean. A run that changed nothing writes nothing.
   * A build of the whole graph commits its records first and its clean record (and so the proof) after
   * collecting garbage (build.ts).
   */
  compact(options: { deferProof?: boolean } = {}): void {
    if (this.readOnly || !this.dirty) return;
    this.proofDeferred = false;
    this.beginChanges(); // a pending clear reaches the disk before the state that omits the record
    const statePath = path.join(this.dir, 'state.json');
    const logFile = path.join(this.dir, 'state.log');
    const fold = this.stateBytes === 0 || this.logBytes >= this.stateBytes / FOLD_LOG_DIVISOR;
    if (fold) {
      const files = Object.fromEntries([...this.files.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      const lines = [JSON.stringify({ version: STATE_FORMAT_VERSION, files, clean: this.clean })];
      // Records never parsed are written back as the text they were read as.
      for (const name of this.targets.names().sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)))
        lines.push(`${JSON.stringify(name)}\t${this.targets.textOf(name) ?? JSON.stringify(this.targets.get(name))}`);
      const bytes = withChecksum(lines.join('\n'));
      writeFileAtomic(statePath, bytes);
      this.stateBytes = bytes.byteLength;
      if (this.logFd !== null) {
        fs.closeSync(this.logFd);
        this.logFd = null;
      }
      try {
        fs.rmSync(logFile, { force: true });
      } catch (error) {
        throw writeFailure(error, logFile);
      }
      this.logBytes = 0;
      this.clearedClean = null;
    } else {
      this.append({ k: 1 });
      if (this.logFd !== null) {
        fs.closeSync(this.logFd);
        this.logFd = null;
      }
    }
    this.dirty = false;
    const written = stateFileStamps(this.dir);
    this.onDisk = written;
    // A long-running caller (watch) writes the proof once idle (writeDeferredProof): it names every
    // target (megabytes at 10,000 sources) and only speeds up a later one-shot no-op.
    this.proofVouchesForDisk = false;
    if (this.clean && options.deferProof) this.proofDeferred = true;
    else if (this.clean) this.writeProof(this.clean, written);
  }

  private writeProof(clean: CleanRecord, written: { state: Omit<FileStamp, 'hash'> | null; log: Omit<FileStamp, 'hash'> | null }): void {
    if (this.proofLayout === null || written.state === null) return;
    const source = { targets: this.targets, files: this.files, recordedThisBuild: this.recordedThisBuild };
    this.proofVouchesForDisk = writeNoopProof(this.dir, source, clean, this.proofLayout, this.keptGroups, {
      state: written.state,
      log: written.log,
    });
  }

  /**
   * After a complete, clean build that changed nothing: writes the proof when none on disk vouches for
   * this state (missing, damaged, or `refused` by the build's check), so a damaged proof is reported
   * once, not by every build until the next edit. Best effort: a refused write fails nothing.
   */
  writeProofIfMissing(refused: boolean): void {
    if (this.readOnly || this.clean === null || this.dirty || this.onDisk === null || this.logFd !== null) return;
    if (this.proofVouchesForDisk && !refused) return;
    const now = stateFileStamps(this.dir);
    const same = (a: Omit<FileStamp, 'hash'> | null, b: Omit<FileStamp, 'hash'> | null): boolean =>
      a === null || b === null ? a === b : sameStamp(a, b);
    if (now.state === null || !same(now.state, this.onDisk.state) || !same(now.log, this.onDisk.log)) return;
    try {
      this.writeProof(this.clean, now);
    } catch {
      // Only a shortcut for later builds: on a workspace that refuses writes, this build still succeeds
      // (it changed nothing), and the next one checks every target again.
      this.proofVouchesForDisk = false;
    }
  }

  /**
   * Writes the no-op proof compact() deferred, while state.json and state.log are still as that commit
   * left them (the caller holds the workspace lock); false when there is none to write or it no longer
   * holds (the next complete, clean build writes one).
   */
  writeDeferredProof(): boolean {
    if (!this.proofDeferred || this.clean === null || this.onDisk === null || this.logFd !== null) return false;
    this.proofDeferred = false;
    const now = stateFileStamps(this.dir);
    const same = (a: Omit<FileStamp, 'hash'> | null, b: Omit<FileStamp, 'hash'> | null): boolean =>
      a === null || b === null ? a === b : sameStamp(a, b);
    if (now.state === null || !same(now.state, this.onDisk.state) || !same(now.log, this.onDisk.log)) return false;
    this.writeProof(this.clean, now);
    return true;
  }

  close(): void {
    if (this.logFd !== null) fs.closeSync(this.logFd);
    this.logFd = null;
  }
}

export interface StateFile {
  version: number;
  /** Size of the file in bytes (not stored: measured as it is read). */
  bytes: number;
  /** Each target's record, as text until used. */
  targets: TargetRecords;
  files: Record<string, FileStamp>;
  clean?: CleanRecord | null;
}

/**
 * The compacted state file: null when missing or of another format version (a clean start), 'damaged'
 * when it fails its checksum or does not parse. The whole file is checked against its SHA-256 (a
 * fraction of the cost of parsing it); the record lines are only split here, and parsed when used.
 */
export function readVerifiedStateFile(dir: string): StateFile | null | 'damaged' {
  let bytes: Buffer;
  try {
    bytes = readRegularFileSync(path.join(dir, 'state.json'));
  } catch {
    return null;
  }
  const body = verifiedBody(bytes);
  if (body === null)
    return /^\{"version":(\d+),/.exec(bytes.toString('latin1', 0, 32))?.[1] === String(STATE_FORMAT_VERSION) ? 'damaged' : null;
  const headerEnd = body.indexOf('\n');
  let header: Partial<StateFile>;
  try {
    header = JSON.parse(headerEnd < 0 ? body : body.slice(0, headerEnd)) as Partial<StateFile>;
  } catch {
    return 'damaged';
  }
  // An older format (state.json was one JSON object) is discarded, never misread.
  if (typeof header !== 'object' || header === null || header.version !== STATE_FORMAT_VERSION) return null;
  if (typeof header.files !== 'object' || header.files === null) return 'damaged';
  if (fileStampsProblem(header.files as Record<string, unknown>) !== null || cleanRecordProblem(header.clean ?? null) !== null)
    return 'damaged';
  const targets = new TargetRecords();
  for (let start = headerEnd + 1; headerEnd >= 0 && start <= body.length; ) {
    let end = body.indexOf('\n', start);
    if (end < 0) end = body.length;
    // `"name"<TAB>record`: JSON escapes every tab and newline inside a string, so the first tab ends the name.
    const tab = body.indexOf('\t', start);
    if (tab < 0 || tab > end || body[start] !== '"' || body[tab - 1] !== '"' || tab - start < 2) return 'damaged';
    const quoted = body.slice(start, tab);
    let name: unknown;
    try {
      name = quoted.includes('\\') ? JSON.parse(quoted) : quoted.slice(1, -1);
    } catch {
      return 'damaged';
    }
    if (typeof name !== 'string') return 'damaged';
    targets.setText(name, body.slice(tab + 1, end));
    start = end + 1;
  }
  return { version: header.version, files: header.files, clean: header.clean ?? null, targets, bytes: bytes.byteLength };
}

/** Whether a proof was derived from the state files exactly as they are on disk (`onDisk`). */
function proofDescribes(
  proof: ProofStamps,
  onDisk: { state: Omit<FileStamp, 'hash'> | null; log: Omit<FileStamp, 'hash'> | null },
): boolean {
  const same = (a: Omit<FileStamp, 'hash'> | null | undefined, b: Omit<FileStamp, 'hash'> | null): boolean =>
    a === undefined ? false : a === null || b === null ? a === b : sameStamp(a, b);
  return onDisk.state !== null && same(proof.state, onDisk.state) && same(proof.log, onDisk.log);
}

function stateFileStamps(dir: string): { state: Omit<FileStamp, 'hash'> | null; log: Omit<FileStamp, 'hash'> | null } {
  return { state: statStamp(path.join(dir, 'state.json')), log: statStamp(path.join(dir, 'state.log')) };
}

const LOG_CHECKSUM_SUFFIX = /\t[0-9a-f]{16}$/;

/** A log line: the entry's JSON, a tab, and the first 16 hex digits of its SHA-256. */
function logLine(entry: LogLine): string {
  const json = JSON.stringify(entry);
  return `${json}\t${sha256Hex(json).slice(0, 16)}\n`;
}

function parseLogLine(line: string): LogLine | null {
  const tab = line.lastIndexOf('\t');
  if (tab < 0) return null;
  const json = line.slice(0, tab);
  if (line.slice(tab + 1) !== sha256Hex(json).slice(0, 16)) return null;
  try {
    const entry = JSON.parse(json) as LogLine;
    return typeof entry === 'object' &&
      entry !== null &&
      ('c' in entry || 'cr' in entry || 't' in entry || 'p' in entry || 'f' in entry || 'k' in entry)
      ? entry
      : null;
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
  return { size: stat.size, mtimeMs: String(stat.mtimeMs), ctimeMs: String(stat.ctimeMs), ino: stat.ino };
}

export function sameStamp(a: Omit<FileStamp, 'hash'>, b: Omit<FileStamp, 'hash'>): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}
