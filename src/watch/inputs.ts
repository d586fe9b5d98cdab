import * as fs from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import type { Workspace } from '../config/workspace.js';
import { rulesFilesOnDisk } from '../extract/package-paths.js';
import { EpistemeError } from '../failure.js';
import { readBoundedFileWithStat } from '../store/bounded-read.js';

/**
 * What a build reads, and the watches on it.
 *
 * The inputs are files, but each is watched through its folder (`fs.watch` on the directory, the way
 * chokidar watches on Linux): an editor's atomic save (write a temp file, rename it over the input) and
 * a delete then re-create replace the file's inode, which a watch on the file itself would lose. Only
 * events for inputs can start a build; the others (temp files, the workspace's own outputs, also
 * watched so that a changed output voids its group's memo: graph/settled-groups.ts) never do, so a
 * build's own writes can never trigger one.
 */
export interface WatchedInputs {
  /** Absolute paths of every file a build of this workspace reads. */
  files: Set<string>;
  /** The subset that shapes the workspace itself (config, map, manifest, rules): a change reloads it. */
  shaping: Set<string>;
}

/** The inputs of a loaded workspace: config, map, manifest, each manual-ingest file, the family rules. */
export function workspaceInputs(ws: Workspace): WatchedInputs {
  const shaping = new Set<string>();
  for (const relative of [ws.configFile, ws.mapFile, ws.manifestFile]) if (relative !== null) shaping.add(path.join(ws.root, relative));
  for (const file of rulesFilesOnDisk()) shaping.add(file);
  // The workspace's own families (episteme.json "rules") shape extraction like the built-in ones.
  for (const file of ws.rulesFiles) shaping.add(file);
  const files = new Set(shaping);
  for (const source of ws.sources) if (source.capture.method === 'manual-ingest') files.add(source.capture.absolutePath);
  // Never an output or the build state, whatever the map names (the loader refuses those anyway).
  const owned = [...Object.values(ws.outputs).map((dir) => path.join(ws.root, dir)), ws.stateDir].map((dir) => dir + path.sep);
  for (const file of files) if (owned.some((dir) => file.startsWith(dir))) files.delete(file);
  return { files, shaping };
}

/** Told of the bytes of an input read through a descriptor whose stat is `stat`. */
export type ReadHook = (file: string, stat: fs.Stats, bytes: Buffer) => void;

/** The bound on an input watch hashes when the workspace names none (limits.maxFileBytes' default). */
export const DEFAULT_WATCH_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Content hash of an input as it is now, read the way a build reads it (store/bounded-read.ts): opened
 * without blocking, a regular file only, its size checked on the descriptor before a byte is read. So a
 * FIFO, a device such as /dev/zero or a huge sparse file never blocks the watcher or fills its memory.
 * What cannot be read is named by why ('missing', or the refusal with the file's size and change
 * time), so turning a file into a FIFO, or growing it past the bound, is still a change: the build it
 * starts reports the input with the build's own structured error.
 */
export function contentHash(file: string, maxBytes = DEFAULT_WATCH_MAX_BYTES, read?: ReadHook): string {
  try {
    const { bytes, stat } = readBoundedFileWithStat(file, { label: 'Watched input', maxBytes });
    read?.(file, stat, bytes);
    return createHash('sha256').update(bytes).digest('hex');
  } catch (error) {
    if (error instanceof EpistemeError && error.code === 'input-not-found') return 'missing';
    const why = error instanceof EpistemeError ? error.code : ((error as NodeJS.ErrnoException).code ?? 'error');
    const stat = statProbe(file, true);
    // What stat says of it, or why it cannot say (a symlink loop, a folder that may not be searched).
    const seen = typeof stat === 'string' ? stat : `${stat?.size ?? ''}:${stat?.mtimeNs ?? ''}:${stat?.ctimeNs ?? ''}`;
    return `refused:${why}:${seen}`;
  }
}

