import * as fs from 'node:fs';
import * as path from 'node:path';
import { CONFIG_FILE_NAME } from './names.js';

/**
 * The workspace config a command uses when not given --config: the nearest episteme.json in the
 * current folder or a folder above it, as git finds .git and npm finds package.json. Returns its
 * absolute path, or null when no folder up to the file system root holds one. A folder named
 * episteme.json does not count.
 */
export function findConfigUpward(cwd: string): string | null {
  let dir = path.resolve(cwd);
  for (;;) {
    const candidate = path.join(dir, CONFIG_FILE_NAME);
    try {
      if (!fs.statSync(candidate).isDirectory()) return candidate;
    } catch (error) {
      // A dangling link or a loop is there, just unreadable: loading it says what it is.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') return candidate;
      if (fs.lstatSync(candidate, { throwIfNoEntry: false }) !== undefined) return candidate;
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}
