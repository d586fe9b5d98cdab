import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CommandClass } from 'clipanion';
import { REPO_ROOT } from './rig.js';

/** Every command class the compiled CLI modules export (a class with static paths), main.js aside. */
export async function commandClasses(): Promise<CommandClass[]> {
  const folder = path.join(REPO_ROOT, 'dist/src/cli');
  const found: CommandClass[] = [];
  for (const file of fs
    .readdirSync(folder)
    .filter((name) => name.endsWith('.js'))
    .sort()) {
    if (file === 'main.js') continue;
    const module = (await import(pathToFileURL(path.join(folder, file)).href)) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      if (typeof value === 'function' && Array.isArray((value as { paths?: unknown }).paths)) found.push(value as CommandClass);
    }
  }
  return found;
}