/**
 * A stat for the watcher's probes, which never throw (`throwIfNoEntry` spares only a missing path):
 * the stat, undefined when nothing is there, or the error code when the path cannot be stat'ed
 * (`ELOOP`, `EACCES`): an identity of its own, so a later fix of the permission is a change.
 */
export function statProbe(file: string): fs.Stats | undefined | string;
export function statProbe(file: string, bigint: true): fs.BigIntStats | undefined | string;
export function statProbe(file: string, bigint = false): fs.Stats | fs.BigIntStats | undefined | string {
  try {
    return fs.statSync(file, { bigint, throwIfNoEntry: false });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    // A folder on the path is a file: nothing is there, as for a missing path.
    return code === 'ENOTDIR' ? undefined : code;
  }
}

/** The start of contentHash's answer for a file that exists but cannot be opened or read (a permission). */
const UNREADABLE = 'refused:input-unreadable:';

/**
 * The hash of each input as the last build saw it. `confirm` answers which of the named inputs changed
 * since, and takes their new hashes as seen: the build about to run reads them.
 */
export class ContentHashes {
  private readonly seen = new Map<string, string>();
  /** Inputs the last look could not read (a permission): an event in their folder looks again (unreadableIn). */
  private readonly unreadable = new Set<string>();

  /**
   * `maxBytes`: the workspace's bound on an input file, as the build applies it. `read`: told of the
   * bytes `confirm` read, with the stat of their descriptor, so the build it starts need not read
   * them again (graph/build-reads.ts).
   */
  constructor(
    private readonly maxBytes: () => number = () => DEFAULT_WATCH_MAX_BYTES,
    private readonly read?: ReadHook,
  ) {}

  /** Records the current hash of inputs not seen yet (a new source in the map, a new rules file). */
  learn(files: Iterable<string>): void {
    for (const file of files) if (!this.seen.has(file)) this.see(file, contentHash(file, this.maxBytes()));
  }

  confirm(files: string[]): string[] {
    const changed: string[] = [];
    for (const file of files) {
      const now = contentHash(file, this.maxBytes(), this.read);
      if (this.seen.get(file) !== now) changed.push(file);
      this.see(file, now);
    }
    return changed;
  }

  /**
   * Forgets what the last build saw of an input, so the next confirm reports it as changed: for an event
   * during a build, which may have read the file at any moment of it (an edit it read, then undone
   * before the confirm, would otherwise look like no change).
   */
  forget(file: string): void {
    if (this.seen.has(file)) this.see(file, 'unknown: an event during a build');
  }

  /** Drops inputs no longer read, so one that returns is hashed afresh. */
  keepOnly(files: Set<string>): void {
    for (const file of [...this.seen.keys()]) if (!files.has(file)) this.seen.delete(file);
    for (const file of [...this.unreadable]) if (!files.has(file)) this.unreadable.delete(file);
  }

  /**
   * The inputs in `folder` that the last look could not read. A permission given back to their folder
   * reports only the folder itself (an event in it), never their names: the caller confirms them again.
   */
  unreadableIn(folder: string): string[] {
    return this.unreadable.size === 0 ? [] : [...this.unreadable].filter((file) => path.dirname(file) === folder);
  }

  private see(file: string, hash: string): void {
    this.seen.set(file, hash);
    if (hash.startsWith(UNREADABLE)) this.unreadable.add(file);
    else this.unreadable.delete(file);
  }
}

/** What else a folder watch reports: every file event in a watched folder, a folder lost, and its own faults. */
export interface FolderObserver {
  /** Any event on any file of a watched folder, input or not (e.g. an output the build wrote or a user deleted). */
  file(file: string): void;
  /** A watched folder was removed, replaced by another, or its watch failed: events in it may have been missed. */
  folderLost(folder: string): void;
  /** What a watch callback or the verify timer threw (a bug): reported, never the end of the process. */
  fault(error: unknown): void;
}

