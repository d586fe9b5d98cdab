import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { fs } from '../node-builtins.js';
import { CONFIG_FILE_NAME } from '../store/names.js';
import { findConfigUpward } from '../store/find-workspace.js';
import { shellWord } from './hint-commands.js';
import { isDirectory, readBoundedFile } from '../store/bounded-read.js';
import { DEFAULT_MAX_INPUT_BYTES, duplicateKeyProblem, userJsonText } from '../store/bounded-input.js';

/** A config's text: regular files only, bounded (a FIFO named episteme.json must not block a query). */
function readConfig(file: string): string {
  return userJsonText(readBoundedFile(file, { label: 'Workspace config', maxBytes: DEFAULT_MAX_INPUT_BYTES }));
}

/**
 * Which search index a query means and what to say when it is not there: the workspace's by default
 * (the nearest episteme.json up, or --config), "not built yet" with the build command that makes it,
 * and "did you mean" when another artifact is given as --index. Used by query, show and serve.
 */

/**
 * --index by default: the search index of the workspace found from the current folder (the nearest
 * episteme.json up, or --config), as a path from the current folder. Reads only the config's
 * outputs.chunks, so a query still loads no config code.
 */
export function workspaceSearchIndex(config: string | undefined): string {
  let file = config === undefined ? findConfigUpward(process.cwd()) : path.resolve(config);
  if (file !== null && isDirectory(file)) file = path.join(file, CONFIG_FILE_NAME);
  if (file === null || !fs.existsSync(file)) {
    throw new EpistemeError(
      'config-not-found',
      config === undefined
        ? `No --index given, and no ${CONFIG_FILE_NAME} in this folder or any folder above it to take the search index from.`
        : `Workspace config not found: ${config}`,
      {
        hint:
          'Run from a workspace folder (or below it), pass --config PATH/episteme.json, ' +
          'or name the index: episteme query --index PATH/search-index.json --term WORD.',
      },
    );
  }
  let chunks = 'chunks';
  const shown = path.relative(process.cwd(), file) || CONFIG_FILE_NAME;
  const invalid = (why: string) =>
    new EpistemeError('config-invalid', `${shown} ${why}`, {
      hint: `Fix ${shown} (see docs/workspace.md, "Workspace"), or name the index with --index.`,
      details: { file: shown },
    });
  let raw: unknown;
  let text: string;
  try {
    text = readConfig(file);
    raw = JSON.parse(text);
  } catch (error) {
    if (error instanceof EpistemeError) throw error;
    throw invalid(`is not valid JSON: ${(error as Error).message}`);
  }
  // A key given twice is refused here too, as a build refuses it (a query would read the last one).
  const duplicate = duplicateKeyProblem(text, 'entry');
  if (duplicate !== null) throw invalid(`is invalid: ${duplicate.problem}.`);
  // Only outputs.chunks is read here (a query starts fast); a build checks the whole config.
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw invalid('must be a JSON object.');
  const outputs = (raw as { outputs?: unknown }).outputs;
  if (outputs !== null && typeof outputs === 'object' && typeof (outputs as { chunks?: unknown }).chunks === 'string')
    chunks = (outputs as { chunks: string }).chunks;
  return path
    .relative(process.cwd(), path.join(path.dirname(file), chunks, 'search-index.json'))
    .split(path.sep)
    .join('/');
}

/** A search index that is not there: in a workspace, a build not run yet, or a name that is not the search index's. */
export function notBuiltYet(error: unknown, index: string): unknown {
  if (!(error instanceof EpistemeError) || error.code !== 'input-not-found') return error;
  const config = workspaceConfigAbove(index);
  if (config === null) return error;
  // Not the workspace's search index (another artifact, or a path from the wrong folder): name that one.
  const wanted = workspaceIndexOf(config);
  if (path.resolve(index) !== wanted) {
    return new EpistemeError('input-not-found', error.message, { hint: didYouMean(wanted, index), details: error.details });
  }
  return new EpistemeError('input-not-found', `${index} does not exist: the workspace's search index has not been built yet.`, {
    hint: `Build it first: ${rebuildCommand(index)}`,
    details: error.details,
  });
}

/**
 * A damaged or outdated artifact says "Rebuild it with `episteme build`", which from outside the
 * workspace finds none: name the build that rebuilds the search index at `index`, from here.
 */
export function rebuildFromHere(error: EpistemeError, index: string): EpistemeError {
  const command = rebuildCommand(index);
  if (error.hint === undefined || !error.hint.includes('`episteme build`') || !command.startsWith('episteme ')) return error;
  return new EpistemeError(error.code, error.message, {
    hint: error.hint.replace('`episteme build`', `\`${command}\``),
    details: error.details,
    cause: error.cause,
  });
}

