import * as fs from 'node:fs';
import * as path from 'node:path';
import { describeFileKind } from '../store/bounded-read.js';
import { EpistemeError } from '../failure.js';
import { CONFIG_FILE_NAME, STATE_DIR_NAME } from '../store/names.js';
import type { StageOutputs } from './workspace.js';
import { readRegularFileSync } from '../regular-file.js';
import { createFileExclusive, writeFileAtomic } from '../store/atomic-file.js';

/**
 * The workspace boundary: the folders a workspace writes to and deletes in (its output folders and
 * `.episteme/`), checked when it loads, and again by every build under its lock before it writes
 * (graph/build.ts): watch builds many times from one load, and a folder may be replaced in between.
 *
 * Like git's `has_symlink_leading_path`, every component below the workspace root is checked with
 * `lstat`: a folder reached through a symbolic link could be anywhere, so a symlink (or a file) where a
 * folder should be is refused, whatever it points at. Output folders must not coincide or nest (one
 * folder, two owners inside one workspace), and must not lie inside another workspace or in another
 * workspace's output folder, which an owner marker (`.episteme-owner`) names.
 */

/** The file that marks an output folder with the workspace that owns it. */
export const OWNER_MARKER = '.episteme-owner';

export interface OwnedFolder {
  /** The config field that names the folder (e.g. "outputs.specs"), for error messages. */
  field: string;
  /** Workspace-relative, "/"-separated. */
  relative: string;
  /** Sub-folders the workspace writes into, relative to this folder (checked the same way). */
  subfolders: string[];
  /** Files at fixed names in the folder that are opened for appending or read as state: regular files only. */
  files?: string[];
  /** Whether the folder carries an owner marker (output folders do; `.episteme/` is known by name). */
  marked: boolean;
}

/** Sub-folders written below an output folder or `.episteme/`: planted symlinks there are refused too. */
export const SNAPSHOT_SUBFOLDERS = ['records', 'bodies', 'observations'];
export const STATE_SUBFOLDERS = ['cache', 'cache/index-parts', 'lock', 'noop'];
const STATE_FILES = ['state.json', 'state.log', 'noop.json', 'noop.patch.json', 'lock-holder.json'];

/** The folders a workspace writes to and deletes in: its output folders and `.episteme/`. */
export function ownedFolders(outputs: StageOutputs): OwnedFolder[] {
  return [
    { field: 'outputs.snapshots', relative: outputs.snapshots, subfolders: SNAPSHOT_SUBFOLDERS, marked: true },
    { field: 'outputs.specs', relative: outputs.specs, subfolders: [], marked: true },
    { field: 'outputs.chunks', relative: outputs.chunks, subfolders: [], marked: true },
    { field: 'outputs.diffs', relative: outputs.diffs, subfolders: [], marked: true },
    { field: STATE_DIR_NAME, relative: STATE_DIR_NAME, subfolders: STATE_SUBFOLDERS, files: STATE_FILES, marked: false },
  ];
}

/**
 * Checks every owned folder of a workspace; throws `config-invalid` naming the field. Reads only (lstat
 * and small marker files), so every command that loads the workspace runs it.
 */
export function checkOwnedFolders(root: string, folders: OwnedFolder[]): void {
  const realRoot = realpathOrSelf(root);
  for (const folder of folders) {
    const resolved = path.resolve(root, folder.relative);
    if (resolved === root || !resolved.startsWith(root + path.sep)) {
      throw boundaryError(folder, `must be inside the workspace: ${folder.relative}`);
    }
    checkRealFolders(root, folder, path.relative(root, resolved).split(path.sep));
    for (const sub of folder.subfolders)
      checkRealFolders(root, folder, [...path.relative(root, resolved).split(path.sep), ...sub.split('/')]);
    for (const file of folder.files ?? []) {
      const stat = fs.lstatSync(path.join(resolved, file), { throwIfNoEntry: false });
      if (stat !== undefined && !stat.isFile())
        throw boundaryError(
          folder,
          `holds ${folder.relative}/${file}, ${describeFileKind(stat)} where Episteme keeps a regular file; ` +
            `remove it (build state is safe to delete).`,
        );
    }
    checkNotForeign(root, realRoot, folder, resolved);
  }
  // One folder, one job: output folders that coincide or nest would hand one file name to two stages.
  for (let i = 0; i < folders.length; i += 1) {
    for (let j = i + 1; j < folders.length; j += 1) {
      const a = folders[i]!;
      const b = folders[j]!;
      const relation = nesting(a.relative, b.relative);
      if (relation !== null) {
        const message =
          relation === 'same'
            ? `${a.field} and ${b.field} are the same folder (${a.relative}); each output needs its own folder.`
            : relation === 'a-in-b'
              ? `${a.field} (${a.relative}) is inside ${b.field} (${b.relative}); output folders must not nest.`
              : `${b.field} (${b.relative}) is inside ${a.field} (${a.relative}); output folders must not nest.`;
        throw new EpistemeError('config-invalid', message, {
          hint:
            'Give each of outputs.snapshots, outputs.specs, outputs.chunks and outputs.diffs its own folder, ' +
            'apart from each other and from .episteme.',
          details: { field: a.field, fields: [a.field, b.field] },
        });
      }
    }
  }
}