/**
 * One `fs.watch` per folder that holds an input; re-armed after every build, so the set follows the
 * map. A folder that is gone (deleted with its inputs) is watched through its nearest existing
 * ancestor: when the folder comes back, its watch is armed again and every input in it is reported, so
 * a restored folder is seen even if its files were written before the new watch existed. A folder
 * replaced by another of the same name (moved away, then created again) is noticed by its inode on the
 * next event in it, and watched again the same way.
 *
 * A folder is known by its inode number, which the watch keeps from being given to another folder by
 * holding the folder open (`pin`): a folder deleted and created again at once would otherwise often
 * get the same number back, and look like the one watched. A watch can also end without a word (a
 * folder removed while its events were being read may never report its own removal, and then sees
 * nothing of the folder created in its place), and a missing folder may come back between the check
 * that found it missing and the arming of its stand-in's watch, so the watched folders, and the missing
 * ones, are checked every second too.
 *
 * Each watch is numbered as it is armed, so a caller can ask whether a folder has been watched without
 * a gap since a mark (settled-groups.ts rests its memos on that).
 *
 * An input that is a symbolic link is read through its target, so the target's folder is watched too,
 * and an event on the target is one on the input; an event on the link itself resolves it again. Links
 * on the way to the target other than the input itself are not watched.
 */
export class FolderWatches {
  private readonly watches = new Map<string, Watch>();
  /** Watched ancestor -> the missing folders it stands in for. */
  private standIns = new Map<string, string[]>();
  private inputs = new Set<string>();
  private extraFolders: string[] = [];
  /** Input that is a symbolic link -> the file it resolves to (whose folder is watched too). */
  private linkTargets = new Map<string, string>();
  /** The file a link resolves to -> the inputs that are links to it. */
  private linkedInputs = new Map<string, string[]>();
  private closed = false;
  private armed = 0;
  private verifier: NodeJS.Timeout | null = null;
  /** How many watched folders are held open. */
  private pins = 0;

  constructor(
    private readonly onInput: (file: string) => void,
    private readonly isInput: (file: string) => boolean,
    private readonly observer: FolderObserver,
  ) {}

  /** A mark of the watches as they are now (FileEventSource). */
  mark(): number {
    return this.armed;
  }

  /** Whether `folder` has been watched itself (not through an ancestor), without a gap, since `mark`. */
  watchedSince(folder: string, mark: number): boolean {
    const entry = this.watches.get(folder);
    return entry !== undefined && entry.armed <= mark;
  }

  /** Watches the folders of these inputs (and any extra folder), dropping folders no longer needed. */
  update(inputs: Set<string>, extraFolders: string[] = []): void {
    if (this.closed) return;
    this.inputs = inputs;
    this.extraFolders = extraFolders;
    this.resolveLinks();
    const wanted = new Set(extraFolders);
    for (const file of inputs) wanted.add(path.dirname(file));
    // A build reads a linked input's bytes from its target: an edit there is an edit of the input.
    for (const target of this.linkedInputs.keys()) wanted.add(path.dirname(target));
    const folders = new Set<string>();
    this.standIns = new Map();
    for (const folder of wanted) {
      let at = folder;
      while (!isFolder(at) && path.dirname(at) !== at) at = path.dirname(at);
      folders.add(at);
      if (at !== folder) this.standIns.set(at, [...(this.standIns.get(at) ?? []), folder]);
    }
    const lost: string[] = [];
    for (const [folder, entry] of this.watches) {
      if (!folders.has(folder)) {
        this.release(entry);
        this.watches.delete(folder);
        // Still wanted, but gone (or no longer readable) since its watch was armed: lost, as verify
        // would have found it, whatever made this update run.
        if (wanted.has(folder)) lost.push(folder);
      }
    }
    for (const folder of folders) if (!this.watches.has(folder)) this.watch(folder);
    if (this.verifier === null) {
      this.verifier = setInterval(() => this.guarded(() => this.verify()), VERIFY_INTERVAL_MS);
      this.verifier.unref();
    }
    for (const folder of lost) this.observer.folderLost(folder);
    this.reportInputsIn(lost);
  }