/**
 * A damaged --index that is not a workspace's search index: no build rewrites it, so "rebuild it" is
 * no fix. In no workspace (no episteme.json at or above it), `episteme build` run here would build
 * another workspace or none; in a workspace (a config, a map, a copy), name its search index.
 */
function notAWorkspaceIndex(error: EpistemeError, index: string): EpistemeError | null {
  const config = workspaceConfigAbove(index);
  let hint: string;
  if (config === null)
    hint =
      `No workspace holds ${shellWord(shownFromHere(index))} (no episteme.json at or above its folder): give --index the ` +
      'search index a workspace build wrote (<workspace>/chunks/search-index.json), or rebuild this one where it was made.';
  else {
    const wanted = workspaceIndexOf(config);
    if (path.resolve(index) === wanted) return null;
    hint = didYouMean(wanted, index);
  }
  return new EpistemeError(error.code, error.message, { hint, details: error.details, cause: error.cause });
}

function shownFromHere(file: string): string {
  return path.relative(process.cwd(), path.resolve(file)).split(path.sep).join('/') || '.';
}

/** Another artifact given as --index (a chunk index, a document): name the search index instead. */
export function otherArtifact(error: EpistemeError, index: string): EpistemeError {
  if (!/ artifact, not /.test(error.message)) return notAWorkspaceIndex(error, index) ?? rebuildFromHere(error, index);
  const beside = path.join(path.dirname(path.resolve(index)), 'search-index.json');
  const config = workspaceConfigAbove(index);
  const wanted = fs.existsSync(beside) || config === null ? beside : workspaceIndexOf(config);
  return new EpistemeError('artifact-invalid', error.message, { hint: didYouMean(wanted, index), details: error.details });
}

/** The hint that names the search index `wanted` (absolute) for the `given` --index. */
function didYouMean(wanted: string, given: string): string {
  const shown = path.relative(process.cwd(), wanted).split(path.sep).join('/');
  const why =
    path.basename(given) === 'search-index.json'
      ? "the workspace's search index, as a path from the current folder"
      : `the search index; ${given} is not one`;
  return fs.existsSync(wanted)
    ? `Did you mean --index ${shellWord(shown)}? (${why})`
    : `Did you mean --index ${shellWord(shown)}? It is not built yet: ${rebuildCommand(wanted)}`;
}

/** A workspace's search index (absolute): <outputs.chunks>/search-index.json beside its config. */
function workspaceIndexOf(config: string): string {
  let chunks = 'chunks';
  try {
    const raw = JSON.parse(readConfig(config)) as { outputs?: { chunks?: unknown } };
    if (typeof raw.outputs?.chunks === 'string') chunks = raw.outputs.chunks;
  } catch {
    // An invalid config names no folder: the default one.
  }
  return path.join(path.dirname(config), chunks, 'search-index.json');
}

/** The nearest workspace config at or above an index file's folder, or null. */
function workspaceConfigAbove(indexPath: string): string | null {
  return findConfigUpward(path.dirname(path.resolve(indexPath)));
}

/**
 * The exact build command for the search index at `indexPath`, run from here: found via the workspace
 * config above it, with --config when that is not the workspace this folder is in.
 */
export function rebuildCommand(indexPath: string): string {
  const absolute = path.resolve(indexPath);
  const config = workspaceConfigAbove(absolute);
  if (config !== null) {
    const target = path
      .relative(path.dirname(config), path.join(path.dirname(absolute), 'search-index.json'))
      .split(path.sep)
      .join('/');
    if (findConfigUpward(process.cwd()) === config) return `episteme build ${target}`;
    return `episteme build --config ${shellWord(path.relative(process.cwd(), config).split(path.sep).join('/'))} ${target}`;
  }
  // No config: every command that writes remembers a workspace given by a file (config/remember-workspace.ts),
  // so this one's map or manifest came from stdin, which no config can name: it is rebuilt the same way;
  // unless no build state is beside it either: then the index was copied out of its workspace.
  const root = path.dirname(path.dirname(absolute));
  const folder = path.relative(process.cwd(), root).split(path.sep).join('/') || '.';
  if (!fs.existsSync(path.join(root, '.episteme')))
    return (
      'in the workspace it was built in (none is above it: it was copied out of one), then copy its chunks folder ' +
      'whole (search-index.json, its segments, index.json)'
    );
  return `from ${shellWord(folder)}, as it was made (its map or manifest came from stdin), e.g. cat MAP.json | episteme build --map -`;
}
