import * as fs from 'node:fs';
import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { schemaFields, validateManualIngestMap } from '../generated/validators.js';
import { describeSchemaErrors } from '../store/schema-errors.js';
import { parseJsonInput, readBoundedInput } from '../store/bounded-input.js';
import { regularFileProblem } from '../store/bounded-read.js';
import { resolveSourceSpecs } from './source-entries.js';
import { registeredFamilyIds } from './manifest.js';
import type { Authority, ExtractorId, SourceSpec } from '../document/types.js';

/** A validated manual-ingest entry: a local file recorded under a canonical source URL. */
export interface ManualIngestSource {
  method: 'manual-ingest';
  spec: SourceSpec;
  /** Absolute path, used only to read the file; never written into artifacts. */
  absolutePath: string;
  /** Workspace-relative path ("/"-separated), used in state, messages and snapshot records. */
  relativePath: string;
  contentType: string;
  charset: string | null;
  /** Stat taken while validating the map, reused by the build's stat fast path. */
  stat: fs.Stats;
}

interface RawEntry {
  sourceUrl: string;
  localPath: string;
  contentType?: string;
  charset?: string;
  family?: string;
  authority?: Authority;
  extractor?: ExtractorId;
}

const CONTENT_TYPE_BY_EXTENSION: Record<string, string> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.xhtml': 'application/xhtml+xml',
  '.pdf': 'application/pdf',
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.markdown': 'text/markdown',
  '.xml': 'application/xml',
};

/**
 * Loads and strictly validates a manual-ingest map: schema (unknown fields, wrong types), http(s)
 * URLs, duplicates after URL canonicalisation, and files that exist. Every problem names its entry.
 */
export async function loadManualIngestMap(
  mapPath: string,
  context: {
    root: string;
    cwd: string;
    maxInputBytes: number;
    familyIds?: () => ReadonlySet<string>;
    /** The workspace's owned folders (field, workspace-relative path): no source may lie inside one. */
    owned?: readonly { field: string; relative: string }[];
  },
): Promise<ManualIngestSource[]> {
  const label = mapPath === '-' ? 'manual-ingest map (stdin)' : path.relative(context.cwd, mapPath) || mapPath;
  const bytes = await readBoundedInput(mapPath, context.maxInputBytes, 'Manual-ingest map');
  const parsed = parseJsonInput(bytes, 'map-invalid', label);
  if (!validateManualIngestMap(parsed)) {
    const problems = describeSchemaErrors(validateManualIngestMap.errors, undefined, {}, schemaFields.validateManualIngestMap);
    throw invalid(label, problems);
  }
  const entries = parsed as RawEntry[];
  const baseDir = mapPath === '-' ? context.cwd : path.dirname(mapPath);
  const { specs, problems } = resolveSourceSpecs(
    entries,
    { field: 'sourceUrl', of: (entry) => entry.sourceUrl },
    context.familyIds ?? registeredFamilyIds,
  );
  const sources: ManualIngestSource[] = [];
  const ownedProblems: string[] = [];
  const resolveLocal = localPathResolver(baseDir, context.root);
  const realRelative = realPathFromRoot(context.root);
  entries.forEach((entry, index) => {
    const spec = specs[index];
    if (!spec) return;
    const { absolutePath, relativePath } = resolveLocal(entry.localPath);
    // The build state records a source by this path, with "/" only, and refuses one holding a backslash
    // (a name character on POSIX): such a source would make every later build check every target.
    if (relativePath.includes('\\')) {
      problems.push(
        `entry ${index}, field localPath: ${entry.localPath} holds a backslash` +
          `${entry.localPath.includes('\\') ? '' : ` in its path from the workspace root (${relativePath})`}; ` +
          'write "/" between folders, and rename a file or folder whose name holds one',
      );
      return;
    }
    // stat, never open: a FIFO named here must not block, and nothing is read until the build. One stat
    // for the common case (a regular file); the reason is worked out only for an entry that fails it.
    // lstat first: a symlink's target is stat'ed too, and its real location checked below.
    const link = entry.localPath.includes('\0') ? undefined : lstatOrUndefined(absolutePath);
    const symlink = link?.isSymbolicLink() === true;
    const stat = symlink ? statOrUndefined(absolutePath) : link;
    const problem = stat?.isFile()
      ? null
      : entry.localPath.includes('\0')
        ? { problem: 'does not exist (a NUL byte in the path)' }
        : regularFileProblem(absolutePath);
    if (problem !== null) {
      // Named as written, and (when that differs) as a path from the current folder, like every path in messages.
      const fromCwd = path.relative(context.cwd, absolutePath) || '.';
      problems.push(
        `entry ${index}, field localPath: ${entry.localPath}${fromCwd !== entry.localPath ? ` (${fromCwd})` : ''} ${problem.problem}`,
      );
      return;
    }
    if (!stat?.isFile()) {
      problems.push(`entry ${index}, field localPath: ${entry.localPath} changed while it was being checked`);
      return;
    }
    // A file a build writes (the search index, a stage index, the build state) as a source: each build
    // changes it, so the next one captures it anew and no build is ever a no-op, nor equal to a clean one.
    // As written and where it really is: a symlink (the file's, or a folder's on its path) into an
    // output folder names that output as surely as its own path does.
    const inside = (relative: string | null) =>
      relative === null ? undefined : context.owned?.find((folder) => relative.startsWith(`${folder.relative}/`));
    const owner = inside(relativePath) ?? (context.owned === undefined ? undefined : inside(realRelative(absolutePath, symlink)));
    if (owner !== undefined) {
      ownedProblems.push(
        `entry ${index}, field localPath: ${entry.localPath} is inside ${owner.relative}/ (${owner.field}), ` +
          "which Episteme's builds write: a source cannot be a build's output",
      );
      return;
    }
    sources.push({
      method: 'manual-ingest',
      spec,
      absolutePath,
      relativePath,
      contentType: (
        entry.contentType ??
        CONTENT_TYPE_BY_EXTENSION[path.extname(absolutePath).toLowerCase()] ??
        'application/octet-stream'
      ).toLowerCase(),
      charset: entry.charset?.toLowerCase() ?? null,
      stat,
    });
  });
  if (problems.length > 0) throw invalid(label, [...problems, ...ownedProblems], mapPath === '-');
  if (ownedProblems.length > 0) {
    const shown = ownedProblems.slice(0, 20);
    const more = ownedProblems.length > shown.length ? `; and ${ownedProblems.length - shown.length} more` : '';
    throw new EpistemeError('map-invalid', `${label} is invalid: ${shown.join('; ')}${more}`, {
      hint:
        'Copy the file out of the output folders (outputs.snapshots, specs, chunks, diffs and .episteme/) and name the copy, ' +
        'or give the outputs other folders; see docs/workspace.md, "What a workspace owns".',
      details: { file: label, problems: shown },
    });
  }
  return sources;
}