  close(): void {
    this.closed = true;
    if (this.verifier !== null) clearInterval(this.verifier);
    this.verifier = null;
    for (const entry of this.watches.values()) this.release(entry);
    this.watches.clear();
    this.standIns.clear();
  }

  /** Finds which inputs are symbolic links, and what each resolves to. */
  private resolveLinks(): void {
    this.linkTargets = new Map();
    this.linkedInputs = new Map();
    for (const file of this.inputs) {
      const target = linkTarget(file);
      if (target === null) continue;
      this.linkTargets.set(file, target);
      this.linkedInputs.set(target, [...(this.linkedInputs.get(target) ?? []), file]);
    }
  }

  /** Runs a watch callback or the verify timer: what it throws goes to the observer, not to the event loop. */
  private guarded(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.observer.fault(error);
    }
  }

  private release(entry: Watch): void {
    unwatch(entry);
    if (entry.pin !== null) this.pins--;
  }

  /**
   * Arms again each watched folder that is no longer the folder its watch was armed on, and each missing
   * folder that has come back without its stand-in's watch seeing it (it came back between the check
   * that found it missing and the arming of that watch).
   */
  private verify(): void {
    const replaced = [...this.watches].filter(([folder, entry]) => folderIno(folder) !== entry.ino).map(([folder]) => folder);
    const returned = [...this.standIns.values()].flat().filter(isFolder);
    if (replaced.length > 0 || returned.length > 0) this.rearm([...replaced, ...returned]);
  }

  private watch(folder: string, tries = WATCH_TRIES): void {
    // The folder's identity first (held open, so its number stays its own), then the watch, then the
    // identity again: fs.watch takes a path, and a folder swapped in before the watch would leave the
    // watch on the old folder while the identity named the new one, a dead watch that looks alive.
    const pin = this.pins < MAX_PINNED_FOLDERS ? openFolder(folder) : null;
    const ino = pin === null ? folderIno(folder) : pinnedIno(pin);
    let watch: fs.FSWatcher;
    try {
      if (ino === null) throw new Error('not a folder');
      watch = fs.watch(folder, { persistent: true });
    } catch {
      // Gone between the check and the watch: the next update (after the build its loss causes) retries.
      if (pin !== null) closeQuietly(pin);
      return;
    }
    if (folderIno(folder) !== ino) {
      // Swapped while the watch was being made: which folder it watches is unknown, so make it again.
      unwatch({ watch, pin });
      if (tries > 1) this.watch(folder, tries - 1);
      return;
    }
    watch.on('change', (_type, name) =>
      this.guarded(() => {
        if (name !== null) {
          const file = path.join(folder, name.toString());
          this.observer.file(file);
          if (this.isInput(file)) {
            this.onInput(file);
            // A link made, removed or pointed elsewhere: watch the folder of what it resolves to now.
            if (linkTarget(file) !== (this.linkTargets.get(file) ?? null)) this.update(this.inputs, this.extraFolders);
          }
          for (const input of this.linkedInputs.get(file) ?? []) {
            this.observer.file(input);
            this.onInput(input);
          }
          const returning = (this.standIns.get(folder) ?? []).filter((missing) => missing === file || missing.startsWith(file + path.sep));
          if (returning.length > 0) this.rearm(returning);
        }
        // The folder itself was removed or replaced: watch it through its ancestor until it returns.
        if (folderIno(folder) !== ino) this.rearm([folder]);
      }),
    );
    watch.on('error', () => this.guarded(() => this.rearm([folder], true)));
    this.watches.set(folder, { watch, pin, ino, armed: ++this.armed });
    if (pin !== null) this.pins++;
  }

  /**
   * Arms the watches again and reports every input in the given folders (their files may be new).
   * `failed`: their watches failed, so they are armed afresh even where the folder is the same.
   */
  private rearm(folders: string[], failed = false): void {
    for (const folder of folders) {
      const entry = this.watches.get(folder);
      if (entry && (failed || folderIno(folder) !== entry.ino)) {
        this.release(entry);
        this.watches.delete(folder);
        this.observer.folderLost(folder);
      }
    }
    this.update(this.inputs, this.extraFolders);
    this.reportInputsIn(folders);
  }

  /** Reports every input in these folders (or a link to a file in them) as changed: their files may be new, or gone. */
  private reportInputsIn(folders: string[]): void {
    if (folders.length === 0) return;
    const inside = (file: string | undefined): boolean =>
      file !== undefined && folders.some((folder) => file.startsWith(folder + path.sep));
    for (const file of this.inputs) if (inside(file) || inside(this.linkTargets.get(file))) this.onInput(file);
  }
}

