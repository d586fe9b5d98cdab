import * as path from 'node:path';
import { CONFIG_FILE_NAME, DEFAULT_OUTPUTS } from '../store/names.js';
import { createFileExclusive } from '../store/atomic-file.js';
import type { Workspace, WorkspaceFlags } from './workspace.js';

/**
 * A workspace given only by --map or --manifest is remembered: the first command that writes into it
 * (build, pipeline, a one-stage command, watch, diff) writes episteme.json naming them (paths
 * relative to the workspace root, and an output folder moved by --snapshots), so every later command
 * run in the folder or below it (`episteme build`, `episteme query`, each hint a message prints) finds
 * the workspace without the flags, as `npm init` leaves a package.json. Returns the config's
 * workspace-relative path when it wrote one, else null: the workspace already has a config, a flag
 * reads stdin (which a config cannot name), or the file appeared meanwhile (linked into place, never
 * overwritten). A folder that refuses the write is left as it is: the build that follows says
 * why it cannot write.
 */
export function rememberWorkspace(ws: Workspace, flags: WorkspaceFlags): string | null {
  if (ws.configFile !== null || flags.config !== undefined || flags.map === '-' || flags.manifest === '-') return null;
  if (ws.mapFile === null && ws.manifestFile === null) return null;
  const config: { manualIngest?: string; manifest?: string; outputs?: Record<string, string> } = {};
  if (ws.mapFile !== null) config.manualIngest = ws.mapFile;
  if (ws.manifestFile !== null) config.manifest = ws.manifestFile;
  const moved = Object.entries(ws.outputs).filter(([stage, dir]) => DEFAULT_OUTPUTS[stage as keyof typeof DEFAULT_OUTPUTS] !== dir);
  if (moved.length > 0) config.outputs = Object.fromEntries(moved);
  const file = path.join(ws.root, CONFIG_FILE_NAME);
  // Linked into place whole: a crash or a full disk mid-write leaves no config or the whole one, never
  // an empty or torn episteme.json that every later command in the folder would refuse as invalid.
  try {
    if (!createFileExclusive(file, `${JSON.stringify(config, null, 2)}\n`)) return null;
  } catch {
    return null;
  }
  ws.configFile = CONFIG_FILE_NAME;
  return CONFIG_FILE_NAME;
}

/** What a command says when it wrote the config: which flags it named, which later commands can drop. */
export function rememberedLine(shownConfig: string, flags: WorkspaceFlags & { snapshots?: string | undefined }): string {
  const given = [
    ['--map', 'the map', flags.map],
    ['--manifest', 'the manifest', flags.manifest],
    ['--snapshots', 'the snapshot folder', flags.snapshots],
  ].filter(([, , value]) => value !== undefined);
  const names = given.map(([, name]) => name!);
  const and = (items: string[], word: string) =>
    items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} ${word} ${items.at(-1)}`;
  return (
    `wrote ${shownConfig}, naming ${and(names, 'and')}: ` +
    `commands run here or below need no ${and(
      given.map(([flag]) => flag!),
      'or',
    )} from now on`
  );
}