/**
 * An entry's local path, absolute (`path.resolve(baseDir, localPath)`) and relative to the workspace
 * root ("/"-separated `path.relative`). A plain relative path (no "." or ".." segment, no empty one,
 * POSIX separators) is joined as a string: resolving and relativising every entry of a 10,000-entry map
 * cost more than statting its files. Anything else takes the path functions.
 */
export function localPathResolver(baseDir: string, root: string): (localPath: string) => { absolutePath: string; relativePath: string } {
  const slow = (localPath: string) => {
    const absolutePath = path.resolve(baseDir, localPath);
    return { absolutePath, relativePath: path.relative(root, absolutePath).split(path.sep).join('/') };
  };
  const base = path.resolve(baseDir);
  const baseFromRoot = path.relative(root, base);
  // Only where both joins are plain concatenation: POSIX, the map's folder inside the root (or it).
  if (path.sep !== '/' || baseFromRoot.startsWith('..') || path.isAbsolute(baseFromRoot)) return slow;
  const absolutePrefix = base.endsWith('/') ? base : `${base}/`;
  const relativePrefix = baseFromRoot === '' ? '' : `${baseFromRoot}/`;
  return (localPath) => {
    if (!isPlainRelativePath(localPath)) return slow(localPath);
    return { absolutePath: absolutePrefix + localPath, relativePath: relativePrefix + localPath };
  };
}

/** Segments separated by single "/", none empty, "." or "..", no leading "/" and no NUL. */
function isPlainRelativePath(localPath: string): boolean {
  if (localPath === '' || localPath.includes('\0')) return false;
  let start = 0;
  while (start <= localPath.length) {
    let end = localPath.indexOf('/', start);
    if (end < 0) end = localPath.length;
    const length = end - start;
    if (length === 0) return false;
    if (localPath.charCodeAt(start) === 0x2e && (length === 1 || (length === 2 && localPath.charCodeAt(start + 1) === 0x2e))) return false;
    start = end + 1;
  }
  return true;
}

/** The stat of the path itself (a symlink is not followed), or undefined when it cannot be stat'ed. */
function lstatOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.lstatSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/**
 * A file's real path from the workspace root's real path ("/"-separated; null when either cannot be
 * resolved). A plain file is its folder's real path (resolved once per folder: a map's entries share
 * a few) and its name; a symlink is resolved whole.
 */
function realPathFromRoot(root: string): (absolutePath: string, symlink: boolean) => string | null {
  const realRoot = realPathOrNull(root);
  const folders = new Map<string, string | null>();
  return (absolutePath, symlink) => {
    if (realRoot === null) return null;
    let real: string | null;
    if (symlink) real = realPathOrNull(absolutePath);
    else {
      const folder = path.dirname(absolutePath);
      let realFolder = folders.get(folder);
      if (realFolder === undefined) {
        realFolder = realPathOrNull(folder);
        folders.set(folder, realFolder);
      }
      real = realFolder === null ? null : path.join(realFolder, path.basename(absolutePath));
    }
    return real === null ? null : path.relative(realRoot, real).split(path.sep).join('/');
  };
}

function realPathOrNull(file: string): string | null {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return null;
  }
}

/** The file's stat, or undefined when it cannot be stat'ed (missing, a symlink loop, no permission). */
function statOrUndefined(file: string): fs.Stats | undefined {
  try {
    return fs.statSync(file, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function invalid(label: string, problems: string[], stdin = false): EpistemeError {
  const shown = problems.slice(0, 20);
  const more = problems.length > shown.length ? `; and ${problems.length - shown.length} more` : '';
  return new EpistemeError('map-invalid', `${label} is invalid: ${shown.join('; ')}${more}`, {
    hint:
      'Each entry is {"sourceUrl": "https://...", "localPath": "relative/to/map.html", ' +
      '"contentType"?: "text/html"}; see docs/workspace.md, "Manual-ingest map".' +
      // A map piped from another folder (`cat ../x/map.json | ...`) loses the folder its paths are relative to.
      (stdin ? ' A map on stdin has no folder: its relative localPaths resolve against the current folder; give the map as a file.' : ''),
    details: { file: label, problems: shown },
  });
}
