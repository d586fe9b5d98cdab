import * as fs from 'node:fs';
import * as path from 'node:path';
import { EpistemeError } from '../failure.js';
import { describeFileKind, readBoundedFile } from '../store/bounded-read.js';
import { compareCodeUnits } from '../store/canonical-json.js';
import { DEFAULT_MAX_INPUT_BYTES } from '../store/bounded-input.js';
import { loadFamilies, parseFamilyRules, type LoadedFamily } from '../extract/families.js';
import { checkReadFolder, type OwnedFolder } from './owned-folders.js';
import type { ShapingFiles } from './shaping-files.js';

/** At most this many rules files in a workspace's rules folder: a folder of 100,000 files is refused. */
export const MAX_WORKSPACE_RULES_FILES = 256;

/**
 * A workspace's own extraction families: every `*.json` in the folder episteme.json names as "rules",
 * each validated against schema/rules.schema.json like a built-in family and recorded with its
 * workspace-relative path, which enters the extraction config (so editing one file re-extracts exactly
 * that family's documents). The folder obeys the workspace boundary: inside the workspace, reached
 * through real folders only, not an output folder or .episteme (nor inside one), and its files are
 * regular files (a symbolic link is refused, not followed) read with a byte bound. A workspace family
 * may not reuse a built-in family's id.
 */
export function loadWorkspaceFamilies(
  root: string,
  relative: string,
  owned: readonly OwnedFolder[],
  /** Each file and the folder as found just before it was read (workspace.ts ShapingFiles). */
  shaping: ShapingFiles,
): { families: LoadedFamily[]; folder: string; files: string[] } {
  const folder = checkReadFolder(root, 'rules', relative, owned);
  const absolute = path.join(root, folder);
  shaping.stat(absolute);
  let names: string[];
  try {
    names = fs
      .readdirSync(absolute)
      .filter((name) => name.endsWith('.json'))
      .sort(compareCodeUnits);
  } catch (error) {
    throw new EpistemeError(
      'config-invalid',
      `The rules folder ${folder} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'}).`,
      {
        details: { field: 'rules', path: folder },
      },
    );
  }
  if (names.length > MAX_WORKSPACE_RULES_FILES) {
    throw new EpistemeError(
      'config-invalid',
      `The rules folder ${folder} holds ${names.length} .json files; at most ${MAX_WORKSPACE_RULES_FILES} are read.`,
      {
        details: { field: 'rules', path: folder },
      },
    );
  }
  const builtIn = new Set(loadFamilies().map((f) => f.rules.id));
  const families: LoadedFamily[] = [];
  const files: string[] = [];
  for (const name of names) {
    const shown = `${folder}/${name}`;
    const file = path.join(absolute, name);
    const stat = fs.lstatSync(file, { throwIfNoEntry: false });
    if (stat === undefined) continue;
    shaping.foundAs(file, stat);
    if (!stat.isFile()) {
      throw new EpistemeError(
        'config-invalid',
        `Extraction rules file ${shown} is ${describeFileKind(stat)}; a rules folder holds regular files only (links are not followed).`,
        {
          details: { field: 'rules', file: shown },
        },
      );
    }
    const rules = parseFamilyRules(
      readBoundedFile(file, { label: 'Extraction rules file', maxBytes: DEFAULT_MAX_INPUT_BYTES }),
      shown,
      name,
    );
    if (builtIn.has(rules.id)) {
      throw new EpistemeError(
        'config-invalid',
        `Extraction rules file ${shown} declares family "${rules.id}", which is built in; give the workspace family its own id.`,
        {
          details: { field: 'id', file: shown },
        },
      );
    }
    families.push({ rules, file: name, workspaceFile: shown });
    files.push(file);
  }
  return { families, folder, files };
}
