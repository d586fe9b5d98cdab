import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFileKind } from '../store/bounded-read.js';
import { randomBytes } from 'node:crypto';
import { EpistemeError } from '../failure.js';
import { ownedFolderAbove, realpathOrSelf } from './owned-folders.js';

/**
 * A file the user names on the command line (`index --out FILE`, `diff --out FILE`). Unlike the
 * workspace's own outputs, Episteme owns nothing there, so it writes only:
 *
 * - a regular file, or a new file in an existing folder: never a folder, FIFO, device, socket or symlink
 *   (checked with lstat: `rename(2)` would silently replace a symlink or FIFO rather than write through
 *   it, and opening one would write through it);
 * - outside every folder a workspace owns (its output folders, which carry an owner marker, and
 *   `.episteme/`): a file there is a committed artifact or build state, not a place for a copy.
 *
 * The bytes go to a new temp file beside the target (O_EXCL | O_NOFOLLOW), which then replaces a
 * regular file by rename, or takes an absent name with link(2), which fails rather than replace
 * anything that appeared meanwhile. The temp file is removed on every failure.
 */
export function writeUserOutputFile(given: string, bytes: string | Uint8Array, context: UserOutputContext): string {
  const { target, realParent, realTarget, existing, usage } = checkUserOutputFile(given, context);

  const temp = path.join(
    realParent,
    `.episteme-out-${process.pid}-${randomBytes(6).toString('hex')}-${path.basename(target)}`.slice(0, 255),
  );
  const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);
  let fd: number;
  try {
    fd = fs.openSync(temp, flags, 0o644);
  } catch (error) {
    throw writeFailed(given, context.flag, error);
  }
  try {
    try {
      fs.writeFileSync(fd, bytes);
    } finally {
      fs.closeSync(fd);
    }
    if (existing === undefined) {
      try {
        fs.linkSync(temp, realTarget);
        return target;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
    // Replacing: check again right before the rename, so a symlink or FIFO planted since is refused.
    const now = fs.lstatSync(realTarget, { throwIfNoEntry: false });
    if (now !== undefined && !now.isFile()) throw usage(`is ${describeFileKind(now)}; only a regular file is written.`);
    fs.renameSync(temp, realTarget);
    return target;
  } catch (error) {
    if (error instanceof EpistemeError) throw error;
    throw writeFailed(given, context.flag, error);
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

export interface UserOutputContext {
  /** The flag that named the file, for messages ("--out"). */
  flag: string;
  cwd: string;
  /** Absolute paths of the workspace's own folders, refused even before they carry an owner marker. */
  protectedFolders?: string[];
}

/**
 * The checks of writeUserOutputFile without writing: commands call it before doing any work, so a bad
 * --out fails at once (and again right before the write, in case the path changed meanwhile).
 */
export function checkUserOutputFile(given: string, context: UserOutputContext) {
  const target = path.resolve(context.cwd, given);
  const usage = (problem: string, hint?: string): EpistemeError =>
    new EpistemeError('usage-error', `${context.flag} ${given}: ${problem}`, {
      hint:
        hint ??
        `Give ${context.flag} a regular file path outside the workspace's output folders, ` +
          `or - to return the artifact in the --json envelope.`,
      details: { flag: context.flag, path: given },
    });
  if (given === '' || given.endsWith('/') || given.endsWith(path.sep)) throw usage('names a folder, not a file.');
  // Folders named as paths from the current folder, like every path in messages (never absolute).
  const shown = (folder: string) => path.relative(context.cwd, folder).split(path.sep).join('/') || '.';

  // The folder must exist; it is resolved to its real path, so a symlinked component cannot lead into a
  // workspace's output folder unnoticed.
  const parent = path.dirname(target);
  const parentStat = fs.statSync(parent, { throwIfNoEntry: false });
  if (parentStat === undefined)
    throw usage(
      `the folder ${shown(parent)} does not exist.`,
      'Create the folder first; Episteme does not create folders for a user-named file.',
    );
  if (!parentStat.isDirectory()) throw usage(`${shown(parent)} is not a folder.`);
  const realParent = realpathOrSelf(parent);
  const realTarget = path.join(realParent, path.basename(target));
  for (const candidate of [target, realTarget]) {
    const owned = ownedFolderAbove(candidate);
    if (owned !== null) throw usage(`is inside ${shown(owned)}, a folder a workspace owns (its committed artifacts or build state).`);
    for (const folder of context.protectedFolders ?? []) {
      for (const dir of [folder, realpathOrSelf(folder)]) {
        if (candidate === dir || candidate.startsWith(dir + path.sep))
          throw usage(`is inside ${shown(folder)}, a folder this workspace owns (its committed artifacts or build state).`);
      }
    }
  }
  const existing = fs.lstatSync(realTarget, { throwIfNoEntry: false });
  if (existing !== undefined && !existing.isFile()) throw usage(`is ${describeFileKind(existing)}; only a regular file is written.`);
  return { target, realParent, realTarget, existing, usage };
}

function writeFailed(given: string, flag: string, error: unknown): EpistemeError {
  const code = (error as NodeJS.ErrnoException).code ?? 'error';
  return new EpistemeError('usage-error', `${flag} ${given}: cannot write the file (${code}).`, {
    hint: 'Check that the folder exists and is writable.',
    details: { flag, path: given, cause: code },
    cause: error,
  });
}