/**
 * A folder the workspace reads (its rules folder, config field `field`): inside the workspace, existing,
 * reached through real folders only (no symbolic link anywhere below the root), and neither one of the
 * folders it writes (`owned`) nor inside one: a build's own files there would be read as input, and
 * one build would change what the next reads. Returns it workspace-relative, "/"-separated.
 */
export function checkReadFolder(root: string, field: string, relative: string, owned: readonly OwnedFolder[]): string {
  const folder: OwnedFolder = { field, relative, subfolders: [], marked: false };
  const resolved = path.resolve(root, relative);
  if (resolved === root || !resolved.startsWith(root + path.sep))
    throw readFolderError(folder, `must be a folder inside the workspace: ${relative}`);
  const components = path.relative(root, resolved).split(path.sep);
  const shown = components.join('/');
  for (const writer of owned) {
    const relation = nesting(shown, writer.relative);
    if (relation === 'same' || relation === 'a-in-b') {
      const where = relation === 'same' ? `is ${writer.field}` : `is inside ${writer.field} (${writer.relative})`;
      throw new EpistemeError(
        'config-invalid',
        `The ${field} folder ${relative} ${where}, which builds write; it cannot be read as input.`,
        {
          hint: `Give "${field}" in episteme.json a folder of its own, apart from the output folders and .episteme (e.g. "my-rules").`,
          details: { field, path: relative, fields: [field, writer.field] },
        },
      );
    }
  }
  checkRealFolders(root, folder, components);
  if (!fs.lstatSync(resolved, { throwIfNoEntry: false })?.isDirectory())
    throw readFolderError(folder, `names a folder that does not exist: ${relative}`);
  return components.join('/');
}

function readFolderError(folder: OwnedFolder, problem: string): EpistemeError {
  return new EpistemeError('config-invalid', `The ${folder.field} folder ${problem}`, {
    hint: `Point "${folder.field}" in episteme.json at a real folder inside the workspace (no symbolic links, no ..).`,
    details: { field: folder.field, path: folder.relative },
  });
}

