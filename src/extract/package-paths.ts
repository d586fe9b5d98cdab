import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILTIN_RULES } from '../generated/builtin-rules.js';

let cachedRoot: string | undefined;

/**
 * The package root (where rules/ lives) when this code runs from files. Compiled modules sit at
 * dist/src/extract/, so the root is three levels up; walking up to the first package.json also works
 * from the bundle. Undefined when the code was loaded from a URL (`deno run https://...`, `jsr:`):
 * there is no folder to read.
 */
function packageRoot(): string | undefined {
  if (!import.meta.url.startsWith('file:')) return undefined;
  if (cachedRoot !== undefined) return cachedRoot;
  const here = path.dirname(fileURLToPath(import.meta.url));
  const direct = path.resolve(here, '../../..');
  if (existsSync(path.join(direct, 'rules')) && existsSync(path.join(direct, 'package.json'))) {
    cachedRoot = direct;
    return direct;
  }
  let dir = here;
  for (;;) {
    if (existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'rules'))) {
      cachedRoot = dir;
      return dir;
    }
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  cachedRoot = direct;
  return direct;
}

/**
 * The rules/ folder the family rules are read from, or undefined when there is none: then the copy
 * of rules/ built into the code (builtinRules) is used. A checkout or an npm install reads the
 * folder, so an edited rules file takes effect (and invalidates, through its stamp) without a
 * rebuild; a CLI loaded from a URL has only the built-in copy, the one its package version shipped.
 */
export function rulesDir(): string | undefined {
  const root = packageRoot();
  if (root === undefined) return undefined;
  const dir = path.join(root, 'rules');
  return existsSync(dir) ? dir : undefined;
}

/**
 * The rules files on disk, sorted by code unit; none when the code uses its built-in copy (which
 * changes only with the code). What the no-op proof stamps and what watch follows.
 */
export function rulesFilesOnDisk(): string[] {
  const dir = rulesDir();
  if (dir === undefined) return [];
  try {
    return readdirSync(dir)
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => path.join(dir, name));
  } catch {
    return [];
  }
}

/** rules/ as it was when the code was built: file name -> text. */
export function builtinRules(): Readonly<Record<string, string>> {
  return BUILTIN_RULES;
}
