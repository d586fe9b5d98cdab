import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

let cachedRoot: string | undefined;

/**
 * The package root (where rules/ and schema/ live). Compiled modules sit at dist/src/extract/, so the
 * root is three levels up; walking up to the first package.json also works when run from elsewhere.
 */
export function packageRoot(): string {
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

export function rulesDir(): string {
  return path.join(packageRoot(), 'rules');
}

export function schemaPath(name: string): string {
  return path.join(packageRoot(), 'schema', name);
}
