import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as fs from 'node:fs';
import { EpistemeError } from '../failure.js';
import { ownedFolderAbove, realpathOrSelf } from './owned-folders.js';

/**
 * The remote cache URL (`--remote-cache`, config `remoteCache`), checked once and whole where it is
 * given: before a build's no-op fast path for the flag, when the config is read for the config's. So
 * a URL is refused the same way whatever the state of the workspace, and never by an internal error
 * from the first place that decodes it. Messages never quote a credential: the URL is shown without
 * its user info and query (displayUrl), and a text that does not parse is not shown at all.
 */
export type CacheLocation =
  /** A Bazel HTTP cache; the user info percent-decoded (it becomes a Basic Authorization header). */
  | { kind: 'http'; url: URL; username: string; password: string }
  /** A local folder with the same layout (absolute). */
  | { kind: 'folder'; url: URL; folder: string };

/** Why a text is no remote cache URL, and how to write one; neither quotes a credential. */
export interface CacheUrlDefect {
  /** The URL as messages show it (displayUrl), or null when it does not parse. */
  shown: string | null;
  defect: string;
  fix: string;
}

const EXAMPLES = 'e.g. https://cache.example.com/episteme (a Bazel HTTP cache) or file:///var/cache/episteme (a local folder)';
const MALFORMED = 'a malformed percent-escape (a % not followed by two hex digits)';

export function parseCacheUrl(text: string): CacheLocation | CacheUrlDefect {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { shown: null, defect: 'not an absolute URL', fix: `Give an http://, https:// or file:// URL, ${EXAMPLES}.` };
  }
  const defect = (why: string, fix: string): CacheUrlDefect => ({ shown: displayUrl(url), defect: why, fix });
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const username = percentDecoded(url.username);
    const password = percentDecoded(url.password);
    if (username === null || password === null)
      return defect(
        `its ${username === null ? 'user name' : 'password'} has ${MALFORMED}`,
        'Write a % in the user info as %25, or drop the credentials from the URL and give them as a header in ' +
          'EPISTEME_REMOTE_CACHE_HEADERS (`Authorization: Basic <base64 of user:password>`).',
      );
    return { kind: 'http', url, username, password };
  }
  if (url.protocol === 'file:') {
    const fix = 'Name the folder by its absolute path, each / written as is and a % as %25, e.g. file:///var/cache/episteme.';
    if (url.host !== '') return defect(`a file:// URL names a folder on this machine, not one on host ${url.host}`, fix);
    if (/%2f/i.test(url.pathname)) return defect('its path holds an encoded / (%2F), which no folder name can hold', fix);
    let folder: string;
    try {
      folder = fileURLToPath(url);
    } catch {
      return defect(`its path has ${MALFORMED}`, fix);
    }
    if (folder.includes('\0')) return defect('its path holds an encoded NUL (%00), which no folder name can hold', fix);
    return { kind: 'folder', url, folder: path.resolve(folder) };
  }
  return defect(`a ${url.protocol}// URL, not http://, https:// or file://`, `Give an http://, https:// or file:// URL, ${EXAMPLES}.`);
}

/**
 * The location a remote cache URL names, or the error that refuses it: `usage-error` for the flag,
 * `config-invalid` (field remoteCache) for the config's.
 */
export function checkedCacheUrl(text: string, origin: { flag: string } | { configFile: string }): CacheLocation {
  const location = parseCacheUrl(text);
  if ('kind' in location) return location;
  const shown = location.shown === null ? '' : ` ${location.shown}`;
  if ('flag' in origin)
    throw new EpistemeError('usage-error', `The remote cache URL${shown} (${origin.flag}) is unusable: ${location.defect}.`, {
      hint: location.fix,
      details: { flag: origin.flag },
    });
  throw new EpistemeError(
    'config-invalid',
    `The remote cache URL${shown} (remoteCache in ${origin.configFile}) is unusable: ${location.defect}.`,
    {
      hint: `Fix remoteCache in ${origin.configFile}. ${location.fix}`,
      details: { file: origin.configFile, field: 'remoteCache' },
    },
  );
}

/** A cache URL for messages: no user info, no query (either may hold a credential). */
/**
 * Refuses a file:// cache folder that lies in a folder a workspace owns (this workspace's output folders
 * or `.episteme/`, given as `protectedFolders`, or any workspace's marked output folder), or whose
 * `ac/` or `cas/` holds one: an upload writes its entries there, so they would become files of the
 * workspace (a tree a clean build never writes, swept by its garbage collection or lost with
 * `.episteme/`), as `index --out` into an output folder would. Checked on the real path, so a
 * symbolic link does not hide it; a folder not created yet is checked by its nearest existing folder.
 */
export function checkCacheFolder(
  folder: string,
  protectedFolders: string[],
  origin: { flag: string } | { configFile: string },
  cwd: string,
): void {
  const real = realOrNearest(folder);
  const shown = (dir: string) => path.relative(cwd, dir).split(path.sep).join('/') || '.';
  let owner: string | null = null;
  for (const candidate of [real, folder]) {
    for (const dir of protectedFolders) {
      for (const owned of [dir, realpathOrSelf(dir)]) {
        const inOwned = candidate === owned || candidate.startsWith(owned + path.sep);
        const holdsOwned = ['ac', 'cas'].some((area) => {
          const written = path.join(candidate, area);
          return owned === written || owned.startsWith(written + path.sep);
        });
        if (inOwned || holdsOwned) owner ??= dir;
      }
    }
  }
  for (const candidate of [real, folder]) owner ??= ownedFolderAbove(path.join(candidate, 'cas', 'entry'));
  if (owner === null) return;
  const problem =
    `its folder ${shown(folder)} meets ${shown(owner)}, a folder a workspace owns (its committed artifacts or build state): ` +
    'an upload would write its entries there';
  const fix = "Name a folder outside the workspace's output folders and .episteme/, e.g. file:///var/cache/episteme.";
  if ('flag' in origin)
    throw new EpistemeError('usage-error', `The remote cache URL (${origin.flag}) is unusable: ${problem}.`, {
      hint: fix,
      details: { flag: origin.flag, path: shown(folder) },
    });
  throw new EpistemeError('config-invalid', `The remote cache URL (remoteCache in ${origin.configFile}) is unusable: ${problem}.`, {
    hint: `Fix remoteCache in ${origin.configFile}. ${fix}`,
    details: { file: origin.configFile, field: 'remoteCache', path: shown(folder) },
  });
}

/** The real path of `file`, or of its nearest existing folder joined with the rest. */
function realOrNearest(file: string): string {
  let rest = '';
  for (let dir = file; ; dir = path.dirname(dir)) {
    if (fs.existsSync(dir)) return path.join(realpathOrSelf(dir), rest);
    if (path.dirname(dir) === dir) return file;
    rest = rest === '' ? path.basename(dir) : path.join(path.basename(dir), rest);
  }
}

export function displayUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** The percent-decoded text of a URL component, or null when an escape is malformed. */
function percentDecoded(text: string): string | null {
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}