/** Attempts to watch a folder that keeps being swapped while its watch is made; past them, the next update or rearm tries again. */
const WATCH_TRIES = 3;
/** How often the watched folders are checked to be the ones their watches were armed on (FolderWatches.verify). */
const VERIFY_INTERVAL_MS = 1000;
/**
 * Folders held open at most (one descriptor each): inputs spread over more folders keep the check by
 * inode number and the once-a-second check without the hold, rather than spend descriptors a build needs.
 */
const MAX_PINNED_FOLDERS = 256;

interface Watch {
  watch: fs.FSWatcher;
  /** The folder held open, so that its inode number is not given to another folder while it is watched (null: could not open). */
  pin: number | null;
  ino: number;
  armed: number;
}

function unwatch(entry: Pick<Watch, 'watch' | 'pin'>): void {
  entry.watch.close();
  if (entry.pin !== null) closeQuietly(entry.pin);
}

function closeQuietly(fd: number): void {
  try {
    fs.closeSync(fd);
  } catch {
    // already closed: nothing held
  }
}

/** The inode of a folder held open, or null when what was opened is not a folder. */
function pinnedIno(fd: number): number | null {
  try {
    const stat = fs.fstatSync(fd);
    return stat.isDirectory() ? stat.ino : null;
  } catch {
    return null;
  }
}

/** The folder opened for reading (a descriptor that holds its inode), or null where folders cannot be opened. */
function openFolder(dir: string): number | null {
  try {
    return fs.openSync(dir, 'r');
  } catch {
    return null;
  }
}

/**
 * What an input that is a symbolic link resolves to (through every link on the way), or null for
 * anything else. A link that resolves to nothing yet (its target missing, a loop) names the file its
 * text points at, so the target's folder is watched and its creation seen.
 */
function linkTarget(file: string): string | null {
  try {
    if (!fs.lstatSync(file, { throwIfNoEntry: false })?.isSymbolicLink()) return null;
  } catch {
    return null;
  }
  let target: string;
  try {
    target = fs.realpathSync.native(file);
  } catch {
    try {
      target = path.resolve(path.dirname(file), fs.readlinkSync(file));
    } catch {
      return null;
    }
  }
  return target === file ? null : target;
}

/** Whether there is a folder at that path that can be stat'ed (not one behind a symlink loop or an unsearchable folder). */
function isFolder(dir: string): boolean {
  return folderIno(dir) !== null;
}

/**
 * The inode of a folder, or null when there is no folder at that path, or none that can be stat'ed: a
 * watched folder that can no longer be stat'ed is watched through its ancestor as a missing one is,
 * and when it can be again, its inputs are confirmed by content.
 */
function folderIno(dir: string): number | null {
  const stat = statProbe(dir);
  return typeof stat === 'object' && stat.isDirectory() ? stat.ino : null;
}