/** Refuses a symlink or non-folder at any existing component of `components` below the root. */
function checkRealFolders(root: string, folder: OwnedFolder, components: string[]): void {
  let current = root;
  for (const component of components) {
    current = path.join(current, component);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(current, { throwIfNoEntry: false });
    } catch (error) {
      throw boundaryError(
        folder,
        `cannot be checked: ${path.relative(root, current)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    if (stat === undefined) return; // created by the build, as a real folder
    const shown = path.relative(root, current).split(path.sep).join('/');
    if (stat.isSymbolicLink()) {
      throw boundaryError(
        folder,
        `goes through a symbolic link (${shown} -> ${safeReadlink(current)}); Episteme writes only to real folders inside the workspace.`,
      );
    }
    if (!stat.isDirectory()) throw boundaryError(folder, `is not a folder: ${shown} is ${describeFileKind(stat)}.`);
  }
}

/**
 * Refuses a folder inside another workspace (a folder with its own config or `.episteme/` between the
 * root and it) or owned by another workspace (an owner marker, here or in any folder above it, that
 * names another root).
 */
function checkNotForeign(root: string, realRoot: string, folder: OwnedFolder, resolved: string): void {
  // A folder at or above this one (below our root) that is itself a workspace belongs to that workspace.
  for (let dir = resolved; dir.startsWith(root + path.sep); dir = path.dirname(dir)) {
    if (exists(path.join(dir, CONFIG_FILE_NAME)) || exists(path.join(dir, STATE_DIR_NAME))) {
      throw foreignError(folder, `is inside another workspace (${path.relative(root, dir).split(path.sep).join('/')})`);
    }
  }
  // Owner markers: the folder itself and every folder above it, up to the file system root.
  for (let dir = resolved; ; dir = path.dirname(dir)) {
    const owner = readOwner(dir);
    if (owner !== null && owner !== realRoot) {
      throw foreignError(
        folder,
        dir === resolved ? 'is owned by another workspace' : `is inside an output folder of another workspace (${dir})`,
        owner,
      );
    }
    if (path.dirname(dir) === dir) break;
  }
}

/** The real root of the workspace that owns `dir` (from its marker), or null when it has none. */
export function readOwner(dir: string): string | null {
  const marker = path.join(dir, OWNER_MARKER);
  let text: string;
  try {
    const stat = fs.lstatSync(marker, { throwIfNoEntry: false });
    if (!stat?.isFile() || stat.size > 4096) return null;
    text = readRegularFileSync(marker, 'utf8');
  } catch {
    return null;
  }
  let owner: unknown;
  try {
    owner = (JSON.parse(text) as { workspaceRoot?: unknown }).workspaceRoot;
  } catch {
    return null;
  }
  return typeof owner === 'string' ? realpathOrSelf(path.resolve(dir, owner)) : null;
}

/**
 * Marks each existing output folder as owned by this workspace, where it is not marked yet (a folder
 * the build never created stays absent). The marker names the root relative to the folder, so it carries no absolute path and stays
 * true when the workspace is moved or copied whole. A folder replaced since the load checked it (by a
 * symbolic link, a file) is refused as the load refuses it, never passed over: the build writes there.
 */
export function claimOwnedFolders(root: string, folders: OwnedFolder[]): void {
  for (const folder of folders) {
    if (!folder.marked) continue;
    const dir = path.join(root, folder.relative);
    checkRealFolders(root, folder, folder.relative.split('/'));
    if (fs.lstatSync(dir, { throwIfNoEntry: false }) === undefined) continue;
    const marker = path.join(dir, OWNER_MARKER);
    const text = JSON.stringify({ workspaceRoot: path.relative(dir, root).split(path.sep).join('/') }) + '\n';
    const existing = fs.lstatSync(marker, { throwIfNoEntry: false });
    // Linked into place whole (never written through something planted meanwhile): a crash or a full
    // disk leaves no marker or the whole one, never an empty file that names no owner for good.
    if (existing === undefined) createFileExclusive(marker, text);
    // A regular file that names no workspace (emptied or torn by a release that wrote it in place, or
    // edited) protects nothing: the load found no other owner, so it is this workspace's to mend,
    // replaced whole by a rename (which replaces, never follows, whatever is there by then).
    else if (existing.isFile() && readOwner(dir) === null) writeFileAtomic(marker, text);
  }
}

/**
 * Whether `target` (absolute) lies inside a folder some workspace owns: an output folder (owner marker
 * in it or above it) or a `.episteme/` folder. Used to refuse a user-named output file there.
 */
export function ownedFolderAbove(target: string): string | null {
  for (let dir = path.dirname(target); ; dir = path.dirname(dir)) {
    if (path.basename(dir) === STATE_DIR_NAME || readOwner(dir) !== null) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

function nesting(a: string, b: string): 'same' | 'a-in-b' | 'b-in-a' | null {
  if (a === b) return 'same';
  if (a.startsWith(b + '/')) return 'a-in-b';
  if (b.startsWith(a + '/')) return 'b-in-a';
  return null;
}

function boundaryError(folder: OwnedFolder, problem: string): EpistemeError {
  const what =
    folder.field === STATE_DIR_NAME ? 'The build state folder' : folder.field.startsWith('outputs.') ? 'Output folder' : 'Folder';
  return new EpistemeError('config-invalid', `${what} ${folder.field} ${problem}`, {
    hint: `Point ${folder.field} at a real folder inside the workspace (no symbolic links, no ..), or remove what is in its way.`,
    details: { field: folder.field, path: folder.relative },
  });
}

function foreignError(folder: OwnedFolder, problem: string, owner?: string): EpistemeError {
  return new EpistemeError(
    'config-invalid',
    `Output folder ${folder.field} (${folder.relative}) ${problem}; two workspaces must not share output folders.`,
    {
      hint: `Give ${folder.field} a folder of its own. If that workspace is gone, delete ${OWNER_MARKER} in the folder to release it.`,
      details: { field: folder.field, path: folder.relative, ...(owner === undefined ? {} : { owner }) },
    },
  );
}

function exists(file: string): boolean {
  return fs.lstatSync(file, { throwIfNoEntry: false }) !== undefined;
}

export function realpathOrSelf(file: string): string {
  try {
    return fs.realpathSync(file);
  } catch {
    return file;
  }
}

function safeReadlink(file: string): string {
  try {
    return fs.readlinkSync(file);
  } catch {
    return '?';
  }
}
